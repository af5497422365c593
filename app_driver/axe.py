"""axe-core, the accessibility rules of Deque's engine, run inside a page of the app, and its findings kept.

axe-core comes from npm (package.json pins it; `npm ci` in .ci/run installs it in node_modules/) and is injected
into the page as a script. Only the rules of WCAG 2.0, 2.1 and 2.2 at levels A and AA are run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app_driver.server import ROOT

AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WCAG_AA = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa")
BLOCKING = ("critical", "serious")  # a test fails on these; moderate and minor ones are listed in artifacts/axe/
REPORTS = ROOT / "artifacts" / "axe"

# Each violated rule with its impact and, for each element, where it is and what fails; "needs review" (axe could
# not decide: a text over a picture) counted per rule.
RUN = """async (tags) => {
  const r = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
  return {
    version: axe.version,
    violations: r.violations.map(v => ({ rule: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map(n => ({ target: n.target.join(' '), summary: (n.failureSummary || '').slice(0, 400) })) })),
    review: Object.fromEntries(r.incomplete.map(v => [v.id, v.nodes.length])),
  };
}"""


def audit(page) -> dict:
    """axe's findings on the page as it is now: {version, violations: [{rule, impact, help, nodes}], review}."""
    if not AXE_JS.is_file():
        pytest.fail(f"axe-core is not installed ({AXE_JS.relative_to(ROOT)}): run `npm ci` (as .ci/run does)")
    # the page's fonts in (KaTeX's widen an equation as they arrive), and ui/components/access.js settled after them: an
    # equation that scrolls sideways once its fonts are in takes focus then
    page.wait_for_function("document.fonts.status === 'loaded'", timeout=60_000)
    page.wait_for_function("() => !document.documentElement.dataset.pendingAccess", timeout=60_000)
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE_JS))
    return page.evaluate(RUN, list(WCAG_AA))


def blocking(found: dict) -> list[dict]:
    return [v for v in found["violations"] if v["impact"] in BLOCKING]


def write_report(name: str, views: dict[str, dict]) -> Path:
    """Every view's findings as JSON, and a markdown list of each violation (`name`.json, `name`.md)."""
    REPORTS.mkdir(parents=True, exist_ok=True)
    (REPORTS / f"{name}.json").write_text(json.dumps(views, indent=1, ensure_ascii=False), encoding="utf-8")
    lines = [f"# axe-core on {name}: WCAG 2.0/2.1/2.2 A and AA", ""]
    version = next((v["version"] for v in views.values()), "?")
    lines += [
        f"axe-core {version}; {len(views)} views.",
        "",
        "| view | impact | rule | elements | what |",
        "|---|---|---|---|---|",
    ]
    for view, found in views.items():
        for v in found["violations"]:
            lines.append(f"| {view} | {v['impact']} | {v['rule']} | {len(v['nodes'])} | {v['help']} |")
        if not found["violations"]:
            lines.append(f"| {view} | — | none | 0 | |")
    review: dict[str, int] = {}
    for found in views.values():
        for rule, n in found["review"].items():
            review[rule] = review.get(rule, 0) + n
    lines += ["", "Needs review (axe could not decide), elements over all views: "]
    lines += [", ".join(f"{rule} {n}" for rule, n in sorted(review.items())) or "none"]
    path = REPORTS / f"{name}.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
