"""What a model is to the engine: its architecture as fields, and its weights as plain, read-only numpy arrays.

A family is a set of fields, as nanoGPT's GPTConfig is, never a name that the code checks:
- BERT (all-MiniLM-L6-v2): LayerNorm after each sub-layer, learned positions, exact GELU, no mask;
- GPT-2: LayerNorm before each sub-layer, learned positions, the tanh GELU, a causal mask, a final
  LayerNorm and an output head tied to the token embeddings;
- Llama (SmolLM2): RMSNorm before each sub-layer, rotary positions applied to q and k, fewer key/value
  heads than query heads (grouped-query attention), a gated SiLU MLP (SwiGLU), no biases, a causal mask.
- Gemma 3: RMSNorm before and after each sub-layer, queries and keys RMS-normalised per head (QK-norm), one
  key/value head for every query head (multi-query attention), embeddings scaled by √d_model, a gated GELU MLP
  (GeGLU), a causal mask that five layers of every six narrow to a sliding window, each kind of layer with
  its own rotary base.

Every matrix is stored (d_in, d_out), so that a layer is `x @ w + b` for rows of tokens, as in the
paper's Q = X W_Q. Loading them is loading.py's job.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import cached_property
from typing import Any, Literal

import numpy as np

DEFAULT_MODEL = "all-MiniLM-L6-v2"
# the linear layers a model may add a bias to: W_Q, W_K, W_V, W_O, and the MLP's (its up and down layers)
Bias = Literal["q", "k", "v", "o", "mlp"]
ALL_BIASES: frozenset[Bias] = frozenset(("q", "k", "v", "o", "mlp"))


class ModelError(RuntimeError):
    """The model could not be loaded; the message says what to do."""


class ModelUnavailableError(ModelError):
    """The model's files are not on this machine (missing package, wrong path, no network)."""


class UnsupportedModelError(ModelError):
    """The files hold a model this engine does not read (not a BERT encoder, a GPT-2, Llama or Gemma 3 decoder)."""


