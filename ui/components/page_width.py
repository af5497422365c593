"""The page's width, as the browser reports it: a figure laid out in pixels is drawn for the column it has, a
phone's where the page is narrower than STACKED_PX, else a 1280×720 screen's."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui.components import head_switch
from ui.figures.base import Canvas
from ui.figures.matrices import COLUMN_GAP

STACKED_PX = 640  # a page column narrower than this (a phone) stacks st.columns one above the other


def column_px(share: float) -> int:
    """The width of a column that takes `share` of the page's, at a 1280×720 screen's: the narrowest a desktop
    draws it, and the same on every run and every screen, so that a figure is built once for all of them. Where
    the chart is narrower (a phone's), the browser cuts its titles again to the width it has (ui/components/plot_fit.js)."""
    return round(Canvas.width * share) - (0 if share == 1 else COLUMN_GAP)


_page_width = st.components.v2.component(
    "attention_page_width",
    html='<div class="page-width"></div>',
    css='[data-testid="stElementContainer"]:has(.page-width) {\n  display: none;\n}\n',
    js=Path(__file__).with_name("page_width.js").read_text(encoding="utf-8"),
    isolate_styles=False,
)


def page_px() -> int:
    """The page column's width for a figure laid out in pixels to fill it (chapter 1's diagram, whose notes beside
    its boxes cannot be cut again in the browser): a phone's, as the browser reports it here (once a session, on
    the first page that asks: a run of that page), else a 1280×720 screen's."""
    size = head_switch.page_size()
    _page_width(
        key="page_width",
        data={"width": size["width"], "narrow": STACKED_PX, "tolerance": head_switch.TOLERANCE},
        on_width_change=_width_reported,
    )
    return size["width"] if size["width"] < STACKED_PX else column_px(1)


def _width_reported() -> None:
    width = st.session_state["page_width"].get("width")
    if isinstance(width, int | float) and width > 0:
        st.session_state[head_switch.CANVAS] = head_switch.page_size() | {"width": int(width)}
