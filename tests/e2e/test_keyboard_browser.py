"""A class taught from the keyboard alone, in Chromium at a projector's 1280×720: no mouse event, only keys (Tab,
Shift+Tab, Enter, Space, the arrows, typing). At every stop of the focus the control has a name a screen reader
says, a ring shows where the focus is, and it is in the window (not under the bar at the top)."""

from __future__ import annotations

import json
import re

from app_driver.server import ROOT, url_mark, wait_complete
from tests.e2e.keyboard import Keyboard
from tests.e2e.test_explorer_browser import N_CHARTS, sized, steps_title

PROJECTOR = {"width": 1280, "height": 720}
SENTENCE = "the bank by the river bank"
SECTIONS = [
    "1 · Tokens",
    "2 · Queries, keys and values",
    "3 · From scores to weights",
    "4 · All heads at a glance",
    "5 · Displacement: what each head adds",
    "6 · Updated embeddings",
    "7 · The next word",
]
CAMERA = "Download plot as a PNG"  # Plotly's name for a chart's camera button, the first of its toolbar
REPORT = ROOT / "artifacts" / "keyboard"


def pressed_head(page) -> str:
    return page.locator(".heads button[aria-pressed=true]").first.inner_text()


def test_a_class_by_keyboard_alone(server, browser):
    page = browser.new_page(viewport=PROJECTOR, accept_downloads=True)
    keys = Keyboard(page)
    try:
        page.goto(server)
        sized(page)
        # the skip links come first: the page, the sidebar's controls, then each section of the page
        assert keys.press("Tab").name == "Skip to the page"
        assert keys.press("Tab").name == "Skip to the controls in the sidebar"
        assert [keys.press("Tab").name for _ in SECTIONS] == SECTIONS
        keys.tab_to("3 · From scores to weights", back=True)
        now = keys.press("Enter")
        assert (now.role, now.name) == ("heading", "3 · From scores to weights") and now.in_view

        # section 3's head buttons are one stop: the arrows move along them, Enter shows the head
        keys.tab_to("1", "button")
        keys.press("ArrowRight")
        assert keys.press("ArrowRight").name == "3"
        keys.press("Enter")
        wait_complete(page, url_has="head=3", shows="All heads at a glance")
        assert pressed_head(page) == "3" and "head 3" in steps_title(page)

        # the steps' toolbar is one stop, its camera first: Enter saves the figure
        keys.tab_to(CAMERA)
        with page.expect_download(timeout=60_000) as saved:
            page.keyboard.press("Enter")
        assert re.fullmatch(r"steps_L1_H3_a-fluffy-blue-creature.*\.png", saved.value.suggested_filename)

        # back up to the sidebar: a sentence typed and submitted, then layer, mask and layout
        keys.tab_to("Sentence", "textbox", back=True, most=80)
        page.keyboard.press("Control+A")
        page.keyboard.type(SENTENCE)
        page.keyboard.press("Control+Enter")
        wait_complete(page, url_has=url_mark(text=SENTENCE), shows="bank (6)")
        keys.tab_to("Layer", "combobox")
        page.keyboard.type("2")
        page.keyboard.press("Enter")
        wait_complete(page, url_has="layer=2", titled="Layer 2 · head 3")
        keys.tab_to("none", "radio")  # the mask's chosen option: the arrows choose another
        keys.press("ArrowRight")
        wait_complete(page, url_has="mask=causal", shows="All heads at a glance")
        keys.tab_to("paper (rows are queries)", "radio")
        keys.press("ArrowDown")
        wait_complete(page, url_has="layout=notes", shows="All heads at a glance")
        assert keys.check().name == "lesson notes (columns are queries)"  # the focus stayed through the rerun

        # a chapter from the menu at the top, then its question answered
        keys.tab_to("The lesson", "button")
        assert keys.press("Enter").role == "menuitem"
        keys.press("ArrowDown")
        assert keys.press("ArrowDown").name == "3 · Similarity"
        keys.press("Enter")
        page.get_by_role("heading", name="3 · Similarity").first.wait_for(timeout=60_000)
        wait_complete(page, url_has=url_mark(text=SENTENCE), shows="Try this.")
        keys.tab_to("Skip to the controls in the sidebar")  # the chapter's own skip links, from the page's top
        assert keys.press("Enter").name == "Language"
        # the options in the order the page shows them (drawn from the link: questions.order); "0" is right
        question = page.locator('[data-testid="stRadio"]', has_text="Question 1 of 3.")
        options = [t.strip() for t in question.locator('[data-testid="stRadioOption"], label').all_inner_texts()]
        options = list(dict.fromkeys(t for t in options if t and not t.startswith("Question 1 of 3.")))
        assert "0" in options and len(options) >= 3, options
        first, second = options[0], options[1]
        keys.tab_to(first, "radio", starts=True)  # the question's first option, none chosen
        keys.press("Space")
        page.get_by_text("Right." if first == "0" else "Not this one").first.wait_for(timeout=30_000)
        assert keys.press("ArrowDown").name.startswith(second)  # the next option, chosen as the arrow reaches it
        page.get_by_text("Right." if second == "0" else "Not this one").first.wait_for(timeout=30_000)
        assert keys.problems == [], "\n".join(keys.problems)
    finally:
        page.close()


def test_the_explorers_tab_order_passes_each_toolbar_once(server, browser):
    """One stop per chart's toolbar and per row of head buttons, on the whole page (each chart's eight toolbar buttons
    and each head button were stops: 132 of the first 300 were toolbar buttons); from the sentence box, head 3 is a
    few keys away (it was the 36th Tab)."""
    page = browser.new_page(viewport=PROJECTOR)
    keys = Keyboard(page)
    try:
        page.goto(server)
        sized(page)
        while len(keys.stops) < 400:  # the whole page once, from its first stop to its last
            now = keys.press("Tab")
            if now is None or (len(keys.stops) > 1 and now.name == "Skip to the page"):
                break
        page_stops = list(keys.stops)
        chart_tools = [s for s in page_stops if s.toolbar.startswith("Chart tools")]
        head_rows = [s for s in page_stops if s.toolbar == "Head"]

        keys.tab_to("Skip to the controls in the sidebar")
        keys.press("Enter")
        keys.tab_to("Sentence", "textbox")
        start = len(keys.stops)
        keys.tab_to("1", "button")  # the head buttons above q, k and v
        tabs = len(keys.stops) - start
        keys.press("ArrowRight")
        assert keys.press("ArrowRight").name == "3"

        REPORT.mkdir(parents=True, exist_ok=True)
        (REPORT / "explorer-tab-stops.json").write_text(
            json.dumps(
                {
                    "sentence box to head 3": {"Tab": tabs, "ArrowRight": 2},
                    "stops on the page": len(page_stops),
                    "chart toolbar stops": len(chart_tools),
                    "head button stops": len(head_rows),
                    "stops": [str(s) for s in page_stops],
                },
                indent=1,
                ensure_ascii=False,
            ),
            encoding="utf-8",
        )
        assert len(chart_tools) == N_CHARTS and {s.name for s in chart_tools} == {CAMERA}
        assert len(head_rows) == 2  # above q, k and v, and above the four steps
        assert tabs <= 30
        assert keys.problems == [], "\n".join(keys.problems)
    finally:
        page.close()
