"""What a forward pass keeps: each layer's intermediates (LayerTrace) and the whole pass's (Trace), with what a page\nreads from them (the stacked weights, the hidden states, the next tokens). attention/trace.py computes them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np

from . import ops
from .model import ModelConfig, frozen
from .tokens import Token

MASKS = ("none", "causal")


MaskKind = Literal["none", "causal"]


@dataclass(frozen=True, eq=False)
class LayerTrace:
    """Everything one layer computed. Rows are always queries."""

    index: int
    x: np.ndarray  # (n_tokens, d_model): e, the embeddings entering this layer (the residual stream)
    attention_input: np.ndarray  # (n_tokens, d_model): what the heads read: e (BERT) or LayerNorm(e) (GPT-2)
    q: np.ndarray  # (n_heads, n_tokens, d_head); rotated by position where positions are rotary
    k_shared: np.ndarray  # (n_kv_heads, n_tokens, d_head): each key/value head's keys, rotated like q
    v_shared: np.ndarray  # (n_kv_heads, n_tokens, d_head)
    scores: np.ndarray  # (n_heads, n_tokens, n_tokens): raw q·k, unscaled and unmasked
    mask: np.ndarray  # (n_tokens, n_tokens) bool: True where a query may not see a key (its window's too)
    weights: np.ndarray  # (n_heads, n_tokens, n_tokens): softmax of the scaled, masked scores
    head_outputs: np.ndarray  # (n_heads, n_tokens, d_head): weights @ v
    w_o_heads: np.ndarray  # (n_heads, d_head, d_model): each head's slice of W_O (shared with the model)
    b_o: np.ndarray  # (d_model,)
    attention_output: np.ndarray  # (n_tokens, d_model): Concat(heads) W_O + b_O = Σ_h Δe^(h) + b_O
    updated: np.ndarray  # (n_tokens, d_model): after the attention sub-layer (see the module's docstring)
    ffn_output: np.ndarray  # (n_tokens, d_model): the feed-forward network's output
    output: np.ndarray  # (n_tokens, d_model): the next layer's e
    window: int = 0  # the keys a query reads back, itself included, on a local layer; 0 on a global one

    @property
    def d_head(self) -> int:
        return self.q.shape[-1]

    @property
    def group_size(self) -> int:
        """How many query heads share each key/value head (1 without grouped-query attention)."""
        return self.q.shape[0] // self.k_shared.shape[0]

    def kv_head_of(self, head: int) -> int:
        return head // self.group_size

    @property
    def k(self) -> np.ndarray:
        """(n_heads, n_tokens, d_head): the keys each query head reads (its group's shared ones)."""
        return ops.share_kv(self.k_shared, self.q.shape[0])

    @property
    def v(self) -> np.ndarray:
        """(n_heads, n_tokens, d_head): the values each query head reads."""
        return ops.share_kv(self.v_shared, self.q.shape[0])

    def score_steps(self, head: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Raw, scaled and masked scores and the weights: one head's (n_tokens, n_tokens), or with no head
        every head's (n_heads, n_tokens, n_tokens). The middle two are derived when asked for, not stored."""
        raw = self.scores if head is None else self.scores[head]
        scaled = ops.scale(raw, self.d_head)
        return raw, scaled, ops.apply_mask(scaled, self.mask), self.weights if head is None else self.weights[head]

    @property
    def scaled(self) -> np.ndarray:
        """(n_heads, n_tokens, n_tokens): scores / √d_head."""
        return self.score_steps()[1]

    @property
    def masked(self) -> np.ndarray:
        """(n_heads, n_tokens, n_tokens): scaled scores with −∞ where the mask hides a key."""
        return self.score_steps()[2]

    @property
    def displacement(self) -> np.ndarray:
        """(n_heads, n_tokens, d_model): Δe^(h), each head's proposed change to every token."""
        return ops.displacement(self.head_outputs, self.w_o_heads)

    @property
    def delta_sum(self) -> np.ndarray:
        """(n_tokens, d_model): the heads' summed change Σ_h Δe^(h), as the forward pass computed it, Concat(heads)
        W_O with the whole W_O (b_O not included)."""
        return self.attention_output - self.b_o


@dataclass(frozen=True)
class Prediction:
    """One next token a decoder finds likely, and how likely."""

    token: str  # in the tokenizer's own spelling ("Ġforest": GPT-2 writes a leading space as Ġ); see tokens.readable
    id: int
    probability: float


@dataclass(frozen=True, eq=False)
class Trace:
    text: str
    model_name: str
    config: ModelConfig  # the architecture that computed it
    mask_kind: MaskKind
    native_mask: MaskKind  # the mask the model was trained with
    tokens: tuple[Token, ...]
    n_dropped: int  # tokens cut at the model's limit; never silently
    chars_dropped: int  # characters cut from a huge paste before tokenizing
    embeddings: np.ndarray  # (n_tokens, d_model): the input embeddings e
    layers: tuple[LayerTrace, ...]
    final: np.ndarray | None  # (n_tokens, d_model): GPT-2's LayerNorm after the last layer; None for BERT
    vocabulary: tuple[str, ...] | None  # token text by id, for reading next_logits
    pooling: str
    normalize: bool
    # a decoder's output head (Model.logits), run only when a page reads next_logits: a lesson that traces a text
    # many times over (distances, shuffles) never does, and Gemma 3's head is a 262,144-row product
    head: Callable[[np.ndarray], np.ndarray] | None = field(default=None, repr=False)

    @property
    def n_tokens(self) -> int:
        return len(self.tokens)

    @cached_property
    def next_logits(self) -> np.ndarray | None:
        """(vocab_size,): the last position's scores for the next token; None for BERT."""
        if self.final is None or self.head is None:
            return None
        return frozen(self.head(self.final[-1:])[0])

    @property
    def truncated(self) -> bool:
        return self.n_dropped > 0 or self.chars_dropped > 0

    @property
    def nbytes(self) -> int:
        """The memory this trace holds of its own: the model's weights it points to are not counted, its stacks of
        every layer's scores, weights or hidden states are, once they are made, and a decoder's next-token scores
        are, made or not."""
        owned = [self.embeddings, self.final]
        for layer in self.layers:
            owned += [
                layer.x,
                layer.attention_input,
                layer.q,
                layer.k_shared,
                layer.v_shared,
                layer.scores,
                layer.mask,
                layer.weights,
            ]
            owned += [layer.head_outputs, layer.attention_output, layer.updated, layer.ffn_output, layer.output]
        owned += [self.__dict__.get(name) for name in ("scores", "weights", "hidden")]  # made once asked for
        unique = {id(a): a for a in owned if a is not None}  # BERT's attention input is x itself
        head = 4 * len(self.vocabulary) if self.head is not None else 0  # next_logits, counted before it is made
        return sum(a.nbytes for a in unique.values()) + head + len(self.text) * 4

    @property
    def mask_is_real(self) -> bool:
        """False when the mask is a counterfactual: not the one the model was trained with."""
        return self.mask_kind == self.native_mask

    @cached_property
    def scores(self) -> np.ndarray:
        """(n_layers, n_heads, n_tokens, n_tokens): every layer's raw q·k."""
        return frozen(np.stack([layer.scores for layer in self.layers]))

    @cached_property
    def weights(self) -> np.ndarray:
        """(n_layers, n_heads, n_tokens, n_tokens): every layer's weights, after scale, mask and softmax."""
        return frozen(np.stack([layer.weights for layer in self.layers]))

    @cached_property
    def hidden(self) -> np.ndarray:
        """(n_layers + 1, n_tokens, d_model), as transformers' output_hidden_states: the embeddings, then each
        layer's output, the last one after GPT-2's final LayerNorm."""
        outputs = [layer.output for layer in self.layers]
        if self.final is not None:
            outputs[-1] = self.final
        return frozen(np.stack([self.embeddings, *outputs]))

    @property
    def displacement(self) -> np.ndarray:
        """(n_layers, n_heads, n_tokens, d_model)."""
        return np.stack([layer.displacement for layer in self.layers])

    @property
    def sentence_embedding(self) -> np.ndarray:
        """(d_model,): an encoder's pooled (and, if the model does, normalized) sentence vector."""
        last = self.layers[-1].output
        pooled = {"cls": lambda: last[0], "max": lambda: last.max(axis=0)}.get(
            self.pooling, lambda: last.mean(axis=0)
        )()
        return pooled / np.linalg.norm(pooled) if self.normalize else pooled

    def next_tokens(self, top: int = 10, temperature: float = 1.0) -> list[Prediction]:
        """The `top` most likely next tokens after the last position: softmax(logits / temperature)."""
        if self.next_logits is None:
            raise ValueError(f"{self.model_name} is an encoder: it has no head that predicts the next token.")
        if not temperature > 0:
            raise ValueError("The temperature must be above 0.")
        probabilities = ops.softmax(self.next_logits.astype(np.float64) / temperature)
        best = np.argsort(-probabilities, kind="stable")[:top]
        return [Prediction(self.vocabulary[i], int(i), float(probabilities[i])) for i in best]
