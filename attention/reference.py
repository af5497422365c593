"""The reference implementations, loaded with PyTorch: sentence-transformers' own model, for the tests
and for folders in a layout the engine does not read itself. The app's server never imports this module."""

from __future__ import annotations

import os

from .families import SUPPORTED
from .model import ModelUnavailableError
from .sources import resolve


def load_sentence_transformer(name: str | None = None):
    """sentence-transformers' model itself, on the CPU, with eager attention (the one that returns its
    weights) and never remote code. `name` as for `attention.load_model`."""
    display, folder = resolve(name)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the folder is local: nothing to ask the hub
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    try:
        model = SentenceTransformer(
            str(folder),
            device="cpu",
            local_files_only=True,
            trust_remote_code=False,
            model_kwargs={"attn_implementation": "eager"},
        )
    except Exception as exc:  # transformers and the hub client raise many kinds
        raise ModelUnavailableError(f"Could not load '{display}': {exc}. Models that work: {SUPPORTED}.") from exc
    model.eval()
    return model
