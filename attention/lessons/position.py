"""Attention alone does not see word order; positions give it: a learned vector added to each token's
embedding (BERT, GPT-2), or q and k rotated by an angle that grows with the position (rotary, Llama)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .. import ops
from ..model import Model
from ..tokens import tokenize
from ..trace import trace_tokens
from ..traced import Trace


def sinusoidal_encoding(n_positions: int, d_model: int) -> np.ndarray:
    """The original paper's fixed encoding: PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(…)."""
    pos = np.arange(n_positions)[:, None]
    i = np.arange(0, d_model, 2)[None, :]
    angle = pos / np.power(10000.0, i / d_model)
    pe = np.zeros((n_positions, d_model))
    pe[:, 0::2] = np.sin(angle)
    pe[:, 1::2] = np.cos(angle[:, : d_model // 2])
    return pe


def position_similarity(model: Model, n_positions: int) -> np.ndarray:
    """(n_positions, n_positions): cosine similarity between the model's learned position embeddings."""
    from ..ops import cosine_matrix

    return cosine_matrix(model.embeddings.position[:n_positions].astype(np.float64))


def shuffled_order(n_tokens: int, seed: int, keep_first: bool = True, keep_last: bool = True) -> np.ndarray:
    """A random order of the tokens; keep_first and keep_last hold [CLS] first and [SEP] last where a model has them."""
    rng = np.random.default_rng(seed)
    lo, hi = int(keep_first), n_tokens - int(keep_last)
    middle = rng.permutation(np.arange(lo, hi))
    return np.concatenate([np.arange(lo), middle, np.arange(hi, n_tokens)]).astype(int)


@dataclass(frozen=True)
class Shuffle:
    order: np.ndarray  # (n_tokens,): the shuffled sequence is tokens[order]
    original: Trace
    shuffled: Trace

    def unshuffled_weights(self, layer: int) -> np.ndarray:
        """The shuffled sentence's weights put back in the original order: (n_heads, n, n)."""
        inverse = np.argsort(self.order)
        return self.shuffled.layers[layer].weights[:, inverse][:, :, inverse]

    def gap(self, layer: int) -> float:
        """max |weights − unshuffled(shuffled weights)|: 0 (to rounding) when attention cannot see order."""
        return float(np.abs(self.original.layers[layer].weights - self.unshuffled_weights(layer)).max())


def shuffle_experiment(
    model: Model, text: str, seed: int = 0, positions: bool = False, max_tokens: int | None = None
) -> Shuffle:
    """Trace the sentence and a shuffled copy of it, with or without the position embeddings.

    Always without a mask: a decoder's causal mask lets a token see only the tokens before it, which
    tells order apart by itself, so for a decoder this is a counterfactual (`Trace.mask_is_real` says so)."""
    limit = model.config.max_tokens if max_tokens is None else min(max_tokens, model.config.max_tokens)
    toks = tokenize(model.tokenizer, text, limit).tokens
    order = shuffled_order(len(toks), seed, keep_first=toks[0].is_special, keep_last=toks[-1].is_special)
    moved = tuple(replace(toks[j], position=i) for i, j in enumerate(order))
    original = trace_tokens(model, toks, text, mask="none", positions=positions)
    shuffled = trace_tokens(model, moved, " ".join(t.text for t in moved), mask="none", positions=positions)
    return Shuffle(order=order, original=original, shuffled=shuffled)


def rotary_angles(n_positions: int, d_head: int, base: float) -> np.ndarray:
    """(n_positions, d_head / 2): the angle, in radians, by which rotary positions turn each pair of a head's
    coordinates at each position: position × base^(−2i/d_head), the sinusoids' frequencies."""
    return ops.rope_angles(np.arange(n_positions), d_head, base).astype(np.float64)


@dataclass(frozen=True)
class Shifted:
    """The same tokens traced at positions 0… and at positions shift…: what moving a text along changes."""

    shift: int
    original: Trace
    shifted: Trace

    def gap(self, layer: int) -> float:
        """max |scores at 0… − scores at shift…| over the layer's heads: 0 (to rounding) when only distances count."""
        return float(np.abs(self.original.layers[layer].scores - self.shifted.layers[layer].scores).max())

    def largest_change(self, layer: int) -> tuple[int, float, float]:
        """Where the shift changes the layer's raw scores q·k most: (head, 0-based; max |Δ(q·k)| in that head, which
        is gap(layer); the largest |q·k| of that head before the shift, to read the change against)."""
        change = np.abs(self.original.layers[layer].scores - self.shifted.layers[layer].scores)  # (n_heads, n, n)
        by_head = change.reshape(len(change), -1).max(axis=1)
        head = int(np.argmax(by_head))
        return head, float(by_head[head]), float(np.abs(self.original.layers[layer].scores[head]).max())


def shift_experiment(model: Model, text: str, shift: int, max_tokens: int | None = None) -> Shifted:
    """Trace the text from position 0 and from position `shift`, each with the model's own mask.

    With rotary positions, the first layer's scores do not change: q at position m and k at position n
    score (R_m q)·(R_n k) = q·R_{n−m} k. With learned positions, every embedding changes, and so do they.
    A shift is at most what the model's position table or context leaves room for."""
    limit = model.config.max_tokens if max_tokens is None else min(max_tokens, model.config.max_tokens)
    toks = tokenize(model.tokenizer, text, limit).tokens
    room = (model.config.max_positions or model.config.max_tokens) - len(toks)
    shift = max(0, min(int(shift), room))
    original = trace_tokens(model, toks, text)
    moved = tuple(replace(t, position=t.position + shift) for t in toks)
    return Shifted(shift=shift, original=original, shifted=trace_tokens(model, moved, text, first_position=shift))
