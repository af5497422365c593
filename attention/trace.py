"""One forward pass in numpy that keeps every intermediate a view can show.

    e = LayerNorm(word + position + token type)                      the input embeddings
    per layer and head h:
        q, k, v      = e W_Q + b_Q, e W_K + b_K, e W_V + b_V           (n_heads, n_tokens, d_head)
        scores       = q kᵀ                                            (n_heads, n_tokens, n_tokens)
        weights      = softmax(mask(scores / √d_head))                 rows are queries
        Δe^(h)       = (weights v) W_O^(h)                             (n_heads, n_tokens, d_model)
    attention output = Σ_h Δe^(h) + b_O
    updated          = LayerNorm(e + attention output)
    output           = LayerNorm(updated + FFN(updated))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from . import ops
from .model import LayerWeights, Model
from .tokens import Token, tokenize

MASKS = ("none", "causal")
MaskKind = Literal["none", "causal"]


def _frozen(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class LayerTrace:
    """Everything one encoder layer computed. Rows are always queries."""

    index: int
    x: np.ndarray  # (n_tokens, d_model): e, the embeddings entering this layer
    q: np.ndarray  # (n_heads, n_tokens, d_head)
    k: np.ndarray  # (n_heads, n_tokens, d_head)
    v: np.ndarray  # (n_heads, n_tokens, d_head)
    scores: np.ndarray  # (n_heads, n_tokens, n_tokens): raw q·k, unscaled and unmasked
    mask: np.ndarray  # (n_tokens, n_tokens) bool: True where a query may not see a key
    weights: np.ndarray  # (n_heads, n_tokens, n_tokens): softmax of the scaled, masked scores
    head_outputs: np.ndarray  # (n_heads, n_tokens, d_head): weights @ v
    w_o_heads: np.ndarray  # (n_heads, d_head, d_model): each head's slice of W_O (shared with the model)
    b_o: np.ndarray  # (d_model,)
    attention_output: np.ndarray  # (n_tokens, d_model): Σ_h Δe^(h) + b_O
    updated: np.ndarray  # (n_tokens, d_model): LayerNorm(e + attention output)
    ffn_output: np.ndarray  # (n_tokens, d_model): the feed-forward network's output
    output: np.ndarray  # (n_tokens, d_model): LayerNorm(updated + ffn output), the next layer's e

    # Exact one-line derivations, computed when asked for rather than stored for every trace.
    @property
    def d_head(self) -> int:
        return self.q.shape[-1]

    @property
    def scaled(self) -> np.ndarray:
        """(n_heads, n_tokens, n_tokens): scores / √d_head."""
        return ops.scale(self.scores, self.d_head)

    @property
    def masked(self) -> np.ndarray:
        """(n_heads, n_tokens, n_tokens): scaled scores with −∞ where the mask hides a key."""
        return ops.apply_mask(self.scaled, self.mask)

    def score_steps(self, head: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Raw, scaled and masked scores and the weights, each step computed once: one head's
        (n_tokens, n_tokens), or with no head every head's (n_heads, n_tokens, n_tokens)."""
        raw = self.scores if head is None else self.scores[head]
        scaled = ops.scale(raw, self.d_head)
        return raw, scaled, ops.apply_mask(scaled, self.mask), self.weights if head is None else self.weights[head]

    @property
    def displacement(self) -> np.ndarray:
        """(n_heads, n_tokens, d_model): Δe^(h), each head's proposed change to every token."""
        return ops.displacement(self.head_outputs, self.w_o_heads)

    @property
    def delta_sum(self) -> np.ndarray:
        """(n_tokens, d_model): Σ_h Δe^(h), the heads' summed change (b_O not included)."""
        return self.attention_output - self.b_o

    @property
    def residual(self) -> np.ndarray:
        """(n_tokens, d_model): e + Σ_h Δe^(h) + b_O, what the LayerNorm receives."""
        return self.x + self.attention_output


@dataclass(frozen=True, eq=False)
class Trace:
    text: str
    model_name: str
    mask_kind: MaskKind  # "causal" is an illustration: this encoder was trained without it
    tokens: tuple[Token, ...]
    n_dropped: int  # tokens cut at the model's limit; never silently
    chars_dropped: int  # characters cut from a huge paste before tokenizing
    embeddings: np.ndarray  # (n_tokens, d_model): hidden[0], the input embeddings e
    layers: tuple[LayerTrace, ...]
    # every layer's in one array, of which each LayerTrace holds its own slice
    scores: np.ndarray  # (n_layers, n_heads, n_tokens, n_tokens): raw q·k
    weights: np.ndarray  # (n_layers, n_heads, n_tokens, n_tokens): after scale, mask and softmax
    pooling: str
    normalize: bool

    @property
    def n_tokens(self) -> int:
        return len(self.tokens)

    @property
    def truncated(self) -> bool:
        return self.n_dropped > 0 or self.chars_dropped > 0

    @property
    def hidden(self) -> np.ndarray:
        """(n_layers + 1, n_tokens, d_model): the embeddings, then every layer's output."""
        return np.stack([self.embeddings] + [layer.output for layer in self.layers])

    @property
    def displacement(self) -> np.ndarray:
        """(n_layers, n_heads, n_tokens, d_model)."""
        return np.stack([layer.displacement for layer in self.layers])

    @property
    def sentence_embedding(self) -> np.ndarray:
        """(d_model,): the pooled (and, if the model does, normalized) sentence vector."""
        last = self.layers[-1].output
        pooled = last[0] if self.pooling == "cls" else last.mean(axis=0)
        return pooled / np.linalg.norm(pooled) if self.normalize else pooled


