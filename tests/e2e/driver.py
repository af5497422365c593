"""What only the browser tests do in the app: screenshots, and the menu at the top of the page.

Starting the app and Chromium, and waiting for a complete page, is app_driver/server.py's (beside app.py), which the
benchmarks use too.
"""

from __future__ import annotations

from pathlib import Path

from app_driver.server import ROOT, frames, wait_complete

SCREENSHOTS = ROOT / "artifacts" / "screenshots"


class Browser:
    """Chromium as the browser tests use it. A page that asks for nothing but a window size opens in one browser
    context shared by the worker's tests, as tabs of one student's browser: its cache keeps the app's scripts and
    the code Chromium compiled from them from one test to the next. Each test's page is still a session of its own
    (a new page is a new connection to the server), and the app keeps nothing in the browser's storage. A page that
    asks for more (a phone's touch, downloads), or `fresh_page`, gets a context of its own, with an empty cache.
    (A page in a fresh context compiles Streamlit's and Plotly's scripts again: Chromium's CPU for the glossary
    0.9–1.1 s against 0.2–0.5 s, for a chapter 2.8–3.1 s against 1.6 s, in a context that had opened it once.)"""

    def __init__(self, browser):
        self._browser = browser
        self._shared = None

    def new_page(self, viewport: dict | None = None, **options):
        if options:
            return self.fresh_page(viewport, **options)
        if self._shared is None:
            self._shared = self._browser.new_context()
        page = self._shared.new_page()
        if viewport:
            page.set_viewport_size(viewport)
        return page

    def fresh_page(self, viewport: dict | None = None, **options):
        """A page in a context of its own: nothing in its cache, a first visit's every request."""
        return self._browser.new_page(viewport=viewport, **options)


def screenshot(page, name: str, restore: bool = True) -> Path:
    """A screenshot of the whole app (its main column scrolls, so the viewport is made tall enough), the window
    then set back to its size (`restore`; not needed where the next step sets a size of its own)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    height = page.evaluate(
        '() => Math.max(...Array.from(document.querySelectorAll(\'section, [data-testid="stMain"], '
        '[data-testid="stAppViewContainer"]\')).map(e => e.scrollHeight), 900)'
    )
    size = page.viewport_size
    page.set_viewport_size({"width": size["width"], "height": min(int(height) + 40, 16000)})
    frames(page)
    wait_complete(page, charts=False)  # redrawn for the taller window, if the page asks for it
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    if not restore:
        return path
    page.set_viewport_size(size)
    frames(page)
    wait_complete(page, charts=False)
    return path


LESSON_MENU = "The lesson"  # the chapters' menu in the bar at the top (app.py)


def menu_links(page) -> list[tuple[str, str]]:
    """Every page of the menu at the top, in order, as (title, address): the chapters' menu is opened to read it."""
    page.get_by_test_id("stTopNavSection").filter(has_text=LESSON_MENU).click()
    page.get_by_test_id("stTopNavDropdownLink").first.wait_for()
    links = page.locator("[data-testid=stTopNavLink], [data-testid=stTopNavDropdownLink]")
    found = [(a.inner_text().strip(), a.get_attribute("href")) for a in links.all()]
    page.keyboard.press("Escape")
    return found


def open_from_menu(page, title: str) -> None:
    """Click a page's link in the menu at the top: the explorer's in the bar, a chapter's in the lesson's menu."""
    top = page.get_by_test_id("stTopNavLink").filter(has_text=title)
    if top.count():
        top.click()
        return
    page.get_by_test_id("stTopNavSection").filter(has_text=LESSON_MENU).click()
    page.get_by_test_id("stTopNavDropdownLink").filter(has_text=title).click()
