"""The explorer in a real browser: Debian's Chromium driven by Playwright against `streamlit run app.py`."""

from __future__ import annotations

import re
from io import BytesIO
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
from PIL import Image

from app_driver.server import url_mark, wait_complete
from tests.e2e.driver import SCREENSHOTS, screenshot

# a section's first chart: the first figure after its heading, before the next heading (null if none)
FIRST_CHART = """h => { const next = Array.from(document.querySelectorAll('[data-testid="stHeading"] h2')).find(
    o => h.compareDocumentPosition(o) & Node.DOCUMENT_POSITION_FOLLOWING);
  return Array.from(document.querySelectorAll('.js-plotly-plot')).find(c =>
    (h.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING)
    && !(next && next.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING)) || null; }"""
N_CHARTS = 9  # tokens, q/k/v, the four steps, all heads, the displacement's four, before → after
PROJECTOR = {"width": 1280, "height": 720}
WIDE = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}

STEPS = "Array.from(document.querySelectorAll('.js-plotly-plot')).find(g => g.layout && g.layout.meta && g.layout.meta.first)"
# the four panels of the steps figure, as drawn: [subplot, left, top, width, height] in the viewport
PANELS = f"""() => Array.from({STEPS}.querySelectorAll('.nsewdrag')).map(r => {{
    const b = r.getBoundingClientRect(); return [r.getAttribute('data-subplot'), b.left, b.top, b.width, b.height]; }})"""
# every number printed in a cell of the steps figure, with its cell: [text, width, height, font px, cell w, cell h]
CELL_TEXTS = f"""() => {{
    const g = {STEPS};
    const n = g._fullLayout.xaxis._categories.length;
    const panels = Array.from(g.querySelectorAll('.nsewdrag')).map(r => r.getBoundingClientRect());
    return Array.from(g.querySelectorAll('.heatmaplayer text')).filter(t => t.textContent).map(t => {{
        const b = t.getBoundingClientRect();
        const x = b.left + b.width / 2, y = b.top + b.height / 2;
        const p = panels.find(p => p.left <= x && x <= p.right && p.top <= y && y <= p.bottom);
        return [t.textContent, b.width, b.height, parseFloat(getComputedStyle(t).fontSize),
                p ? p.width / n : 0, p ? p.height / n : 0];
    }});
}}"""


def submit(page, text: str) -> None:
    box = page.get_by_role("textbox", name="Sentence")
    box.fill(text)
    box.press("Control+Enter")


def chart(page, title: str):
    """The chart whose title starts with `title`."""
    return page.locator(".js-plotly-plot").filter(
        has=page.locator(".gtitle", has_text=re.compile("^" + re.escape(title)))
    )


def sized(page, **wait) -> dict:
    """Wait for the complete page as laid out for this window: the head buttons report the column's width
    once, and the page redraws its figures for it."""
    wait_complete(page, shows="All heads at a glance", **wait)
    page.wait_for_function(
        f"""() => {{ const g = {STEPS}; return g && Math.abs(g.layout.meta.canvas.width - g.getBoundingClientRect().width) <= 24; }}""",
        timeout=60_000,
    )
    return wait_complete(page, shows="All heads at a glance", **wait)


def head_buttons(page, which: int = 1):
    """The head buttons: 0 above q, k and v, 1 above the four steps."""
    return page.locator('[data-testid="stBidiComponentIsolated"]').nth(which)


def pressed(page) -> list[str]:
    return head_buttons(page).locator('button[aria-pressed="true"]').all_inner_texts()


def sidebar_head(page) -> str:
    return page.get_by_test_id("stSidebar").get_by_role("combobox", name="Head").input_value()


def steps_title(page) -> str:
    return page.evaluate(f"() => {STEPS}.layout.title.text")


def header_bottom(page) -> float:
    return page.evaluate("() => document.querySelector('[data-testid=\"stHeader\"]').getBoundingClientRect().bottom")


def test_typed_sentence_shows_tokens_and_heatmaps(server, page):
    page.goto(server)
    state = sized(page)
    assert state["exceptions"] == 0 and state["plots"] == N_CHARTS
    screenshot(page, "explorer")
    page.screenshot(path=str(SCREENSHOTS / "explorer-top.png"))  # what a projector shows first

    submit(page, "the bank by the river bank")
    state = wait_complete(page, "8 tokens", plots=N_CHARTS, url_has=url_mark(text="the bank by the river bank"))
    assert state["exceptions"] == 0
    chips = chart(page, "8 tokens")
    assert chips.is_visible()
    for name in ("[CLS]", "bank", "river", "[SEP]"):
        assert name in chips.text_content()
    steps = chart(page, "Layer 1 · head 1: from scores to weights")
    steps.scroll_into_view_if_needed()
    ticks = steps.locator(".ytick text").evaluate_all("els => els.map(e => e.textContent)")
    assert "bank (2)" in ticks and "bank (6)" in ticks  # two separate rows for the repeated word
    assert chart(page, "All 12 heads").is_visible()
    assert parse_qs(urlparse(page.url).query)["text"] == ["the bank by the river bank"]
    screenshot(page, "explorer-bank")