def embed(model: Model, ids: list[int], positions: bool = True) -> np.ndarray:
    """e = LayerNorm(word + position + token type): (n_tokens, d_model).

    positions=False leaves the position vectors out: the counterfactual in which attention cannot
    tell word order.
    """
    emb = model.embeddings
    n = len(ids)
    x = emb.word[ids] + emb.token_type[0]
    if positions:
        x = x + emb.position[:n]
    return ops.layer_norm(x, emb.ln_gamma, emb.ln_beta, model.config.layer_norm_eps)


def make_mask(kind: str, n_tokens: int) -> np.ndarray:
    if kind == "none":
        return ops.no_mask(n_tokens)
    if kind == "causal":
        return ops.causal_mask(n_tokens)
    raise ValueError(f"Unknown mask '{kind}': choose one of {', '.join(MASKS)}.")


def layer_forward(
    index: int, x: np.ndarray, w: LayerWeights, w_o_heads: np.ndarray, eps: float, mask: np.ndarray,
    scores_out: np.ndarray | None = None, weights_out: np.ndarray | None = None,
) -> LayerTrace:
    """One encoder layer; scores_out and weights_out, if given, are where its scores and weights are written."""
    n_heads = w_o_heads.shape[0]
    q = ops.split_heads(ops.linear(x, w.w_q, w.b_q), n_heads)  # (n_heads, n_tokens, d_head)
    k = ops.split_heads(ops.linear(x, w.w_k, w.b_k), n_heads)
    v = ops.split_heads(ops.linear(x, w.w_v, w.b_v), n_heads)
    s = ops.scores(q, k, out=scores_out)  # (n_heads, n_tokens, n_tokens)
    # scaled, then masked, then softmaxed in the weights' own memory: s is kept as it is
    masked = ops.apply_mask(ops.scale(s, q.shape[-1], out=weights_out), mask, overwrite=True)
    weights = ops.softmax(masked, overwrite=True)
    head_outputs = ops.attend(weights, v)  # (n_heads, n_tokens, d_head)
    # Concat(heads) W_O in one product; equal to Σ_h Δe^(h) (a test checks it)
    attention_output = ops.linear(ops.merge_heads(head_outputs), w.w_o, w.b_o)  # (n_tokens, d_model)
    updated = ops.layer_norm(x + attention_output, w.ln1_gamma, w.ln1_beta, eps)
    ffn_output = ops.feed_forward(updated, w.w_ff1, w.b_ff1, w.w_ff2, w.b_ff2)
    output = ops.layer_norm(updated + ffn_output, w.ln2_gamma, w.ln2_beta, eps)
    return LayerTrace(
        index=index,
        x=_frozen(x),
        q=_frozen(q),
        k=_frozen(k),
        v=_frozen(v),
        scores=_frozen(s),
        mask=_frozen(mask),
        weights=_frozen(weights),
        head_outputs=_frozen(head_outputs),
        w_o_heads=w_o_heads,
        b_o=w.b_o,
        attention_output=_frozen(attention_output),
        updated=_frozen(updated),
        ffn_output=_frozen(ffn_output),
        output=_frozen(output),
    )


def trace(model: Model, text: str, mask: MaskKind = "none", max_tokens: int | None = None, positions: bool = True) -> Trace:
    """Run `text` through every layer, keeping every intermediate.

    mask: "none" (how this encoder really runs) or "causal" (what a decoder would do).
    max_tokens: cut the text to at most this many tokens; at most the model's own limit.
    positions: False leaves out the position embeddings (a counterfactual; the model was trained with them).
    Raises ValueError for empty text or an unknown mask, with a message the UI can show.
    """
    if mask not in MASKS:
        raise ValueError(f"Unknown mask '{mask}': choose one of {', '.join(MASKS)}.")
    cfg = model.config
    limit = cfg.max_tokens if max_tokens is None else max(2, min(int(max_tokens), cfg.max_tokens))
    toks = tokenize(model.tokenizer, text, limit)
    return trace_tokens(model, toks.tokens, text, mask, positions, toks.n_dropped, toks.chars_dropped)


def trace_tokens(model: Model, tokens: tuple[Token, ...], text: str = "", mask: MaskKind = "none", positions: bool = True,
                 n_dropped: int = 0, chars_dropped: int = 0) -> Trace:
    """Run already tokenized input (in the order given) through every layer."""
    cfg = model.config
    n = len(tokens)
    mask_matrix = make_mask(mask, n)
    x = embed(model, [t.id for t in tokens], positions)
    embeddings = x
    # One array for every layer's scores and one for their weights, each layer writing its own slice:
    # Trace.scores and Trace.weights (what the CLI writes) are then the arrays themselves, not copies
    # (38 MB for a 256-token text).
    scores = np.empty((cfg.n_layers, cfg.n_heads, n, n), dtype=x.dtype)
    weights = np.empty_like(scores)
    layers = []
    for i, w in enumerate(model.layers):
        layer = layer_forward(i, x, w, model.w_o_heads[i], cfg.layer_norm_eps, mask_matrix,
                              scores_out=scores[i], weights_out=weights[i])
        layers.append(layer)
        x = layer.output
    return Trace(
        text=text,
        model_name=cfg.name,
        mask_kind=mask,
        tokens=tuple(tokens),
        n_dropped=n_dropped,
        chars_dropped=chars_dropped,
        embeddings=embeddings,
        layers=tuple(layers),
        scores=_frozen(scores),
        weights=_frozen(weights),
        pooling=cfg.pooling,
        normalize=cfg.normalize,
    )
