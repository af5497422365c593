"""Small Streamlit helpers every page uses."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from . import state, theme


def chart(fig: go.Figure, name: str, key: str | None = None) -> None:
    """A figure with our template (not Streamlit's), its camera button saving PNG 3× or SVG as chosen."""
    export = "SVG" if state.get("export") == "svg" else "PNG (3×)"
    st.plotly_chart(fig, config=theme.chart_config(name, export), key=key, theme=None)