# Counts the draws of each chart (ui/components/plot.js draws with Plotly.newPlot, Streamlit's own chart with Plotly.react).
COUNT_DRAWS = """() => {
    window.__drawn = new Map();
    for (const name of ['react', 'newPlot']) {
        const draw = window.Plotly[name];
        window.Plotly[name] = function (gd, ...rest) {
            window.__drawn.set(gd, (window.__drawn.get(gd) || 0) + 1);
            return draw.call(this, gd, ...rest);
        };
    }
}"""
DRAWS = "() => Array.from(window.__drawn.values())"


def test_each_changed_chart_is_drawn_once_and_the_others_not_at_all(server, browser):
    page = browser.new_page(viewport=PROJECTOR)
    try:
        page.goto(server)
        sized(page)
        page.evaluate(COUNT_DRAWS)
        submit(page, "the bank by the river bank")
        wait_complete(page, "8 tokens", plots=N_CHARTS, url_has=url_mark(text="the bank by the river bank"))
        # the page can read as complete for a moment before the last chart's component has begun its draw (it marks
        # itself as drawing only once its script runs): every chart's draw is waited for, then each counted once
        page.wait_for_function(f"() => window.__drawn.size >= {N_CHARTS}", timeout=30_000)
        wait_complete(page, "8 tokens", plots=N_CHARTS)
        page.wait_for_timeout(500)
        assert page.evaluate(DRAWS) == [1] * N_CHARTS  # every chart shows the new sentence, drawn once
        page.evaluate("() => window.__drawn.clear()")
        head_buttons(page).locator('button[data-head="4"]').click()
        wait_complete(page, url_has="head=4", shows="All heads at a glance")
        # the steps, q/k/v and the grid switch in the browser; only the three pictures of one head's move redraw
        assert page.evaluate(DRAWS) == [1, 1, 1]
    finally:
        page.close()


@pytest.mark.parametrize(("viewport"), [PROJECTOR, WIDE], ids=["1280", "1920"])
def test_the_four_steps_share_one_screen(server, browser, viewport):
    """Raw, scaled, masked and softmax of one head, each at least 180 px square, all inside the window below
    Streamlit's header at one scroll position, with the sidebar open."""
    page = browser.new_page(viewport=viewport)
    try:
        page.goto(server)
        sized(page)
        assert page.get_by_test_id("stSidebar").get_attribute("data-collapsed") == "false"
        page.evaluate(f"() => {STEPS}.scrollIntoView({{block: 'end'}})")
        page.wait_for_timeout(300)
        panels = page.evaluate(PANELS)
        top = header_bottom(page)
        assert [p[0] for p in panels] == ["xy", "x2y2", "x3y3", "x4y4"]
        for _, left, y, width, height in panels:
            assert width >= 180 and height >= 180
            assert abs(width - height) <= 2  # square cells
            assert left >= 0 and left + width <= viewport["width"]
            assert y >= top and y + height <= viewport["height"]
        assert smallest_text(page) >= 11
        page.screenshot(path=str(SCREENSHOTS / f"explorer-steps-{viewport['width']}.png"))
    finally:
        page.close()


def smallest_text(page) -> float:
    """The smallest type of the steps figure, as drawn."""
    return page.evaluate(
        f"() => Math.min(...Array.from({STEPS}.querySelectorAll('text')).filter(t => t.textContent.trim())"
        ".map(t => parseFloat(getComputedStyle(t).fontSize)))"
    )


@pytest.mark.parametrize(
    ("viewport", "query"),
    [
        (WIDE, ""),
        (WIDE, "?presenter=1&step=4"),
        (PROJECTOR, "?numbers=1"),
        (PROJECTOR, "?text=the+bank+by+the+river+bank"),
    ],
    ids=["1920", "1920-presenter", "1280-forced", "1280-short"],
)
def test_no_number_is_wider_than_its_cell(server, browser, viewport, query):
    """Every value printed in a cell, as Chromium draws it, fits its cell and is at least 11 px (14 px in
    presenter mode); at these sizes the values are shown."""
    page = browser.new_page(viewport=viewport)
    try:
        page.goto(server + "/" + query)
        sized(page)
        cells = page.evaluate(CELL_TEXTS)
        assert len(cells) >= 64  # a whole panel of values at least: the check measured something
        for text, width, height, font, cell_w, cell_h in cells:
            assert width <= cell_w and height <= cell_h + 1, (text, width, height, cell_w)
            assert font >= (14 if "presenter" in query else 11), (text, font)
    finally:
        page.close()


