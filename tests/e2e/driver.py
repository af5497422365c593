"""What only the browser tests do in the app: screenshots, and the menu at the top of the page.

Starting the app and Chromium, and waiting for a complete page, is app_driver/server.py's (beside app.py), which the
benchmarks use too.
"""

from __future__ import annotations

from pathlib import Path

from app_driver.server import ROOT, frames, wait_complete

SCREENSHOTS = ROOT / "artifacts" / "screenshots"


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
