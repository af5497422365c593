"""The words a page shows, read from a headless run: every page but the explorer's sections, and the text of a run
(its prose, captions, equations, notices, toggles' and radios' labels, and its figures' titles and notes)."""

from __future__ import annotations

from app_driver.apptest import ROOT
from ui.components import plot

PAGES = [
    "app.py",
    *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("[01]*.py") if p.name != "00_explorer.py"),
    "pages/glossary.py",
]


def page_text(at) -> list[str]:
    texts = [
        e.value
        for kind in ("markdown", "caption", "latex", "title", "header", "subheader", "info", "warning")
        for e in at.get(kind)
    ]
    texts += [t.label for t in at.toggle] + [r.label for r in at.radio]
    for spec, _ in plot.drawn(at):
        texts.append(spec["layout"].get("title", {}).get("text", ""))
        texts += [a.get("text", "") for a in spec["layout"].get("annotations", [])]
    return texts
