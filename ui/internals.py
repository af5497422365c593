"""Streamlit's and Plotly's private APIs, the only module of the app that reaches them. Each is used because the
public API has no way to do the same (named below), and each has a test in tests/test_internals.py that fails on
the upgrade that changes it, so that an upgrade breaks one test here rather than a page.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import streamlit as st

if TYPE_CHECKING:  # plotly and numpy are imported where a figure is made: app.py sends its first element before
    import numpy as np
    import plotly.graph_objects as go

# --- Plotly ------------------------------------------------------------------------------------------------------


def figure_dicts(fig: go.Figure | dict) -> tuple[list[dict], dict]:
    """The figure's data and layout as plotly keeps them (its own dicts, not copies): read and written without a
    property object and its checks for each setting (fig.layout.title…), and without to_dict's deep copy. A
    figure given as its JSON's dict (ui/figures/base.py's Spec) is its own dicts already."""
    if isinstance(fig, dict):
        return fig["data"], fig["layout"]
    return fig._data, fig._layout


# plotly.js's names of the kinds of typed array it reads (plotly's _plotly_utils.utils.plotlyjsShortTypes)
_SHORT_TYPES = {"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4", "uint32": "u4"}
_SHORT_TYPES |= {"float32": "f4", "float64": "f8"}
_NARROWER = {  # plotly.js reads no 64-bit integers: plotly writes them in the narrowest kind that holds them
    "int64": (("int8", -(2**7), 2**7 - 1), ("int16", -(2**15), 2**15 - 1), ("int32", -(2**31), 2**31 - 1)),
    "uint64": (("uint8", 0, 2**8 - 1), ("uint16", 0, 2**16 - 1), ("uint32", 0, 2**32 - 1)),
}


def typed_array(a: np.ndarray) -> Any:
    """A numpy array as plotly.io writes it in a figure's JSON: {dtype, bdata, shape}, or the array itself for the
    kinds plotly keeps as lists (text, booleans, 64-bit integers too large for 32 bits, an empty array).

    plotly's own (_plotly_utils.utils.to_typed_array_spec) first asks narwhals whether the array is a data frame
    and copies it: a twentieth of a new sentence's CPU, for the explorer's figures' arrays. Written the same here,
    tests/test_internals.py compares the two on every kind of array."""
    import numpy as np

    if a.size == 0 or a.dtype.kind not in "uif":
        return a
    kind = str(a.dtype)
    if kind in _NARROWER:
        low, high = a.min(), a.max()
        narrower = next((t for t, least, most in _NARROWER[kind] if low >= least and high <= most), None)
        if narrower is None:
            return a
        a, kind = a.astype(narrower), narrower
    short = _SHORT_TYPES.get(kind)
    if short is None:
        return a
    typed = {"dtype": short, "bdata": base64.b64encode(np.ascontiguousarray(a)).decode("ascii")}
    if a.ndim > 1:
        typed["shape"] = str(a.shape)[1:-1]
    return typed


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
    through app.py's navigation.

    The mode is one flag for the whole process, read as a run starts: two links opened at once on a fresh server
    both start in it, and the first to get here leaves it. The second is told all the same, by its run: not inside
    app.py's navigation (`navigating`) though its app is a folder with pages/ (a page run alone by a test is its own
    app, in a folder without one)."""
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        return True
    if getattr(_run, "navigating", False):
        return False
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx is not None and (ctx.pages_manager.main_script_parent / "pages").is_dir()


_run = threading.local()


@contextlib.contextmanager
def navigating() -> Iterator[None]:
    """This thread's run inside app.py's navigation (st.navigation(...).run()), for leave_pages_directory_mode."""
    _run.navigating = True
    try:
        yield
    finally:
        _run.navigating = False


# --- Streamlit's server -------------------------------------------------------------------------------------------
# The name Streamlit gives the thread that runs a page, or a fragment of one, for a session: started from the server's
# event loop when a run is asked for, ended when no run is left to do (ScriptRunner.start). No public API says
# whether a session's page is being run.
SCRIPT_THREAD = "ScriptRunner.scriptThread"


def runs_in_progress(besides: frozenset[int] = frozenset()) -> bool:
    """Whether any session's page (or fragment) is being run, in a thread other than those `besides` (their idents)."""
    return any(t.name == SCRIPT_THREAD and t.ident not in besides for t in threading.enumerate())


def in_a_run() -> bool:
    """Whether this thread is running a page (or a fragment of one)."""
    return threading.current_thread().name == SCRIPT_THREAD


def check_once_not_in_a_repl() -> None:
    """Streamlit's check, at the first element a process sends, that it is not run from a Python prompt (to say
    how to start it): it reads the source of every frame of the stack it is called from (inspect.stack), a seventh of a
    cold server's first run from a page's deep stack. Made here, once, from a thread of a few frames, it is not made
    again. No public API starts a process past it."""
    from streamlit import delta_generator

    delta_generator._maybe_print_use_warning()


