"""Presenter mode on a 1280×720 projector, in Chromium: switched on from the sidebar, the four steps of a head (or
the one shown alone) lie inside the window, the step bar walks through them, and Download all figures stays in
reach. No timing is asserted here: benchmarks/presenter.py measures the switch."""

from __future__ import annotations

import itertools
import re

import pytest

from app_driver.server import wait_complete
from tests.e2e.driver import SCREENSHOTS
from tests.e2e.test_explorer_browser import PANELS, STEPS, header_bottom

PROJECTOR = {"width": 1280, "height": 720}
WORDS = {  # the toggle, the step bar's Next, the zip's button, section 4's heading, in each language
    "en": ("Presenter mode", "Next step", "Download all figures", "All heads at a glance"),
    "fr": ("Mode présentation", "Étape suivante", "Télécharger toutes les figures", "Toutes les têtes d’un coup d’œil"),
    "ko": ("발표자 모드", "다음 단계", "모든 그림 내려받기", "모든 헤드 한눈에 보기"),
}
STEP_NAMES = ("1. ", "2. ", "3. ", "4. ")  # each panel's title starts with its step's number, in every language
# the steps figure's panel titles, as drawn
PANEL_TITLES = f"""() => Array.from({STEPS}.querySelectorAll('.annotation-text'))
    .map(t => t.textContent).filter(t => /^[1-4]\\. /.test(t))"""


def steps_inside_the_window(page, panels: int) -> None:
    """With the steps figure scrolled to the window's bottom (the head buttons and the step bar above it), each of
    its panels lies inside the window, below Streamlit's header."""
    page.evaluate(f"() => {STEPS}.scrollIntoView({{block: 'end'}})")
    page.wait_for_timeout(300)
    drawn = page.evaluate(PANELS)
    assert len(drawn) == panels
    top = header_bottom(page)
    for _subplot, left, y, width, height in drawn:
        assert abs(width - height) <= 2  # square cells
        assert left >= 0 and left + width <= PROJECTOR["width"]
        assert y >= top and y + height <= PROJECTOR["height"], (y, height, top)


def download_reachable(page, name: str) -> None:
    """The sidebar is open and its Download all figures button, scrolled to, is inside the window and enabled."""
    sidebar = page.get_by_test_id("stSidebar")
    assert sidebar.get_attribute("data-collapsed") == "false"
    button = sidebar.get_by_test_id("stDownloadButton").get_by_role("button").first  # the figures' zip, then sheets
    button.scroll_into_view_if_needed()
    assert button.is_visible() and button.is_enabled()
    box = button.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= PROJECTOR["height"]
    assert button.inner_text().startswith(name)


def laid_out(page, heading: str) -> None:
    """The complete page, its figures laid out for the column the browser reported."""
    wait_complete(page, shows=heading)
    page.wait_for_function(
        f"() => {{ const g = {STEPS}; return g && Math.abs(g.layout.meta.canvas.width - g.getBoundingClientRect().width) <= 24; }}",
        timeout=60_000,
    )
    wait_complete(page, shows=heading)


# the steps figure's token names as drawn, per axis: [axis, text, top, font px] of each name along a y axis
Y_NAMES = f"""() => {{
    const g = {STEPS};
    return Array.from(g.querySelectorAll('g.ytick text')).filter(t => t.textContent.trim()).map(t => {{
        const b = t.getBoundingClientRect();
        const size = parseFloat(getComputedStyle(t).fontSize);
        return [t.closest('[class*="yaxislayer"]').parentNode.getAttribute('class'), t.textContent, b.top, size];
    }});
}}"""
TOKENS_DRAWN = f"() => {STEPS}._fullLayout.yaxis._categories.length"


