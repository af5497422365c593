"""Plotly's toolbar in the page's language (issue 37), in Chromium: every button's tooltip on the explorer in French,
and on chapter 10 in Korean, where Streamlit's own chart (its clickable roles) adds a Fullscreen button of its own,
whose tooltip the page's CSS says again (ui/components/access.py). A tooltip is the button's data-title, drawn by Plotly's CSS
(::after), which is what the test reads."""

from __future__ import annotations

import pytest

from app_driver.server import wait_complete

# what each button says in English (plotly's words, and the Fullscreen buttons of ui/components/plot.js and of Streamlit), but
# "Zoom", which French says too
ENGLISH = {"Download plot as a PNG", "Pan", "Zoom in", "Zoom out", "Autoscale", "Reset axes", "Fullscreen"}
TOOLTIPS = """() => Array.from(document.querySelectorAll('.modebar-btn')).map(b => {
  const drawn = getComputedStyle(b, '::after').content;
  return drawn.startsWith('"') ? JSON.parse(drawn) : b.getAttribute('data-title'); })"""


@pytest.mark.parametrize(("lang", "path", "words"), [("fr", "", "Zoom avant"), ("ko", "heads", "전체 화면")])
def test_the_chart_toolbar_speaks_the_page_s_language(server, page, lang, path, words):
    page.goto(f"{server}/{path}?lang={lang}")
    wait_complete(page, url_has="text=", timeout=180)
    page.wait_for_selector(".modebar-btn", state="attached", timeout=60_000)
    tips = page.evaluate(TOOLTIPS)
    assert len(tips) >= 8  # a toolbar was read
    assert words in tips
    assert not ENGLISH & set(tips), sorted(ENGLISH & set(tips))