def components_scanned_once() -> None:
    """Have each headless run of a page (Streamlit's AppTest) in this process find the installed components as the
    first one did: each new AppTest reads the metadata of every installed package to find them, half a second of
    CPU with the tests' two hundred packages, where a server reads it once as it starts. The packages do not change
    while a process runs (the lesson's worksheet runs fourteen pages; the tests, hundreds). No public API says
    which components are installed."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    if getattr(scan, "once", False):
        return
    scanned = functools.cache(scan)

    def once(*args: Any, **kwargs: Any) -> list:
        return list(scanned(*args, **kwargs))  # a list of its own to each caller, as the scan gives

    once.once = True
    manifest_scanner.scan_component_manifests = once


def elements_in_order(at: Any) -> Iterator[tuple[str, Any]]:
    """(kind, message) of every element a page run headless (Streamlit's AppTest) drew, in the page's order (its
    get() lists one kind at a time): "plotly_chart" with its spec and config, "bidi_component" with its name and
    its data as JSON, and every other kind."""
    for element in at._tree:
        yield element.type, getattr(element, "proto", None)  # a block (the main area, the sidebar) has none


# --- Streamlit's session state --------------------------------------------------------------------------------------
# Every select box, radio, text area, slider and number box asks Streamlit's session state for all of its values
# (SafeSessionState.filtered_state), to read one: its own. Making that dict presents the value of every keyed element
# of the page (each chart, table and switch of ours; a component's value is presented through a class made anew
# each time), a twentieth of a new sentence's run. No public API reads one key the way filtered_state does.


class _FilteredView(Mapping):
    """filtered_state read one key at a time, as the dict it makes would give it: the session's own values under their
    keys, and each keyed widget's value under its key; internal keys and keyless widgets left out. Listing it makes
    the whole dict."""

    def __init__(self, safe: Any) -> None:
        self._safe = safe

    def __getitem__(self, key: str) -> Any:
        from streamlit.runtime.state.common import is_element_id, is_keyed_element_id
        from streamlit.runtime.state.session_state import _is_internal_key

        if not isinstance(key, str) or is_element_id(key) or _is_internal_key(key):
            raise KeyError(key)
        with self._safe._lock:
            state = self._safe._state
            widget = state._get_widget_id(key)
            held = (state._old_state, state._new_session_state)
            if widget == key:  # a value of the session's own
                if not (any(key in h for h in held) or key in state._new_widget_state.states):
                    raise KeyError(key)
                return state[key]
            if not is_keyed_element_id(widget) or _is_internal_key(widget):
                raise KeyError(key)
            if state._key_id_mapper.id_key_mapping.get(widget) != key:
                raise KeyError(key)
            if not (any(key in h or widget in h for h in held) or widget in state._new_widget_state.states):
                raise KeyError(key)
            return state[widget]

    def __iter__(self) -> Iterator[str]:
        return iter(self._whole())

    def __len__(self) -> int:
        return len(self._whole())

    def __repr__(self) -> str:
        return repr(self._whole())

    def _whole(self) -> dict[str, Any]:
        with self._safe._lock:
            return _FILTERED_STATE(self._safe._state)


_FILTERED_STATE: Any = None


def filtered_state_by_key() -> None:
    """Have the widgets read their own value from session state without making the whole of it (_FilteredView);
    st.session_state.to_dict() still gives a dict of its own."""
    global _FILTERED_STATE
    from streamlit.runtime.state.safe_session_state import SafeSessionState
    from streamlit.runtime.state.session_state import SessionState
    from streamlit.runtime.state.session_state_proxy import SessionStateProxy, get_session_state

    if _FILTERED_STATE is not None:
        return
    _FILTERED_STATE = SessionState.filtered_state.fget
    SafeSessionState.filtered_state = property(_FilteredView)
    SessionStateProxy.to_dict = lambda _self: dict(get_session_state().filtered_state)


def session_value(key: str, default: Any = None) -> Any:
    """st.session_state.get(key, default) for a key of the app's own (not a widget's), read where Streamlit keeps it:
    this run's values, then the widgets' (none under such a key), then the last run's. A page reads the session's
    language and its choices some seven hundred times a run, and each read through st.session_state checks the key,
    takes a lock and, for a key not set, formats an error message it then drops: a twentieth of a new sentence's
    run. The session's state is only read here, in the run's own thread. A widget's key, or a read outside a run,
    goes through st.session_state."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    state = getattr(getattr(ctx, "session_state", None), "_state", None)
    if state is None or state._key_id_mapper.get_id_from_key(key, key) != key:
        return st.session_state.get(key, default)
    if key in state._new_session_state:
        return state._new_session_state[key]
    if key in state._new_widget_state.states:  # a widget's value under it (none of the app's keys is one)
        return st.session_state.get(key, default)
    return state._old_state.get(key, default)
