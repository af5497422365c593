"""Every figure in words and numbers (ui/figures/described.py, ui/components/chart_text.py), and equations a screen reader
speaks as words: checked on figures whose answer is known by hand, then on every figure of every page."""

from __future__ import annotations

import json
import re

import numpy as np
import plotly.graph_objects as go
import pytest

from app_driver.apptest import run_page
from ui.figures import described, head_meta
from ui.words import i18n
from ui.words.chapters import CHAPTERS

PAGES = ["pages/00_explorer.py"] + [f"pages/{c.file}" for c in CHAPTERS]


def as_drawn(fig: go.Figure) -> dict:
    return json.loads(fig.to_json())


def test_a_weights_heatmap_says_where_each_query_puts_most_of_its_weight():
    w = np.array([[1.0, 0.0, 0.0], [0.3, 0.7, 0.0], [0.2, 0.5, 0.3]])
    fig = go.Figure(go.Heatmap(z=w, x=["a", "b", "c"], y=["a", "b", "c"]))
    alt = described.describe(as_drawn(fig), words=i18n.words())
    assert "“b” gives most of its weight to “b”: 0.700." in alt.sentences
    assert "“c” gives most of its weight to “b”: 0.500." in alt.sentences
    (table,) = alt.tables
    assert table.header[1:] == ("a", "b", "c")
    assert [row[0] for row in table.rows] == ["a", "b", "c"]
    assert table.rows[2][1:] == (0.2, 0.5, 0.3)


def test_in_the_notes_layout_each_column_is_a_query():
    w = np.array([[1.0, 0.3, 0.2], [0.0, 0.7, 0.5], [0.0, 0.0, 0.3]])  # columns sum to 1
    alt = described.describe(as_drawn(go.Figure(go.Heatmap(z=w, x=list("abc"), y=list("abc")))), words=i18n.words())
    assert "“c” gives most of its weight to “b”: 0.500." in alt.sentences


def test_masked_cells_are_counted_and_read_as_minus_infinity():
    s = np.array([[1.5, np.nan], [0.5, -2.0]])
    alt = described.describe(as_drawn(go.Figure(go.Heatmap(z=s, x=["x", "y"], y=["x", "y"]))), words=i18n.words())
    assert "1 cell is masked (−∞ before the softmax, 0 after it)." in alt.sentences
    assert "Row “x”: largest value at “x”, 1.500." in alt.sentences
    assert alt.tables[0].rows[0][2] is None  # the browser writes it −∞


def test_a_long_heatmap_says_its_first_rows_and_counts_the_rest():
    """Past MAX_SENTENCES rows the rest are counted, not said: a row whose every cell is masked says nothing and is
    not counted; the table still holds every row."""
    n = described.MAX_SENTENCES + 6
    s = np.arange(n * 3, dtype=np.float64).reshape(n, 3)
    s[1] = np.nan  # masked whole
    tokens = [f"t{i}" for i in range(n)]
    alt = described.describe(as_drawn(go.Figure(go.Heatmap(z=s, x=["a", "b", "c"], y=tokens))), words=i18n.words())
    rows = [x for x in alt.sentences if x.startswith("Row ")]
    assert len(rows) == described.MAX_SENTENCES and rows[1] == "Row “t2”: largest value at “c”, 8."
    assert f"{n - 1 - described.MAX_SENTENCES} more rows are in the table." in alt.sentences
    assert len(alt.tables[0].rows) == n and alt.tables[0].rows[1][1:] == (None, None, None)


def test_the_values_shown_are_the_hover_values_where_the_colours_are_something_else():
    """The weights' colour may be each weight's share of its row's largest: the words give the weight itself."""
    w = np.array([[0.6, 0.4], [0.1, 0.9]])
    colour = w / w.max(axis=1, keepdims=True)
    fig = go.Figure(go.Heatmap(z=colour, customdata=w, x=["p", "q"], y=["p", "q"]))
    assert (
        "“p” gives most of its weight to “p”: 0.600." in described.describe(as_drawn(fig), words=i18n.words()).sentences
    )


def test_typed_arrays_tokens_as_text_and_a_head_switch():
    """plotly's typed arrays decode; a token such as "<b>" is read as typed (the axis escapes it); a figure that
    holds every head is described for the head the page shows."""
    a, b = np.eye(2, dtype=np.float32), np.array([[0.0, 1.0], [1.0, 0.0]], dtype=np.float32)
    trace = dict(type="heatmap", z=head_meta.typed(a), x=["&lt;b&gt;", "c"], y=["&lt;b&gt;", "c"], name="head 1")
    meta = head_meta.layout_meta(0, [0, 1], {1: [dict(z=b)]}, [0], words=i18n.words())
    spec = {"data": [trace], "layout": {"title": {"text": "All heads<br>of a layer"}, "meta": meta}}
    alt = described.describe(spec, words=i18n.words())
    assert alt.name == "All heads of a layer"
    assert "Head 1: 2 × 2 values, from 0.000 to 1.000." in alt.sentences
    assert "“<b>” gives most of its weight to “<b>”: 1.000." in alt.sentences
    other = described.describe(head_meta.showing(spec, 1), words=i18n.words())
    assert "“<b>” gives most of its weight to “c”: 1.000." in other.sentences