def frozen(a: Any, dtype: Any = None) -> np.ndarray:
    """A read-only contiguous array: every array the engine keeps is one."""
    out = np.ascontiguousarray(a if dtype is None else np.asarray(a, dtype=dtype))
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class ModelConfig:
    name: str
    family: str  # what a page calls it: "BERT encoder", "GPT-2 decoder", "Llama decoder"; never branched on
    n_layers: int
    n_heads: int  # query heads
    n_kv_heads: int  # key/value heads: as many as the query heads, or fewer, each shared by a group of them
    d_model: int
    d_head: int
    d_ff: int
    max_tokens: int  # the most tokens the model reads at once, special tokens included
    vocab_size: int
    norm: Literal["layer", "rms"]  # LayerNorm (mean and variance, gain and bias) or RMSNorm (root mean square, gain)
    norm_eps: float
    # after each sub-layer (BERT); before it, on a clean residual stream (GPT-2, Llama); or both, the sub-layer's
    # output normalised again before it is added to the stream (Gemma's "sandwich")
    norm_position: Literal["post", "pre", "sandwich"]
    positions: Literal["learned", "rotary"]  # a learned vector added to the embedding, or q and k rotated
    # GELU (exact or its tanh form) between two layers, or a gated one: SiLU's gate (SwiGLU), GELU's (GeGLU)
    mlp: Literal["gelu", "gelu_tanh", "swiglu", "geglu"]
    native_mask: Literal["none", "causal"]  # the mask the model was trained with
    predicts_next_token: bool  # it has an output head over the vocabulary
    # the linear layers that add a bias: all of them (BERT, GPT-2), none (Llama, Gemma 3), or some (q, k and v alone);
    # nanoGPT's GPTConfig.bias, said per matrix
    biases: frozenset[Bias] = ALL_BIASES
    max_positions: int = 0  # rows of the learned position table (0 with rotary positions)
    rope_base: float = 10_000.0  # rotary positions: the base of the frequencies θ_i = base^(−2i/d_head)
    pooling: str = "mean"  # how sentence-transformers pools an encoder's tokens into one sentence vector
    normalize: bool = False  # whether it then scales that vector to length 1
    weights_note: str = ""  # how the weights were stored, when that matters ("4-bit, as shipped")
    qk_norm: bool = False  # each head's queries and keys RMS-normalised before their dot products (Gemma 3)
    embedding_scale: float = 1.0  # e = W_E[t] × this: √d_model in Gemma, 1 elsewhere
    sliding_window: int = 0  # a local layer's reach: the query and the window − 1 keys before it; 0 without
    layer_kinds: tuple[Literal["global", "local"], ...] = ()  # each layer's, "local" = sliding window; () all global
    rope_base_local: float = 0.0  # the rotary base of local layers (Gemma 3: 10,000); 0: rope_base on every layer
    start_token: str = ""  # what the tokenizer puts before the text ("[CLS]", "<bos>"), "" for nothing
    end_token: str = ""  # and after it ("[SEP]")

    @property
    def is_decoder(self) -> bool:
        """Reads only the past and predicts the next token (GPT-2, Llama), where an encoder reads both ways."""
        return self.native_mask == "causal" and self.predicts_next_token

    def has_bias(self, matrix: Bias) -> bool:
        """Whether this linear layer adds a bias: "q", "k", "v", "o" or "mlp"."""
        if matrix not in ALL_BIASES:
            raise ValueError(f"Unknown linear layer '{matrix}': one of {', '.join(sorted(ALL_BIASES))}.")
        return matrix in self.biases

    @property
    def group_size(self) -> int:
        """How many query heads read each key/value head: 1 without grouped-query attention."""
        return self.n_heads // self.n_kv_heads

    def kv_head_of(self, head: int) -> int:
        """The key/value head that query head `head` reads (consecutive query heads share one)."""
        return head // self.group_size

    def is_local(self, layer: int) -> bool:
        """Whether this layer's attention is narrowed to a sliding window."""
        return bool(self.layer_kinds) and self.layer_kinds[layer] == "local"

    def window_of(self, layer: int) -> int:
        """How many keys back this layer's queries may read, themselves included; 0 for no limit."""
        return self.sliding_window if self.is_local(layer) else 0

    def rope_base_of(self, layer: int) -> float:
        """The rotary base this layer's queries and keys turn with."""
        return self.rope_base_local if self.is_local(layer) and self.rope_base_local else self.rope_base

    def kv_values_per_token(self) -> int:
        """Numbers a KV cache keeps for each token: a key and a value per key/value head, in every layer."""
        return 2 * self.n_layers * self.n_kv_heads * self.d_head


@dataclass(frozen=True)
class Norm:
    """A norm's learned scale, and LayerNorm's shift ((d_model,) each); RMSNorm has no shift (beta None)."""

    gamma: np.ndarray
    beta: np.ndarray | None


@dataclass(frozen=True)
class EmbeddingWeights:
    word: np.ndarray  # (vocab_size, d_model): W_E, one row per token id
    position: np.ndarray | None  # (max_positions, d_model): P, one row per position; None with rotary positions
    token_type: np.ndarray | None  # (n_token_types, d_model): BERT's segment vectors
    norm: Norm | None  # BERT normalizes the summed embeddings; the decoders do not


