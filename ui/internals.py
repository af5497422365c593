"""Streamlit's and Plotly's private APIs, the only module of the app that reaches them. Each is used because the
public API has no way to do the same (named below), and each has a test in tests/test_internals.py that fails on
the upgrade that changes it, so that an upgrade breaks one test here rather than a page.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

if TYPE_CHECKING:  # plotly is imported where a figure is made: app.py sends its first element before it loads
    import plotly.graph_objects as go

# --- Plotly ------------------------------------------------------------------------------------------------------


def figure_dicts(fig: go.Figure | dict) -> tuple[list[dict], dict]:
    """The figure's data and layout as plotly keeps them (its own dicts, not copies): read and written without a
    property object and its checks for each setting (fig.layout.title…), and without to_dict's deep copy. A
    figure given as its JSON's dict (ui/figures/base.py's Spec) is its own dicts already."""
    if isinstance(fig, dict):
        return fig["data"], fig["layout"]
    return fig._data, fig._layout


def typed_array(a: Any) -> Any:
    """A numpy array as plotly.io writes it in a figure's JSON: {dtype, bdata, shape}, or the array itself for the
    kinds plotly keeps as lists."""
    from _plotly_utils.utils import to_typed_array_spec

    return to_typed_array_spec(a)


# --- Streamlit ---------------------------------------------------------------------------------------------------


def plotly_chunk() -> str:
    """The file name of Streamlit's own chart code (which defines window.Plotly) under its static folder: the name
    carries a hash that changes with Streamlit's version, and no API says it."""
    folder = Path(st.__file__).parent / "static" / "static" / "js"
    return next(folder.glob("PlotlyChart.*.js")).name


def page_name(script: Path) -> str:
    """The name Streamlit gives a page from its file, as its URL path shows it (pages/06_scaling.py: "scaling")."""
    from streamlit.source_util import page_icon_and_name

    return page_icon_and_name(Path(script))[1]


def run_of_this_page() -> tuple[object, bool] | None:
    """(a token of this run of the page, whether only a fragment of it is running), or None outside a run. A run
    of the page, fragment reruns aside, gets a token of its own: Streamlit's table of cursors for that run."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    if ctx is None:
        return None
    return ctx.cursors, bool(ctx.fragment_ids_this_run)


def session_id() -> str:
    """This run's session, for the server's run log; "" outside a run."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx else ""


def leave_pages_directory_mode() -> bool:
    """Whether Streamlit ran this page as its own app, in its older multipage mode (a link straight to a chapter, on
    a fresh server, before app.py's st.navigation has ever run); the mode is left, so that the next run goes
    through app.py's navigation."""
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        return True
    return False


def elements_in_order(at: Any) -> Iterator[tuple[str, Any]]:
    """(kind, message) of every element a page run headless (Streamlit's AppTest) drew, in the page's order (its
    get() lists one kind at a time): "plotly_chart" with its spec and config, "bidi_component" with its name and
    its data as JSON, and every other kind."""
    for element in at._tree:
        yield element.type, getattr(element, "proto", None)  # a block (the main area, the sidebar) has none
