"""Readable from the back of a room (issue 37): on a 1280×720 projector, in presenter mode, in English, French and
Korean, on the explorer and every chapter, with a sentence too long for one heatmap to name every token of:

- every heatmap names every token it draws, at 12 px or more: along each direction of a figure whose axes are
  tokens (categories), as many distinct tick labels as the tokens drawn, none skipped, none smaller. A figure whose
  heatmaps name no token at all is a grid of patterns to pick a head from (the explorer's every head of the layer),
  counted apart: at least one such grid, and many named heatmaps, must be measured;
- no display equation is wider than its column (KaTeX's .katex-display would scroll sideways or be cut);
- the explorer in presenter mode (its larger type, hidden prose and folded sidebar) has no serious or critical
  violation of WCAG 2.0/2.1/2.2 A and AA by axe-core (artifacts/axe/presenter-<lang>.md).

One page load per page and language (45 in all), every check on it; no fixed waits."""

from __future__ import annotations

import time
from urllib.parse import quote

import pytest

from app_driver.axe import audit, blocking, write_report
from app_driver.server import wait_complete
from ui.kit.chapter import url_path
from ui.words.chapters import CHAPTERS

PROJECTOR = {"width": 1280, "height": 720}
PAGES = [("explorer", ""), *((f"{c.number:02d}-{url_path(c)}", url_path(c)) for c in CHAPTERS)]
# 33 to 35 tokens: more than a heatmap in half the page, or a whole one on a projector, can name at 12 px
LONG = (
    "The old river bank by the town was flooded after the storm, so the bank manager moved the money to a safer "
    "branch across the valley before the next heavy rain came"
)
LEAST_PX = 12
# every figure drawn and every equation typeset
DRAWN = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).every(g => g._fullLayout && g._fullData)
  && Array.from(document.querySelectorAll('.katex-display')).every(e => e.querySelector('.katex-html'))"""
# the explorer's steps laid out for the width they are drawn in (test_languages_browser.py's LAID_OUT)
LAID_OUT = """() => { const g = Array.from(document.querySelectorAll('.js-plotly-plot'))
  .find(g => g.layout && g.layout.meta && g.layout.meta.first);
  return g && Math.abs(g.layout.meta.canvas.width - g.getBoundingClientRect().width) <= 24; }"""
# per figure with a heatmap over categories (tokens): for x and for y, the categories its heatmaps draw, the
# distinct tick labels drawn (text, font px), and whether any such axis shows its labels
HEATMAP_NAMES = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).filter(g => g._fullData).map(g => {
  const L = g._fullLayout, out = {title: (g.querySelector('.gtitle')?.textContent || '').slice(0, 60)};
  for (const letter of ['x', 'y']) {
    const axes = new Set(g._fullData.filter(t => t.type === 'heatmap' && t.visible === true)
      .map(t => letter + 'axis' + t[letter + 'axis'].slice(1)).filter(a => L[a] && L[a].type === 'category'));
    const categories = new Set(), names = new Map();
    let labelled = false;
    for (const a of axes) {
      L[a]._categories.forEach(c => categories.add(c));
      if (!L[a].showticklabels) continue;
      labelled = true;
      const layer = g.querySelector(`.subplot.${L[a]._mainSubplot} .${letter}axislayer-above`);
      for (const t of layer ? layer.querySelectorAll(`.${letter}tick text`) : []) {
        const text = t.textContent.trim(), px = parseFloat(getComputedStyle(t).fontSize);
        if (text) names.set(text, Math.min(px, names.get(text) ?? Infinity));
      }
    }
    if (axes.size) out[letter] = {tokens: categories.size, labelled, names: names.size,
      smallest: names.size ? Math.min(...names.values()) : null};
  }
  return out;
}).filter(f => f.x || f.y)"""
# every display equation shown: its width and its box's, its right edge and its column's
EQUATIONS = """() => Array.from(document.querySelectorAll('.katex-display')).filter(e => e.offsetParent !== null)
  .map(e => ({tex: e.querySelector('annotation')?.textContent.slice(0, 80) || '', scroll: e.scrollWidth,
    client: e.clientWidth, right: e.querySelector('.katex-html').getBoundingClientRect().right,
    edge: e.parentElement.getBoundingClientRect().right}))"""


def settled(page, name: str) -> None:
    """The page complete, without an exception, every figure drawn and every equation typeset (and the explorer's
    figures laid out for the column its head buttons reported, which it redraws for)."""
    state = wait_complete(page, url_has="presenter=1", timeout=180)
    if state["exceptions"]:
        pytest.fail(f"{name}: {page.get_by_test_id('stException').first.inner_text()[:1500]}")
    if name == "explorer":
        page.wait_for_function(LAID_OUT, timeout=60_000)
        wait_complete(page, url_has="presenter=1", timeout=180)
    page.wait_for_function(DRAWN, timeout=60_000)


def unreadable(figures: list[dict]) -> tuple[list[str], int, int]:
    """What a figure draws unnamed or under 12 px; how many directions were measured, and the grids of patterns."""
    found, measured, grids = [], 0, 0
    for f in figures:
        directions = [f[d] | {"d": d} for d in ("x", "y") if d in f]
        if not any(d["labelled"] for d in directions):
            grids += 1
            continue
        for d in directions:
            measured += 1
            if not d["labelled"] or d["names"] != d["tokens"]:
                found.append(f"“{f['title']}” {d['d']}: {d['names']} names for {d['tokens']} tokens")
            elif d["smallest"] < LEAST_PX:
                found.append(f"“{f['title']}” {d['d']}: a name at {d['smallest']} px")
    return found, measured, grids


def too_wide(equations: list[dict]) -> list[str]:
    return [
        f"{e['tex']}: {e['scroll']} px in {e['client']}"
        for e in equations
        if e["scroll"] > e["client"] + 1 or e["right"] > e["edge"] + 1
    ]


@pytest.mark.parametrize("lang", ["en", "fr", "ko"])
def test_presenter_mode_names_every_token_at_12_px_and_cuts_no_equation_on_every_page(server, browser, lang):
    page = browser.new_page(viewport=PROJECTOR)
    found, heatmaps, grids, equations, t0 = {}, 0, 0, 0, time.perf_counter()
    audited = {}
    try:
        for name, path in PAGES:
            page.goto(f"{server}/{path}?lang={lang}&presenter=1&text={quote(LONG)}")
            settled(page, name)
            unnamed, measured, patterns = unreadable(page.evaluate(HEATMAP_NAMES))
            shown = page.evaluate(EQUATIONS)
            heatmaps, grids, equations = heatmaps + measured, grids + patterns, equations + len(shown)
            if unnamed or too_wide(shown):
                found[name] = unnamed + too_wide(shown)
            if name == "explorer":
                audited[name] = audit(page)
                bad = blocking(audited[name])
                if bad:
                    found[f"{name}, axe"] = [f"{v['impact']} {v['rule']}: {v['help']}; {v['nodes'][:3]}" for v in bad]
    finally:
        page.close()
        if audited:
            write_report(f"presenter-{lang}", audited)
    print(f"{lang}: {len(PAGES)} pages in {time.perf_counter() - t0:.0f} s")
    assert heatmaps >= 20 and grids >= 1 and equations >= len(PAGES) and audited  # it measured what it says
    assert found == {}
