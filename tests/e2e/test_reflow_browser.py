"""Every page at 200 % zoom: a 1280×720 screen zoomed twice is a window of 640 × 360 CSS pixels, in Chromium.

One student's session, in English: the explorer first (the home page, where the page's width is measured and the
figures laid out for it), then each chapter opened from the menu (in the sidebar at this width). On each page: no
text is cut (a figure's title, axis title, label or legend past its figure's edge, a
button's, a tab's, a label's or the menu's text cut short), nothing is wider than the window, and every control is
reachable from the keyboard: Tab goes through the page from its first stop to its last, each stop named, ringed and
brought into the window, and then through the sidebar's controls (its skip link opens it); no control of the page
or the sidebar is left that Tab did not reach. Each page is kept as a screenshot (artifacts/screenshots/zoom200-*).
"""

from __future__ import annotations

from app_driver.server import frames, wait_complete
from tests.e2e.driver import SCREENSHOTS
from tests.e2e.keyboard import Keyboard
from tests.e2e.layout import cut
from ui.kit.chapter import url_path
from ui.words.chapters import CHAPTERS

ZOOMED = {"width": 640, "height": 360}  # 1280 × 720 at 200 %
PAGES = [("explorer", ""), *((f"{c.number:02d}-{url_path(c)}", url_path(c)) for c in CHAPTERS)]
MOST = 400  # stops on one page; the explorer has about 90

# Marks the control that has the focus (inside a component's shadow root too), so that the page can say which of its
# controls the keyboard never reached.
MARK = """() => { let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  if (e && e !== document.body) e.dataset.reached = '1'; }"""
# Every control of the page or the sidebar the Tab key should stop on, and is drawn, that it did not reach (a group
# of radio buttons is one stop: the arrow keys move in it)
LEFT = """() => Array.from(document.querySelectorAll(
    '[data-testid="stMain"] :is(a[href], button, input, select, textarea, summary, [tabindex]),'
    + '[data-testid="stSidebarUserContent"] :is(a[href], button, input, select, textarea, summary, [tabindex])'))
  .filter(e => e.tabIndex >= 0 && !e.disabled && e.getClientRects().length > 0 && !e.dataset.reached
    && !(e.type === 'radio' && document.querySelector(`input[type=radio][name="${e.name}"][data-reached]`))
    && getComputedStyle(e).visibility !== 'hidden' && !e.closest('[inert], [aria-hidden="true"]'))
  .map(e => `${e.tagName.toLowerCase()} “${(e.getAttribute('aria-label') || e.textContent || e.value || '').trim()
    .slice(0, 40)}” (${e.closest('[data-testid]')?.dataset.testid || ''})`)"""
IN_SIDEBAR = """() => { let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  return !!e && !!e.closest('[data-testid="stSidebar"]'); }"""


def tab_through(keys: Keyboard, page, stop) -> int:
    """Tab until `stop(focus)` holds, marking each control reached; the number of stops."""
    for n in range(1, MOST + 1):
        now = keys.press("Tab")
        page.evaluate(MARK)
        if now is None or stop(now):
            return n
    raise AssertionError(f"the page's end not reached in {MOST} stops: {[str(s) for s in keys.stops[-20:]]}")


def open_chapter(page, title: str) -> None:
    """Open a chapter from the menu, which a window this narrow puts in the sidebar."""
    sidebar = page.get_by_test_id("stSidebar")
    if sidebar.get_attribute("data-collapsed") == "true":
        page.get_by_test_id("stExpandSidebarButton").click()
        page.wait_for_timeout(600)  # it slides in
    link = sidebar.get_by_test_id("stSidebarNavLink").filter(has_text=title)
    more = sidebar.get_by_test_id("stSidebarNavViewButton")
    if not link.count() and more.count():
        more.click()
    link.first.click()


def settled(page) -> None:
    state = wait_complete(page, url_has="text=", timeout=300)
    assert not state["exceptions"], page.get_by_test_id("stException").first.inner_text()[:1500]
    frames(page)  # fonts and the last chart's labels in place: marked on the page till done
    wait_complete(page, url_has="text=", timeout=120)


def problems_on(page, keys: Keyboard, name: str) -> list[str]:
    """What is cut on the page as it stands, and every control Tab did not reach or found unnamed, unringed or out
    of the window."""
    page.keyboard.press("Escape")
    found_cut = cut(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"zoom200-{name}.png"))
    # from where the focus is (the menu's link just followed) round to the skip links, the page's first stop
    keys.tab_to("Skip to the page", most=MOST)
    page.evaluate("() => document.querySelectorAll('[data-reached]').forEach(e => delete e.dataset.reached)")
    keys.problems.clear()
    page.evaluate(MARK)
    # the page, from its first stop until Tab comes round to the skip links again
    stops = tab_through(keys, page, lambda now: now.name == "Skip to the page")
    # the sidebar, through its skip link, until the focus leaves it
    keys.tab_to("Skip to the controls in the sidebar")
    keys.press("Enter")
    page.wait_for_timeout(600)  # it slides in
    page.evaluate(MARK)
    keys.check()
    stops += tab_through(keys, page, lambda _now: not page.evaluate(IN_SIDEBAR))
    left = page.evaluate(LEFT)
    found = found_cut + list(keys.problems)
    if left:
        found.append(f"{len(left)} controls Tab did not reach in {stops} stops: {left}")
    return found


def test_at_200_percent_zoom_nothing_is_cut_and_every_control_is_reached(server, browser):
    page = browser.new_page(viewport=ZOOMED)
    keys = Keyboard(page)
    found = {}
    try:
        page.goto(server)
        settled(page)
        for name, path in PAGES:
            if path:
                open_chapter(page, next(c.title for c in CHAPTERS if url_path(c) == path))
                page.wait_for_url(f"**/{path}?*", timeout=60_000)
                settled(page)
            problems = problems_on(page, keys, name)
            if problems:
                found[name] = problems
    finally:
        page.close()
    assert found == {}, "\n".join(f"{name}: {p}" for name, p in found.items())
