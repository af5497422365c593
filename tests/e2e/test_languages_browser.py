"""Every page in English, French and Korean, in Chromium, opened first on a phone (390×844) and then widened to a
projector's 1280×720 (the same page, its figures fitted again to the new width): the page says its language
(<html lang>), nothing is wider than the page, and no text is cut: a figure's title, axis title, legend or label
past its figure's edge, a button's, a tab's or the menu's text cut short. A French page writes its tables' numbers
with a decimal comma, whatever the browser's language. At 1280, axe-core finds no serious or critical violation of
WCAG 2.0/2.1/2.2 A and AA (the rest listed in artifacts/axe/<lang>.md), and no page, in any language, asks anything
of a server other than the app's own (class networks block third-party hosts, and each such request gives a visitor's
address away: the server is started as a class starts it, with the repository's settings alone, which must keep
Streamlit's usage statistics off). Each page is opened once for all these
checks, and test_accessibility_browser.py audits only the views these pages are not. Each page's first screen is
kept as a screenshot for looking at (artifacts/screenshots/<lang>-<page>-390.png, and <lang>-<page>.png at 1280): what
a phone and a projector show before any scrolling. (A whole page's screenshot makes the window as tall as the page,
which Chromium lays out and draws again, and the explorer asks for a new run for: a third of this test's time.)

The pages: the explorer, the fourteen chapters and the glossary, each on the model it opens on in that language
(English: MiniLM, and SmolLM2 for the chapters that open on a decoder; French and Korean: Gemma 3). French runs about
a quarter longer than English and Korean draws every syllable a full em wide: this is where a title measured for
English would be cut, and a phone is where any title is. The server lays every figure out for a 1280×720 screen; a
page opened first on a phone is fitted to it in the browser (ui/components/plot_fit.js)."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from app_driver.axe import audit, blocking, write_report
from app_driver.server import frames, wait_complete
from tests.e2e.driver import SCREENSHOTS
from tests.e2e.layout import cut
from ui.kit.chapter import url_path
from ui.words.chapters import CHAPTERS

PROJECTOR = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}
PAGES = [
    ("explorer", ""),
    *((f"{c.number:02d}-{url_path(c)}", url_path(c)) for c in CHAPTERS),
    ("glossary", "glossary"),
]
LEAST = {"glossary": 2}  # texts and boxes the cut check measures at least: the glossary has no figure, one select box
# the explorer's four steps laid out for the width they are drawn in (test_explorer_browser.py's sized)
LAID_OUT = """() => { const g = Array.from(document.querySelectorAll('.js-plotly-plot'))
  .find(g => g.layout && g.layout.meta && g.layout.meta.first);
  return g && Math.abs(g.layout.meta.canvas.width - g.getBoundingClientRect().width) <= 24; }"""
# a table cell with a decimal point between digits: a number written the English way
POINT_DECIMALS = """() => Array.from(document.querySelectorAll('.table td')).map(td => td.textContent)
  .filter(t => /\\d\\.\\d/.test(t))"""


def settled(page, name: str) -> None:
    """Wait for the page as laid out for its window: complete, with no exception, its fonts and labels in place
    (and the explorer redrawn for a new size, which it asks the server for)."""
    charts = name != "glossary"  # the one page that draws no figure
    state = wait_complete(page, url_has="text=", timeout=180, charts=charts)
    if state["exceptions"]:
        pytest.fail(f"{name}: {page.get_by_test_id('stException').first.inner_text()[:1500]}")
    frames(page)
    wait_complete(page, url_has="text=", timeout=180, charts=charts)
    if name == "explorer":  # its figures laid out for the column's width, which its head buttons report
        page.wait_for_function(LAID_OUT, timeout=60_000)
        wait_complete(page, url_has="text=", timeout=180)


def first_screen(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


SAYS_LANGUAGE = "lang => document.documentElement.lang === lang"
WORD_BREAK = """() => getComputedStyle(
    document.querySelector('[data-testid="stMain"] [data-testid="stMarkdownContainer"] p') || document.body
).wordBreak"""


@pytest.mark.parametrize("lang", ["en", "fr", "ko"])
def test_every_page_on_a_phone_and_a_projector_says_its_language_cuts_nothing_and_passes_axe(server, browser, lang):
    page = browser.new_page(viewport=PHONE)
    found, audited, violations, points, requested = {}, {}, {}, {}, []
    page.on("request", lambda r: requested.append(r.url))
    page.on("websocket", lambda ws: requested.append(ws.url))
    try:
        for name, path in PAGES:
            page.set_viewport_size(PHONE)
            page.goto(f"{server}/{path}?lang={lang}")
            settled(page, name)
            page.wait_for_function(SAYS_LANGUAGE, arg=lang, timeout=30_000)  # set by an element of the page
            if lang == "ko":  # a line breaks between Korean words, never inside one
                assert page.evaluate(WORD_BREAK) == "keep-all", name
            if lang == "fr" and page.evaluate(POINT_DECIMALS):
                points[name] = page.evaluate(POINT_DECIMALS)
            found[f"{name} at 390"] = cut(page, LEAST.get(name, 5))
            first_screen(page, f"{lang}-{name}-390")
            page.set_viewport_size(PROJECTOR)
            frames(page)  # the figures fitted again, the explorer's size reported: marked on the page till done
            settled(page, name)
            found[f"{name} at 1280"] = cut(page, LEAST.get(name, 5))
            first_screen(page, f"{lang}-{name}")
            audited[name] = audit(page)
            bad = blocking(audited[name])
            if bad:
                violations[name] = [f"{v['impact']} {v['rule']}: {v['help']}; {v['nodes'][:3]}" for v in bad]
        page.wait_for_timeout(1_000)  # anything the last page asks for late
    finally:
        page.close()
        if audited:
            write_report(lang, audited)
    outside = {
        u for u in requested if urlparse(u).scheme not in ("data", "blob") and urlparse(u).hostname != "127.0.0.1"
    }
    assert len(requested) >= len(PAGES) and sorted(outside) == []  # every page asked the server for something
    assert {where: texts for where, texts in found.items() if texts} == {}
    assert len(audited) == len(PAGES)  # every page measured
    assert points == {}
    assert violations == {}
