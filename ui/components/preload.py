"""Plotly asked for first thing on every page (app.py), while the server is still computing the page.

Plotly is the largest file the browser must fetch and run before the first figure is drawn. The app's pages load
the cartesian bundle of plotly.js (static/plotly-cartesian.min.js.gz, served by Streamlit's static serving, which
.streamlit/config.toml turns on): the trace types the app draws (scatter, heatmap, bar, histogram), 1.5 MB where
Streamlit's own chart code is 4.7 MB, and the same plotly.js release as the one that draws the exported figures (the
plotly package's). It is kept gzipped (0.5 MB) and unzipped by the browser: the server sends a gzip file as it is,
where it compressed the script anew for every new visitor (a tenth of a second of its CPU each). Where the server does not serve that folder (started without the repository's settings), the
browser falls back on Streamlit's chart code, which defines window.Plotly too (ui/components/plotly_loader.js).

This module imports nothing but Streamlit, so that app.py sends its element before importing the rest of the app."""

from __future__ import annotations

import json
from pathlib import Path

import streamlit as st

from ui import internals

LOADER = Path(__file__).with_name("plotly_loader.js").read_text(encoding="utf-8")
BUNDLE = Path(__file__).resolve().parents[2] / "static" / "plotly-cartesian.min.js.gz"
# relative to Streamlit's own script (static/js/index.….js): the app's static folder, then Streamlit's chart code,
# whose file's name changes with Streamlit's version
OWN = {"url": "../../app/static/" + BUNDLE.name, "module": False, "gzip": True}
STREAMLITS = {"url": "./" + internals.plotly_chunk(), "module": True, "gzip": False}
_preload = st.components.v2.component(
    "attention_plotly_preload",
    html='<div class="plotly-preload"></div>',
    css='[data-testid="stElementContainer"]:has(.plotly-preload) {\n  display: none;\n}\n',  # lines: read as CSS
    js=LOADER + "export default function ({ data }) { plotly(data.plotly); }",
    isolate_styles=False,
)


# both answers of sources(), written once: every chart of every run sends one
_SOURCES = {True: json.dumps([OWN, STREAMLITS]), False: json.dumps([STREAMLITS])}
_BUNDLED = BUNDLE.is_file()


def sources() -> str:
    """Where the browser loads Plotly from, in order, as JSON text (an element's every value is text: Streamlit
    looks for data frames in any other): the app's bundle where the server serves it, then Streamlit's."""
    return _SOURCES[bool(st.get_option("server.enableStaticServing")) and _BUNDLED]


def plotly() -> None:
    """Ask the browser for Plotly now: by the page's first figure, it has loaded (it took a cold page's first
    figure until after the server was done)."""
    _preload(key="plotly_preload", data={"plotly": sources()})
