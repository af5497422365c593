"""The app in Chromium as a class runs it: `streamlit run app.py` with the repository's own settings (the browser
tests' shared server, tests/e2e/conftest.py).

Every link the app writes opens again, an emptied sentence box empties the link, the menu lists every page and the
tab's icon comes with the page. That no page asks anything of a server other than the app's own is checked on every
page in every language, where test_languages_browser.py opens them all."""

from __future__ import annotations

import base64
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import plotly.offline
import pytest

from app_driver.server import ROOT, streamlit_server, wait_complete
from tests.e2e.driver import menu_links, screenshot
from tests.test_reliability import ARABIC, URL_OPENS
from ui.words.chapters import CHAPTERS

# A 256-token page takes most of a minute on two shared cores: the limits only tell a hang from a slow page.
SLOW = 300.0
LONG_WORDS = " ".join(["ب" * 300] * 100)  # each word one [UNK] token: the model reads all 30,099 characters


def submit(page, text: str) -> None:
    box = page.get_by_role("textbox", name="Sentence")
    box.fill(text)
    box.press("Control+Enter")


def text_in(url: str) -> str:
    return parse_qs(urlparse(url).query, keep_blank_values=True).get("text", [None])[0]


@pytest.mark.parametrize(
    ("text", "n_tokens"), [(ARABIC, 256), (LONG_WORDS, 102)], ids=["arabic-30000", "unsplittable-words"]
)
def test_the_link_written_for_a_huge_text_reopens(server, browser, page, model, text, n_tokens):
    page.goto(server)
    wait_complete(page, "13 tokens")
    submit(page, text)
    state = wait_complete(page, f"{n_tokens} tokens", url_has="text=%D8", timeout=SLOW)  # Arabic letters, encoded
    assert state["exceptions"] == 0
    link = page.url
    reopened = len(model.tokenizer.encode(text_in(link)).ids)  # what the link's own text makes
    other = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        response = other.goto(link)
        assert response.status == 200, f"a link of {len(link):,} characters answers {response.status}"
        assert len(link) < URL_OPENS and text.startswith(text_in(link))
        state = wait_complete(other, f"{reopened} tokens", plots=state["plots"], timeout=SLOW)
        assert state["exceptions"] == 0
        assert other.get_by_role("textbox", name="Sentence").input_value() == text_in(link)
        screenshot(other, f"reopened-{n_tokens}-tokens")
    finally:
        other.close()


def test_clearing_the_sentence_clears_the_link_and_a_reload_keeps_it_clear(server, page):
    page.goto(server + "/?text=hello+there")
    wait_complete(page, "4 tokens")
    submit(page, "")
    page.get_by_text("Type a sentence: the text is empty").wait_for(timeout=30_000)
    page.wait_for_url(lambda url: text_in(url) == "", timeout=30_000)
    page.reload()
    page.get_by_text("Type a sentence: the text is empty").wait_for(timeout=30_000)
    assert page.get_by_role("textbox", name="Sentence").input_value() == ""
    assert text_in(page.url) == ""


def test_the_menu_lists_every_page_and_the_tab_s_icon_is_the_app_s_own(server, first_visit):
    page = first_visit
    """The icon comes with the page, as a data URL: fetched from elsewhere, it would be a request outside the app's own
    server (class networks block them; test_languages_browser.py checks every page for any). Plotly is the app's
    cartesian bundle (ui/components/preload.py), the plotly.js release that draws the exported figures, and
    Streamlit's whole chart code is not loaded."""
    asked = []
    page.on("request", lambda request: asked.append(urlparse(request.url).path))
    page.goto(server)
    wait_complete(page, "13 tokens")
    assert "/app/static/plotly-cartesian.min.js.gz" in asked
    assert not [path for path in asked if "PlotlyChart" in path]
    assert page.evaluate("() => window.Plotly.version") == plotly.offline.get_plotlyjs_version()
    chapters = menu_links(page)[1:]  # after the explorer
    assert len(chapters) == len(CHAPTERS) + 1  # every chapter, none folded away, and the glossary
    assert [urlparse(href).hostname for _title, href in chapters] == ["127.0.0.1"] * len(chapters)
    icon = page.evaluate("() => document.querySelector(\"link[rel='shortcut icon']\")?.href || ''")
    kind, _, data = icon.partition(",")  # the tab's icon comes with the page: the app's own, as a data URL
    assert kind == "data:image/png;base64", icon[:40]
    assert base64.b64decode(data) == (ROOT / "assets" / "icon.png").read_bytes()


