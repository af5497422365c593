"""The asides that say where the lesson notes differ from the exact values (a chapter's `## aside_…` sections,
chapter.notes_aside): each one shown by default, and none on any page once the sidebar's switch is off (the link's
`notes=0`), while the page's own numbers stay."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app_driver.apptest import messages, run_page
from ui.kit import chapter
from ui.words import prose
from ui.words.chapters import CHAPTERS

PAGES = ["00_explorer.py"] + [c.file for c in CHAPTERS]


def asides(file: str) -> dict[str, str]:
    """{section: a stretch of its English words that the page shows as written} for each aside of the chapter."""
    name = "chapters/" + Path(file).stem
    try:
        sections = prose.sections(name)
    except FileNotFoundError:
        return {}
    out = {}
    for key, text in sections.items():
        if key.startswith(chapter.ASIDE_PREFIX):
            # its longest stretch between the numbers filled in and the equations, which the page writes otherwise
            words = max(re.split(r"\{\{\w+\}\}|\$[^$]*\$", " ".join(text.split())), key=len)
            out[key] = words.strip()[:40]
    return out


def shown(at) -> str:
    """Every text of the page: its prose, captions and notices."""
    return " ".join(" ".join(e.value.split()) for e in [*at.markdown, *at.caption]) + " " + messages(at)


WITH_ASIDES = [f for f in PAGES if asides(f)]


def test_the_chapters_that_correct_the_notes_have_asides():
    assert len(WITH_ASIDES) >= 5  # 3, 4, 5, 7, 8, 9 say where the notes differ


@pytest.mark.parametrize("file", WITH_ASIDES)
def test_each_aside_on_the_notes_is_shown_by_default(file):
    at = run_page(f"pages/{file}")
    assert not at.exception
    text = shown(at)
    for key, words in asides(file).items():
        assert words in text, f"{file}: the aside {key!r} is not shown"
    assert "Beside the notes." in text
    switch = [t for t in at.sidebar.toggle if t.key == "w:notes"]
    assert len(switch) == 1 and switch[0].value is True and switch[0].label == "Show where the notes' numbers differ"


@pytest.mark.parametrize("file", PAGES)
def test_no_page_says_where_the_notes_differ_with_the_switch_off(file):
    at = run_page(f"pages/{file}", notes="0")
    assert not at.exception
    text = shown(at)
    assert "Beside the notes." not in text
    for other in WITH_ASIDES:
        for key, words in asides(other).items():
            assert words not in text, f"{file}: {other}'s aside {key!r} is shown with the switch off"
