"""Each private API of Streamlit and Plotly the app reaches (ui/internals.py) does what the app relies on: these
tests fail on the upgrade that changes one, before a page does."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import plotly.graph_objects as go
import plotly.io
import pytest
import streamlit as st
from _plotly_utils.utils import to_typed_array_spec  # plotly's own
from streamlit.testing.v1 import AppTest

from ui import internals

ROOT = Path(__file__).resolve().parents[1]


def test_a_figures_dicts_are_its_own():
    fig = go.Figure(data=[go.Heatmap(z=[[1, 2]])], layout=dict(title=dict(text="before")))
    data, layout = internals.figure_dicts(fig)
    assert data[0]["type"] == "heatmap" and layout["title"]["text"] == "before"
    layout["title"]["text"] = "after"  # written in place, as the chart element does
    data[0]["zmin"] = 0
    assert fig.to_dict()["layout"]["title"]["text"] == "after" and fig.to_dict()["data"][0]["zmin"] == 0


def test_a_typed_array_is_written_as_plotly_io_writes_it():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    fig = go.Figure(data=[go.Heatmap(z=a)])
    theirs = json.loads(plotly.io.to_json(fig, validate=False))["data"][0]["z"]
    assert internals.typed_array(a) == theirs
    assert set(theirs) >= {"dtype", "bdata"}


ARRAYS = [
    np.arange(6, dtype=np.float32).reshape(2, 3),
    np.linspace(-1, 1, 7),  # float64
    np.arange(12, dtype=np.float64).reshape(3, 4).T,  # not contiguous
    np.array([1, -2, 3]),  # int64 that int8 holds
    np.array([1000, -2]),  # int16
    np.array([2**20, 0]),  # int32
    np.array([2**40, 1]),  # too large: a list
    np.array([3, 200], dtype=np.uint64),
    np.array([2**33], dtype=np.uint64),
    np.arange(4, dtype=np.int32).reshape(2, 2),
    np.array([True, False]),
    np.array(["a", "b"]),
    np.zeros((0, 3)),
    np.array([1.5, 2.5], dtype=np.float16),  # a kind plotly.js does not read: a list
    np.array([1.5, 2.5], dtype=">f4"),
]


@pytest.mark.parametrize("a", ARRAYS, ids=lambda a: f"{a.dtype}{a.shape}")
def test_an_array_is_written_as_plotly_writes_it(a):
    """The app's own writing of an array (without plotly's data frame check and copy), against plotly's."""
    ours, theirs = internals.typed_array(a), to_typed_array_spec(a)
    if isinstance(theirs, dict):
        assert ours == theirs
    else:
        assert not isinstance(ours, dict) and np.asarray(ours).tolist() == np.asarray(theirs).tolist()


def test_streamlits_chart_code_is_where_the_preload_asks_for_it():
    name = internals.plotly_chunk()
    path = Path(st.__file__).parent / "static" / "static" / "js" / name
    assert path.is_file() and "Plotly" in path.read_text(encoding="utf-8", errors="replace")[:2_000_000]


def test_a_page_is_named_from_its_file_as_its_url_says():
    assert internals.page_name(ROOT / "pages" / "06_scaling.py") == "scaling"
    assert internals.page_name(Path("13_kv_cache.py")) == "kv_cache"


def test_outside_a_run_there_is_no_run_and_no_session():
    assert internals.run_of_this_page() is None and internals.session_id() == ""


SCRIPT = """
import streamlit as st
from ui import internals
run = internals.run_of_this_page()
st.session_state.setdefault("runs", []).append(id(run[0]))
st.write(internals.session_id() != "", run[1])


@st.fragment
def part():
    st.button("again")
    st.write(internals.run_of_this_page()[1])


part()
"""


def test_each_run_of_a_page_has_its_own_token_and_a_session():
    at = AppTest.from_string(SCRIPT).run()
    assert not at.exception
    assert [m.value for m in at.markdown] == ["`True` `False`", "`False`"]  # a session; a whole run, then a fragment
    at.run()
    first, second = at.session_state["runs"]
    assert first != second  # a new run, a new token


def test_the_pages_directory_mode_is_left_once():
    from streamlit.runtime.pages_manager import PagesManager

    before = PagesManager.uses_pages_directory
    try:
        PagesManager.uses_pages_directory = True
        assert internals.leave_pages_directory_mode() is True
        assert PagesManager.uses_pages_directory is False
        assert internals.leave_pages_directory_mode() is False
    finally:
        PagesManager.uses_pages_directory = before


