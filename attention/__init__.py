"""attention: a transformer's attention, computed step by step in numpy from a real model's weights.

    import attention
    model = attention.load_model()            # all-MiniLM-L6-v2, offline, read straight from its files
    t = attention.trace(model, "a fluffy blue creature roamed the verdant forest")
    t.layers[0].weights                       # (n_heads, n_tokens, n_tokens), rows are queries

    gpt2 = attention.load_model("gpt2")       # a decoder, from the local Hugging Face cache
    attention.trace(gpt2, "the verdant").next_tokens(top=5)

Importing this package loads numpy only; loading a model reads its files (safetensors, GGUF) with numpy and
tokenizers, and never imports torch. The package is the engine; what the lesson computes from its results
is in `attention.lessons`, one module per idea.
"""

from .loading import load_model
from .menu import ModelChoice, available_models
from .model import (
    DEFAULT_MODEL,
    Model,
    ModelConfig,
    ModelError,
    ModelUnavailableError,
    UnsupportedModelError,
)
from .tokens import Token, read_prefix
from .trace import Knockout, trace
from .traced import MASKS, LayerTrace, Prediction, Trace

__all__ = [
    "DEFAULT_MODEL",
    "MASKS",
    "Knockout",
    "LayerTrace",
    "Model",
    "ModelChoice",
    "ModelConfig",
    "ModelError",
    "ModelUnavailableError",
    "Prediction",
    "Token",
    "Trace",
    "UnsupportedModelError",
    "available_models",
    "load_model",
    "read_prefix",
    "trace",
]
