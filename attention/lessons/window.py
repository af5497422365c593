"""Sliding-window attention: a local layer's queries read only the last `window` places (their own included),
a global layer's read every earlier one. Gemma 3 makes five layers of every six local (window 512) and the sixth
global, so that the long-range reading is done by few layers and most layers' keys and values can be dropped
once they fall out of the window."""

from __future__ import annotations

from dataclasses import dataclass

from ..model import ModelConfig
from ..traced import Trace


@dataclass(frozen=True)
class Windows:
    local: tuple[int, ...]  # the local layers (0-based)
    global_: tuple[int, ...]  # the global ones
    window: int  # how many places a local layer's query reads, its own included

    def cuts(self, n_tokens: int) -> bool:
        """Whether a text this long has keys beyond the window: only then does a local layer see less."""
        return bool(self.local) and n_tokens > self.window

    def cache_per_token_saved(self, cfg: ModelConfig, n_tokens: int) -> float:
        """The share of a KV cache a long text no longer needs: a local layer keeps only `window` places."""
        kept = len(self.global_) * n_tokens + len(self.local) * min(n_tokens, self.window)
        return 1.0 - kept / (cfg.n_layers * n_tokens)


def windows(cfg: ModelConfig) -> Windows:
    """Which layers are local and which global, from the config."""
    kinds = [cfg.is_local(i) for i in range(cfg.n_layers)]
    return Windows(
        local=tuple(i for i, local in enumerate(kinds) if local),
        global_=tuple(i for i, local in enumerate(kinds) if not local),
        window=cfg.sliding_window,
    )


def weight_beyond(native: Trace, banded: Trace, layer: int) -> float:
    """How much of the layer's attention, summed over heads and queries and divided by their count, fell on the
    keys a narrower window hides: the weight the band moves elsewhere."""
    hidden = banded.layers[layer].mask & ~native.layers[layer].mask  # (n, n): seen by the model, hidden by the band
    weights = native.layers[layer].weights  # (n_heads, n, n)
    return float(weights[:, hidden].sum() / (weights.shape[0] * weights.shape[1]))