def test_a_run_begun_in_that_mode_after_another_left_it_is_told_too(monkeypatch, tmp_path):
    """Two links at once on a fresh server: both runs start in the mode, the first leaves it; the second, a page
    run outside app.py's navigation in an app with pages/, is told to run again all the same."""
    import streamlit.runtime.scriptrunner
    from streamlit.runtime.pages_manager import PagesManager

    (tmp_path / "pages").mkdir()
    ctx = SimpleNamespace(pages_manager=SimpleNamespace(main_script_parent=tmp_path))
    monkeypatch.setattr(streamlit.runtime.scriptrunner, "get_script_run_ctx", lambda **_kwargs: ctx)
    monkeypatch.setattr(PagesManager, "uses_pages_directory", False)
    assert internals.leave_pages_directory_mode() is True
    with internals.navigating():  # the page run inside app.py's navigation
        assert internals.leave_pages_directory_mode() is False
    assert internals.leave_pages_directory_mode() is True
    (tmp_path / "pages").rmdir()  # a page a test runs alone: an app of its own, with no pages/
    assert internals.leave_pages_directory_mode() is False
    monkeypatch.setattr(streamlit.runtime.scriptrunner, "get_script_run_ctx", lambda **_kwargs: None)
    assert internals.leave_pages_directory_mode() is False  # not in a run


def test_a_headless_runs_elements_come_in_the_pages_order():
    at = AppTest.from_string(
        "import streamlit as st\nimport plotly.graph_objects as go\nst.title('a')\n"
        "st.plotly_chart(go.Figure(layout=dict(title=dict(text='b'))))\nst.caption('c')"
    ).run()
    kinds = [kind for kind, proto in internals.elements_in_order(at) if proto is not None]
    assert kinds == ["title", "plotly_chart", "caption"]
    chart = next(proto for kind, proto in internals.elements_in_order(at) if kind == "plotly_chart")
    assert json.loads(chart.spec)["layout"]["title"]["text"] == "b"


RUN_THREAD = """
import streamlit as st
from ui import internals
st.write(internals.in_a_run(), internals.runs_in_progress(), internals.runs_in_progress(frozenset({__import__("threading").get_ident()})))
"""


def test_a_run_is_in_the_thread_streamlit_names_for_runs():
    """AppTest runs a page as the server does (a ScriptRunner's thread): the name says a run is under way."""
    at = AppTest.from_string(RUN_THREAD).run()
    assert not at.exception
    assert at.markdown[0].value == "`True` `True` `False`"
    assert not internals.in_a_run()


def test_streamlits_check_at_a_first_element_is_made_once():
    from streamlit import delta_generator

    internals.check_once_not_in_a_repl()
    assert delta_generator._use_warning_has_been_displayed


def test_headless_runs_find_the_components_the_first_one_found():
    from streamlit.components.v2 import manifest_scanner

    internals.components_scanned_once()  # tests/conftest.py has; a second call changes nothing
    internals.components_scanned_once()
    scan = manifest_scanner.scan_component_manifests
    assert scan.once is True
    first, second = scan(), scan()
    assert first == second and first is not second  # each caller its own list


@pytest.mark.parametrize("page", ["app.py", "pages/10_heads.py"])
def test_a_widget_reads_from_session_state_what_the_whole_of_it_gives(page):
    """The view the widgets read their value from (internals.filtered_state_by_key, installed by app.py) gives each
    key as Streamlit's own dict of the session's values does, keyed charts, tables and widgets included, and nothing
    more; listed, it is that dict."""
    at = AppTest.from_file(str(ROOT / page), default_timeout=180)
    at.run()
    at.sidebar.selectbox(key="w:model").select_index(0).run()  # widgets with values from the browser's side too
    assert not at.exception
    safe = at._session_state
    whole = internals._FILTERED_STATE(safe._state)  # Streamlit's own
    view = safe.filtered_state
    assert isinstance(view, internals._FilteredView) and len(whole) > 20
    keyed = [k for k in whole if k.startswith("w:")]
    assert keyed and all(view[k] == whole[k] for k in whole) and dict(view) == whole
    widget_ids = [k for k in safe._state._keys() if k.startswith("$$")]
    assert widget_ids
    for absent in [*widget_ids, "no such key", "$$STREAMLIT_INTERNAL_KEY_x"]:
        assert absent not in view
    assert str(view) == str(whole)
