"""The head switch: a row of head buttons that shows another head at once, in the browser, then tells the app.
On a keyboard the row is one stop of the Tab order (the shown head's button), the arrow keys move along it, and
Enter or Space shows the head.

Its JavaScript (head_switch.js) makes the chosen head's matrices visible in every figure that holds all heads,
without waiting for the server; the rerun it then asks for brings the URL, the sidebar's Head box and the rest of
the page in step. Titles name the head in the page's language: each such figure carries the words that name a
head ("tête {n}"; ui/figures/head_meta.py), which the JavaScript finds in its title and rewrites. The same instance
reports the width of the page's column and the window's height, which the explorer's figures are sized from.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import streamlit as st

from ui.figures import theme
from ui.figures.base import Canvas
from ui.words.i18n import _

_JS = Path(__file__).with_name("head_switch.js").read_text(encoding="utf-8")
_CSS = """
.heads { display: flex; flex-wrap: wrap; align-items: center; gap: 0.3rem; }
.heads .name { font-weight: 600; margin-right: 0.4rem; }
.heads button {
  min-width: 2.4rem; min-height: 2.4rem; padding: 0 0.5rem; font: inherit; font-size: 1rem;
  color: var(--st-text-color); background: var(--st-background-color);
  border: 1px solid var(--st-border-color); border-radius: var(--st-button-radius, 0.5rem); cursor: pointer;
}
.heads button:hover { border-color: var(--st-primary-color); color: var(--st-primary-color); }
.heads button:focus-visible { outline: 2px solid var(--st-primary-color); outline-offset: 2px; }
.heads button[aria-pressed="true"] {
  background: var(--st-primary-color); border-color: var(--st-primary-color); color: white; font-weight: 700;
}
"""
_component = st.components.v2.component("attention_head_switch", js=_JS, css=_CSS)

CANVAS = "_canvas"  # session key: the last size the browser reported, {"width": px, "height": px}
RESIZED = "_resized"  # session key: this run follows a new size
DEFAULT_SIZE = {"width": 820, "height": 720}  # a 1280×720 projector with the sidebar open
TOLERANCE = 24  # px: smaller changes (a scroll bar coming and going) do not redraw the page
HEADER_PX = 64  # Streamlit's bar at the top of the window
SWITCH_PX = 56  # the head buttons above a figure


def page_size() -> dict[str, int]:
    """The page column's width and the window's height, as the browser last reported them."""
    return st.session_state.get(CANVAS) or DEFAULT_SIZE


def canvas(type_: theme.FigureType, below: int = SWITCH_PX) -> Canvas:
    """Where a figure that should fill one screen is drawn: the column's width and the window's height less
    Streamlit's header and what stays on screen above the figure (`below`: the head buttons)."""
    s = page_size()
    return Canvas(width=int(s["width"]), height=int(s["height"]) - HEADER_PX - below, type=type_)


def head_switch(
    n_heads: int,
    key: str,
    head: int,
    on_pick: Callable[[int], None],
    label: str | None = None,
    measure: bool = False,
    reveal: str | None = None,
) -> None:
    """Head buttons 1…n_heads, `head` pressed, named `label` (by default "Head" in the page's language); a head
    picked in the browser is given to `on_pick`; `measure`: this one reports the page's size. reveal: the steps the steps figure shows ("1,2,3,4", "2"; its
    meta.steps), in presenter mode: when they change (the step bar, an arrow key), the figure that draws them is
    scrolled whole into the window, its bottom at the window's, the buttons above it still on screen."""
    s = page_size()
    _component(
        key=key,
        data={
            "n_heads": n_heads,
            "head": head,
            "label": label or _("Head"),
            "measure": measure,
            "width": s["width"],
            "height": s["height"],
            "tolerance": TOLERANCE,
            "reveal": reveal,
        },
        on_pick_change=lambda: _picked(key, on_pick),
        on_canvas_change=lambda: _measured(key),
    )


def _picked(key: str, on_pick: Callable[[int], None]) -> None:
    head = st.session_state[key].get("pick")
    if isinstance(head, int):
        on_pick(head)


def _measured(key: str) -> None:
    reported = st.session_state[key].get("canvas")
    if isinstance(reported, dict) and {"width", "height"} <= reported.keys():
        st.session_state[CANVAS] = {"width": int(reported["width"]), "height": int(reported["height"])}
        st.session_state[RESIZED] = True


def resized() -> bool:
    """Whether this run redraws the page for a new size of the window (once: asking again says no)."""
    return bool(st.session_state.pop(RESIZED, False))
