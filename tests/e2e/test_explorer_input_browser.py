"""The explorer in Chromium, with what a student types, pastes or opens: a copied link reopens the same view, HTML
stays text, odd link values and empty or huge input get a message, and the head box answers the first click after
a new sentence. The explorer's figures in the browser are tests/e2e/test_explorer_browser.py's."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from app_driver.server import wait_complete
from tests.e2e.driver import screenshot
from tests.e2e.test_explorer_browser import (
    CELL_TEXTS,
    N_CHARTS,
    PROJECTOR,
    head_buttons,
    pressed,
    sized,
    steps_title,
    submit,
)


def test_a_copied_link_reopens_exactly_this_view(server, browser, page):
    page.goto(server + "/?text=an+apple+phone&mask=causal&layout=notes")
    sized(page)
    head_buttons(page).locator('button[data-head="7"]').click()
    wait_complete(page, "5 tokens", plots=N_CHARTS, url_has="head=7")
    link = page.url
    params = parse_qs(urlparse(link).query)
    assert params["head"] == ["7"] and params["mask"] == ["causal"] and params["layout"] == ["notes"]

    other = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        other.goto(link)
        state = sized(other)
        assert state["exceptions"] == 0
        assert "Layer 1 · head 7:" in steps_title(other)
        assert pressed(other) == ["7"]
        assert other.get_by_role("textbox", name="Sentence").input_value() == "an apple phone"
        assert other.get_by_role("radio", name="causal").is_checked()
        texts = [c[0] for c in other.evaluate(CELL_TEXTS)]
        assert "−∞" in texts  # the masked step prints −∞ where a 5-token matrix has room
        screenshot(other, "explorer-from-link")
    finally:
        other.close()


def test_html_is_shown_as_text_and_never_run(server, page):
    page.goto(server + "/?text=" + "%3Cscript%3Ealert(1)%3C%2Fscript%3E%20%3Cb%3Ebold%3C%2Fb%3E")
    state = wait_complete(page, plots=N_CHARTS)
    assert state["exceptions"] == 0
    assert page.dialogs == []
    assert page.locator("script", has_text="alert(1)").count() == 0
    assert page.locator("b", has_text="bold").count() == 0
    chips = page.locator(".js-plotly-plot").first.text_content()
    assert "<" in chips and "script" in chips  # drawn literally, as tokens


def test_odd_url_values_fall_back_with_a_message(server, page):
    page.goto(server + "/?layer=99&head=-1&mask=xyz")
    state = wait_complete(page, "13 tokens", plots=N_CHARTS)
    assert state["exceptions"] == 0
    warnings = page.locator('[data-testid="stAlert"]').all_inner_texts()
    assert sum("could not be used" in w for w in warnings) == 3
    assert "Layer 1 · head 1:" in steps_title(page)


def test_empty_and_huge_input(server, page):
    page.goto(server)
    wait_complete(page, "13 tokens", plots=N_CHARTS)
    submit(page, "   ")
    page.get_by_text("Type a sentence").wait_for(timeout=30_000)
    submit(page, "fluffy blue creatures roam the verdant forest " * 110)  # about 5,000 characters
    state = wait_complete(page, "256 tokens", plots=N_CHARTS, url_has="fluffy+blue+creatures")
    assert state["exceptions"] == 0
    assert page.get_by_text("left out").first.is_visible()
    screenshot(page, "explorer-long")


@pytest.mark.parametrize("viewport", [PROJECTOR, {"width": 1366, "height": 768}], ids=["1280", "1366"])
def test_the_head_box_opens_at_the_first_click_after_a_new_sentence(server, browser, viewport):
    """Open the page, type a sentence at once, Ctrl+Enter, click the sidebar's Head box once: its list opens and
    stays open. A box the sidebar must first scroll to closes again when that scroll lands after the click, as
    it can while the browser still draws the new figures: with the chapters listed above it in the sidebar,
    two clicks of four at 1366×768."""
    for text in ("the cat sat on the mat", "a dog barked at the moon all night", "the bank by the river"):
        page = browser.new_page(viewport=viewport)
        try:
            page.goto(server)
            wait_complete(page, shows="All heads at a glance")
            submit(page, text)
            wait_complete(page, shows=text.split()[-1])
            page.get_by_test_id("stSidebar").get_by_role("combobox", name="Head").click()
            options = page.get_by_role("listbox")
            expect(options).to_be_visible(timeout=1_500)
            page.wait_for_timeout(500)
            expect(options).to_be_visible(timeout=100)  # still open: nothing closed it again
        finally:
            page.close()
