"""Shared fixtures: the real packaged model, loaded once per test session (no mocks)."""

from __future__ import annotations

import pytest

from attention.model import DEFAULT_MODEL, from_sentence_transformer, load_sentence_transformer


@pytest.fixture(scope="session")
def st_model():
    """The reference: sentence-transformers' own all-MiniLM-L6-v2, eager attention, on the CPU."""
    return load_sentence_transformer()


@pytest.fixture(scope="session")
def model(st_model):
    """The same weights, copied into numpy."""
    return from_sentence_transformer(st_model, DEFAULT_MODEL)
