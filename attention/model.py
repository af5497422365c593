"""What a model is to the engine: its sizes and its weights as plain, read-only numpy arrays.

Two architectures, one set of names (the lesson's):
- "bert", an encoder (all-MiniLM-L6-v2): LayerNorm after each sub-layer, no mask, exact GELU.
- "gpt2", a decoder: LayerNorm before each sub-layer, a causal mask, the tanh GELU, a final LayerNorm
  and an output head tied to the token embeddings.

Every matrix is stored (d_in, d_out), so that a layer is `x @ w + b` for rows of tokens, as in the
paper's Q = X W_Q. Loading them is loading.py's job.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any, Literal

import numpy as np

Arch = Literal["bert", "gpt2"]
DEFAULT_MODEL = "all-MiniLM-L6-v2"


class ModelError(RuntimeError):
    """The model could not be loaded; the message says what to do."""


class ModelUnavailableError(ModelError):
    """The model's files are not on this machine (missing package, wrong path, no network)."""


class UnsupportedModelError(ModelError):
    """The files hold a model this engine does not read (not a BERT encoder or a GPT-2 decoder)."""


def frozen(a: Any, dtype: Any = None) -> np.ndarray:
    """A read-only contiguous array: every array the engine keeps is one."""
    out = np.ascontiguousarray(a if dtype is None else np.asarray(a, dtype=dtype))
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class ModelConfig:
    name: str
    arch: Arch
    n_layers: int
    n_heads: int
    d_model: int
    d_head: int
    d_ff: int
    max_tokens: int  # the most tokens the model reads at once, special tokens included
    max_positions: int  # rows of the learned position-embedding table
    vocab_size: int
    layer_norm_eps: float
    activation: Literal["gelu", "gelu_tanh"]  # the feed-forward network's GELU: exact, or its tanh approximation
    pooling: str = "mean"  # how sentence-transformers pools an encoder's tokens into one sentence vector
    normalize: bool = False  # whether it then scales that vector to length 1

    @property
    def is_decoder(self) -> bool:
        return self.arch == "gpt2"

    @property
    def native_mask(self) -> str:
        """The mask the model was trained with: a decoder's is causal, an encoder's hides nothing."""
        return "causal" if self.is_decoder else "none"


@dataclass(frozen=True)
class Norm:
    """A LayerNorm's learned scale and shift, (d_model,) each."""

    gamma: np.ndarray
    beta: np.ndarray


@dataclass(frozen=True)
class EmbeddingWeights:
    word: np.ndarray  # (vocab_size, d_model): W_E, one row per token id
    position: np.ndarray  # (max_positions, d_model): P, one row per position
    token_type: np.ndarray | None  # (n_token_types, d_model): BERT's segment vectors; None for GPT-2
    norm: Norm | None  # BERT normalizes the summed embeddings; GPT-2 does not


@dataclass(frozen=True)
class LayerWeights:
    """One transformer block. Matrices are (d_in, d_out)."""

    w_q: np.ndarray  # (d_model, n_heads * d_head)
    b_q: np.ndarray  # (n_heads * d_head,)
    w_k: np.ndarray
    b_k: np.ndarray
    w_v: np.ndarray
    b_v: np.ndarray
    w_o: np.ndarray  # (n_heads * d_head, d_model)
    b_o: np.ndarray  # (d_model,)
    norm_attention: Norm  # BERT: after attention + residual; GPT-2: before attention (ln_1)
    w_ff1: np.ndarray  # (d_model, d_ff)
    b_ff1: np.ndarray
    w_ff2: np.ndarray  # (d_ff, d_model)
    b_ff2: np.ndarray
    norm_ffn: Norm  # BERT: after feed-forward + residual; GPT-2: before the feed-forward (ln_2)

    def w_o_heads(self, n_heads: int) -> np.ndarray:
        """W_O cut into each head's rows: (n_heads, d_head, d_model). Head h's output times its slice is Δe^(h)."""
        return frozen(self.w_o.reshape(n_heads, -1, self.w_o.shape[1]))


@dataclass(frozen=True, eq=False)
class Model:
    config: ModelConfig
    embeddings: EmbeddingWeights
    layers: tuple[LayerWeights, ...]
    final_norm: Norm | None  # GPT-2's ln_f, applied before the output head; None for BERT
    tokenizer: Any  # a `tokenizers.Tokenizer`: the model's own fast tokenizer, truncation and padding off

    @cached_property
    def w_o_heads(self) -> tuple[np.ndarray, ...]:
        """Each layer's W_O cut per head, made once and shared by every trace."""
        return tuple(w.w_o_heads(self.config.n_heads) for w in self.layers)

    @cached_property
    def vocabulary(self) -> tuple[str, ...]:
        """Each token id's text, as the tokenizer spells it."""
        texts = [""] * self.config.vocab_size
        for text, i in self.tokenizer.get_vocab(with_added_tokens=True).items():
            if i < len(texts):
                texts[i] = text
        return tuple(texts)

    @property
    def n_parameters(self) -> int:
        """Every learned number (the output head is tied to the word embeddings, so it adds none)."""
        arrays = [self.embeddings.word, self.embeddings.position, self.embeddings.token_type]
        norms = [self.embeddings.norm, self.final_norm]
        for layer in self.layers:
            arrays += [getattr(layer, f.name) for f in fields(LayerWeights) if not f.name.startswith("norm")]
            norms += [layer.norm_attention, layer.norm_ffn]
        arrays += [a for n in norms if n is not None for a in (n.gamma, n.beta)]
        return int(sum(a.size for a in arrays if a is not None))