@dataclass(frozen=True)
class LayerWeights:
    """One transformer block. Matrices are (d_in, d_out); a bias is None where the model has none (Llama)."""

    w_q: np.ndarray  # (d_model, n_heads * d_head)
    b_q: np.ndarray | None
    w_k: np.ndarray  # (d_model, n_kv_heads * d_head)
    b_k: np.ndarray | None
    w_v: np.ndarray  # (d_model, n_kv_heads * d_head)
    b_v: np.ndarray | None
    w_o: np.ndarray  # (n_heads * d_head, d_model)
    b_o: np.ndarray | None
    norm_attention: Norm  # post: after attention + residual; pre: before attention
    w_ff1: np.ndarray  # (d_model, d_ff): the MLP's first layer (SwiGLU's "up")
    b_ff1: np.ndarray | None
    w_ff2: np.ndarray  # (d_ff, d_model): back to the model's width (SwiGLU's "down")
    b_ff2: np.ndarray | None
    norm_ffn: Norm  # post: after the MLP + residual; pre: before the MLP
    w_gate: np.ndarray | None = None  # (d_model, d_ff): a gated MLP's gate (SwiGLU, GeGLU); None for a GELU MLP
    norm_attention_out: Norm | None = None  # sandwich: the attention output's norm, before the residual
    norm_ffn_out: Norm | None = None  # sandwich: the MLP output's norm, before the residual
    norm_q: Norm | None = None  # QK-norm: (d_head,) gains of each head's query norm
    norm_k: Norm | None = None  # and of its key norm

    def w_o_heads(self, n_heads: int) -> np.ndarray:
        """W_O cut into each head's rows: (n_heads, d_head, d_model). Head h's output times its slice is Δe^(h)."""
        return frozen(self.w_o.reshape(n_heads, -1, self.w_o.shape[1]))


@dataclass(frozen=True, eq=False)
class Model:
    config: ModelConfig
    embeddings: EmbeddingWeights
    layers: tuple[LayerWeights, ...]
    final_norm: Norm | None  # a decoder's norm before the output head; None for an encoder
    tokenizer: Any  # a `tokenizers.Tokenizer`: the model's own fast tokenizer, truncation and padding off
    output: np.ndarray | None = None  # (d_model, vocab_size): an untied output head; None when it is W_Eᵀ

    @cached_property
    def w_o_heads(self) -> tuple[np.ndarray, ...]:
        """Each layer's W_O cut per head, made once and shared by every trace."""
        return tuple(w.w_o_heads(self.config.n_heads) for w in self.layers)

    @cached_property
    def zero_bias(self) -> np.ndarray:
        """(d_model,) zeros: b_O of a model without biases, so that every trace has one."""
        return frozen(np.zeros(self.config.d_model, dtype=np.float32))

    @property
    def output_head(self) -> np.ndarray:
        """(d_model, vocab_size): the matrix that turns the last vector into a score per token."""
        return self.embeddings.word.T if self.output is None else self.output

    def logits(self, x: np.ndarray) -> np.ndarray:
        """(n, d_model) -> (n, vocab_size): each row's score for every token of the vocabulary, x W_out."""
        word = self.embeddings.word
        if self.output is None and hasattr(word, "scores"):  # a tied head kept in its quantized blocks
            return word.scores(x)
        return x @ self.output_head

    @cached_property
    def vocabulary(self) -> tuple[str, ...]:
        """Each token id's text, as the tokenizer spells it."""
        texts = [""] * self.config.vocab_size
        for text, i in self.tokenizer.get_vocab(with_added_tokens=True).items():
            if i < len(texts):
                texts[i] = text
        return tuple(texts)

    @cached_property
    def token_kinds(self) -> np.ndarray:
        """(vocab_size,): each token id's kind, text or set apart by the tokenizer (text_tokens.token_kinds)."""
        from .text_tokens import token_kinds

        return token_kinds(self.tokenizer, self.config.vocab_size)

    @property
    def n_parameters(self) -> int:
        """Every learned number (a tied output head is W_E itself, so it adds none)."""
        emb = self.embeddings
        arrays = [emb.word, emb.position, emb.token_type, self.output]
        norms = [emb.norm, self.final_norm]
        for layer in self.layers:
            arrays += [getattr(layer, f.name) for f in fields(LayerWeights) if not f.name.startswith("norm")]
            norms += [getattr(layer, f.name) for f in fields(LayerWeights) if f.name.startswith("norm")]
        arrays += [a for n in norms if n is not None for a in (n.gamma, n.beta)]
        return int(sum(a.size for a in arrays if a is not None))
