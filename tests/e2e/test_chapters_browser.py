"""The lesson in a real browser: every chapter opens from the sidebar, and the sentence follows."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from tests.e2e.driver import screenshot, url_mark, wait_complete
from ui.chapters import CHAPTERS

SENTENCE = "the bank by the river bank"


def open_chapter(page, title: str) -> dict:
    """Open a chapter from the sidebar and wait until it is drawn to the end ("Try this" closes every chapter)."""
    page.locator('[data-testid="stSidebarNav"] a', has_text=title).click()
    page.get_by_role("heading", name=title).first.wait_for(timeout=60_000)
    page.get_by_text("Try this.").first.wait_for(timeout=60_000)
    return wait_complete(page)


def test_every_chapter_opens_and_the_sentence_follows(server, page):
    page.goto(server + "/?" + url_mark(text=SENTENCE))
    wait_complete(page, "8 tokens", plots=12)
    for number, chapter in enumerate(CHAPTERS, start=1):
        state = open_chapter(page, chapter.title)
        assert state["exceptions"] == 0, chapter.title
        assert state["plots"] >= 1, chapter.title
        screenshot(page, f"chapter-{number:02d}")
    # a chapter that uses the real model shows the explorer's sentence
    open_chapter(page, "Many heads")
    assert page.get_by_role("textbox", name="Sentence").input_value() == SENTENCE
    assert "bank (6)" in page.locator(".js-plotly-plot").first.text_content()


def test_a_sentence_typed_in_a_chapter_comes_back_to_the_explorer(server, page):
    page.goto(server)
    wait_complete(page, "13 tokens", plots=12)
    open_chapter(page, "Queries and keys")
    box = page.get_by_role("textbox", name="Sentence")
    box.fill("an apple phone")
    box.press("Control+Enter")
    wait_complete(page, url_has=url_mark(text="an apple phone"))
    link = page.url
    assert parse_qs(urlparse(link).query)["text"] == ["an apple phone"]
    page.locator('[data-testid="stSidebarNav"] a', has_text="Explorer").click()
    state = wait_complete(page, "5 tokens", plots=12)
    assert state["exceptions"] == 0
    assert page.get_by_role("textbox", name="Sentence").input_value() == "an apple phone"


def test_a_chapter_link_reopens_the_chapter_with_its_sentence(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(server + "/kv_cache?" + url_mark(text="an apple and an orange", layer="2", head="3"))
        page.get_by_text("Try this.").first.wait_for(timeout=60_000)
        state = wait_complete(page, plots=4, titled="Step 5:")
        assert state["exceptions"] == 0
        assert page.get_by_role("heading", name="The KV cache").first.is_visible()
        assert page.get_by_role("textbox", name="Sentence").input_value() == "an apple and an orange"
        assert "Step 5: “an (4)” queries the cache" in state["titles"]
    finally:
        page.close()
