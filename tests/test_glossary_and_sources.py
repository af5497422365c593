"""The glossary page and each chapter's sources: in every language, the same terms and the same references, each
term with its English and a definition, the chapters that say it found in their prose, each reference linked."""

from __future__ import annotations

import re

import pytest

from app_driver.apptest import run_page
from ui.words import chapters, glossary, prose

LANGUAGES = ("en", "fr", "ko")
LINK = re.compile(r"^\[([^\]]+)\]\((https://[^)\s]+)\)")


@pytest.mark.parametrize("code", LANGUAGES)
def test_each_language_defines_the_same_terms(code):
    english = {e.english for e in glossary.entries("en")}
    entries = glossary.entries(code)
    assert {e.english for e in entries} == english
    for e in entries:
        assert e.term and e.definition.strip(), e
        assert "\t" not in e.definition and len(e.definition) < 300, e


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_chapters_a_term_is_used_in_are_found_in_their_prose(code):
    """A term's chapters are those whose prose (in this language) says it; the core terms are said somewhere."""
    by_english = {e.english: e for e in glossary.entries(code)}
    for english, first in (("query", 5), ("softmax", 8), ("head", 10)):
        used = glossary.used_in(by_english[english], code)
        assert used and used[0].number <= first, (english, [c.number for c in used])
        for c in used:  # each chapter named says the term: checked on the translated prose itself
            text = " ".join(prose.sections(c.prose, code).values()).casefold()
            assert by_english[english].term.casefold()[:3] in text, (english, c.file)
    assert sum(bool(glossary.used_in(e, code)) for e in by_english.values()) >= len(by_english) - 2


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_glossary_page_lists_every_term_with_links_to_its_chapters(code):
    at = run_page("pages/glossary.py", lang=code)
    assert not at.exception
    text = "\n".join(m.value for m in at.markdown)
    for e in glossary.entries(code):
        assert e.term.replace("_", "\\_") in text, e.term
    assert "](queries_keys?" in text or "](queries_keys)" in text


def _sources(code: str) -> dict[str, list[str]]:
    out = {}
    for c in chapters.CHAPTERS:
        listed = prose.sections(c.prose, code).get("sources", "")
        out[c.file] = [line[2:] for line in listed.splitlines() if line.startswith("- ")]
    return out


def test_every_chapter_lists_its_sources_linked():
    for file, items in _sources("en").items():
        assert 2 <= len(items) <= 8, file
        for item in items:
            m = LINK.match(item)
            assert m, (file, item)
            assert re.search(r"\b(19|20)\d\d\b", item), (file, item)  # its year
    every = [i for items in _sources("en").values() for i in items]
    assert any("1706.03762" in i for i in every)  # the original paper
    assert any("3blue1brown.com" in i for i in every)


@pytest.mark.parametrize("code", ["fr", "ko"])
def test_sources_keep_their_titles_and_links_in_every_language(code):
    english, translated = _sources("en"), _sources(code)
    for file, items in english.items():
        assert [LINK.match(i).groups() for i in items] == [LINK.match(i).groups() for i in translated[file]], file
        assert translated[file] != items, file  # what the chapter takes from each is said in the language


@pytest.mark.parametrize("code", LANGUAGES)
def test_a_chapter_ends_with_its_sources(code):
    at = run_page("pages/10_heads.py", lang=code)
    assert not at.exception
    assert any(h.value in ("Sources", "출처", "Références") for h in at.subheader), [h.value for h in at.subheader]
    assert any("arxiv.org/abs/1706.03762" in m.value for m in at.markdown)