def test_numbers_are_left_out_where_they_cannot_fit(server, browser):
    page = browser.new_page(viewport=PROJECTOR)
    try:
        page.goto(server)
        sized(page)
        assert page.evaluate(CELL_TEXTS) == []  # 13 tokens in panels of 200 px: cells of 15 px
    finally:
        page.close()


def test_head_buttons_switch_at_once_then_the_page_follows(server, browser):
    page = browser.new_page(viewport=PROJECTOR)
    try:
        page.goto(server)
        sized(page)
        assert pressed(page) == ["1"]
        before = page.evaluate(f"() => Array.from({STEPS}._fullData[{STEPS}.layout.meta.traces[3]].customdata[0])")
        page.evaluate(f"() => {{ window.__drawn = {STEPS}; }}")  # the figure as drawn now
        head_buttons(page).locator('button[data-head="8"]').click()
        # the same figure shows head 8, changed in the browser: the server's rerun would draw a new one…
        page.wait_for_function("() => window.__drawn.layout.title.text.includes('head 8:')", timeout=10_000)
        after = page.evaluate(
            "() => Array.from(window.__drawn._fullData[window.__drawn.layout.meta.traces[3]].customdata[0])"
        )
        assert after != before
        # …then the link, the sidebar and both rows of buttons follow
        wait_complete(page, url_has="head=8", shows="All heads at a glance")
        assert sidebar_head(page) == "8"
        assert pressed(page) == ["8"]
        assert head_buttons(page, 0).locator('button[aria-pressed="true"]').all_inner_texts() == ["8"]
        assert "head 8:" in steps_title(page)
        # the rerun sent the figures unchanged: the page kept the very figure the browser switched, with head 8's
        # file name for its camera button, and the grid frames head 8
        assert page.evaluate(f"() => window.__drawn === {STEPS}")
        assert "_H8_" in page.evaluate("() => window.__drawn._context.toImageButtonOptions.filename")
        grid = chart(page, "All 12 heads")
        frame = page.evaluate("el => el.layout.shapes[0]", grid.element_handle())
        x8 = page.evaluate("el => el._fullLayout.xaxis8.domain", grid.element_handle())
        assert frame["x0"] < x8[0] < x8[1] < frame["x1"]
    finally:
        page.close()


def test_a_head_picked_in_the_sidebar_is_shown_without_redrawing_the_steps(server, browser):
    page = browser.new_page(viewport=PROJECTOR)
    try:
        page.goto(server)
        sized(page)
        page.evaluate(f"() => {{ window.__drawn = {STEPS}; }}")
        box = page.get_by_test_id("stSidebar").get_by_role("combobox", name="Head")
        box.focus()
        box.press("ArrowDown")
        page.get_by_role("option", name="6", exact=True).click()
        wait_complete(page, url_has="head=6", shows="All heads at a glance")
        page.wait_for_function("() => window.__drawn.layout.title.text.includes('head 6:')", timeout=10_000)
        assert page.evaluate(f"() => window.__drawn === {STEPS}")  # the same figure, switched in the browser
        assert pressed(page) == ["6"]
        # what it shows is what a fresh page draws for head 6
        shown = page.evaluate(f"() => Array.from({STEPS}._fullData[{STEPS}.layout.meta.traces[3]].customdata[1])")
        page.goto(server + "/?head=6")
        sized(page)
        assert "head 6:" in steps_title(page)
        fresh = page.evaluate(f"() => Array.from({STEPS}._fullData[{STEPS}.layout.meta.traces[3]].customdata[1])")
        assert fresh == pytest.approx(shown)
    finally:
        page.close()


def test_a_click_on_the_grid_picks_that_head(server, browser):
    page = browser.new_page(viewport=PROJECTOR)
    try:
        page.goto(server)
        sized(page)
        grid = chart(page, "All 12 heads")
        grid.scroll_into_view_if_needed()
        x, y = page.evaluate(
            """el => { const a = el._fullLayout.xaxis5, b = el._fullLayout.yaxis5, r = el.getBoundingClientRect();
                return [r.left + a._offset + a._length / 2, r.top + b._offset + b._length / 2]; }""",
            grid.element_handle(),
        )
        page.mouse.click(x, y)  # head 5's panel
        wait_complete(page, url_has="head=5", shows="All heads at a glance")
        assert "head 5:" in steps_title(page)
        assert pressed(page) == ["5"] and sidebar_head(page) == "5"
        frame = page.evaluate("el => el.layout.shapes[0]", grid.element_handle())
        x5 = page.evaluate("el => el._fullLayout.xaxis5.domain", grid.element_handle())
        assert frame["x0"] < x5[0] < x5[1] < frame["x1"]  # the chosen head is framed
    finally:
        page.close()


