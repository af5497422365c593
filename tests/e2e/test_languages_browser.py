"""Every page in French and in Korean, in Chromium at a projector's 1280×720: the page says its language
(<html lang>), nothing is wider than the page, and no text is cut: a figure's title, axis title or label past its
figure's edge, a button's, a tab's or the menu's text cut short. Each page is kept as a screenshot for looking at
(artifacts/screenshots/<lang>-<page>.png). On the same pages axe-core finds no serious or critical violation of
WCAG 2.0/2.1/2.2 A and AA (the rest listed in artifacts/axe/<lang>.md): test_accessibility_browser.py's matrix,
whose French and Korean pages are these, each opened once for both checks.

French runs about a quarter longer than English and Korean draws every syllable a full em wide: this is where a
title measured for English would be cut."""

from __future__ import annotations

import pytest

from app_driver import wait_complete
from tests.e2e.axe import audit, blocking, write_report
from tests.e2e.driver import screenshot
from tests.e2e.layout import CUT
from ui.chapter import url_path
from ui.chapters import CHAPTERS

PROJECTOR = {"width": 1280, "height": 720}
PAGES = [("explorer", ""), *((f"{c.number:02d}-{url_path(c)}", url_path(c)) for c in CHAPTERS)]


@pytest.mark.parametrize("lang", ["fr", "ko"])
def test_every_page_in_french_and_korean_says_its_language_cuts_nothing_and_passes_axe(server, browser, lang):
    page = browser.new_page(viewport=PROJECTOR)
    found, audited, violations = {}, {}, {}
    try:
        for name, path in PAGES:
            page.goto(f"{server}/{path}?lang={lang}")
            state = wait_complete(page, url_has="text=", timeout=180)
            if state["exceptions"]:
                pytest.fail(f"{name}: {page.get_by_test_id('stException').first.inner_text()[:1500]}")
            page.wait_for_timeout(500)  # fonts and the last chart's labels in place
            assert page.evaluate("document.documentElement.lang") == lang, name
            cut = page.evaluate(CUT)
            screenshot(page, f"{lang}-{name}")
            if cut:
                found[name] = cut
            audited[name] = audit(page)  # after the screenshot's wait: the explorer has redrawn for the window
            bad = blocking(audited[name])
            if bad:
                violations[name] = [f"{v['impact']} {v['rule']}: {v['help']}; {v['nodes'][:3]}" for v in bad]
    finally:
        page.close()
        write_report(lang, audited)
    assert found == {}
    assert violations == {}
