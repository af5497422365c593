"""Plotly asked for first thing on every page (app.py), while the server is still computing the page.

Plotly is Streamlit's own chart code (ui/components/plotly_loader.js): the largest file the browser must fetch and run
before the first figure is drawn. This module imports nothing but Streamlit, so that app.py sends its element before
importing the rest of the app."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ui import internals

LOADER = Path(__file__).with_name("plotly_loader.js").read_text(encoding="utf-8")
# Streamlit's chart code, which defines window.Plotly: its file's name changes with Streamlit's version
PLOTLY_JS = "./" + internals.plotly_chunk()
_preload = st.components.v2.component(
    "attention_plotly_preload",
    html='<div class="plotly-preload"></div>',
    css='[data-testid="stElementContainer"]:has(.plotly-preload) {\n  display: none;\n}\n',  # lines: read as CSS
    js=LOADER + "export default function ({ data }) { plotly(data.plotly); }",
    isolate_styles=False,
)


def plotly() -> None:
    """Ask the browser for Plotly now: by the page's first figure, it has loaded (it took a cold page's first
    figure until after the server was done)."""
    _preload(key="plotly_preload", data={"plotly": PLOTLY_JS})