def test_the_moved_toward_table_shows_tokens_as_typed_and_sorts(server, browser):
    page = browser.new_page(viewport=PROJECTOR)
    try:
        page.goto(server + "/?" + url_mark(text="a <b>fluffy</b> creature", specials="1"))
        sized(page)
        table = page.get_by_role("table", name="Which token each token moved most toward")
        table.scroll_into_view_if_needed()
        tokens = table.locator("tbody td:first-child").all_inner_texts()
        # the tag as text, not as bold; [CLS] and [SEP] left out until shown in this section too
        assert tokens[:4] == ["1 · a", "2 · <", "3 · b", "4 · >"] and not any("[CLS]" in t for t in tokens)
        assert table.locator("b").count() == 0

        def changes() -> list[float]:
            return [float(t) for t in table.locator("tbody td:last-child").all_inner_texts()]

        table.get_by_role("button", name="change").click()
        assert changes() == sorted(changes(), reverse=True)
        assert table.locator("th", has_text="change").get_attribute("aria-sort") == "descending"
        table.get_by_role("button", name="change").click()
        assert changes() == sorted(changes())
        table.get_by_role("button", name="moved most toward").click()  # text, its numbers in order: by position
        toward = [int(t.split(" · ")[0]) for t in table.locator("tbody td:nth-child(2)").all_inner_texts()]
        assert toward == sorted(toward)
        table.get_by_role("button", name="token", exact=True).click()
        assert table.locator("tbody td:first-child").all_inner_texts() == tokens
    finally:
        page.close()


def test_a_phone_scrolls_down_only(server, browser):
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    try:
        page.goto(server + "/?mask=causal")
        sized(page)
        assert page.evaluate("document.scrollingElement.scrollWidth") <= page.evaluate("innerWidth")
        for box in page.locator(".js-plotly-plot").all():
            b = box.bounding_box()
            assert b["x"] >= 0 and b["x"] + b["width"] <= PHONE["width"]
        chips = chart(page, "13 tokens").bounding_box()
        assert chips["height"] > 200  # more than one row of chips
        assert {t[0] for t in page.evaluate(CELL_TEXTS)} == {"×"}  # cells too small for numbers: the masks' marks
        equations = page.evaluate(
            """() => Array.from(document.querySelectorAll('.katex-display'),
                e => [e.scrollWidth > e.clientWidth, getComputedStyle(e).overflowX])"""
        )
        assert any(wide for wide, _ in equations)  # some equation is wider than a phone…
        assert all(overflow in ("auto", "scroll") for wide, overflow in equations if wide)  # …and scrolls
    finally:
        page.close()


@pytest.mark.parametrize("viewport", [PROJECTOR, WIDE, PHONE], ids=["1280", "1920", "390"])
def test_every_section_opens_at_its_heading_and_nothing_is_wider_than_the_page(server, browser, viewport):
    """Each of the seven sections scrolled to: its heading in sight (at the top, but for the last ones, which the end
    of the page keeps lower), and nothing in the page (a figure, an equation, a table) wider than its column, on a
    projector, a wide screen and a phone. Each section's first chart (the next word has none on the encoder) is drawn,
    not blank, and on the two large screens it starts in the same window as its heading. Each view is kept as a
    screenshot for looking at (artifacts/screenshots)."""
    page = browser.new_page(viewport=viewport)
    try:
        page.goto(server)
        sized(page)
        headings = page.locator('[data-testid="stHeading"] h2')
        assert headings.count() == 7
        for i in range(headings.count()):
            heading = headings.nth(i)
            heading.evaluate("e => e.scrollIntoView({block: 'start'})")
            page.evaluate("top => document.querySelector('[data-testid=\"stMain\"]').scrollBy(0, -top)", 70)
            page.wait_for_timeout(300)
            page.screenshot(path=str(SCREENSHOTS / f"explorer-{viewport['width']}-section{i + 1}.png"))
            box = heading.bounding_box()
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (i, box)
            wider = page.evaluate(
                "() => { const m = document.querySelector('[data-testid=\"stMain\"]');"
                " return m.scrollWidth - m.clientWidth; }"
            )
            assert wider <= 1, f"section {i + 1}: the page is {wider} px wider than the window"
            if i < 6:
                chart = heading.evaluate_handle(FIRST_CHART).as_element()
                assert chart is not None, f"section {i + 1} has no chart"
                top = chart.bounding_box()["y"]
                assert viewport == PHONE or top < viewport["height"], f"section {i + 1}: its chart starts at {top} px"
                grey = np.asarray(Image.open(BytesIO(chart.screenshot())).convert("L"), dtype=float)
                assert (grey < 200).mean() > 0.01 and grey.std() > 10, f"section {i + 1}: its chart is blank"
    finally:
        page.close()
