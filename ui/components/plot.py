"""A plotly figure drawn in place, once per change (ui/components/plot.js).

Streamlit's own chart element is a new element whenever its figure changes (its id is a hash of the figure):
mounted afresh and drawn twice, the second time by its theme effect, whatever the theme. A page of nine charts
that all change with a new sentence cost eighteen draws on the browser's one main thread. This element keeps
its place, draws a changed figure once, and leaves a figure that did not change alone. Its Plotly is the app's
cartesian bundle, asked for by the page's first element (ui/components/preload.py), else Streamlit's chart code.

A title the server wrapped for a 1280×720 screen's column (figures/base.py) is cut again in the browser where the
chart is narrower, a phone's (plot_fit.js): the server's figure is the same for every screen, built once per view
for all of them, and a phone's width costs no run of the page.

Streamlit's chart stays where a click on a point must reach the app (its selection events).
"""

from __future__ import annotations

import json
import threading
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io
import streamlit as st

from ui import internals
from ui.components import preload
from ui.components.preload import LOADER
from ui.figures import labels
from ui.words import i18n
from ui.words.i18n import N_, _

# the figure, its labels placed (labels.js) and fitted to its width (plot_fit.js), and its disclosure in words and
# numbers (chart_text.js) under it
_FILES = ("labels.js", "plot_fit.js", "chart_text.js", "plot.js")
_JS = LOADER + "".join(Path(__file__).with_name(f).read_text(encoding="utf-8") for f in _FILES)
_CSS = Path(__file__).with_name("chart_text.css").read_text(encoding="utf-8")
_component = st.components.v2.component("attention_plot", js=_JS, css=_CSS, isolate_styles=False)
NAME = "attention_plot"

_specs: dict[int, tuple[weakref.ref, str]] = {}  # a figure's JSON, once per figure object
_lock = threading.Lock()


def plot(
    fig: go.Figure,
    config: dict,
    key: str,
    label: str = "",
    text: dict | None = None,
    laid_out: int | None = None,
) -> None:
    """Draw the figure (read only from here on: its JSON is kept) with plotly's config. label: its name for screen
    readers; text: what it shows in words and numbers (ui/components/chart_text.py's disclosure), drawn under it and naming
    it for a screen reader; laid_out: the px width the figure was laid out for (its legend's rows there), where the
    browser fits it to another."""
    # every value a string, a number or a boolean: Streamlit looks for a data frame in any other (importing pandas and
    # pyarrow to do it), so the disclosure's fields come one by one (text_alt, text_id…)
    data = {"spec": spec(fig), "config": json.dumps(config), "plotly": preload.sources()}
    data |= {f"text_{field}": value for field, value in (text or {}).items()}
    data |= {"label": label, "describedBy": text["id"] if text else "", "headName": _("head {n}"), "laidOut": laid_out}
    data |= {"fullscreen": _("Fullscreen"), "failed": _("This figure could not be drawn: {error}")}
    _component(key=key, data=data, height="content")


# What Plotly itself writes on a chart of ours, in English, by its own words (its locale dictionary's keys): the
# toolbar's tooltips, the note after a zoom, the camera button's messages. Plotly ships a locale file per language;
# the app says them through its own catalogues instead, so every word on a page is translated in one place.
PLOTLY_WORDS = (
    N_("Zoom"),
    N_("Pan"),
    N_("Zoom in"),
    N_("Zoom out"),
    N_("Autoscale"),
    N_("Reset axes"),
    N_("Download plot as a PNG"),
    N_("Download plot"),
    N_("Double-click to zoom back out"),
    N_("Preparing image - this may take a few seconds"),
    N_("Image download succeeded"),
    N_("Sorry, there was a problem downloading your image!"),
)


def localised(config: dict) -> dict:
    """Plotly's config with its own words in the page's language (config.locale and the dictionary beside it), for
    this element and for Streamlit's chart alike; English as it is."""
    code = i18n.language()
    if code == i18n.SOURCE:
        return config
    words = {word: _(word) for word in PLOTLY_WORDS}
    return config | {"locale": code, "locales": {code: {"dictionary": words}}}


def spec(fig: go.Figure) -> str:
    """The figure as plotly JSON, made once per figure object: a figure kept for a view is sent with every
    rerun of every session that shows it."""
    with _lock:
        kept = _specs.get(id(fig))
        if kept is not None and kept[0]() is fig:
            return kept[1]
    text = to_json(fig)
    with _lock:
        key = id(fig)
        _specs[key] = (weakref.ref(fig, lambda _ref, key=key: _specs.pop(key, None)), text)
    return text


# plotly.io.to_json's own escapes: the JSON stays safe inside a page's HTML
_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("/", "\\u002f"))


class _Encoder(json.JSONEncoder):
    """What plotly writes for the values json cannot: a numpy array as a typed array, as plotly.io does."""

    def default(self, o: Any) -> Any:
        if isinstance(o, np.ndarray):
            typed = internals.typed_array(o)
            return typed if isinstance(typed, dict) else typed.tolist()
        if isinstance(o, np.generic):
            return o.item()
        if hasattr(o, "to_plotly_json"):
            return o.to_plotly_json()
        return super().default(o)


def to_json(fig: go.Figure) -> str:
    """plotly.io.to_json(fig, validate=False), text for text, without its deep copy of the figure and its
    walk through every value: they were two thirds of its time, a tenth of a new sentence's CPU on the server.
    The figure is read as plotly keeps it (its data and layout dicts); a figure holding what this reading does
    not write the same (NaN or infinity, kept as null; an array under "range") goes through plotly.io itself.
    tests/test_plot.py compares the two on every figure of the explorer and the chapters."""
    data, layout = internals.figure_dicts(fig)
    if not _plain_ranges(layout):
        return plotly.io.to_json(fig, validate=False)
    try:
        text = json.dumps({"data": data, "layout": layout}, cls=_Encoder, separators=(",", ":"), allow_nan=False)
    except ValueError:  # NaN or infinity: plotly writes null
        return plotly.io.to_json(fig, validate=False)
    for unsafe, safe in _ESCAPES:
        text = text.replace(unsafe, safe)
    return text


def _plain_ranges(layout: dict) -> bool:
    """No axis range held as a numpy array (plotly.io keeps those as lists, where this reading writes typed
    arrays)."""
    return not any(isinstance(v, dict) and isinstance(v.get("range"), np.ndarray) for v in layout.values())


def drawn(at: Any) -> list[tuple[dict, dict]]:
    """Every figure a page run headless (Streamlit's AppTest) drew, in order: (plotly figure, plotly config), its
    labels placed (on the server, as ui/components/labels.js places them in the browser)."""
    out = []
    for kind, proto in internals.elements_in_order(at):
        if kind == "plotly_chart":
            out.append((json.loads(proto.spec), json.loads(proto.config)))
        elif kind == "bidi_component" and proto.component_name.endswith(NAME):  # its labels placed as the browser does
            data = json.loads(proto.json)
            out.append((labels.placed(json.loads(data["spec"])), json.loads(data["config"])))
    return out
