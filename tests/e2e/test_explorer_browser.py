"""The explorer in a real browser: Debian's Chromium driven by Playwright against `streamlit run app.py`."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

from tests.e2e.driver import SCREENSHOTS, screenshot, url_mark, wait_complete

N_CHARTS = 12


def submit(page, text: str) -> None:
    box = page.get_by_role("textbox", name="Sentence")
    box.fill(text)
    box.press("Control+Enter")


def chart(page, title: str):
    """The chart whose title starts with `title`."""
    return page.locator(".js-plotly-plot").filter(
        has=page.locator(".gtitle", has_text=re.compile("^" + re.escape(title)))
    )


def test_typed_sentence_shows_tokens_and_heatmaps(server, page):
    page.goto(server)
    state = wait_complete(page, "13 tokens", plots=N_CHARTS)
    assert state["exceptions"] == 0
    screenshot(page, "explorer")
    page.screenshot(path=str(SCREENSHOTS / "explorer-top.png"))  # what a projector shows first
    page.get_by_role("heading", name="3 · From scores to weights").evaluate("e => e.scrollIntoView()")
    page.wait_for_timeout(500)
    page.screenshot(path=str(SCREENSHOTS / "explorer-scores.png"))  # the README's picture

    submit(page, "the bank by the river bank")
    state = wait_complete(page, "8 tokens", plots=N_CHARTS, url_has=url_mark(text="the bank by the river bank"))
    assert state["exceptions"] == 0
    chips = chart(page, "8 tokens")
    assert chips.is_visible()
    for name in ("[CLS]", "bank", "river", "[SEP]"):
        assert name in chips.text_content()
    softmax = chart(page, "4. Softmax weights")
    softmax.scroll_into_view_if_needed()
    assert softmax.is_visible()
    box = softmax.bounding_box()
    assert box["width"] > 300 and box["height"] > 300
    ticks = softmax.locator(".ytick text").evaluate_all("els => els.map(e => e.textContent)")
    assert "bank (2)" in ticks and "bank (6)" in ticks  # two separate rows for the repeated word
    assert chart(page, "All 12 heads").is_visible()
    assert parse_qs(urlparse(page.url).query)["text"] == ["the bank by the river bank"]
    screenshot(page, "explorer-bank")


def test_a_copied_link_reopens_exactly_this_view(server, browser, page):
    page.goto(server + "/?text=an+apple+phone&mask=causal&layout=notes")
    wait_complete(page, "5 tokens", plots=N_CHARTS)
    page.locator('[data-testid="stButtonGroup"]').get_by_role("radio", name="7", exact=True).click()
    wait_complete(page, "5 tokens", plots=N_CHARTS, url_has="head=7")
    link = page.url
    params = parse_qs(urlparse(link).query)
    assert params["head"] == ["7"] and params["mask"] == ["causal"] and params["layout"] == ["notes"]

    other = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        other.goto(link)
        state = wait_complete(other, "5 tokens", plots=N_CHARTS)
        assert state["exceptions"] == 0
        assert other.get_by_role("heading", name="Queries, keys and values (layer 1, head 7)").is_visible()
        assert (
            other.locator('[data-testid="stButtonGroup"]')
            .get_by_role("radio", name="7", exact=True)
            .get_attribute("aria-checked")
            == "true"
        )
        assert other.get_by_role("textbox", name="Sentence").input_value() == "an apple phone"
        assert other.get_by_role("radio", name="causal").is_checked()
        masked = chart(other, "3. Masked")
        masked.scroll_into_view_if_needed()
        assert "−∞" in masked.text_content()
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
    assert page.get_by_role("heading", name="Queries, keys and values (layer 1, head 1)").is_visible()


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
