"""The app's prose: one markdown file per page in assets/, cut into sections by `## key` headings, with `{{name}}`
places for the numbers a page computes."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

ASSETS = Path(__file__).resolve().parents[1] / "assets"
PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


@cache
def sections(name: str) -> dict[str, str]:
    """{key: markdown} for assets/NAME.md; the text before the first heading is under "intro"."""
    text = (ASSETS / f"{name}.md").read_text(encoding="utf-8")
    out: dict[str, str] = {}
    key, lines = "intro", []
    for line in text.splitlines():
        if line.startswith("## "):
            out[key] = "\n".join(lines).strip()
            key, lines = line[3:].strip(), []
        else:
            lines.append(line)
    out[key] = "\n".join(lines).strip()
    return out


def fill(markdown: str, **values: object) -> str:
    """Prose with its {{name}} places filled by numbers the page computed (a missing one raises KeyError)."""
    return PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), markdown)
