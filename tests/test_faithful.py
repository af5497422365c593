"""The numpy trace against PyTorch and sentence-transformers on the same real weights."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch

import attention
from attention import ops

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


def hooked_forward(auto, ids: list[int]) -> dict[str, np.ndarray]:
    """One eager forward pass of a transformers BertModel, with each layer's query, key and value
    projections and attention output (W_O, before the residual) caught by forward hooks."""
    caught: dict[str, list[np.ndarray]] = {"q": [], "k": [], "v": [], "attention_output": []}
    handles = []
    for layer in auto.encoder.layer:
        for name, module in (
            ("q", layer.attention.self.query),
            ("k", layer.attention.self.key),
            ("v", layer.attention.self.value),
            ("attention_output", layer.attention.output.dense),
        ):
            handles.append(
                module.register_forward_hook(lambda _m, _i, out, name=name: caught[name].append(out[0].numpy()))
            )
    input_ids = torch.tensor([ids])
    try:
        with torch.inference_mode():
            out = auto(
                input_ids=input_ids,
                attention_mask=torch.ones_like(input_ids),
                output_attentions=True,
                output_hidden_states=True,
                use_cache=False,
            )
    finally:
        for h in handles:
            h.remove()
    arrays = {name: np.stack(v) for name, v in caught.items()}
    arrays["weights"] = np.stack([a[0].numpy() for a in out.attentions])
    arrays["hidden"] = np.stack([h[0].numpy() for h in out.hidden_states])
    return arrays


def heads(x: np.ndarray, n_heads: int) -> np.ndarray:
    """(n_layers, n, n_heads * d_head) -> (n_layers, n_heads, n, d_head), as transformers splits them."""
    n_layers, n, width = x.shape
    return x.reshape(n_layers, n, n_heads, width // n_heads).transpose(0, 2, 1, 3)


@pytest.mark.parametrize("text", SENTENCES[:4])
def test_queries_keys_values_scores_and_head_sum_equal_pytorch(st_model, model, text):
    tr = attention.trace(model, text)
    ref = hooked_forward(st_model[0].auto_model, [t.id for t in tr.tokens])
    H = model.config.n_heads
    for name in ("q", "k", "v"):
        ours = np.stack([getattr(layer, name) for layer in tr.layers])
        assert np.abs(ours - heads(ref[name], H)).max() <= 1e-4, name
    q, k = heads(ref["q"], H).astype(np.float64), heads(ref["k"], H).astype(np.float64)
    raw = q @ np.swapaxes(k, -1, -2)  # the scores from PyTorch's own q and k
    assert np.abs(tr.scores - raw).max() <= 1e-3 * max(1.0, np.abs(raw).max())
    for i, layer in enumerate(tr.layers):
        assert np.abs(layer.attention_output - ref["attention_output"][i]).max() <= 1e-4
        # each head's displacement, added up with the bias, is what PyTorch's W_O produced
        assert np.abs(layer.displacement.sum(axis=0) + layer.b_o - ref["attention_output"][i]).max() <= 1e-4


def test_causal_mask_equals_bert_run_as_a_decoder(st_model, model):
    """transformers' BertModel with is_decoder=True applies the causal mask itself: an independent reference."""
    decoder = copy.deepcopy(st_model[0].auto_model)
    decoder.config.is_decoder = True
    for text in ("the bank by the river bank", SENTENCES[0]):
        tr = attention.trace(model, text, mask="causal")
        ref = hooked_forward(decoder, [t.id for t in tr.tokens])
        assert np.abs(tr.weights - ref["weights"]).max() <= 1e-5
        assert np.abs(tr.hidden - ref["hidden"]).max() <= 1e-4
        n = tr.n_tokens
        assert np.count_nonzero(ref["weights"][0, 0]) == n * (n + 1) // 2  # the reference really was causal


def test_no_positions_equals_bert_with_zeroed_position_embeddings(st_model, model):
    blind = copy.deepcopy(st_model[0].auto_model)
    with torch.no_grad():
        blind.embeddings.position_embeddings.weight.zero_()
    tr = attention.trace(model, "the dog bit the man", positions=False)
    ref = hooked_forward(blind, [t.id for t in tr.tokens])
    assert np.abs(tr.weights - ref["weights"]).max() <= 1e-5
    assert np.abs(tr.hidden - ref["hidden"]).max() <= 1e-4


def test_gelu_and_its_tanh_form_equal_pytorchs():
    x = np.linspace(-8, 8, 4001, dtype=np.float32)
    t = torch.from_numpy(x)
    assert np.abs(ops.gelu(x) - torch.nn.functional.gelu(t).numpy()).max() <= 2e-6  # erf's own error, times |x|
    assert np.abs(ops.gelu_tanh(x) - torch.nn.functional.gelu(t, approximate="tanh").numpy()).max() <= 1e-6
    assert ops.gelu(x).dtype == ops.gelu_tanh(x).dtype == np.float32
