"""ui/components/table.py in Chromium: cells are shown as text, whatever they hold, and a click on a column's name sorts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app_driver.server import streamlit_server

PAGE = Path(__file__).with_name("table_page.py")


@pytest.fixture(scope="module")
def table(browser):
    with streamlit_server(app=PAGE) as (url, _proc, _t0):
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(url)
        t = page.get_by_role("table", name="Test table")
        t.locator("tbody tr").first.wait_for(timeout=60_000)
        yield t
        page.close()


def column(table, c: int) -> list[str]:
    return table.locator(f"tbody td:nth-child({c})").all_inner_texts()


def test_cells_are_text_not_markup(table):
    from tests.e2e.table_page import CELLS

    assert column(table, 1) == CELLS
    assert table.locator("b, img").count() == 0
    assert table.page.title() != "hacked"


def test_numbers_are_printed_with_their_digits_and_right_aligned(table):
    assert column(table, 2) == ["0.25", "−1.50", "2.00", "0.13"]
    assert table.locator("tbody td:nth-child(2)").first.evaluate("td => getComputedStyle(td).textAlign") == "right"


def test_a_click_on_a_column_name_sorts_by_it_and_a_second_reverses(table):
    value = table.get_by_role("button", name="value")
    value.click()  # numbers: largest first
    assert column(table, 2) == ["2.00", "0.25", "0.13", "−1.50"]
    assert table.locator("th").nth(1).get_attribute("aria-sort") == "descending"
    value.click()
    assert column(table, 2) == ["−1.50", "0.13", "0.25", "2.00"]
    assert table.locator("th").nth(1).get_attribute("aria-sort") == "ascending"
    table.get_by_role("button", name="text").click()  # text: A to Z
    assert column(table, 1)[-1] == "plain"
    assert table.locator("th").nth(1).get_attribute("aria-sort") == "none"


# Chapter 7's lessons table, which its exercise reads to the last column: whole in its column at 1280×720.
LESSONS = {  # language: the table's name for screen readers, the columns "Try this" needs
    "en": ("Each position's lesson", ("best guess", "p(answer)", "right")),
    "fr": ("La leçon de chaque position", ("meilleur choix", "p(réponse)", "juste")),
    "ko": ("각 위치의 학습 예제", ("가장 유력한 추측", "p(정답)", "맞음")),
}
FITS = """t => { const box = t.parentElement, r = box.getBoundingClientRect();
  return { scroll: box.scrollWidth, client: box.clientWidth, right: r.right,
           headers: Array.from(t.querySelectorAll('th')).map(h => [h.textContent, h.getBoundingClientRect().right]) }; }"""


@pytest.mark.parametrize(("model", "lang"), [("smollm2", "en"), ("gemma3", "en"), ("gemma3", "fr"), ("gemma3", "ko")])
def test_chapter_7_s_lessons_table_fits_its_column_at_1280(server, browser, model, lang):
    from app_driver.server import wait_complete

    name, needed = LESSONS[lang]
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        page.goto(f"{server}/next_word?model={model}&lang={lang}")
        t = page.get_by_role("table", name=re.compile(re.escape(name)))
        t.locator("tbody tr").first.wait_for(timeout=120_000)
        wait_complete(page)
        fit = t.evaluate(FITS)
        assert fit["scroll"] <= fit["client"] + 1, fit  # nothing to scroll sideways to
        headers = dict(fit["headers"])
        assert all(h in "".join(headers) for h in needed), headers
        assert all(right <= fit["right"] + 1 for right in headers.values()), fit
    finally:
        page.close()
