"""The catalogues' machinery (ui/i18n.py, ui/prose.py): numbers as each language writes them, the prose cut into
messages and put back together, a language offered only once its catalogue is complete, and the template kept
up to date with the code and the prose."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from tests import catalogue_rules
from tests.apptest import ROOT
from ui import i18n, prose


@pytest.mark.parametrize(
    ("code", "decimal", "whole", "share", "separators"),
    [
        ("en", "0.573", "174,604,259,328", "62.6%", ".,"),
        ("fr", "0,573", "174\u202f604\u202f259\u202f328", "62,6\xa0%", ",\u202f"),
        ("ko", "0.573", "174,604,259,328", "62.6%", ".,"),
    ],
)
def test_numbers_as_each_language_writes_them(code, decimal, whole, share, separators):
    """The same values to the last digit; only the writing changes (CLDR's separators, through Babel)."""
    assert i18n.decimal(code, 0.5734, 3) == decimal
    assert i18n.integer(code, 174_604_259_328) == whole
    assert i18n.percent(code, 0.6258, 1) == share
    assert i18n.plotly_separators(code) == separators


@pytest.mark.parametrize("code", ["en", "fr", "ko"])
def test_a_negative_number_has_the_minus_sign_not_a_hyphen(code):
    """−0.57 as the figures' −∞ and the equations write it, in every language, wherever a sentence or a metric
    writes a number (a figure's cells keep the hyphen: i18n.formatted)."""
    for written in (
        i18n.decimal(code, -0.5734, 2),
        i18n.integer(code, -12),
        i18n.measured(code, -1.19e-7, 2),
        i18n.measured(code, -0.0534, 1),
    ):
        assert written.startswith("\u2212") and "-" not in written, written
    assert i18n.decimal(code, 0.5, 1)[0].isdigit()


@pytest.mark.parametrize(
    ("code", "below", "above", "exact"),
    [("en", "<\xa00.01%", ">\xa099.9%", "100.0%"), ("fr", "<\xa00,01\xa0%", ">\xa099,9\xa0%", "100,0\xa0%")],
)
def test_a_share_that_only_rounds_to_0_or_100_percent_is_written_as_a_bound(code, below, above, exact):
    """ "0.00 %" and "100.0 %" read as exact: a share that is not 0 or 1 is written "< 0.01 %", "> 99.9 %"."""
    assert i18n.percent(code, 0.000004, 2) == below
    assert i18n.percent(code, 0.99996, 1) == above
    assert i18n.percent(code, 1.0, 1) == exact and i18n.percent(code, 1 - 1e-12, 1) == exact  # a float sum of 1
    assert i18n.percent(code, 0.0, 0) == i18n.percent(code, 1e-12, 0)
    assert i18n.percent(code, 0.5, 2) == i18n.percent(code, 0.5, 2).lstrip("<>\xa0")


@pytest.mark.parametrize(
    ("code", "value", "digits", "written"),
    [
        ("en", 120.3, 1, "120"),  # not 1.2 × 10², nor 1.2e+02
        ("en", 9.96, 1, "10"),
        ("en", 0.0534, 1, "0.053"),
        ("fr", 0.0534, 2, "0,0534"),
        ("en", 1.19e-7, 2, "1.19 × 10⁻⁷"),
        ("fr", 1.19e-7, 2, "1,19 × 10⁻⁷"),
        ("en", 123_456.0, 1, "1.2 × 10⁵"),
        ("en", 0.0, 1, "0"),
    ],
)
def test_a_measured_number_is_plain_where_plain_digits_read_at_once(code, value, digits, written):
    assert i18n.measured(code, value, digits) == written


def test_a_chapter_cut_into_messages_and_put_back_reads_the_same():
    """Every prose file through the identity translation: the same paragraphs, list items and blank lines."""

    def paragraphs(markdown: str) -> list[str]:
        return [" ".join(block.split()) for block in markdown.split("\n\n") if block.strip()]

    for path in sorted((ROOT / "assets").rglob("*.md")):
        name = str(path.relative_to(ROOT / "assets").with_suffix(""))
        for key, markdown in prose.sections(name).items():
            again = prose.translated(markdown, lambda m: m)
            assert paragraphs(again) == [
                " ".join(line.strip() for line in block.splitlines()) for block in paragraphs(markdown)
            ], (name, key)


def test_each_message_is_translated_where_it_stands():
    markdown = "A first line\nof one paragraph.\n\nA question?\n- [ ] no\n- [x] yes\n\nWhy."
    shouted = prose.translated(markdown, str.upper)
    assert shouted == "A FIRST LINE OF ONE PARAGRAPH.\n\nA QUESTION?\n- [ ] NO\n- [x] YES\n\nWHY."


def catalogue_dir(tmp_path: Path, code: str, translated: dict[str, str], template: list[str]) -> Path:
    """A locales folder with a template of `template` and a catalogue of `code` translating some of it."""
    root = tmp_path / "locales"
    (root / code / "LC_MESSAGES").mkdir(parents=True)
    pot, po = Catalog(), Catalog(locale=code)
    for message in template:
        pot.add(message)
        po.add(message, translated.get(message, ""))
    with (root / "messages.pot").open("wb") as f:
        write_po(f, pot)
    with (root / code / "LC_MESSAGES" / "messages.po").open("wb") as f:
        write_po(f, po)
    with (root / code / "LC_MESSAGES" / "messages.mo").open("wb") as f:
        write_mo(f, po)
    return root


def fresh(monkeypatch, root: Path) -> None:
    monkeypatch.setattr(i18n, "LOCALES", root)
    for cached in (i18n.catalogue, i18n.completeness, i18n.offered):
        cached.cache_clear()


def test_a_language_is_offered_once_its_catalogue_is_complete(tmp_path, monkeypatch):
    template = ["Layer", "Head"]
    fresh(monkeypatch, catalogue_dir(tmp_path / "half", "fr", {"Layer": "Couche"}, template))
    assert i18n.completeness("fr") == 0.5 and i18n.offered() == ("en",)
    assert i18n.from_browser("fr-FR") == "en"  # a French browser gets English until every message is French
    fresh(monkeypatch, catalogue_dir(tmp_path / "whole", "fr", {"Layer": "Couche", "Head": "Tête"}, template))
    assert i18n.completeness("fr") == 1.0 and i18n.offered() == ("en", "fr")
    assert i18n.from_browser("fr-FR") == "fr" and i18n.from_browser("ko-KR") == "en"
    assert i18n.gettext("fr", "Head") == "Tête" and i18n.gettext("en", "Head") == "Head"
    assert i18n.gettext("fr", "a message no catalogue has") == "a message no catalogue has"
    for cached in (i18n.catalogue, i18n.completeness, i18n.offered):
        cached.cache_clear()


def test_the_template_holds_every_message_of_the_code_and_the_prose(tmp_path):
    """locales/messages.pot is what `pybabel extract` makes of babel.cfg today: a message added to the app
    without extracting it again fails here (CONTRIBUTING.md says the command)."""
    out = tmp_path / "messages.pot"
    catalogue_rules.extract(out)

    def ids(path: Path) -> set:
        with path.open("rb") as f:
            return {m.id for m in read_po(f) if m.id}

    assert ids(out) == ids(ROOT / "locales" / "messages.pot")
    assert len(ids(out)) > 150  # the prose's paragraphs at least


def test_the_page_s_language_follows_the_link(monkeypatch):
    """English is the source language: `lang=en` is the default and leaves the link; an unknown code is refused
    with a notice, as any value the app cannot use."""
    from tests.apptest import messages, run_page

    at = run_page(lang="xx")
    assert "**lang** value could not be used" in messages(at)
    assert at.query_params.get("lang") in (None, [])
    assert not at.exception
