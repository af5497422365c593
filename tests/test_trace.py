"""Properties the trace must always have, whatever the sentence."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import attention
from attention import ops
from tests.sentences import FLUFFY
from ui.figures.layout import in_layout


@pytest.fixture(scope="module")
def fluffy(model):
    return attention.trace(model, FLUFFY)


@pytest.fixture(scope="module")
def fluffy_causal(model):
    return attention.trace(model, FLUFFY, mask="causal")


def test_shapes_in_one_notation(model, fluffy):
    c = model.config
    n = fluffy.n_tokens
    assert n == 13
    layer = fluffy.layers[0]
    assert layer.q.shape == layer.k.shape == layer.v.shape == (c.n_heads, n, c.d_head)
    assert layer.scores.shape == layer.weights.shape == (c.n_heads, n, n)
    assert layer.displacement.shape == (c.n_heads, n, c.d_model)
    assert fluffy.hidden.shape == (c.n_layers + 1, n, c.d_model)
    assert fluffy.displacement.shape == (c.n_layers, c.n_heads, n, c.d_model)


def test_arrays_are_immutable(fluffy):
    with pytest.raises(ValueError):
        fluffy.layers[0].weights[0, 0, 0] = 1.0
    for whole in (fluffy.scores, fluffy.weights):
        with pytest.raises(ValueError):
            whole[2, 0, 0, 0] = 1.0
    with pytest.raises(AttributeError):
        fluffy.layers[0].weights = None


def test_layers_chain(fluffy):
    for before, after in zip(fluffy.layers, fluffy.layers[1:], strict=False):
        assert after.x is before.output


def test_causal_mask_zeroes_the_future_exactly(fluffy_causal):
    assert fluffy_causal.mask_kind == "causal"
    n = fluffy_causal.n_tokens
    above = np.triu(np.ones((n, n), dtype=bool), k=1)
    for layer in fluffy_causal.layers:
        assert (layer.weights[:, above] == 0.0).all()
        assert np.allclose(layer.weights.sum(axis=-1), 1.0, atol=1e-6)
        assert np.isneginf(layer.masked[:, above]).all()
        assert np.isfinite(layer.masked[:, ~above]).all()
        assert (layer.weights[:, 0, 0] == 1.0).all()  # the first token can only see itself


def test_causal_first_token_ignores_the_rest(model):
    a = attention.trace(model, "the cat sat", mask="causal")
    b = attention.trace(model, "the dog ran away quickly", mask="causal")
    # [CLS] and "the" see only themselves and what comes before: identical in both sentences
    assert np.allclose(a.hidden[:, :2], b.hidden[:, :2], atol=1e-5)


def test_no_mask_is_how_the_encoder_runs(fluffy):
    assert fluffy.mask_kind == "none"
    assert (fluffy.weights > 0).all()


def test_layouts_are_transposes_of_one_trace(fluffy_causal):
    w = fluffy_causal.layers[2].weights
    notes = in_layout(w, "notes")
    assert np.allclose(notes.sum(axis=-2), 1.0, atol=1e-6)  # lesson notes: each column sums to 1
    assert (notes[:, np.tril_indices(w.shape[-1], k=-1)[0], np.tril_indices(w.shape[-1], k=-1)[1]] == 0).all()
    with pytest.raises(ValueError):
        in_layout(w, "sideways")


def test_tokens_know_what_they_are(model, fluffy):
    texts = [t.text for t in fluffy.tokens]
    assert texts == [
        "[CLS]",
        "a",
        "fluffy",
        "blue",
        "creature",
        "roam",
        "##ed",
        "the",
        "ve",
        "##rdan",
        "##t",
        "forest",
        "[SEP]",
    ]
    assert [t.position for t in fluffy.tokens] == list(range(13))
    assert [t.is_special for t in fluffy.tokens] == [True] + [False] * 11 + [True]
    assert [t.text for t in fluffy.tokens if t.is_continuation] == ["##ed", "##rdan", "##t"]
    roam, ed = fluffy.tokens[5], fluffy.tokens[6]
    assert roam.word == ed.word == 4
    assert FLUFFY[roam.start : ed.end] == "roamed"
    assert all(FLUFFY[t.start : t.end] == t.text.removeprefix("##") for t in fluffy.tokens if not t.is_special)


def test_repeated_words_stay_apart(model):
    tr = attention.trace(model, "the bank by the river bank")
    banks = [t for t in tr.tokens if t.text == "bank"]
    assert [t.position for t in banks] == [2, 6]
    assert not np.allclose(tr.hidden[-1, 2], tr.hidden[-1, 6])


@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
def test_empty_text_says_what_to_do(model, text):
    with pytest.raises(ValueError, match="Type a sentence"):
        attention.trace(model, text)


def test_text_with_nothing_to_read_says_so(model):
    with pytest.raises(ValueError, match="nothing to read"):
        attention.trace(model, "\x00\x01\u200b")


def test_unknown_mask_is_refused(model):
    with pytest.raises(ValueError, match="causal"):
        attention.trace(model, FLUFFY, mask="diagonal")


def test_huge_paste_is_cut_and_says_so(model):
    tr = attention.trace(model, "word " * 50_000)
    assert tr.n_tokens == model.config.max_tokens
    assert tr.truncated and tr.chars_dropped == 150_000 and tr.n_dropped > 0


def test_max_tokens_cuts_shorter(model):
    tr = attention.trace(model, FLUFFY, max_tokens=6)
    assert [t.text for t in tr.tokens] == ["[CLS]", "a", "fluffy", "blue", "creature", "[SEP]"]
    assert tr.n_dropped == 7


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(min_size=0, max_size=200))
def test_any_unicode_gives_a_trace_or_a_clear_error(model, text):
    for mask in ("none", "causal"):
        try:
            tr = attention.trace(model, text, mask=mask)
        except ValueError as exc:
            assert "Type a sentence" in str(exc) or "nothing to read" in str(exc)
            continue
        w = tr.weights
        assert np.isfinite(w).all()
        assert np.allclose(w.sum(axis=-1), 1.0, atol=1e-5)
        assert np.isfinite(tr.hidden).all()


def test_softmax_is_exact_on_minus_infinity():
    x = np.array([[3.5, -np.inf, -np.inf], [0.8, -0.3, -np.inf]], dtype=np.float32)
    w = ops.softmax(x)
    assert (w[0] == [1.0, 0.0, 0.0]).all()
    assert w[1, 2] == 0.0 and np.isclose(w[1].sum(), 1.0)


def test_softmax_ignores_a_shift_and_never_overflows():
    x = np.array([1000.0, 1001.0, 1002.0], dtype=np.float32)
    assert np.allclose(ops.softmax(x), ops.softmax(x - 1000.0))


def test_erf_is_close_to_the_exact_one():
    import math

    x = np.linspace(-8, 8, 20001, dtype=np.float32)
    exact = np.array([math.erf(v) for v in x.astype(np.float64)])
    assert np.abs(ops.erf(x) - exact).max() < 6e-7


def test_feed_forward_equals_the_exact_gelu_network(model):
    import math

    w = model.layers[0]
    erf = np.vectorize(math.erf)
    for n in (1, 13, 150):
        x = np.random.default_rng(n).standard_normal((n, model.config.d_model), dtype=np.float32)
        h = x.astype(np.float64) @ w.w_ff1.astype(np.float64) + w.b_ff1
        exact = (0.5 * h * (1 + erf(h / math.sqrt(2)))) @ w.w_ff2.astype(np.float64) + w.b_ff2
        assert np.abs(ops.feed_forward(x, w.w_ff1, w.b_ff1, w.w_ff2, w.b_ff2, "gelu") - exact).max() < 1e-4


def test_no_step_writes_into_another(fluffy_causal):
    """Every array of the trace is its own: the weights are not the masked scores' memory, and nothing
    can be written afterwards."""
    layer = fluffy_causal.layers[1]
    raw, _, masked, weights = layer.score_steps(3)
    assert np.isneginf(masked).any() and not np.isneginf(weights).any()
    assert not np.shares_memory(weights, raw) and not np.shares_memory(fluffy_causal.weights, fluffy_causal.scores)
    assert np.isneginf(layer.masked[:, 0, 1]).all() and (layer.weights[:, 0, 1] == 0).all()
    for array in (layer.q, layer.scores, layer.weights, layer.updated, fluffy_causal.weights, fluffy_causal.hidden):
        assert not array.flags.writeable


def test_the_prefix_the_model_reads_gives_the_same_trace(model):
    text = "the verdant forest was full of fluffy blue creatures " * 60
    prefix, cut = attention.read_prefix(model.tokenizer, text, model.config.max_tokens)
    assert cut and len(prefix) < len(text) and text.startswith(prefix)
    whole, part = attention.trace(model, text), attention.trace(model, prefix)
    assert [t.id for t in whole.tokens] == [t.id for t in part.tokens] and not part.truncated
    assert np.array_equal(whole.weights, part.weights)
    assert attention.read_prefix(model.tokenizer, "a short one", model.config.max_tokens) == ("a short one", False)
