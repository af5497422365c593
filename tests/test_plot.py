"""The chart element's figure JSON (ui/components/plot.py): plotly.io's own text, made without its copy of the figure."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import plotly.io
import pytest

from app_driver.apptest import run_page
from ui import internals
from ui.components import plot
from ui.figures import theme
from ui.figures.base import Spec
from ui.words.chapters import CHAPTERS

PAGES = ["pages/00_explorer.py"] + [f"pages/{c.file}" for c in CHAPTERS]


def plotly_json(fig: go.Figure | Spec) -> str:
    """plotly.io's JSON of the figure; of a Spec, of the figure plotly makes of it (its arrays written as typed
    arrays, which plotly.io writes as lists from a dict)."""
    return plotly.io.to_json(go.Figure(fig) if isinstance(fig, Spec) else fig, validate=False)


@pytest.fixture
def compared(monkeypatch) -> list[go.Figure]:
    """Every figure a page sends, its JSON checked against plotly.io's as it is made."""
    seen = []
    made = plot.to_json

    def checked(fig):
        text = made(fig)
        if isinstance(fig, Spec):  # the same values; its keys in its builder's order, not plotly's alphabet's
            assert json.loads(text) == json.loads(plotly_json(fig)), fig["layout"].get("title")
        else:
            assert text == plotly_json(fig), fig.layout.title.text
        seen.append(fig)
        return text

    monkeypatch.setattr(plot, "to_json", checked)
    monkeypatch.setattr(plot, "_specs", {})  # none kept from an earlier test
    return seen


@pytest.mark.parametrize("path", PAGES)
def test_every_figure_of_every_page_is_plotlys_own_json(path, compared):
    at = run_page(path)
    assert not at.exception
    own = [
        p
        for kind, p in internals.elements_in_order(at)
        if kind == "bidi_component" and p.component_name.endswith(plot.NAME)
    ]
    # every figure of the app's own element (and Streamlit's charts' that are kept for a view: measured by their JSON)
    assert len(own) <= len(compared) <= len(plot.drawn(at))


def test_the_explorer_on_a_decoder_and_a_long_text_too(compared, gpt2_in_cache):
    run_page("pages/00_explorer.py", model="gpt2", text=" ".join(["the fluffy blue creature"] * 30))
    assert len(compared) >= 9


def test_typed_arrays_numpy_scalars_and_escapes_as_plotly_writes_them():
    fig = go.Figure(
        [
            go.Heatmap(z=np.arange(12, dtype=np.float32).reshape(3, 4), x=np.arange(4), text=[["<b>"] * 4] * 3),
            go.Scatter(x=np.array([1, 2**40]), y=[np.float64(0.5), np.int64(3)], name="a/b </script>"),
        ],
        layout=dict(title=dict(text="x > y"), xaxis=dict(range=[np.float64(0), 1.5])),
    )
    assert plot.to_json(fig) == plotly_json(fig)
    assert json.loads(plot.to_json(fig))["data"][0]["z"]["dtype"] == "f4"


@pytest.mark.parametrize(
    "fig",
    [
        go.Figure(go.Scatter(x=[0, 1], y=[float("nan"), float("inf")])),
        go.Figure(
            [dict(type="scatter", x=[0, 1], y=[0, 1])],
            layout=dict(xaxis=dict(range=np.array([0.0, 2.0]))),
            _validate=False,
        ),
    ],
    ids=["nan and infinity as null", "an array as a range"],
)
def test_what_json_would_write_otherwise_goes_through_plotly(fig):
    assert plot.to_json(fig) == plotly_json(fig)


def test_a_spec_is_taken_as_given_and_written_as_plotly_writes_its_dict():
    """A figure redrawn for every sentence is a Spec: plotly's checks are not run (tests/test_app.py runs them on
    every such figure of the explorer), its settings are its builder's own dicts, our template is written out."""
    traces = [dict(type="heatmap", z=np.arange(6, dtype=np.float32).reshape(2, 3), zmin="low")]  # plotly refuses it
    with pytest.raises(ValueError):
        go.Figure(data=[dict(traces[0])])  # a copy: plotly takes the type out of the dicts it is given
    layout = dict(template=go.layout.Template(layout=dict(height=300)), title=dict(text="t"))
    fig = Spec.of(traces, layout)
    data, own = internals.figure_dicts(fig)
    assert data[0] is traces[0] and own["title"] is layout["title"]
    assert own["template"] == {"layout": {"height": 300}}
    assert Spec.of([], dict(template=theme.TEMPLATE))["layout"]["template"] == theme.TEMPLATE.to_plotly_json()
    assert json.loads(plot.spec(fig))["data"][0]["zmin"] == "low"
    traces[0]["zmin"] = 0.5
    valid = Spec.of(traces, layout)
    assert json.loads(plot.to_json(valid)) == json.loads(plotly_json(valid))
