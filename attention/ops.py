"""The steps of a transformer, one small numpy function each, each returning a new array.

Shapes use one notation throughout: n_tokens, d_model, n_heads, d_head.
Rows are tokens (the paper's convention): a query is a row, Q = X W_Q + b_Q, with W stored (d_in, d_out).
Constants are Python floats, so that float32 arrays stay float32.
"""

from __future__ import annotations

import math

import numpy as np


def linear(x: np.ndarray, w: np.ndarray, b: np.ndarray | None = None) -> np.ndarray:
    """x W + b: (n_tokens, d_in) @ (d_in, d_out) -> (n_tokens, d_out); a model without biases passes None."""
    return x @ w if b is None else x @ w + b


def layer_norm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """Each row to mean 0 and variance 1, then scaled by gamma and shifted by beta."""
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta


def rms_norm(x: np.ndarray, gamma: np.ndarray, eps: float) -> np.ndarray:
    """Each row divided by its root mean square, then scaled by gamma: LayerNorm without the mean or the shift."""
    return gamma * (x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps))


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7): numpy has none.

    sign(x) (1 − t (a₁ + t (a₂ + t (a₃ + t (a₄ + t a₅)))) e^(−x²)), t = 1 / (1 + p |x|), worked in place, step by
    step in that order (the same numbers, bit for bit, as the formula written out): a feed-forward layer's
    activations are the largest array a trace makes, and each new array the formula wrote out cost as much again."""
    t = np.abs(x)
    t *= 0.3275911
    t += 1.0
    np.divide(1.0, t, out=t)
    poly = t * 1.061405429
    for a in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += a
        poly *= t
    gauss = np.negative(x)
    gauss *= x
    np.exp(gauss, out=gauss)
    poly *= gauss
    np.subtract(1.0, poly, out=poly)
    poly *= np.sign(x)
    return poly


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU(x) = x Φ(x) = ½ x (1 + erf(x / √2)), with Φ the standard normal CDF (BERT's); in place as erf is."""
    phi = erf(x / math.sqrt(2.0))
    phi += 1.0
    phi *= 0.5 * x
    return phi


def gelu_tanh(x: np.ndarray) -> np.ndarray:
    """GELU's tanh approximation, ½ x (1 + tanh(√(2/π) (x + 0.044715 x³))) (GPT-2's and Gemma's). The cube is
    x · x · x, as PyTorch computes it: numpy's x**3 calls the general power function, which took nine tenths of
    this function's time."""
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * (x * x * x))))


def silu(x: np.ndarray) -> np.ndarray:
    """SiLU(x) = x σ(x), the smooth gate of Llama's MLP."""
    return x / (1.0 + np.exp(-x))


def feed_forward(
    x: np.ndarray, w1: np.ndarray, b1: np.ndarray | None, w2: np.ndarray, b2: np.ndarray | None, activation: str
) -> np.ndarray:
    """FFN(x) = GELU(x W₁ + b₁) W₂ + b₂: (n_tokens, d_model) -> (n_tokens, d_ff) -> (n_tokens, d_model)."""
    act = gelu if activation == "gelu" else gelu_tanh
    return linear(act(linear(x, w1, b1)), w2, b2)


def swiglu(x: np.ndarray, w_gate: np.ndarray, w_up: np.ndarray, w_down: np.ndarray) -> np.ndarray:
    """SwiGLU(x) = (SiLU(x W_gate) ⊙ x W_up) W_down: the gate decides, coordinate by coordinate, how much passes."""
    return (silu(x @ w_gate) * (x @ w_up)) @ w_down


def geglu(x: np.ndarray, w_gate: np.ndarray, w_up: np.ndarray, w_down: np.ndarray) -> np.ndarray:
    """GeGLU(x) = (GELU(x W_gate) ⊙ x W_up) W_down, with GELU's tanh form (Gemma's): SwiGLU with GELU as the gate."""
    return (gelu_tanh(x @ w_gate) * (x @ w_up)) @ w_down


