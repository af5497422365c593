"""The app's prose: one markdown file per page in assets/, cut into sections by `## key` headings, with `{{name}}`
places for the numbers a page computes.

The English files are the source of the translations: each paragraph (its lines joined), and each item of a list
(a quiz's options), is one message of the catalogues (ui/words/i18n.py), extracted by `extract_markdown` and looked up
by `translated`."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

ASSETS = Path(__file__).resolve().parents[2] / "assets"
PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


@cache
def sections(name: str, language: str = "en") -> dict[str, str]:
    """{key: markdown} for assets/NAME.md in a language of the catalogues (ui/words/i18n.py); the text before the first
    heading is under "intro"."""
    if language != "en":
        from ui.words import i18n

        return {key: translated(md, lambda m: i18n.gettext(language, m)) for key, md in sections(name).items()}
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


LIST_ITEM = re.compile(r"^(\s*- (?:\[[ x]\] )?)(.*)$")


def units(markdown: str) -> list[tuple[str, str]]:
    """The markdown as (prefix, text) pieces a translator translates one at a time: a paragraph's lines joined by
    spaces (prefix ""), a list item's text after its marker (prefix "- [x] "), a blank line as ("\n", "")."""
    out: list[tuple[str, str]] = []
    paragraph: list[str] = []

    def close() -> None:
        if paragraph:
            out.append(("", " ".join(line.strip() for line in paragraph)))
            paragraph.clear()

    for line in markdown.splitlines():
        item = LIST_ITEM.match(line)
        if not line.strip():
            close()
            out.append(("\n", ""))
        elif item:
            close()
            out.append((item.group(1), item.group(2).strip()))
        else:
            paragraph.append(line)
    close()
    return out


def translated(markdown: str, gettext) -> str:
    """The markdown with each paragraph and list item passed through `gettext` (a message without a translation
    stays as it is), laid out as before: paragraphs on lines of their own, list items one per line."""
    lines, blank = [], False
    for prefix, text in units(markdown):
        if prefix == "\n":
            blank = True
            continue
        if blank and lines:
            lines.append("")
        blank = False
        lines.append(prefix + gettext(text))
    return "\n".join(lines)


def extract_markdown(fileobj, keywords, comment_tags, options):
    """Babel's extractor for the prose files (babel.cfg): every paragraph and list item of every section, at the
    line its section starts, with the section's name as a comment for the translator."""
    text = fileobj.read().decode("utf-8")
    key, lines, start = "intro", [], 1
    for number, line in enumerate([*text.splitlines(), "## (end)"], start=1):
        if line.startswith("## "):
            for _prefix, unit in units("\n".join(lines)):
                if unit:
                    yield start, None, unit, [f"section: {key}"]
            key, lines, start = line[3:].strip(), [], number + 1
        else:
            lines.append(line)


def fill(markdown: str, **values: object) -> str:
    """Prose with its {{name}} places filled by numbers the page computed (a missing one raises KeyError), and its
    Korean particle fallbacks ("{{cells}}(으)로") in the form the numbers call for (i18n.particles)."""
    from ui.words.i18n import particles

    return particles(PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), markdown))
