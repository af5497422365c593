"""Every page in French and in Korean, in Chromium at a projector's 1280×720: the page says its language
(<html lang>), nothing is wider than the page, and no text is cut: a figure's title, axis title or label past its
figure's edge, a button's, a tab's or the menu's text cut short. Each page is kept as a screenshot for looking at
(artifacts/screenshots/<lang>-<page>.png).

French runs about a quarter longer than English and Korean draws every syllable a full em wide: this is where a
title measured for English would be cut."""

from __future__ import annotations

import pytest

from app_driver import wait_complete
from tests.e2e.driver import screenshot
from ui.chapter import url_path
from ui.chapters import CHAPTERS

PROJECTOR = {"width": 1280, "height": 720}
PAGES = [("explorer", ""), *((f"{c.number:02d}-{url_path(c)}", url_path(c)) for c in CHAPTERS)]

# What the browser draws past its box: in each figure, a text whose box leaves the figure's; anywhere, a text its
# box cuts short (an ellipsis, or a box that hides what overflows it); the page wider than its window.
CUT = """() => {
  const out = [];
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const frame = plot.getBoundingClientRect();
    const title = plot.querySelector('.gtitle')?.textContent || '';
    for (const t of plot.querySelectorAll('.gtitle, .g-xtitle text, .g-ytitle text, .annotation-text, .xtick text, .ytick text, .legendtext')) {
      const r = t.getBoundingClientRect();
      if (r.width === 0 || getComputedStyle(t).opacity === '0') continue;
      if (r.left < frame.left - 2 || r.right > frame.right + 2)
        out.push(`figure "${title.slice(0, 50)}": "${t.textContent.slice(0, 40)}" past its edge`);
    }
  }
  // buttons, the menu, tabs, labels and a metric's label and value, and anything else that ends in an ellipsis
  const boxes = 'button, [data-testid="stTopNavLink"], [data-testid="stTopNavSection"], [data-baseweb="tab"], '
    + '[data-testid="stWidgetLabel"] p, [data-testid="stPageLink"] a, [data-testid="stMetricLabel"] *, '
    + '[data-testid="stMetricValue"] *, [data-baseweb="select"] *';
  for (const e of document.querySelectorAll(boxes)) {
    const style = getComputedStyle(e);
    if (e.offsetParent === null || !e.textContent.trim()) continue;
    const hides = style.textOverflow === 'ellipsis' || ['hidden', 'clip'].includes(style.overflowX);
    if (hides && e.scrollWidth > e.clientWidth + 1) out.push(`"${e.textContent.trim().slice(0, 50)}" cut short`);
  }
  for (const e of document.querySelectorAll('[data-baseweb="select"] input'))  // a select box's chosen value
    if (e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1) out.push(`"${e.value.slice(0, 50)}" cut short`);
  const main = document.querySelector('[data-testid="stMain"]');
  if (main.scrollWidth > main.clientWidth + 1) out.push(`the page is ${main.scrollWidth - main.clientWidth} px too wide`);
  return out;
}"""


@pytest.mark.parametrize("lang", ["fr", "ko"])
def test_every_page_in_french_and_korean_says_its_language_and_cuts_nothing(server, browser, lang):
    page = browser.new_page(viewport=PROJECTOR)
    found = {}
    try:
        for name, path in PAGES:
            page.goto(f"{server}/{path}?lang={lang}")
            state = wait_complete(page, url_has="text=", timeout=180)
            if state["exceptions"]:
                pytest.fail(f"{name}: {page.get_by_test_id('stException').first.inner_text()[:1500]}")
            page.wait_for_timeout(500)  # fonts and the last chart's labels in place
            assert page.evaluate("document.documentElement.lang") == lang, name
            cut = page.evaluate(CUT)
            screenshot(page, f"{lang}-{name}")
            if cut:
                found[name] = cut
    finally:
        page.close()
    assert found == {}
