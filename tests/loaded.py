"""The three models the app ships, each loaded once per test process for the tests that run on all of them."""

from __future__ import annotations

import functools

import attention

MODELS = ("all-MiniLM-L6-v2", "smollm2", "gemma3")


@functools.cache
def loaded_model(name: str) -> attention.Model:
    """The model, read once (Gemma 3 takes a few seconds)."""
    return attention.load_model(name)
