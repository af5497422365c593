"""The explorer run headless with AppTest: its figures hold the engine's numbers, bad input is handled."""

from __future__ import annotations

import html
import json

import numpy as np
import pytest

import attention
from tests.apptest import array, figure, figures, messages, run_page

FLUFFY = "a fluffy blue creature roamed the verdant forest"


def z(spec: dict) -> np.ndarray:
    return array(spec["data"][0]["z"])


@pytest.fixture(scope="module")
def default_page():
    at = run_page()
    assert not at.exception
    return at


def test_every_step_is_drawn(default_page):
    titles = list(figures(default_page))
    expected = [
        "13 tokens",
        "Q:",
        "K:",
        "V:",
        "1. Raw scores",
        "2. Scaled",
        "3. Masked",
        "4. Softmax",
        "All 12 heads",
        "How the heads move",
        "How far each head",
        "Every token, before",
    ]
    for start in expected:
        assert any(t.startswith(start) for t in titles), (start, titles)
    assert len(default_page.get("latex")) >= 7  # an equation for each step


def test_softmax_heatmap_holds_the_engines_weights(default_page, model):
    tr = attention.trace(model, FLUFFY)
    shown = z(figure(default_page, "4. Softmax"))
    assert np.allclose(shown, tr.layers[0].weights[0], atol=1e-7)
    raw = z(figure(default_page, "1. Raw scores"))
    assert np.allclose(raw, tr.layers[0].scores[0], atol=1e-5)


def test_chosen_layer_and_head_are_drawn(model):
    at = run_page()
    at.sidebar.selectbox(key="w:layer").set_value(3).run()
    at.sidebar.selectbox(key="w:head").set_value(5).run()
    tr = attention.trace(model, FLUFFY)
    assert np.allclose(z(figure(at, "4. Softmax")), tr.layers[2].weights[4], atol=1e-7)
    assert at.query_params["layer"] == "3" and at.query_params["head"] == "5"
    grid = figure(at, "All 12 heads")
    assert len(grid["data"]) == 12 and grid["layout"]["title"]["text"] == "All 12 heads of layer 3"
    assert np.allclose(array(grid["data"][4]["z"]), tr.layers[2].weights[4], atol=1e-7)


def test_causal_mask_shows_minus_infinity_above_the_diagonal(model):
    at = run_page(mask="causal")
    masked = figure(at, "3. Masked")
    n = 13
    above = np.triu(np.ones((n, n), dtype=bool), k=1)
    values = z(masked)
    assert np.isnan(values[above]).all()  # drawn as masked cells, not as 0
    text = np.array(masked["data"][0]["text"])
    assert (text[above] == "−∞").all() and not (text[~above] == "−∞").any()
    weights = z(figure(at, "4. Softmax"))
    assert (weights[above] == 0).all()
    assert np.allclose(weights.sum(axis=1), 1.0, atol=1e-6)
    assert np.allclose(weights, attention.trace(model, FLUFFY, mask="causal").layers[0].weights[0], atol=1e-7)


def test_lesson_notes_layout_is_the_transpose(model):
    at = run_page(layout="notes", mask="causal")
    weights = z(figure(at, "4. Softmax"))
    assert np.allclose(weights, attention.trace(model, FLUFFY, mask="causal").layers[0].weights[0].T, atol=1e-7)
    assert np.allclose(weights.sum(axis=0), 1.0, atol=1e-6)  # columns are queries


def test_hiding_special_tokens_drops_their_rows_and_columns():
    at = run_page(specials="0")
    shown = z(figure(at, "4. Softmax"))
    assert shown.shape == (11, 11)
    ticks = list(figure(at, "4. Softmax")["data"][0]["x"])
    assert "[CLS]" not in ticks and "[SEP]" not in ticks


def test_repeated_words_keep_separate_rows():
    at = run_page(text="the bank by the river bank")
    spec = figure(at, "4. Softmax")
    ticks = list(spec["data"][0]["y"])
    assert "bank (2)" in ticks and "bank (6)" in ticks
    assert z(spec).shape == (8, 8)


def test_numbers_in_cells_only_for_short_sentences():
    short = figure(run_page(), "4. Softmax")["data"][0]
    assert short.get("texttemplate") == "%{text}"
    long_text = " ".join(["word"] * 30)
    long = figure(run_page(text=long_text), "4. Softmax")["data"][0]
    assert not long.get("texttemplate")


def test_export_config_is_png_3x_or_svg():
    at = run_page()
    config = json.loads(at.get("plotly_chart")[0].proto.config)
    assert config["toImageButtonOptions"]["format"] == "png" and config["toImageButtonOptions"]["scale"] == 3
    at = run_page(export="svg")
    config = json.loads(at.get("plotly_chart")[0].proto.config)
    assert config["toImageButtonOptions"]["format"] == "svg"


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_sentence_asks_for_one(text):
    at = run_page(text=text)
    assert not at.exception
    assert "Type a sentence" in messages(at)
    assert not at.get("plotly_chart")


def test_a_huge_paste_is_cut_with_a_notice():
    at = run_page(text="the fluffy creature roamed " * 200)  # 5,400 characters
    assert not at.exception
    assert "left out" in messages(at) and "256" in messages(at)
    assert figure(at, "256 tokens")


@pytest.mark.parametrize(
    "text", ["I ❤️ attention 🤖", "東京の森を歩く", "שלום עולם", "e\u0301te\u0301 cafe\u0301", "\x00\x07 bell"]
)
def test_any_script_is_traced_without_error(text):
    at = run_page(text=text)
    assert not at.exception
    assert figures(at)


def test_html_in_the_text_is_never_rendered_as_html(model):
    text = "<script>alert(1)</script> <b>bold</b> & more"
    at = run_page(text=text)
    assert not at.exception
    tokens = [t.text for t in attention.trace(model, text).tokens]
    for title in ("4. Softmax", f"{len(tokens)} tokens"):
        spec = figure(at, title)
        labels = spec["data"][0]["x"] if title == "4. Softmax" else spec["data"][-2]["text"]
        assert len(labels) == len(tokens)
        for label, token in zip(labels, tokens, strict=True):
            assert "<" not in label and ">" not in label  # nothing plotly could read as a tag…
            assert html.unescape(label).startswith(token)  # …and still the token's own characters
        assert any("&lt;" in label for label in labels) and any("&amp;" in label for label in labels)


@pytest.mark.parametrize(
    "params",
    [
        {"layer": "99"},
        {"head": "-1"},
        {"mask": "xyz"},
        {"layout": "sideways"},
        {"layer": "abc", "head": "1e9", "token": "-5"},
    ],
)
def test_odd_url_parameters_fall_back_to_defaults(params, model):
    at = run_page(**params)
    assert not at.exception
    assert "could not be used" in messages(at)
    assert np.allclose(z(figure(at, "4. Softmax")), attention.trace(model, FLUFFY).layers[0].weights[0], atol=1e-7)


def test_example_picker_sets_the_sentence():
    at = run_page()
    at.sidebar.selectbox(key="w:example").set_value("an apple phone").run()
    assert not at.exception
    assert figure(at, "5 tokens")
    assert at.query_params["text"] == "an apple phone"
    assert "“apple”" in figure(at, "How the heads move")["layout"]["title"]["text"]