def test_bars_lines_and_points():
    bars = go.Figure(go.Bar(x=["h1", "h2", "h3"], y=[0.5, 2.25, 0.125]))
    assert described.describe(as_drawn(bars), words=i18n.words()).sentences == (
        "Largest “h2” (2.250), smallest “h3” (0.125).",
    )
    line = go.Figure(go.Scatter(x=[1, 2, 3, 4], y=[0.5, 0.9, 0.25, 0.1], mode="lines", name="λ = 0.9"))
    (said,) = described.describe(as_drawn(line), words=i18n.words()).sentences
    assert said == "λ = 0.9: from 0.500 at 1 to 0.100 at 4; highest 0.900 at 2."
    points = go.Figure(go.Scatter(x=[0.0, 1.0], y=[1.0, 0.5], mode="markers", text=["e", "e + Δe"]))
    alt = described.describe(as_drawn(points), words=i18n.words())
    assert alt.sentences == ("2 points, listed in the table.",)
    assert alt.tables[0].rows == (("e", "0", 1.0), ("e + Δe", "1", 0.5))


def test_a_diagram_reads_its_boxes_in_order():
    fig = go.Figure(layout=dict(annotations=[dict(text="Tokens"), dict(text="<b>Embeddings</b>"), dict(text="Heads")]))
    assert described.describe(as_drawn(fig), words=i18n.words()).sentences == (
        "A diagram, read from top to bottom: Tokens · Embeddings · Heads.",
    )


def page_texts(at) -> list[dict]:
    """Each figure's words and numbers: in the app's own figure's element, or in the one under Streamlit's chart."""
    out = []
    for e in at._tree:
        if e.type != "bidi_component":
            continue
        data = json.loads(e.proto.json)
        if e.proto.component_name.endswith("attention_chart_text"):
            out.append(json.loads(data["alt"]))
        elif e.proto.component_name.endswith("attention_plot") and data.get("text_alt"):
            out.append(json.loads(data["text_alt"]))
    return out


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("path", PAGES)
def test_every_figure_of_every_page_says_what_it_shows(path, lang):
    """Each chart has a name and at least one sentence from its data in the page's language, and each chart
    with values (a heatmap, bars, a line) a table of them."""
    at = run_page(path, lang=lang)
    assert not at.exception
    texts = page_texts(at)
    plots = sum(e.type == "plotly_chart" or _named(e, "attention_plot") for e in at._tree)
    assert len(texts) == plots > 0
    for alt in texts:
        assert alt["name"], alt
        assert alt["sentences"], alt["name"]
        for table in alt["tables"]:
            assert table["rows"] and all(len(row) == len(table["header"]) for row in table["rows"]), alt["name"]
        if lang == "fr":
            english = [
                s for s in alt["sentences"] if re.search(r"\b(largest|gives most|values, from|points, listed)", s)
            ]
            assert not english, english


def _named(element, name: str) -> bool:
    return element.type == "bidi_component" and element.proto.component_name.endswith(name)


@pytest.mark.parametrize("model", ["minilm", "smollm2", "gemma3"])
def test_equations_name_their_functions_as_words(model):
    """KaTeX writes a bare name (LayerNorm, softmax in \\mathrm) as one MathML letter per character, which a
    screen reader spells out: every name of two letters or more stands in \\operatorname or \\text."""
    spelled = set()
    for path in PAGES:
        at = run_page(path, model=model)
        for e in at._tree:
            body = getattr(getattr(e, "proto", None), "body", None)
            if not isinstance(body, str):
                continue
            for tex in re.findall(r"\$\$(.+?)\$\$", body, re.S) + re.findall(r"(?<!\$)\$([^$]+)\$(?!\$)", body):
                t = re.sub(r"\\(text|operatorname)\{[^{}]*\}", " ", tex)
                t = re.sub(r"\\(begin|end)\{\w+\}", " ", t)
                spelled |= {(path, w) for w in re.findall(r"\\mathrm\{([A-Za-z]{2,})", t)}
                spelled |= {
                    (path, w) for w in re.findall(r"(?<![\\A-Za-z])[A-Za-z]{3,}", re.sub(r"\\[A-Za-z]+", " ", t))
                }
    assert not spelled
