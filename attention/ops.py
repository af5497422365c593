"""The steps of the attention equation, one small numpy function each.

Shapes use one notation throughout: n_tokens, d_model, n_heads, d_head.
Rows are tokens (the paper's convention): a query is a row, Q = X W_Q + b_Q.
"""

from __future__ import annotations

import numpy as np

# Below this many tokens, OpenBLAS runs faster when the long axis (d_out) leads the product.
_FEW_TOKENS = 48
# GELU makes about twenty passes over its input; a block this many rows of the (n_tokens, d_ff) hidden
# layer stays in the CPU cache through all of them (256 tokens: 4.7 ms a layer instead of 6.7).
_ROWS_PER_BLOCK = 64


def linear(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x Wᵀ + b for the rows of x (n_tokens, d_in), with W stored as (d_out, d_in), as in q = W_Q e."""
    if x.shape[0] < _FEW_TOKENS:
        out = np.ascontiguousarray((w @ x.T).T)
    else:
        out = x @ w.T
    out += b
    return out


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """Normalize each row to mean 0 and variance 1, then scale and shift."""
    centred = x - x.mean(axis=-1, keepdims=True)
    var = np.mean(centred * centred, axis=-1, keepdims=True)
    centred /= np.sqrt(var + eps)
    centred *= gamma
    centred += beta
    return centred


def _erfc_of_abs(a: np.ndarray) -> np.ndarray:
    """1 − erf(a) for a ≥ 0, Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7), computed in `a`'s place.

    numpy has no erf, and BERT's GELU is the exact, erf-based one, not the tanh approximation.
    It runs on every feed-forward activation, so it works in place on as few arrays as it can.
    """
    t = 0.3275911 * a
    t += 1.0
    np.reciprocal(t, out=t)
    poly = 1.061405429 * t
    for c in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += c
        poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    return poly


def erf(x: np.ndarray) -> np.ndarray:
    """The error function."""
    out = _erfc_of_abs(np.abs(x))
    np.subtract(1.0, out, out=out)
    return np.copysign(out, x, out=out)


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU(x) = x · Φ(x) = ½ x (1 + erf(x/√2)), with Φ the standard normal CDF."""
    a = np.abs(x)
    a *= np.float32(1 / np.sqrt(2.0)).astype(x.dtype)
    c = _erfc_of_abs(a)  # 1 − erf(|x|/√2)
    np.subtract(1.0, c, out=c)
    np.copysign(c, x, out=c)  # erf(x/√2)
    c += 1.0
    c *= x
    c *= 0.5
    return c


def feed_forward(x: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray, b2: np.ndarray) -> np.ndarray:
    """FFN(x) = GELU(x W₁ᵀ + b₁) W₂ᵀ + b₂: (n_tokens, d_model) -> (n_tokens, d_ff) -> (n_tokens, d_model).

    It acts on every token on its own, so GELU can run on a block of rows at a time.
    """
    hidden = linear(x, w1, b1)  # (n_tokens, d_ff)
    for start in range(0, len(hidden), _ROWS_PER_BLOCK):
        block = hidden[start:start + _ROWS_PER_BLOCK]
        block[...] = gelu(block)
    return linear(hidden, w2, b2)


def split_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """(n_tokens, n_heads * d_head) -> (n_heads, n_tokens, d_head)."""
    n_tokens, width = x.shape
    return x.reshape(n_tokens, n_heads, width // n_heads).transpose(1, 0, 2)


def merge_heads(x: np.ndarray) -> np.ndarray:
    """(n_heads, n_tokens, d_head) -> (n_tokens, n_heads * d_head): the paper's Concat."""
    n_heads, n_tokens, d_head = x.shape
    return x.transpose(1, 0, 2).reshape(n_tokens, n_heads * d_head)


def scores(q: np.ndarray, k: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Raw attention scores q_i · k_j: (..., n_queries, d_head), (..., n_keys, d_head) -> (..., n_queries, n_keys)."""
    return np.matmul(q, np.swapaxes(k, -1, -2), out=out)


def scale(s: np.ndarray, d_head: int, out: np.ndarray | None = None) -> np.ndarray:
    """Divide by √d_k so that the spread of the scores does not grow with d_head."""
    return np.divide(s, np.sqrt(np.float32(d_head)).astype(s.dtype), out=out)


def no_mask(n_queries: int, n_keys: int | None = None) -> np.ndarray:
    """A mask that hides nothing: (n_queries, n_keys) of False."""
    return np.zeros((n_queries, n_queries if n_keys is None else n_keys), dtype=bool)


def causal_mask(n_tokens: int) -> np.ndarray:
    """True where a query would see a later key: strictly above the diagonal, rows are queries."""
    return np.triu(np.ones((n_tokens, n_tokens), dtype=bool), k=1)


def apply_mask(s: np.ndarray, mask: np.ndarray, overwrite: bool = False) -> np.ndarray:
    """Set the masked scores to −∞, so that softmax turns them into exact zeros.

    overwrite: write the −∞ into s itself (for a temporary the caller no longer needs).
    """
    if not mask.any():
        return s
    minus_infinity = np.float32(-np.inf).astype(s.dtype)
    if overwrite:
        np.copyto(s, minus_infinity, where=mask)
        return s
    return np.where(mask, minus_infinity, s)


def softmax(x: np.ndarray, axis: int = -1, overwrite: bool = False) -> np.ndarray:
    """exp(x_i) / Σ_j exp(x_j), with the maximum subtracted first so exp never overflows.

    overwrite: compute in x's own memory (for a temporary the caller no longer needs).
    """
    top = x.max(axis=axis, keepdims=True)
    e = np.subtract(x, top, out=x if overwrite else None)
    np.exp(e, out=e)
    e /= e.sum(axis=axis, keepdims=True)
    return e


def attend(weights: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Each query's weighted sum of the values: (..., n_queries, n_keys) @ (..., n_keys, d_head)."""
    return weights @ v


def displacement(head_outputs: np.ndarray, w_o_heads: np.ndarray) -> np.ndarray:
    """Carry each head's output into model space through its own slice of W_O.

    (n_heads, n_tokens, d_head) and (n_heads, d_head, d_model) -> (n_heads, n_tokens, d_model).
    Summed over heads, this is Concat(head_1 … head_h) W_O.
    """
    return head_outputs @ w_o_heads


def cosine(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cosine similarity between the last axes of a and b (broadcasting)."""
    dot = (a * b).sum(axis=-1)
    norms = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    return dot / np.where(norms == 0, 1.0, norms)


def cosine_matrix(x: np.ndarray) -> np.ndarray:
    """Cosine similarity between every pair of rows: (n, d) -> (n, n)."""
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    unit = x / np.where(norms == 0, 1.0, norms)
    return unit @ unit.T
