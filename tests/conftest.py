"""Shared fixtures: the real packaged model, loaded once per test session (no mocks), and a small random GPT-2
where a download of "gpt2" would be."""

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


@pytest.fixture(scope="session")
def tiny_gpt2_folder(tmp_path_factory):
    """A small random GPT-2 saved as Hugging Face saves one (tests/tiny_gpt2.py), built once: nothing writes to it."""
    from tests.tiny_gpt2 import build_tiny_gpt2

    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2"))


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    """An empty Hugging Face cache, offline: of the decoders, only those installed with the app can be chosen."""
    import huggingface_hub.constants

    from ui import engine

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    engine.choices.clear()
    yield
    engine.choices.clear()


@pytest.fixture
def gpt2_in_cache(tiny_gpt2_folder, tmp_path, empty_cache):
    """The small random GPT-2 where a download of "gpt2" would be, offline: the Model choice offers it."""
    from tests.tiny_gpt2 import install_in_hf_cache

    install_in_hf_cache(tiny_gpt2_folder, "gpt2", tmp_path / "hub")
