"""Chapters 5, 9 and 10 on the real model: queries versus keys, the low-rank value map, many heads."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import ops
from ..model import Model, ModelConfig
from ..traced import LayerTrace


def asymmetry(matrix: np.ndarray) -> float:
    """max |A − Aᵀ| / max |A|: 0 for a symmetric matrix."""
    top = float(np.abs(matrix).max()) or 1.0
    return float(np.abs(matrix - matrix.T).max()) / top


def self_similarity(layer: LayerTrace) -> np.ndarray:
    """X Xᵀ: every pair of the layer's input embeddings, symmetric by construction."""
    return layer.x @ layer.x.T


@dataclass(frozen=True)
class ValueMap:
    """One head's value map e ↦ e W_V^(h) W_O^(h) (row vectors, as the explorer writes them), through d_head dimensions."""

    value_down: np.ndarray  # (d_head, d_model): W_V^(h)
    value_up: np.ndarray  # (d_model, d_head): W_O^(h)
    singular_values: np.ndarray  # (d_model,): of the full d_model × d_model product

    @property
    def rank(self) -> int:
        s = self.singular_values
        return int((s > s[0] * 1e-4).sum())

    @property
    def low_rank_parameters(self) -> int:
        return self.value_down.size + self.value_up.size

    @property
    def full_parameters(self) -> int:
        d_model = self.value_up.shape[0]
        return d_model * d_model

    @property
    def indices(self) -> np.ndarray:
        """1, 2, …, d_model: the singular values' places, largest first."""
        return np.arange(1, len(self.singular_values) + 1)


def value_map(model: Model, layer: int, head: int) -> ValueMap:
    d_head = model.config.d_head
    w = model.layers[layer]
    kv = model.config.kv_head_of(head)  # the value head its group shares (itself where no head shares one)
    down = w.w_v[:, kv * d_head : (kv + 1) * d_head].T.astype(np.float64)  # (d_head, d_model)
    up = w.w_o[head * d_head : (head + 1) * d_head, :].T.astype(np.float64)  # (d_model, d_head): its own rows of W_O
    return ValueMap(value_down=down, value_up=up, singular_values=np.linalg.svd(up @ down, compute_uv=False))


def value_contributions(layer: LayerTrace, head: int, token: int) -> np.ndarray:
    """(n_tokens, d_model): w_ji · (v_i W_O^(h)), what each token i adds to token j through one head.

    They sum to Δe_j^(h), the head's displacement of token j.
    """
    carried = layer.v[head].astype(np.float64) @ layer.w_o_heads[head].astype(np.float64)  # (n_tokens, d_model)
    return layer.weights[head, token][:, None].astype(np.float64) * carried


def displacement_length(contributions: np.ndarray) -> float:
    """|Δe| in all d_model dimensions: the length of the contributions' sum."""
    return float(np.linalg.norm(contributions.sum(axis=0)))


def same_projection_scores(layer: LayerTrace, head: int) -> np.ndarray:
    """The counterfactual where queries reuse the keys' projection: k_i · k_j, symmetric by construction."""
    k = layer.k[head].astype(np.float64)
    return k @ k.T


def uniform_contributions(layer: LayerTrace, head: int) -> np.ndarray:
    """The counterfactual where a token attends to every token equally: (1/n) · v_i W_O^(h) for each i."""
    carried = layer.v[head].astype(np.float64) @ layer.w_o_heads[head].astype(np.float64)
    return carried / carried.shape[0]


def concat_gap(layer: LayerTrace) -> float:
    """max |Σ_h Δe^(h) − Concat(heads) W_O| over the layer: zero up to rounding.

    The two sides are computed apart: each head's output times its own slice of W_O, summed over the heads, against
    the forward pass's one product of all the heads' outputs, side by side, with the whole W_O (b_O left out)."""
    summed = ops.displacement(layer.head_outputs.astype(np.float64), layer.w_o_heads.astype(np.float64)).sum(axis=0)
    return float(np.abs(summed - layer.delta_sum).max())


def displacement_norms(layer: LayerTrace) -> np.ndarray:
    """(n_heads, n_tokens): the length of each head's proposal for each token."""
    return np.linalg.norm(layer.displacement, axis=-1)


def proposed(layer: LayerTrace, head: int | None = None) -> np.ndarray:
    """(n_tokens, d_model): Δe^(h), one head's proposal for every token, or Σ_h Δe^(h) for all (head=None)."""
    return layer.displacement[head] if head is not None else layer.delta_sum


@dataclass(frozen=True)
class KeyValueSharing:
    """Grouped-query attention: which query heads read each key/value head, and what sharing saves."""

    groups: tuple[tuple[int, ...], ...]  # per key/value head, its query heads (0-based)
    kv_weights: int  # W_K and W_V numbers in one layer, as the model has them
    kv_weights_unshared: int  # the same with one key/value head per query head
    cache_per_token: int  # numbers a KV cache keeps per token, all layers: 2 × n_layers × n_kv_heads × d_head
    cache_per_token_unshared: int  # the same with one key/value head per query head


def key_value_sharing(cfg: ModelConfig) -> KeyValueSharing:
    """The model's key/value heads and their groups of query heads, read from its sizes."""
    groups = tuple(tuple(h for h in range(cfg.n_heads) if cfg.kv_head_of(h) == g) for g in range(cfg.n_kv_heads))
    per_head = 2 * cfg.d_model * cfg.d_head  # one head's W_K and W_V columns
    return KeyValueSharing(
        groups=groups,
        kv_weights=cfg.n_kv_heads * per_head,
        kv_weights_unshared=cfg.n_heads * per_head,
        cache_per_token=cfg.kv_values_per_token(),
        cache_per_token_unshared=2 * cfg.n_layers * cfg.n_heads * cfg.d_head,
    )
