"""Generating one token at a time, a decoder keeps every earlier key and value.

Each step computes the new token's query, key and value only, appends the key and value to the
cache, and attends over the whole cache. Step by step this gives exactly the rows of the full
causally masked attention: for one head (`cached_attention`), and for the whole model, every
layer and head at once (`generate_with_cache`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import ops
from .model import Model
from .trace import block, embed, norm
from .traced import LayerTrace, Trace


@dataclass(frozen=True)
class CachedRun:
    step_weights: tuple[np.ndarray, ...]  # step t: (t + 1,) weights of the newest query over the cache
    outputs: np.ndarray  # (n_tokens, d_head): each step's weighted sum of cached values
    full_weights: np.ndarray  # (n_tokens, n_tokens): the full causal attention, for comparison
    full_outputs: np.ndarray  # (n_tokens, d_head)

    @property
    def max_difference(self) -> float:
        """Largest gap between step-by-step and all-at-once, weights and outputs together."""
        padded = np.zeros_like(self.full_weights)
        for t, w in enumerate(self.step_weights):
            padded[t, : t + 1] = w
        return float(max(np.abs(padded - self.full_weights).max(), np.abs(self.outputs - self.full_outputs).max()))


def cached_attention(layer: LayerTrace, head: int) -> CachedRun:
    """Replay one head token by token with a key/value cache; compare with the causal mask run at once."""
    q, k, v = layer.q[head], layer.k[head], layer.v[head]  # each (n_tokens, d_head)
    n, d_head = q.shape
    cache_k = np.empty((0, d_head), dtype=k.dtype)
    cache_v = np.empty((0, d_head), dtype=v.dtype)
    steps, outputs = [], []
    for t in range(n):
        cache_k = np.vstack([cache_k, k[t : t + 1]])  # only the new token's key and value are computed
        cache_v = np.vstack([cache_v, v[t : t + 1]])
        w = ops.softmax(ops.scale(ops.scores(q[t : t + 1], cache_k), d_head))[0]  # (t + 1,)
        steps.append(w)
        outputs.append(ops.attend(w, cache_v))
    full_w = ops.softmax(ops.apply_mask(ops.scale(ops.scores(q, k), d_head), ops.causal_mask(n)))
    return CachedRun(
        step_weights=tuple(steps), outputs=np.array(outputs), full_weights=full_w, full_outputs=ops.attend(full_w, v)
    )


@dataclass(frozen=True)
class CachedGeneration:
    """The whole model run one token at a time with a key/value cache, beside the full causal pass."""

    hidden: np.ndarray  # (n_tokens, d_model): each step's last vector (after a decoder's final norm)
    full_hidden: np.ndarray  # (n_tokens, d_model): the same vectors from the full causal trace

    @property
    def max_difference(self) -> float:
        return float(np.abs(self.hidden - self.full_hidden).max())


def generate_with_cache(model: Model, tr: Trace) -> CachedGeneration:
    """Run the trace's tokens through the model one at a time: at each step every layer's block (the same
    `block` as the full pass) computes the new token's q, k and v only, reads the cached keys and values before
    its own (no mask: the cache holds only the past; a local layer's window hides what lies beyond it), and
    leaves its key and value in the cache.
    Compared with `tr`, which must be the full pass with the causal mask.

    The steps are scheduled layer by layer (layer i's step t needs only layer i's cache and layer i − 1's
    output at step t, so the arithmetic is the same as token by token): a model whose weights stay packed
    (SmolLM2's 4-bit MLP) unpacks each layer's weights once, not once per token."""
    if tr.mask_kind != "causal":
        raise ValueError("Step-by-step generation equals the causal pass only: trace with mask='causal'.")
    cfg = model.config
    x = embed(model, [t.id for t in tr.tokens])  # (n_tokens, d_model): each token embedded at its own position
    n = len(tr.tokens)
    for i, w in enumerate(model.layers):
        keys = values = np.zeros((cfg.n_kv_heads, 0, cfg.d_head), dtype=np.float32)  # this layer's cache
        window = cfg.window_of(i)
        steps = []
        for t in range(n):
            mask = ops.sliding_window_mask(1, window, t + 1) if window else ops.no_mask(1, t + 1)
            out = block(x[t : t + 1], w, cfg, mask, np.array([t]), past=(keys, values), layer=i)
            keys, values = out.attention.k, out.attention.v  # (n_kv_heads, t + 1, d_head)
            steps.append(out.output[0])
        x = np.array(steps)  # (n_tokens, d_model): this layer's output at every step
    hidden = norm(x, model.final_norm, cfg) if model.final_norm is not None else x
    return CachedGeneration(hidden=hidden, full_hidden=tr.hidden[-1])


@dataclass(frozen=True)
class CacheCosts:
    tokens: np.ndarray  # (n,): context length t at each step, 1..n
    flops_with_cache: np.ndarray  # (n,): multiply-adds of one attention layer for step t
    flops_without_cache: np.ndarray  # (n,): the same when the whole prefix is run again
    cache_bytes: np.ndarray  # (n,): keys and values kept, all layers


def cache_costs(
    n_tokens: int,
    n_layers: int,
    n_heads: int,
    d_head: int,
    d_model: int,
    bytes_per_number: int = 4,
    n_kv_heads: int | None = None,
    window: int = 0,
    n_local: int = 0,
) -> CacheCosts:
    """Attention-layer work per generated token, with and without the cache, and the cache's size.

    n_kv_heads: key/value heads, when fewer than the query heads share them (grouped-query attention): the
    cache then keeps n_kv_heads keys and values per token, not n_heads.
    window, n_local: n_local of the layers are sliding-window layers (Gemma 3: 15 of 18, window 512), whose
    queries read only the last `window` keys: they keep no more than that in their cache.
    """
    n_kv_heads = n_heads if n_kv_heads is None else n_kv_heads
    t = np.arange(1, n_tokens + 1, dtype=np.float64)
    width, kv_width = n_heads * d_head, n_kv_heads * d_head
    reach = t if not window else np.minimum(t, window)  # the keys a local layer's new query reads
    keys_read = (n_layers - n_local) * t + n_local * reach  # all layers: the keys one new query reads
    projections = 2 * d_model * width + 2 * d_model * kv_width  # W_Q and W_O, W_K and W_V, for one token
    with_cache = n_layers * projections + 2 * n_heads * keys_read * d_head  # one query against its keys, then values
    without = n_layers * t * projections + 2 * n_heads * t * keys_read * d_head  # every token again, each its keys
    cache = 2 * keys_read * kv_width * bytes_per_number  # a key and a value per token kept, per layer
    return CacheCosts(
        tokens=t.astype(int),
        flops_with_cache=with_cache,
        flops_without_cache=without,
        cache_bytes=cache,
    )
