"""axe-core's WCAG 2.0, 2.1 and 2.2 rules (levels A and AA) on every page, in Chromium at a projector's 1280×720.

A violation of serious or critical impact fails the test; the moderate and minor ones, and every view's findings,
are written to artifacts/axe/ (a JSON file and a markdown list per group of views).

Which views, and why not every page × model × language × presenter mode (270 views, over half an hour). Each is
audited by the test that opens it anyway, so that a page is loaded once for all its checks:
- every page (the explorer, the chapters, the glossary) in English on the model it opens on (MiniLM, and SmolLM2
  for the chapters that open on a decoder), and in French and Korean on Gemma 3, which both open on:
  test_languages_browser.py, after its phone and projector checks of the same page (artifacts/axe/<lang>.md). The
  translated words are where a label goes missing, a text runs longer than its box, or the page's language is not
  said, and Gemma's notices (its terms) are shown only there;
- the explorer in presenter mode, in each language (its larger type, hidden prose and folded sidebar):
  test_readable_browser.py, on its long sentence (artifacts/axe/presenter-<lang>.md);
- here, the explorer on the two other models, in English: the explorer is the one page whose controls and figures
  change with the model (the heads' number, grouped heads' caption, the next word).
A chapter draws the same controls on every model, so a chapter's other models add nothing axe would see.
"""

from __future__ import annotations

import pytest

from app_driver.axe import audit, blocking, write_report
from app_driver.server import frames, wait_complete

PROJECTOR = {"width": 1280, "height": 720}
VIEWS = [("smollm2", "model=smollm2"), ("gemma3", "model=gemma3")]  # the explorer on the two decoders


def settled(page) -> dict:
    """The page complete, and still so a moment later: the explorer redraws itself once for the window's size, and
    a faded (stale) element would be read as text of too little contrast."""
    wait_complete(page, url_has="text=", timeout=300)
    frames(page)
    return wait_complete(page, url_has="text=", timeout=120)


def test_the_explorer_on_each_decoder_has_no_serious_or_critical_wcag_violation(server, browser):
    page = browser.new_page(viewport=PROJECTOR)
    found, failures = {}, {}
    try:
        for name, query in VIEWS:
            page.goto(f"{server}/?{query}")
            if settled(page)["exceptions"]:
                pytest.fail(f"{name}: {page.get_by_test_id('stException').first.inner_text()[:1500]}")
            found[name] = audit(page)
            if blocking(found[name]) and page.evaluate("() => !!document.querySelector('[data-stale=\"true\"]')"):
                settled(page)  # a rerun started while axe read the page: read it again
                found[name] = audit(page)
            bad = blocking(found[name])
            if bad:
                failures[name] = [f"{v['impact']} {v['rule']}: {v['help']}; {v['nodes'][:3]}" for v in bad]
    finally:
        page.close()
        write_report("explorer", found)
    assert len(found) == len(VIEWS) and failures == {}


def test_equations_reach_a_screen_reader_as_mathml(server, browser):
    """Every equation of a chapter (KaTeX, from st.latex and the prose's $…$) is in Chromium's accessibility tree
    as MathML: a math node with its structure (a fraction, subscripts, a table of cases), which a screen reader
    speaks as an equation ("w sub i j equals the fraction…"), while KaTeX's drawn letters are hidden from it."""
    page = browser.new_page(viewport=PROJECTOR)
    try:
        page.goto(f"{server}/masking")
        settled(page)
        drawn = page.evaluate(
            """() => Array.from(document.querySelectorAll('[data-testid="stMain"] .katex')).filter(
                k => !k.closest('[data-testid="stWidgetLabel"]')).map(k => ({
                math: !!k.querySelector('.katex-mathml math'),
                hidden: k.querySelector('.katex-html')?.getAttribute('aria-hidden') === 'true' }))"""
        )
        assert len(drawn) >= 5 and all(k["math"] and k["hidden"] for k in drawn)
        cdp = page.context.new_cdp_session(page)
        nodes = [n for n in cdp.send("Accessibility.getFullAXTree")["nodes"] if not n.get("ignored")]
        roles = [n.get("role", {}).get("value", "") for n in nodes]
        assert roles.count("MathMLMath") == len(drawn)  # each equation one math node, none left out
        assert {"MathMLFraction", "MathMLSub", "MathMLTable"} <= set(roles)  # the softmax, w_ij, M_ij's cases
    finally:
        page.close()
