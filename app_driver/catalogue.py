"""What a translation must keep, and the words it must use: the rules tests/test_translations.py holds every
catalogue to, written once so that a translator can run them on a draft (`python -m app_driver.catalogue fr
draft.json`) before it becomes a catalogue.

- Kept as they are: the places a page fills ({{name}}, {name}, %(name)s), equations ($…$), code (`…`), link
  targets ](…) and the quiz's markers.
- The glossary (locales/<code>/glossary.tsv): a message that says a term in English says the glossary's term in
  the translation, so that every page calls a query the same thing. Its patterns read each equation as one mark,
  §, so that the values of a variable ("$d + 1$ values of $i$") are not taken for attention's values.
- The English term beside it at first use: in each chapter's prose, the first time a glossed term is said, the
  English term follows it in brackets ("requête (query)", "쿼리(query)").
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ROOT / "locales"

PLACES = re.compile(r"\{\{\w+\}\}|\{\w*(?:![rsa])?(?::[^{}]*)?\}|%\(\w+\)[sd]")
EQUATION = re.compile(r"\$[^$]+\$")
CODE = re.compile(r"`[^`]+`")
TARGET = re.compile(r"\]\(([^)]*)\)")
# a reference as a chapter's sources cite it: its linked title and its authors up to the year stay as published
CITATION = re.compile(r"\[[^\]]*\]\(https?://[^)]*\)(?:,[^:]*?\b(?:19|20)\d\d)?")
NOT_WORDS = re.compile(CITATION.pattern + r"|`[^`]+`|\{\{?\w+\}?\}|\]\([^)]*\)|<[^>]+>")
MATH = "§"  # where a message has an equation: a glossary pattern can tell "values of $i$" (a variable's) from values


@dataclass(frozen=True)
class Term:
    english: str
    english_pattern: re.Pattern
    term: str
    term_pattern: re.Pattern
    gloss: bool  # the English term goes beside it at its first use in each chapter


def glossary(code: str) -> list[Term]:
    path = LOCALES / code / "glossary.tsv"
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [
        Term(
            r["english"],
            re.compile(r["english_pattern"], re.IGNORECASE),
            r["term"],
            re.compile(r["term_pattern"], re.IGNORECASE),
            r["gloss"] == "yes",
        )
        for r in rows
    ]


def kept(message: str) -> Counter:
    """What a translation keeps to the letter: the places a page fills, equations, code and link targets."""
    equations = [re.sub(r"(\d)\{,\}(\d)", r"\1.\2", e) for e in EQUATION.findall(message)]  # French 0{,}57
    found = PLACES.findall(message) + equations + CODE.findall(message) + TARGET.findall(message)
    return Counter(found)


def words(message: str) -> str:
    """The message's own words: its code, places and link targets taken out, each equation left as one mark (MATH)
    between spaces."""
    return NOT_WORDS.sub(" ", EQUATION.sub(f" {MATH} ", message))


def problems(code: str, english: str, translation: str, terms: list[Term]) -> list[str]:
    """What is wrong with one translated message (empty: nothing)."""
    out = []
    if not translation.strip():
        return ["not translated"]
    if kept(english) != kept(translation):
        missing = kept(english) - kept(translation)
        extra = kept(translation) - kept(english)
        out.append(f"places, equations, code or links changed: missing {dict(missing)}, added {dict(extra)}")
    for t in terms:
        if t.english_pattern.search(words(english)) and not t.term_pattern.search(words(translation)):
            out.append(f"says {t.english!r} without the glossary's {t.term!r}")
    return out


def first_use_problems(units: list[tuple[str, str]], terms: list[Term]) -> list[str]:
    """A chapter's prose as (English, translation) messages in page order: each glossed term that the chapter
    says has the English term in brackets right after its first use."""
    english = " ".join(words(e) for e, _ in units)
    text = " ".join(words(t) for _, t in units)
    out = []
    for t in terms:
        if not t.gloss or not t.english_pattern.search(english):
            continue
        first = t.term_pattern.search(text)
        if first is None:
            continue  # said only where the glossary rule above already looks
        after = text[first.end() : first.end() + 40]
        m = re.match(r"\w*\**\s?\(([^)]*)\)", after)  # "requête (query)", "**쿼리**(query)"
        if not (m and t.english_pattern.search(m.group(1))):
            out.append(
                f"first use of {t.term!r} without ({t.english}) beside it: …{text[first.start() : first.end() + 40]}…"
            )
    return out


def chapters_units(translations: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
    """Each prose file's messages in the order the file has them, with their translations (those of the draft
    only); its quiz left out, where an option with an English word in brackets reads as a hint."""
    from ui.words import prose

    out: dict[str, list[tuple[str, str]]] = {}
    for path in sorted((ROOT / "assets").rglob("*.md")):
        name = str(path.relative_to(ROOT / "assets").with_suffix(""))
        for section, markdown in prose.sections(name).items():
            if section.startswith("quiz"):  # a question and its options gloss nothing: the prose before them has
                continue
            for _prefix, unit in prose.units(markdown):
                if unit in translations:
                    out.setdefault(name, []).append((unit, translations[unit]))
    return out


def extract(template: Path) -> None:
    """Write the template as the code and the prose are now: what `pybabel extract` makes of babel.cfg, with the
    command CONTRIBUTING.md gives (the test that the template is up to date, and the English-left benchmark)."""
    cmd = [sys.executable, "-m", "babel.messages.frontend", "extract", "-F", "babel.cfg", "-k", "_", "-k", "n_:1,2"]
    cmd += ["-k", "N_", "--no-wrap", "--sort-by-file", "-o", str(template), "."]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True)


def template_messages() -> list:
    from babel.messages.pofile import read_po

    with (LOCALES / "messages.pot").open("rb") as f:
        return [m for m in read_po(f) if m.id]


def check_draft(code: str, draft: dict[str, str | list[str]]) -> list[str]:
    """A translator's draft ({English: translation}, plural forms as lists) held to every rule."""
    terms = glossary(code)
    out = []
    for english, translation in draft.items():
        forms = translation if isinstance(translation, list) else [translation]
        for form in forms:
            out += [f"{english[:70]!r}: {p}" for p in problems(code, english, form, terms)]
    singular = {e: (t[0] if isinstance(t, list) else t) for e, t in draft.items()}
    for file, units in chapters_units(singular).items():
        out += [f"{file}: {p}" for p in first_use_problems(units, terms)]
    return out


if __name__ == "__main__":
    language, path = sys.argv[1], Path(sys.argv[2])
    found = check_draft(language, json.loads(path.read_text(encoding="utf-8")))
    print("\n".join(found) or "no problems")
    sys.exit(1 if found else 0)
