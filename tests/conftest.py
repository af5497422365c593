"""Shared fixtures: the real packaged model, loaded once per test session (no mocks)."""

from __future__ import annotations

import pytest

import attention
from attention.reference import load_sentence_transformer


@pytest.fixture(scope="session")
def st_model():
    """The reference: sentence-transformers' own all-MiniLM-L6-v2, eager attention, on the CPU."""
    return load_sentence_transformer()


@pytest.fixture(scope="session")
def model():
    """The same model as the engine reads it: straight from its files, with numpy."""
    return attention.load_model()
