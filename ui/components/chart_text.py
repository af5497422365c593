"""A figure in words and numbers (ui/figures/described.py), shown under it as a disclosure: what the figure shows
in sentences, in the page's language, and its values as tables that a keyboard and a screen reader reach. The
figure itself is named by its title for screen readers and described by these sentences (ui/components/plot.js).

Made once per figure object (and head shown), as the figure's JSON is: a rerun that keeps the figure sends the
same text, and the browser leaves it alone."""

from __future__ import annotations

import json
import threading
import weakref
from pathlib import Path

import plotly.graph_objects as go
import streamlit as st

from ui import internals
from ui.figures import described, head_meta
from ui.words import i18n
from ui.words.i18n import N_, _

JS = Path(__file__).with_name("chart_text.js").read_text(encoding="utf-8")  # bundled with ui/components/plot.js too
CSS = (
    Path(__file__).with_name("chart_text.css").read_text(encoding="utf-8")
)  # ui/components/plot.py's element draws it too
SUMMARY = N_("This figure in words and numbers")
# its own element, for Streamlit's chart (one whose clicks reach the app): the app's own draws it (ui/components/plot.py)
_component = st.components.v2.component(
    "attention_chart_text",
    js=JS
    + """export default function ({ data, parentElement }) {
  if (data.names) nameChart(parentElement, data);
  describeIn(parentElement, data);
}""",
    css=CSS,
    isolate_styles=False,
)

_texts: dict[tuple, tuple[weakref.ref, str, str]] = {}  # (figure, head, language): (the figure, its text, its name)
_lock = threading.Lock()


def element_id(key: str) -> str:
    """The id of the description's element, which the figure's aria-describedby names."""
    return "alt-" + "".join(c if c.isalnum() else "-" for c in key)


def text(fig: go.Figure, switch: int | None) -> str:
    """The figure (showing head `switch`, where it holds every head) described, as JSON for the browser."""
    return _described(fig, switch)[0]


def name(fig: go.Figure, switch: int | None) -> str:
    """The figure's name for screen readers (its title, as the description gives it)."""
    return _described(fig, switch)[1]


def _described(fig: go.Figure, switch: int | None) -> tuple[str, str]:
    key = (id(fig), switch, i18n.language())
    with _lock:
        kept = _texts.get(key)
        if kept is not None and kept[0]() is fig:
            return kept[1], kept[2]
    data, layout = internals.figure_dicts(fig)  # read as they are, not from the JSON they are sent as
    spec = {"data": data, "layout": layout}
    if switch is not None:
        spec = head_meta.showing(spec, switch)
    alt = described.describe(spec, words=i18n.words())
    said = json.dumps(as_json(alt), ensure_ascii=False, separators=(",", ":"))
    with _lock:
        _texts[key] = (weakref.ref(fig, lambda _ref, key=key: _texts.pop(key, None)), said, alt.name)
    return said, alt.name


def as_json(alt: described.Alt) -> dict:
    """The description as plain JSON values (dataclasses.asdict copies each of a table's thousands of cells)."""
    tables = [dict(caption=t.caption, header=t.header, rows=t.rows, digits=t.digits) for t in alt.tables]
    return dict(name=alt.name, sentences=alt.sentences, tables=tables)


def disclosure(fig: go.Figure, key: str, switch: int | None = None, compact: bool = False) -> dict:
    """What the disclosure under the figure drawn with this key shows, for the browser (ui/components/chart_text.js).
    compact: hidden until a keyboard reaches it (presenter mode, where the figures fill the screen)."""
    data = {"alt": text(fig, switch), "summary": _(SUMMARY), "id": element_id(key), "compact": compact}
    data["lang"] = i18n.language()
    return data


def chart_text(fig: go.Figure, key: str, switch: int | None = None, compact: bool = False, names: str = "") -> None:
    """The disclosure as an element of its own, under Streamlit's chart drawn with this key (one whose clicks reach
    the app; the app's own figure draws it itself, ui/components/plot.py). names: the name to give that chart, which
    ui/components/plot.js does not name."""
    _component(key=f"{key}-text", data=disclosure(fig, key, switch, compact) | {"names": names})
