"""QK-norm: a second answer to the problem √d_k answers. Dividing by √d_k keeps the scores' spread from growing
with the width; normalising each head's queries and keys (Gemma 3) keeps it from growing with anything: each q
and k is scaled to root mean square 1 before its gains, so |q · k| / √d_k has a ceiling set by the gains alone,
whatever the text and however large the vectors entering the layer grow.

Measured on a layer of the real model: the scores as it computes them, and the same layer with its two norms
left out (a counterfactual: the model was trained with them), for the sentence as it is and with the vectors
entering the layer made `scale` times larger."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import ops
from ..model import Model
from ..traced import LayerTrace


@dataclass(frozen=True)
class QKNormEffect:
    layer: int
    scale: float  # the vectors entering the layer, multiplied by this
    with_norm: np.ndarray  # (n_heads, n, n): q · k / √d_k as the model computes them (mask not applied)
    without_norm: np.ndarray  # the same with the q and k norms left out
    mask: np.ndarray  # (n, n) bool: the keys each query may not see

    def spread(self, scores: np.ndarray) -> float:
        """The standard deviation of the scores a query may see, over every head."""
        return float(scores[:, ~self.mask].std())


def qk_norm_effect(model: Model, layer: LayerTrace, scale: float = 1.0) -> QKNormEffect:
    """One layer's scaled scores with and without its QK-norm, its input multiplied by `scale` first.
    Raises ValueError on a model without QK-norm (there is nothing to leave out)."""
    cfg, w = model.config, model.layers[layer.index]
    if not cfg.qk_norm:
        raise ValueError(f"{cfg.name} has no QK-norm: its queries and keys are used as projected.")
    x = layer.attention_input * np.float32(scale)
    n = x.shape[0]
    q = ops.split_heads(ops.linear(x, w.w_q, w.b_q), cfg.n_heads)  # (n_heads, n, d_head)
    k = ops.split_heads(ops.linear(x, w.w_k, w.b_k), cfg.n_kv_heads)  # (n_kv_heads, n, d_head)
    angles = ops.rope_angles(np.arange(n), cfg.d_head, cfg.rope_base_of(layer.index))

    def scaled(q: np.ndarray, k: np.ndarray) -> np.ndarray:
        q, k = ops.rope(q, angles), ops.rope(k, angles)
        return ops.scale(ops.scores(q, ops.share_kv(k, cfg.n_heads)), cfg.d_head)

    normed = scaled(ops.rms_norm(q, w.norm_q.gamma, cfg.norm_eps), ops.rms_norm(k, w.norm_k.gamma, cfg.norm_eps))
    return QKNormEffect(
        layer=layer.index,
        scale=scale,
        with_norm=normed,
        without_norm=scaled(q, k),
        mask=layer.mask,
    )
