"""What a screen reader and axe-core find on every page: `python benchmarks/accessibility.py [--langs en,fr,ko]`.

In Debian's Chromium at a projector's 1280×720, against a fresh `streamlit run app.py`, each view complete:

- axe-core's findings (WCAG 2.0, 2.1 and 2.2 A and AA, as app_driver/axe.py runs it): violations counted by impact,
  and each moderate or minor one named by its rule;
- charts without a text alternative: a Plotly chart whose element has no name, or no description that says
  something (its aria-describedby pointing at text), or whose SVG's texts are still read out (its tick labels; a
  link it draws is read, by its words);
- unnamed controls: in Chromium's own accessibility tree (the one a screen reader reads, through the DevTools
  protocol), every node of a control's role (button, link, text box, combo box, slider, switch, check box, radio
  button, tab, menu item, spin button) that is not ignored and has no name.

Views: every page in each language asked for (English on the model each page opens on; French and Korean on
Gemma 3, which they open on), the explorer on SmolLM2 and Gemma 3 in English, and in presenter mode in each
language. Figures, not a test (tests/e2e/test_accessibility_browser.py fails on serious and critical findings).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app_driver.axe import audit
from app_driver.server import ROOT, chromium, streamlit_server, wait_complete
from ui.kit.chapter import url_path
from ui.words.chapters import CHAPTERS

VIEWPORT = {"width": 1280, "height": 720}
PAGES = [("explorer", ""), *((f"{c.number:02d} {url_path(c)}", url_path(c)) for c in CHAPTERS)]
CONTROLS = {
    "button",
    "link",
    "textField",
    "searchBox",
    "comboBoxGrouping",
    "comboBoxMenuButton",
    "comboBoxSelect",
    "textFieldWithComboBox",
    "slider",
    "switch",
    "checkBox",
    "radioButton",
    "tab",
    "menuItem",
    "spinButton",
    "combobox",
    "textbox",
    "checkbox",
    "radio",
    "menuitem",
    "spinbutton",
    "searchbox",
}
# each chart: its name, what its aria-describedby points at, and whether its SVG is hidden from the reader
CHARTS = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(plot => {
    const g = plot.closest('[role=figure]') || plot;
    const ids = (g.getAttribute('aria-describedby') || '').split(/\\s+/).filter(Boolean);
    const said = ids.map(id => document.getElementById(id)).filter(Boolean).map(e => e.textContent.trim()).join(' ');
    // every text of its SVG hidden from the reader but a link's (chapter 1's boxes open their chapters)
    const read = Array.from(g.querySelectorAll('svg.main-svg text')).filter(t => !t.closest('[aria-hidden="true"]')
        && !t.querySelector('a'));
    return { name: (g.getAttribute('aria-label') || '').trim(), said: said.length, svgHidden: read.length === 0 };
})"""
OUT = ROOT / "artifacts" / "accessibility.json"


def views(langs: list[str]) -> list[tuple[str, str, str]]:
    found = []
    for lang in langs:
        query = "" if lang == "en" else f"lang={lang}"
        found += [(f"{name} [{lang}]", path, query) for name, path in PAGES]
    found += [("explorer, SmolLM2 [en]", "", "model=smollm2"), ("explorer, Gemma 3 [en]", "", "model=gemma3")]
    for lang in langs:
        found.append((f"explorer, presenter [{lang}]", "", "presenter=1" + ("" if lang == "en" else f"&lang={lang}")))
    return found


def unnamed_controls(page) -> list[str]:
    """Controls in Chromium's accessibility tree with no name: 'role (what it holds)'."""
    cdp = page.context.new_cdp_session(page)
    try:
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    bad = []
    for node in nodes:
        role = (node.get("role") or {}).get("value", "")
        if node.get("ignored") or role not in CONTROLS:
            continue
        if not str((node.get("name") or {}).get("value", "")).strip():
            bad.append(role)
    return bad


def settled(page) -> None:
    wait_complete(page, url_has="text=", timeout=300)
    page.wait_for_timeout(1000)  # the explorer redraws itself once for the window's size
    wait_complete(page, url_has="text=", timeout=120)


def measure(page) -> dict:
    found = audit(page)
    charts = page.evaluate(CHARTS)
    return {
        "impact": Counter(v["impact"] for v in found["violations"]),
        "rules": {v["rule"]: (v["impact"], len(v["nodes"])) for v in found["violations"]},
        "charts": len(charts),
        "charts_without_text": sum(1 for c in charts if not c["name"] or not c["said"] or not c["svgHidden"]),
        "unnamed": unnamed_controls(page),
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--langs", default="en,fr,ko")
    args = parser.parse_args()
    results = {}
    with chromium() as browser, streamlit_server() as (url, _proc, _t0):
        page = browser.new_page(viewport=VIEWPORT)
        for name, path, query in views(args.langs.split(",")):
            page.goto(f"{url}/{path}?{query}")
            settled(page)
            results[name] = m = measure(page)
            if m["impact"].get("serious") or m["impact"].get("critical"):
                settled(page)  # read again, complete, should a rerun have been under way
                results[name] = m = measure(page)
            minor = ", ".join(f"{r} ({i}, {n})" for r, (i, n) in m["rules"].items()) or "none"
            print(
                f"| {name} | {m['impact'].get('critical', 0)} | {m['impact'].get('serious', 0)} "
                f"| {m['impact'].get('moderate', 0)} | {m['impact'].get('minor', 0)} | {minor} "
                f"| {m['charts_without_text']} of {m['charts']} | {len(m['unnamed'])} |",
                flush=True,
            )
        page.close()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(results, indent=1, ensure_ascii=False, default=dict), encoding="utf-8")
    print(
        "\ncolumns: view | critical | serious | moderate | minor | rules (impact, elements) "
        "| charts without a text alternative | unnamed controls"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
