"""Reading a model from a folder: `config.json`, `model.safetensors` and `tokenizer.json`, as Hugging Face and
sentence-transformers save them. One reader per family turns its tensors' names into the engine's (model.py):
BERT encoders, GPT-2, Llama-family and Qwen2 decoders; `READERS` maps config.json's model_type to it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import families
from .families import SUPPORTED
from .files import read_safetensors
from .gguf_model import decoder_model, with_added_tokens
from .model import (
    EmbeddingWeights,
    LayerWeights,
    Model,
    ModelConfig,
    ModelUnavailableError,
    Norm,
    UnsupportedModelError,
    frozen,
)


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
    config = families.config(
        "bert",
        name,
        n_layers=cfg["num_hidden_layers"],
        n_heads=cfg["num_attention_heads"],
        n_kv_heads=cfg["num_attention_heads"],
        d_model=cfg["hidden_size"],
        d_head=cfg["hidden_size"] // cfg["num_attention_heads"],
        d_ff=cfg["intermediate_size"],
        max_tokens=min(lay.max_seq_length or n_positions, n_positions),
        vocab_size=cfg["vocab_size"],
        norm_eps=float(cfg.get("layer_norm_eps", 1e-12)),
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
    config = families.config(
        "gpt2",
        name,
        n_layers=cfg["n_layer"],
        n_heads=cfg["n_head"],
        n_kv_heads=cfg["n_head"],
        d_model=d_model,
        d_head=d_model // cfg["n_head"],
        d_ff=cfg.get("n_inner") or 4 * d_model,
        max_tokens=cfg["n_positions"],
        vocab_size=cfg["vocab_size"],
        norm_eps=float(cfg.get("layer_norm_epsilon", 1e-5)),
        mlp=activation,
        max_positions=cfg["n_positions"],
    )
    return Model(
        config=config, embeddings=embeddings, layers=tuple(layers), final_norm=_norm(sd, "ln_f"), tokenizer=tokenizer
    )


def llama_config(cfg: dict, name: str, weights_note: str = "", kind: str = "llama") -> ModelConfig:
    """A Llama-family config.json (SmolLM2's, TinyLlama's; Qwen2's with kind "qwen2") in the engine's fields."""
    rope = cfg.get("rope_parameters") or {}  # transformers 5 writes the base here; older files at the top
    scaled = cfg.get("rope_scaling") or rope.get("rope_type", "default") != "default"
    windowed = cfg.get("use_sliding_window") or "sliding_attention" in (cfg.get("layer_types") or ())
    if cfg.get("hidden_act", "silu") != "silu" or scaled or cfg.get("attention_bias") or windowed:
        raise UnsupportedModelError(
            f"'{name}' changes Llama's MLP, rotary positions, biases or reach; this explainer reads {SUPPORTED}."
        )
    n_heads, d_model = cfg["num_attention_heads"], cfg["hidden_size"]
    return families.config(
        kind,
        name,
        n_layers=cfg["num_hidden_layers"],
        n_heads=n_heads,
        n_kv_heads=cfg.get("num_key_value_heads") or n_heads,
        d_model=d_model,
        d_head=cfg.get("head_dim") or d_model // n_heads,
        d_ff=cfg["intermediate_size"],
        max_tokens=cfg.get("max_position_embeddings", 2048),
        vocab_size=cfg["vocab_size"],
        norm_eps=float(cfg.get("rms_norm_eps", 1e-6)),
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
            part, _, kind = rest.rpartition(".")  # kind: weight, or bias (kept: decoder_model refuses an unasked one)
            if part in parts:
                out[f"blk.{i}.{parts[part]}.{kind}"] = value
    return out


def llama_folder_model(cfg: dict, sd: dict[str, np.ndarray], tokenizer, name: str, lay: Layout) -> Model:
    """A Llama-family folder: its names turned into GGUF's, so that one function builds the model from either."""
    return decoder_model(llama_config(cfg, name), llama_weights_hf(sd, cfg.get("tie_word_embeddings", True)), tokenizer)


def qwen2_folder_model(cfg: dict, sd: dict[str, np.ndarray], tokenizer, name: str, lay: Layout) -> Model:
    """A Qwen2 folder: Llama's names and layout, with q, k and v's biases (families.py says which it adds)."""
    config = llama_config(cfg, name, kind="qwen2")
    return decoder_model(config, llama_weights_hf(sd, cfg.get("tie_word_embeddings", False)), tokenizer)


READERS = {  # config.json's model_type -> the reader of that family's tensors
    "bert": bert_model,
    "gpt2": lambda cfg, sd, tokenizer, name, lay: gpt2_model(cfg, sd, tokenizer, name),
    "llama": llama_folder_model,
    "qwen2": qwen2_folder_model,
}


def read_folder(folder: Path, name: str) -> Model:
    """A model from a folder in the layout the engine reads (see `Layout.readable`)."""
    from tokenizers import Tokenizer

    lay = layout(folder)
    cfg = _json(lay.transformer / "config.json")
    kind = cfg.get("model_type")
    if kind not in READERS:
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
        return with_added_tokens(READERS[kind](cfg, sd, tokenizer, name, lay))
    except KeyError as exc:
        raise UnsupportedModelError(f"'{name}' lacks the weight {exc}; this explainer reads {SUPPORTED}.") from exc
