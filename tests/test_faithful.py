"""The numpy trace against PyTorch and sentence-transformers on the same real weights."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import attention

SENTENCES = [
    "a fluffy blue creature roamed the verdant forest",
    "an apple and an orange",
    "an apple phone",
    "the bank by the river bank",  # a repeated word
    "Tokenisation splits unbelievably long words into pieces.",  # word pieces
    "The the THE the.",  # case folding and repetition
    "In 1969, 3 astronauts flew 384,400 km to the Moon!",  # digits and punctuation
    "Café déjà vu: naïve façades in São Paulo",  # accents
    "I ❤️ attention 🤖 and 東京 and שלום",  # emoji, CJK, right-to-left
    "Don't go insane, find the real identity of, and kill one by one all the reviewers that have just rejected your awesome paper.",
    "x",  # a single character
]


def torch_forward(st_model, ids: list[int]):
    auto = st_model[0].auto_model
    input_ids = torch.tensor([ids])
    with torch.inference_mode():
        out = auto(
            input_ids=input_ids,
            attention_mask=torch.ones_like(input_ids),
            output_attentions=True,
            output_hidden_states=True,
        )
    attentions = np.stack([a[0].numpy() for a in out.attentions])  # (n_layers, n_heads, n, n)
    hidden = np.stack([h[0].numpy() for h in out.hidden_states])  # (n_layers + 1, n, d_model)
    return attentions, hidden


@pytest.mark.parametrize("text", SENTENCES)
def test_same_tokens_as_the_reference_tokenizer(st_model, model, text):
    tr = attention.trace(model, text)
    assert [t.id for t in tr.tokens] == st_model.tokenizer(text)["input_ids"]


@pytest.mark.parametrize("text", SENTENCES)
def test_weights_and_hidden_states_equal_pytorch(st_model, model, text):
    tr = attention.trace(model, text)
    attentions, hidden = torch_forward(st_model, [t.id for t in tr.tokens])
    assert tr.weights.shape == attentions.shape
    assert np.abs(tr.weights - attentions).max() <= 1e-5
    assert np.abs(tr.hidden - hidden).max() <= 1e-4


@pytest.mark.parametrize("text", SENTENCES)
def test_sentence_embedding_matches_encode(st_model, model, text):
    reference = st_model.encode(text)
    ours = attention.trace(model, text).sentence_embedding
    cos = float(ours @ reference / (np.linalg.norm(ours) * np.linalg.norm(reference)))
    assert cos >= 0.99999


def test_truncation_matches_the_model_and_is_recorded(st_model, model):
    text = "the verdant forest was full of fluffy blue creatures " * 80
    n_full = len(st_model.tokenizer(text, truncation=False)["input_ids"])
    tr = attention.trace(model, text)
    assert tr.n_tokens == model.config.max_tokens == st_model.max_seq_length
    assert tr.truncated and tr.n_dropped == n_full - model.config.max_tokens
    assert tr.tokens[-1].text == "[SEP]" and tr.tokens[0].text == "[CLS]"
    reference = st_model.encode(text)  # sentence-transformers truncates the same way
    cos = float(tr.sentence_embedding @ reference / np.linalg.norm(reference))
    assert cos >= 0.99999


def test_sizes_are_read_from_the_model(st_model, model):
    cfg = st_model[0].auto_model.config
    assert model.config.n_layers == cfg.num_hidden_layers == len(model.layers)
    assert model.config.n_heads == cfg.num_attention_heads
    assert model.config.d_model == cfg.hidden_size
    assert model.config.d_head * model.config.n_heads == cfg.hidden_size
    assert model.config.max_positions == cfg.max_position_embeddings
    n_torch = sum(p.numel() for name, p in st_model[0].auto_model.named_parameters() if not name.startswith("pooler"))
    assert model.n_parameters == n_torch
