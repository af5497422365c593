"""Download all figures, in a real browser: the zip holds exactly the figures the page shows."""

from __future__ import annotations

import html
import io
import re
import zipfile
from collections import Counter

from app_driver.server import url_mark, wait_complete
from tests.e2e.driver import screenshot
from ui.kit import downloads

SENTENCE = "the bank by the river bank"
LINK = "?" + url_mark(text=SENTENCE, layer=2, head=3)


def open_complete(page, url: str) -> dict:
    """Open a page and wait until it has drawn to its end: the zip button is the last thing each page draws."""
    page.goto(url)
    page.get_by_role("button", name=re.compile("^Download all figures")).wait_for(timeout=120_000)
    return wait_complete(page, shows=SENTENCE.split()[-1])


def download_all(page) -> zipfile.ZipFile:
    with page.expect_download(timeout=180_000) as info:
        page.get_by_role("button", name=re.compile("^Download all figures")).click()
    return zipfile.ZipFile(io.BytesIO(open(info.value.path(), "rb").read()))


def shown_titles(page) -> Counter:
    return Counter(
        page.evaluate("() => Array.from(document.querySelectorAll('.js-plotly-plot .gtitle')).map(e => e.textContent)")
    )


def as_files_show(titles: Counter) -> Counter:
    """The titles on screen as the files show them: without the words meant for the page ("(click one to pick it)")."""
    spec = lambda title: {"layout": {"title": {"text": title}}}  # noqa: E731
    return Counter({downloads.for_file(spec(t))["layout"]["title"]["text"]: n for t, n in titles.items()})


def zipped_titles(z: zipfile.ZipFile) -> Counter:
    """Each SVG's title, as its text (plotly writes a title of several lines as one <tspan> per line)."""
    titles = []
    for name in z.namelist():
        svg = z.read(name).decode()
        title = re.search(r'<text class="gtitle"[^>]*>(.*?)</text>', svg).group(1)
        titles.append(html.unescape(re.sub(r"<[^>]+>", "", title)))
    return Counter(titles)


def test_the_explorers_zip_holds_every_figure_it_shows(server, page):
    state = open_complete(page, server + "/" + LINK + "&export=svg")
    assert state["exceptions"] == 0
    z = download_all(page)
    assert len(z.namelist()) == state["plots"] >= 5
    assert all(n.endswith(".svg") for n in z.namelist())
    assert zipped_titles(z) == as_files_show(shown_titles(page))  # the very figures on screen, each once
    assert not any("(click" in t for t in zipped_titles(z))  # a slide cannot be clicked
    assert any("_L2_H3_the-bank-by-the-river-bank.svg" in n for n in z.namelist())

    # following another token redraws two figures on their own (a fragment): the zip follows them
    follow = page.get_by_role("combobox", name="Token to follow")
    follow.click()
    follow.fill("by")  # typed: after a download the box takes focus without opening its list
    page.get_by_role("option", name="3 · by").click()
    wait_complete(page, url_has="token=3")  # the fragment writes the URL when it has drawn its figures
    z = download_all(page)
    assert zipped_titles(z) == as_files_show(shown_titles(page))


def test_a_chapter_offers_the_format_and_its_zip_in_png(server, page):
    from PIL import Image

    state = open_complete(page, server + "/heads" + LINK)
    sidebar = page.get_by_test_id("stSidebar")
    assert sidebar.get_by_role("radiogroup", name="Figures save as").is_visible()
    screenshot(page, "export-chapter-sidebar")
    z = download_all(page)
    # every figure the zip holds is drawn on the page (a busy machine may still be drawing the last one when the
    # button first shows: wait for as many charts as the zip has, and fail if the page never gets there)
    state = wait_complete(page, plots=len(z.namelist()), timeout=60) if state["plots"] < len(z.namelist()) else state
    assert len(z.namelist()) == state["plots"] >= 2
    for name in z.namelist():
        assert name.endswith(".png")
        assert Image.open(io.BytesIO(z.read(name))).size[0] >= 1600
    # the format choice is on the chapter too, and goes into the link
    sidebar.get_by_text("SVG", exact=True).click()
    wait_complete(page, url_has="export=svg")
    z = download_all(page)
    assert len(z.namelist()) == state["plots"] and all(n.endswith(".svg") for n in z.namelist())
