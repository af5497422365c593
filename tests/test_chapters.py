"""Every chapter run headless: no exception, and its key figure holds the right numbers."""

from __future__ import annotations

import numpy as np
import pytest

import attention
from tests.apptest import array, figure, metric, run_page
from ui.chapters import CHAPTERS

FLUFFY = "a fluffy blue creature roamed the verdant forest"


def z(spec: dict, trace: int = 0) -> np.ndarray:
    return array(spec["data"][trace]["z"])


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda c: c.file)
def test_every_chapter_runs_with_an_equation_a_figure_and_a_try_this(chapter):
    at = run_page(f"pages/{chapter.file}")
    assert not at.exception
    assert at.get("latex") and at.get("plotly_chart")
    assert any("Try this." in m.value for m in at.markdown)


def test_1_similarity_toy_cosines_and_measures():
    at = run_page("pages/01_similarity.py")
    table = z(figure(at, "Cosine similarity of the toy words"))
    assert table[0, 2] == pytest.approx(1 / np.sqrt(2), abs=1e-6)  # orange–apple, the notes' 0.71
    assert metric(at, "dot product") == "24.00" and metric(at, "cosine") == "0.9600"
    at.toggle[0].set_value(True).run()
    assert metric(at, "dot product") == "48.00" and metric(at, "cosine") == "0.9600"


def test_2_context_weights_and_the_real_models_apple():
    at = run_page("pages/02_context.py")
    weights = z(figure(at, "Weights (softmax)"))
    assert np.allclose(weights.sum(axis=1), 1.0)
    table = at.dataframe[1].value
    assert list(table["nearer"]) == ["orange", "phone"]
    at.radio(key="w:ch2_how").set_value("normalized").run()
    spec = figure(at, "Weights (normalized)")
    words = list(spec["data"][0]["y"])
    w = z(spec)
    assert w[words.index("orange"), words.index("orange")] == pytest.approx(1 / (1 + 1 / np.sqrt(2)), abs=1e-6)


def test_3_queries_keys_asymmetric_unless_one_projection(model):
    at = run_page("pages/03_queries_keys.py")
    qk = z(figure(at, "q_i · k_j"))
    assert np.allclose(qk, attention.trace(model, FLUFFY).layers[0].scores[0], atol=1e-5)
    assert float(metric(at, "asymmetry max")) > 0.1
    xx = z(figure(at, "X Xᵀ"))
    assert np.allclose(xx, xx.T, atol=1e-5)
    at.toggle(key="w:ch3_same").set_value(True).run()
    kk = z(figure(at, "k_i · k_j"))
    assert np.allclose(kk, kk.T, atol=1e-4)


def test_4_scaling_keeps_the_entropy_up():
    at = run_page("pages/04_scaling.py")
    entropy = figure(at, "Softmax entropy")
    raw, scaled = (array(entropy["data"][i]["y"]) for i in (0, 1))
    assert scaled[-1] > 1.5 > raw[-1]  # at d_k = 1024
    top_scaled = float(metric(at, "mean weight of the top key"))
    at.toggle(key="w:ch4_scaled").set_value(False).run()
    assert float(metric(at, "mean weight of the top key")) > top_scaled


def test_5_masking_worked_softmax_columns_sum_to_one(model):
    at = run_page("pages/05_masking.py")
    w = z(figure(at, "Softmax down each column"))
    assert np.allclose(w.sum(axis=0), 1.0)
    assert np.allclose(w[:, 0], [1, 0, 0, 0])  # the first query sees only the first key
    e = np.exp
    assert np.allclose(w[:2, 1], [e(0.8), e(-0.3)] / (e(0.8) + e(-0.3)), atol=5e-4)  # 0.750, 0.250, as the notes say
    assert w[0, 2] == pytest.approx(e(1.9) / (e(1.9) + e(-0.2) + e(0.99)), abs=5e-4)  # 0.656; the notes print 0.69
    causal = z(figure(at, "mask: causal"))
    assert (causal[np.triu_indices(13, 1)] == 0).all()
    at.toggle(key="w:ch5_mask").set_value(False).run()
    assert (z(figure(at, "Softmax down each column"))[np.tril_indices(4, -1)] > 0).all()


def test_6_values_low_rank_and_displacement(model):
    at = run_page("pages/06_values.py")
    assert "32 of 384 are not zero" in figure(at, "Singular values")["layout"]["title"]["text"]
    assert metric(at, "rank of") == "32"
    layer = attention.trace(model, FLUFFY).layers[0]
    assert float(metric(at, "|Δe|")) == pytest.approx(np.linalg.norm(layer.displacement[0, 4]), abs=1e-3)  # “creature”


def test_7_heads_sum_equals_concat():
    at = run_page("pages/07_heads.py")
    assert float(metric(at, "max |Σ")) <= 1e-5


def test_8_position_blind_without_position_embeddings():
    at = run_page("pages/08_position.py")
    assert float(metric(at, "max difference")) < 1e-5
    assert np.allclose(z(figure(at, "Original order")), z(figure(at, "Shuffled, then put back")), atol=1e-5)
    sinusoid = z(figure(at, "Sinusoidal encoding"))
    assert np.allclose(sinusoid[0, 0::2], 0) and np.allclose(sinusoid[0, 1::2], 1)
    at.toggle(key="w:ch8_positions").set_value(True).run()
    assert float(metric(at, "max difference")) > 1e-3


def test_9_cross_attention_shape(model):
    at = run_page("pages/09_cross_attention.py")
    source = at.text_input(key="w:ch9_source").value
    w = z(figure(at, "Cross-attention weights"))
    assert w.shape == (13, attention.trace(model, source).n_tokens)  # n_target × n_source
    assert w.shape[0] != w.shape[1]
    assert np.allclose(w.sum(axis=1), 1.0, atol=1e-6)


def test_10_kv_cache_equals_full_masked_attention():
    at = run_page("pages/10_kv_cache.py")
    assert float(metric(at, "max difference")) < 1e-6
    step = figure(at, "Step 5")
    assert float(np.sum(array(step["data"][0]["y"]))) == pytest.approx(1.0, abs=1e-5)


def test_11_gpt3_attention_is_about_a_third(model):
    at = run_page("pages/11_parameters.py")
    shares = [m.value for m in at.metric if m.label == "attention share"]
    gpt3 = float(shares[0].rstrip("%")) / 100
    assert 0.30 < gpt3 < 0.36
    assert shares[0] == "33.1%"  # 96 layers × 4 × 12288² = 57,982,058,496 of 175,181,291,520
    totals = [m.value for m in at.metric if m.label == "total"]
    assert totals[1] == f"{model.n_parameters:,}"


def test_the_sentence_carries_into_the_chapters(model):
    at = run_page("pages/07_heads.py", text="the bank by the river bank")
    norms = figure(at, "|Δe⁽ʰ⁾|")
    assert "bank (6)" in list(norms["data"][0]["x"])
