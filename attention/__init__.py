"""attention: a transformer's self-attention, computed step by step in numpy from a real model's weights.

    import attention
    model = attention.load_model()            # all-MiniLM-L6-v2, offline
    t = attention.trace(model, "a fluffy blue creature roamed the verdant forest")
    t.layers[0].weights                       # (n_heads, n_tokens, n_tokens), rows are queries

Importing this package loads numpy only; torch and sentence-transformers are imported by
`load_model` when it runs.
"""

from .geometry import before_after, displacement_picture, fit_projection, moved_toward
from .layout import LAYOUTS, in_layout
from .model import (
    DEFAULT_MODEL,
    Model,
    ModelConfig,
    ModelError,
    ModelUnavailableError,
    UnsupportedModelError,
    load_model,
)
from .tokens import Token
from .trace import MASKS, LayerTrace, Trace, trace

__all__ = [
    "DEFAULT_MODEL",
    "LAYOUTS",
    "MASKS",
    "LayerTrace",
    "Model",
    "ModelConfig",
    "ModelError",
    "ModelUnavailableError",
    "Token",
    "Trace",
    "UnsupportedModelError",
    "before_after",
    "displacement_picture",
    "fit_projection",
    "in_layout",
    "load_model",
    "moved_toward",
    "trace",
]
