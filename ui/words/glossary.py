"""The glossary, in each language: `locales/<code>/glossary.tsv` gives each term, its English and a one-line
definition; the chapters that use a term are found in their prose as the page's language says it (the file's
pattern for the term), so that the list follows the chapters when they change."""

from __future__ import annotations

import csv
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ui.words import chapters
from ui.words.prose import sections

LOCALES = Path(__file__).resolve().parents[2] / "locales"
NOT_PROSE = re.compile(r"\]\([^)]*\)|`[^`]+`|\{\{\w+\}\}|\$[^$]+\$")  # link targets, code, places, equations


@dataclass(frozen=True)
class Entry:
    term: str
    english: str
    definition: str
    pattern: re.Pattern


@cache
def entries(code: str) -> tuple[Entry, ...]:
    """The language's terms in its alphabetical order (accents set aside, as a French index sorts them)."""
    with (LOCALES / code / "glossary.tsv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    out = [Entry(r["term"], r["english"], r["definition"], re.compile(r["term_pattern"], re.IGNORECASE)) for r in rows]
    return tuple(sorted(out, key=lambda e: _plain(e.term)))


def _plain(term: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", term.casefold()) if not unicodedata.combining(c))


@cache
def _prose(code: str) -> tuple[tuple[chapters.Chapter, str], ...]:
    """Each chapter's words in the language: its prose, its code, links and equations left out."""
    out = []
    for chapter in chapters.CHAPTERS:
        text = " ".join(sections(chapter.prose, code).values())
        out.append((chapter, NOT_PROSE.sub(" ", text)))
    return tuple(out)


def used_in(entry: Entry, code: str) -> list[chapters.Chapter]:
    """The chapters whose prose says the term, in the lesson's order."""
    return [chapter for chapter, text in _prose(code) if entry.pattern.search(text)]
