"""The lesson in a real browser: every chapter opens from the sidebar and leads to the next, the sentence
follows, a chapter's link reopens its controls, and the pieces drawn in the browser work (the diagram's
links, the editable table, the question)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from playwright.sync_api import expect

from app_driver.server import url_mark, wait_complete
from tests.e2e.driver import open_from_menu, screenshot
from ui.kit.chapter import url_path
from ui.words.chapters import CHAPTERS

SENTENCE = "the bank by the river bank"


def open_chapter(page, title: str) -> dict:
    """Open a chapter from the menu at the top and wait until it is drawn to the end ("Try this" closes every
    chapter)."""
    open_from_menu(page, title)
    return wait_drawn(page, title)


def wait_drawn(page, title: str, **complete) -> dict:
    page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)
    page.get_by_text("Try this.").first.wait_for(timeout=60_000)
    return wait_complete(page, **complete)


def query(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def test_every_chapter_opens_leads_to_the_next_and_the_sentence_follows(server, page):
    page.goto(server + "/?" + url_mark(text=SENTENCE))
    wait_complete(page, timeout=120)
    open_chapter(page, CHAPTERS[0].title)
    for i, chapter in enumerate(CHAPTERS):
        state = wait_drawn(page, chapter.title, url_has="text=")  # the URL is written when the run ends
        assert state["exceptions"] == 0, chapter.title
        assert state["plots"] >= 1, chapter.title
        assert urlparse(page.url).path.endswith("/" + url_path(chapter))
        assert query(page)["text"] == [SENTENCE]
        screenshot(page, f"chapter-{chapter.number:02d}")
        if i + 1 < len(CHAPTERS):  # the "next" link at the foot of the page, in the same session
            page.locator('[data-testid="stPageLink"] a', has_text=f"{CHAPTERS[i + 1].title} →").click()
    # a chapter that uses the real model shows the explorer's sentence
    open_chapter(page, "Many heads")
    assert page.get_by_role("textbox", name="Sentence").input_value() == SENTENCE
    assert "bank (6)" in page.locator(".js-plotly-plot").first.text_content()


def test_a_sentence_typed_in_a_chapter_comes_back_to_the_explorer(server, page):
    page.goto(server)
    wait_complete(page, timeout=120)
    open_chapter(page, "Queries and keys")
    box = page.get_by_role("textbox", name="Sentence")
    box.fill("an apple phone")
    box.press("Control+Enter")
    wait_complete(page, url_has=url_mark(text="an apple phone"))
    assert query(page)["text"] == ["an apple phone"]
    open_from_menu(page, "Explorer")
    state = wait_complete(page, url_has=url_mark(text="an apple phone"), shows="phone")
    assert state["exceptions"] == 0
    # the explorer's box can show empty for a moment after the page is otherwise complete, then the sentence
    expect(page.get_by_role("textbox", name="Sentence")).to_have_value("an apple phone", timeout=10_000)


def test_a_chapter_link_with_changed_controls_reopens_them(server, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        link = server + "/scaling?" + url_mark(text=SENTENCE, sc_dk="512", sc_keys="8", sc_scaled="0")
        page.goto(link)
        state = wait_drawn(page, "Scaling by", titled="q·k, dₖ = 512")
        assert state["exceptions"] == 0
        keys = page.locator('[data-testid="stSlider"]', has_text="keys per query")
        assert keys.locator('[data-testid="stSliderThumbValue"]').inner_text() == "8"
        switch = page.locator('[data-testid="stCheckbox"]', has_text="Divide by √dₖ")
        assert switch.locator("input").is_checked() is False
        switch.get_by_text("Divide by √dₖ").click()  # back to its default: it leaves the link
        wait_complete(page, titled="q·k / √dₖ, dₖ = 512")
        assert "sc_scaled" not in query(page) and query(page)["sc_dk"] == ["512"]
    finally:
        page.close()


def test_the_kv_cache_link_reopens_its_sentence_layer_head_and_step(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        link = url_mark(text="an apple and an orange", layer="2", head="3", kv_step="4", model="all-MiniLM-L6-v2")
        page.goto(server + "/kv_cache?" + link)
        state = wait_drawn(page, "The KV cache", plots=4, titled="Step 4:")
        assert state["exceptions"] == 0
        # the sidebar's box is filled by its own element, which can come a moment after the charts on a busy machine
        expect(page.get_by_role("textbox", name="Sentence")).to_have_value("an apple and an orange", timeout=30_000)
        assert any(t.startswith("Step 4: “and” reads the cachelayer 2 · head 3") for t in state["titles"])
    finally:
        page.close()


def test_the_big_pictures_boxes_open_their_chapters(server, page):
    page.goto(server)
    wait_complete(page, timeout=120)
    open_chapter(page, "The big picture")
    page.locator(".js-plotly-plot a", has_text="Attention").first.click()
    state = wait_drawn(page, "Many heads")  # the box's own chapter (it led to "Queries and keys" before)
    assert state["exceptions"] == 0 and urlparse(page.url).path.endswith("/heads")


def test_the_worked_table_takes_an_edit_and_the_link_keeps_it(server, page):
    page.goto(server)
    wait_complete(page, timeout=120)
    open_chapter(page, "Masking and softmax")
    grid = page.locator('[data-testid="stDataFrame"]').first
    width = grid.bounding_box()["width"]
    # the cell of key k1, query q1 (3.5): the row below the header, the first column after the index; the
    # position is taken relative to the grid when the click happens, after Playwright has scrolled it into view
    grid.click(position={"x": width * 0.25, "y": 52})  # select the cell
    page.wait_for_timeout(500)  # the grid takes keys once it has drawn the selection
    page.keyboard.type("0")  # typing on a selected cell opens its editor with what is typed
    page.wait_for_timeout(300)
    page.keyboard.press("Enter")
    state = wait_complete(page, url_has="mk_scores=0%2C")
    assert state["exceptions"] == 0
    assert query(page)["mk_scores"][0].startswith("0,0.8,1.9,4.4,-inf")
    # a query that sees one key gives it everything, whatever its score
    assert "1.000" in page.locator(".js-plotly-plot", has_text="Softmax down each column").text_content()


def test_the_question_says_whether_the_answer_is_right(server, page):
    page.goto(server)
    wait_complete(page, timeout=120)
    open_chapter(page, "Similarity")
    question = page.locator('[data-testid="stRadio"]', has_text="Question 1 of 3.")
    question.get_by_text("−1", exact=True).click()
    page.get_by_text("Not this one").first.wait_for(timeout=30_000)
    question.get_by_text("0", exact=True).click()
    page.get_by_text("Right.").first.wait_for(timeout=30_000)


def test_a_click_on_the_role_map_picks_the_head_and_opens_it_in_the_explorer(server, page):
    """SmolLM2's 30 × 9 role map: a click on layer 18's head 6 picks it for the chapter (its removal) and the
    sidebar, and the link under the map opens it in the explorer."""
    page.goto(server + "/heads?model=smollm2")
    wait_complete(page, titled="The role of every head", timeout=300)
    roles = page.locator(".js-plotly-plot").filter(has=page.locator(".gtitle", has_text="the role of every head"))
    roles.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    x, y = page.evaluate(
        """(gd) => { const xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis, box = gd.getBoundingClientRect();
            return [box.left + xa._offset + xa.l2p(6), box.top + ya._offset + ya.l2p(18)]; }""",
        roles.element_handle(),
    )
    page.mouse.click(x, y)
    wait_complete(page, url_has="layer=18", shows="Remove head 6 of layer 18", timeout=300)
    assert "head=6" in page.url
    page.get_by_text("Open layer 18 · head 6 in the explorer").click()
    wait_complete(page, shows="All heads at a glance", url_has="layer=18", timeout=300)
    assert "/heads" not in page.url and "head=6" in page.url
    screenshot(page, "role-map-click")