def rope_angles(positions: np.ndarray, d_head: int, base: float) -> np.ndarray:
    """(n_tokens, d_head / 2): the angle each pair of coordinates turns at each position, position × θ_i with
    θ_i = base^(−2i / d_head): the first pairs turn fast, the last ones slowly. Computed in float32, as the
    reference implementation does, so that the rotation matches it to the last bit that matters."""
    theta = (1.0 / base ** (np.arange(0, d_head, 2, dtype=np.float32) / np.float32(d_head))).astype(np.float32)
    return np.asarray(positions, dtype=np.float32)[:, None] * theta[None, :]


def rope(x: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Rotary positions: rotate each pair of coordinates (x_i, x_{i + d_head/2}) by its angle.

    (..., n_tokens, d_head) and (n_tokens, d_head / 2) -> (..., n_tokens, d_head). A query at position m and a
    key at position n then score (R_m q) · (R_n k) = q · R_{n−m} k: only their distance n − m counts.
    """
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    cos, sin = np.cos(angles), np.sin(angles)
    return np.concatenate([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)


def share_kv(x: np.ndarray, n_heads: int) -> np.ndarray:
    """Grouped-query attention: (n_kv_heads, n, d_head) -> (n_heads, n, d_head), each key/value head repeated for
    the consecutive query heads of its group (with as many key/value heads as query heads, x itself)."""
    group = n_heads // x.shape[0]
    return x if group == 1 else np.repeat(x, group, axis=0)


def split_heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """(n_tokens, n_heads * d_head) -> (n_heads, n_tokens, d_head)."""
    n_tokens, width = x.shape
    return x.reshape(n_tokens, n_heads, width // n_heads).transpose(1, 0, 2)


def merge_heads(x: np.ndarray) -> np.ndarray:
    """(n_heads, n_tokens, d_head) -> (n_tokens, n_heads * d_head): the paper's Concat."""
    n_heads, n_tokens, d_head = x.shape
    return x.transpose(1, 0, 2).reshape(n_tokens, n_heads * d_head)


def scores(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Raw attention scores q_i · k_j: (..., n_queries, d_head), (..., n_keys, d_head) -> (..., n_queries, n_keys)."""
    return q @ np.swapaxes(k, -1, -2)


def scale(s: np.ndarray, d_head: int) -> np.ndarray:
    """Divide by √d_k, so that the spread of the scores does not grow with d_head."""
    return s / math.sqrt(d_head)


def no_mask(n_queries: int, n_keys: int | None = None) -> np.ndarray:
    """A mask that hides nothing: (n_queries, n_keys) of False."""
    return np.zeros((n_queries, n_queries if n_keys is None else n_keys), dtype=bool)


def causal_mask(n_tokens: int) -> np.ndarray:
    """True where a query would see a later key: strictly above the diagonal, rows are queries."""
    return np.triu(np.ones((n_tokens, n_tokens), dtype=bool), k=1)


def sliding_window_mask(n_queries: int, window: int, n_keys: int | None = None) -> np.ndarray:
    """True where a key lies `window` or more places before its query: a local layer reads the query's own
    place and the window − 1 before it. The queries are the last n_queries of the n_keys places."""
    n_keys = n_queries if n_keys is None else n_keys
    query_places = np.arange(n_keys - n_queries, n_keys)[:, None]
    return np.arange(n_keys)[None, :] <= query_places - window


def apply_mask(s: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The scores with −∞ where the mask hides a key, so that softmax turns them into exact zeros."""
    return np.where(mask, -np.inf, s).astype(s.dtype, copy=False)


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """exp(x_i) / Σ_j exp(x_j), with the maximum subtracted first so that exp never overflows."""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def uniform_weights(mask: np.ndarray) -> np.ndarray:
    """(n_queries, n_keys): each query's weight spread equally over the keys the mask lets it see (1 / count)."""
    visible = (~mask).astype(np.float32)
    return visible / visible.sum(axis=-1, keepdims=True)


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