def every_token_named(page) -> None:
    """Each panel that names its rows names every token it draws, at 12 px or more, each name a font size below the
    one above it (a line box is a little taller than its type: the boxes may touch, the letters do not)."""
    n = page.evaluate(TOKENS_DRAWN)
    by_axis: dict[str, list] = {}
    for axis, text, top, size in page.evaluate(Y_NAMES):
        by_axis.setdefault(axis, []).append((top, size, text))
    assert by_axis
    for names in by_axis.values():
        assert len({text for _top, _size, text in names}) == n, names
        names.sort()
        assert all(b[0] - a[0] >= a[1] - 0.5 for a, b in itertools.pairwise(names)), names  # none over the next
        assert min(size for _top, size, _text in names) >= 12


def smallest_words(page) -> float:
    """The smallest type of the steps figure, as drawn, its −∞ cells' × marks aside (sized to the cells)."""
    return page.evaluate(
        f"() => Math.min(...Array.from({STEPS}.querySelectorAll('text'))"
        ".filter(t => t.textContent.trim() && t.textContent.trim() !== '×')"
        ".map(t => parseFloat(getComputedStyle(t).fontSize)))"
    )


def whole_in_the_window(page) -> None:
    """Without any scrolling by the test: the steps figure lies whole between Streamlit's header and the window's
    bottom, where the step bar brought it."""
    page.wait_for_function(
        f"""() => {{ const b = {STEPS}.getBoundingClientRect();
            const top = document.querySelector('[data-testid="stHeader"]').getBoundingClientRect().bottom;
            return b.top >= top - 1 && b.bottom <= window.innerHeight + 1; }}""",
        timeout=15_000,
    )


def shown_step(page) -> list[str]:
    return [t[:3] for t in page.evaluate(PANEL_TITLES)]


@pytest.mark.parametrize("lang", ["en", "fr", "ko"])
def test_presenter_mode_fits_the_four_steps_or_one_on_a_projector(server, browser, lang):
    toggle_name, next_name, download, heading = WORDS[lang]
    page = browser.new_page(viewport=PROJECTOR)
    try:
        page.goto(f"{server}/?lang={lang}")
        laid_out(page, heading)
        # without presenter mode, with the sidebar open: the four steps on one screen, none cut below
        steps_inside_the_window(page, 4)
        page.screenshot(path=str(SCREENSHOTS / f"presenter-off-{lang}.png"))

        toggle = page.get_by_test_id("stSidebar").get_by_text(toggle_name, exact=True)
        toggle.scroll_into_view_if_needed()
        toggle.click()
        wait_complete(page, url_has="presenter=1", shows=heading)
        page.wait_for_function(f"() => {STEPS}?.layout.meta.canvas.height < {PROJECTOR['height']}", timeout=60_000)
        laid_out(page, heading)
        steps_inside_the_window(page, 4)
        assert shown_step(page) == list(STEP_NAMES)
        every_token_named(page)  # the tokens' names at 12 px or more: every one named
        assert smallest_words(page) >= 12  # the rest in projector type
        download_reachable(page, download)
        page.screenshot(path=str(SCREENSHOTS / f"presenter-on-{lang}.png"))

        # one step at a time: the step bar's Next, then the arrow key a presenter's remote sends, each from where a
        # presenter stands when the section starts (its heading at the top, the figure below the window's bottom)
        forward = page.get_by_role("button", name=re.compile("^" + re.escape(next_name)))
        for k in range(1, 5):
            page.evaluate("() => document.getElementById('3-from-scores-to-weights').scrollIntoView()")
            if k % 2:
                forward.click()
            else:
                page.evaluate("() => document.activeElement.blur()")  # nothing focused that takes the key
                page.keyboard.press("ArrowRight")
            wait_complete(page, url_has=f"step={k}", shows=heading)
            page.wait_for_function(f"() => {PANEL_TITLES}().length === 1", timeout=30_000)
            assert shown_step(page) == [STEP_NAMES[k - 1]]
            whole_in_the_window(page)  # the step bar brought the step whole into the window
            page.screenshot(path=str(SCREENSHOTS / f"presenter-step{k}-{lang}.png"))
            every_token_named(page)
            steps_inside_the_window(page, 1)
        assert forward.is_disabled()  # the last step
        download_reachable(page, download)
    finally:
        page.close()
