"""The numbers behind the computed questions of chapters 6 to 9: each right answer by the lesson's formula, beside
the mistakes a student plausibly makes, every option computed from the same numbers of the model's run on the
sentence.

Options are plain numbers, the right one first; the page writes them in its language. `digits_apart` says how many
decimals keep them apart as the page writes them."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..traced import LayerTrace
from .options import Options, digits_apart


def apart(values: tuple[float, ...], digits: int) -> bool:
    return len({round(v, digits) for v in values}) == len(values)


# --- chapter 6: dividing every score by √d_k divides their spread by it ------------------------------------


def score_spread(layer: LayerTrace) -> float:
    """The standard deviation of the layer's raw scores q·k over the (query, key) pairs its mask lets a query see,
    every head's together: as chapter 6 measures a spread."""
    return float(layer.scores[:, ~layer.mask].std())


def scaled_spread(raw: float, d_head: int, d_model: int) -> Options:
    """The spread of the scores once divided by √d_k, from the raw scores' spread: raw / √d_head. Wrong: raw / d_head
    (the root forgotten); raw, as if dividing every score by one number left their spread as it was; raw / √d_model,
    the model's width taken for the head's."""
    return Options(raw / math.sqrt(d_head), (raw / d_head, raw, raw / math.sqrt(d_model)))


# --- chapter 7: the scores a causal mask hides in one head's table ------------------------------------------


def hidden_scores(n_tokens: int) -> Options:
    """In a table of n × n scores, those the causal mask sets to −∞: the keys after each query, n(n − 1)/2. Wrong,
    the first three apart from it and from each other: n(n + 1)/2, the ones it keeps (the diagonal included); n²,
    every score; n − 1, one per lesson; then n(n − 1), both sides of the diagonal (a text of two tokens). Needs
    n ≥ 2 (a single token has nothing to hide, and its counts read alike)."""
    n = n_tokens
    if n < 2:
        raise ValueError("a table of one score has nothing for the mask to hide")
    right = n * (n - 1) // 2
    wrong: list[int] = []
    for candidate in (n * (n + 1) // 2, n * n, n - 1, n * (n - 1)):
        if candidate != right and candidate not in wrong and len(wrong) < 3:
            wrong.append(candidate)
    return Options(right, tuple(wrong))


# --- chapter 8: the mask takes keys away, and the softmax shares the whole weight among the rest ------------


@dataclass(frozen=True)
class Renormalised:
    """One query's weight on one key, without the mask and with it: in layer 1 both runs read the same vectors, so
    the scores are the same and the mask only takes the later keys away."""

    query: int
    key: int
    weight: float  # the query's weight on the key, no mask
    kept: float  # its weights, no mask, on the keys the causal mask leaves it (itself and those before it)
    options: Options
    digits: int


def renormalised_options(row: np.ndarray, query: int, key: int) -> Options:
    """Right: w / S, the unmasked weight w over S, the unmasked weights on the keys up to the query (the softmax of the
    same scores over fewer keys). Wrong: w, as if the mask only set the later weights to 0; w + (1 − S)/(query + 1),
    the freed weight shared evenly among the keys left; w + (1 − S), the freed weight all given to this key."""
    kept = float(row[: query + 1].sum())
    w = float(row[key])
    freed = 1.0 - kept
    return Options(w / kept, (w, w + freed / (query + 1), w + freed))


def masked_pick(unmasked: np.ndarray, places: list[int]) -> Renormalised | None:
    """A query among `places` (the text's tokens) that sees two keys or more under the causal mask and has a key after
    it, and its key of largest weight among the text's tokens before it that it keeps (a [CLS] or <bos> it leans on
    is not the lesson, and its weight on itself would read "a gives a"): the query whose options lie furthest apart,
    written with 2 decimals (else 3 or 4). None where no query qualifies (a text of two tokens or fewer).

    unmasked: (n_tokens, n_tokens), one head's weights in layer 1 with no mask, rows are queries."""
    n = len(unmasked)
    found = []
    for i in places:
        if not 1 <= i <= n - 2:
            continue
        keys = [j for j in places if j < i]
        if not keys:
            continue
        j = keys[int(np.argmax(unmasked[i, keys]))]
        options = renormalised_options(unmasked[i], i, j)
        values = np.array(options.values)
        gap = float(np.min(np.abs(values[:, None] - values[None, :]) + np.eye(len(values))))
        found.append((gap, i, j, options))
    if not found:
        return None
    gap, i, j, options = max(found, key=lambda f: f[0])  # the first of the furthest apart
    digits = digits_apart(options.values, 2, 4)
    if not apart(options.values, digits):
        return None
    return Renormalised(i, j, float(unmasked[i, j]), float(unmasked[i, : i + 1].sum()), options, digits)


# --- chapter 9: one token's arrow in the tip-to-tail picture ------------------------------------------------


@dataclass(frozen=True)
class Arrow:
    """What one token i adds to token j through one head: w_ji · v_i W_O^(h), the longest such arrow in all
    dimensions."""

    key: int  # the token i that sends it
    weight: float  # w_ji
    value: float  # |v_i|, in the head's d_head dimensions
    carried: float  # |v_i W_O^(h)|, back in the model's d_model dimensions
    options: Options
    digits: int


def arrow_options(weight: float, value: float, carried: float) -> Options:
    """Right: w · |v W_O^(h)|, the weight times the value as the head carries it back to the model's width. Wrong:
    |v W_O^(h)|, the weight left out; w · |v|, the value before W_O^(h), in the head's narrow space."""
    return Options(weight * carried, (carried, weight * value))


def longest_arrow(layer: LayerTrace, head: int, token: int, among: int = 3) -> Arrow | None:
    """Of the `among` tokens that send `token` the longest arrows through `head` (in all d_model dimensions), the one
    whose options lie furthest apart for their size (a value whose length W_O^(h) hardly changes would give two
    options a hair apart), and the question's options, written apart with 2 decimals or more. None where they
    cannot be told apart at 4 (a token that gives one key all its weight, as a decoder's first token does)."""
    v = layer.v[head].astype(np.float64)  # (n_tokens, d_head): the values this head reads
    carried = v @ layer.w_o_heads[head].astype(np.float64)  # (n_tokens, d_model)
    weights = layer.weights[head, token].astype(np.float64)  # (n_tokens,)
    values, lengths = np.linalg.norm(v, axis=1), np.linalg.norm(carried, axis=1)
    longest = np.argsort(-(weights * lengths), kind="stable")[:among]

    def spread(i: int) -> float:
        o = np.array(arrow_options(weights[i], values[i], lengths[i]).values)
        return float(np.min(np.abs(o[:, None] - o[None, :]) + np.eye(len(o)) * o.max()) / (o.max() or 1.0))

    key = int(max(longest, key=spread))  # the first of the furthest apart, longest first
    options = arrow_options(float(weights[key]), float(values[key]), float(lengths[key]))
    digits = digits_apart(options.values, 2, 4)
    if not apart(options.values, digits):
        return None
    return Arrow(key, float(weights[key]), float(values[key]), float(lengths[key]), options, digits)