def test_streamlit_s_files_answered_from_memory_are_the_files_streamlit_ships(server, first_visit):
    """Every one of Streamlit's files a first page loads (ui/served.py keeps them after their first answer): the same
    bytes as the file in Streamlit's package, to the browser and to a later request; the same headers again."""
    import streamlit

    page = first_visit
    shipped = Path(streamlit.__file__).parent / "static"
    responses = []
    page.on("response", lambda response: responses.append(response))
    page.goto(server)
    wait_complete(page, "13 tokens")
    files = {urlparse(r.url).path: r for r in responses if urlparse(r.url).path.startswith("/static/")}
    assert len(files) >= 50, sorted(files)  # scripts, styles and fonts: about 120
    for path, response in files.items():
        on_disk = (shipped / path.lstrip("/")).read_bytes()
        assert response.status == 200 and response.body() == on_disk, path
        answers = []
        for _ in range(2):
            with urllib.request.urlopen(server + path, timeout=30) as r:
                answers.append(({k.lower(): v for k, v in r.headers.items() if k.lower() != "date"}, r.read()))
        assert answers[0] == answers[1] and answers[0][1] == on_disk, path
        assert "immutable" in answers[0][0]["cache-control"] and int(answers[0][0]["content-length"]) == len(on_disk)


def test_where_the_app_s_plotly_does_not_load_the_page_draws_with_streamlit_s(server, first_visit):
    page = first_visit
    """The bundle refused (a server that does not serve the app's static folder answers 404): the loader falls back on
    Streamlit's chart code, and every figure is drawn."""
    asked = []
    page.on("request", lambda request: asked.append(urlparse(request.url).path))
    page.route("**/app/static/plotly-cartesian.min.js.gz", lambda route: route.fulfill(status=404, body="not here"))
    page.goto(server)
    state = wait_complete(page, "13 tokens")
    assert state["exceptions"] == 0 and state["plots"] == 9
    assert page.evaluate("() => Array.from(document.querySelectorAll('.js-plotly-plot')).every(g => !!g._fullLayout)")
    assert [path for path in asked if "PlotlyChart" in path]


def test_chapter_links_as_a_fresh_servers_first_requests_run_through_app_py(browser):
    """Before app.py has ever run, Streamlit would run a chapter's file alone (its older pages/ folder
    mode): no chapter numbers, no wide layout. The page must come through app.py's navigation, and so must two
    chapters opened at the same moment (a class following the teacher's link): the mode is one flag for the whole
    server, left by the first of them (ui/internals.py).

    The masking chapter also asks the fresh server for pandas (its table's), which the server leaves for its first
    quiet moment (ui/served.py), while the other page makes its figures: both pages come complete, without an
    exception."""
    with streamlit_server(as_a_class=True) as (url, _proc, _t0):
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        table = browser.new_page(viewport={"width": 1280, "height": 720})
        try:
            page.goto(url + "/kv_cache?layer=2&head=3", wait_until="commit")
            table.goto(url + "/masking", wait_until="commit")
            assert wait_complete(page, shows="Try this", timeout=240)["exceptions"] == 0
            assert wait_complete(table, shows="The notes' worked example", timeout=240)["exceptions"] == 0
            for tab, title in ((page, "13 · The KV cache"), (table, "8 · Masking and softmax")):
                nav = [name for name, _ in menu_links(tab)]
                assert any(n.endswith("Explorer") for n in nav) and "1 · The big picture" in nav, title
                assert tab.evaluate("() => document.querySelector('[data-testid=stMain] h1').textContent") == title
            assert "layer=2" in page.url and "head=3" in page.url
            assert table.get_by_test_id("stDataFrame").count() == 1
        finally:
            page.close()
            table.close()
