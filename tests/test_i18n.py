"""The catalogues' machinery (ui/words/i18n.py, ui/words/prose.py): numbers as each language writes them, the prose cut into
messages and put back together, a language offered only once its catalogue is complete, and the template kept
up to date with the code and the prose."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from app_driver import catalogue as catalogue_rules
from app_driver.apptest import ROOT
from ui.words import i18n, prose


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
    from ui.words import locales

    monkeypatch.setattr(locales, "LOCALES", root)
    for cached in (locales.catalogue, locales.completeness, locales.offered, locales.gettext):
        cached.cache_clear()


def test_a_language_is_offered_once_its_catalogue_is_nearly_whole_and_a_new_label_does_not_hide_it(
    tmp_path, monkeypatch
):
    template = ["Layer", "Head"]
    fresh(monkeypatch, catalogue_dir(tmp_path / "half", "fr", {"Layer": "Couche"}, template))
    assert i18n.completeness("fr") == 0.5 and i18n.offered() == ("en",)
    assert i18n.from_browser("fr-FR") == "en"  # a French browser gets English while half the messages are
    fresh(monkeypatch, catalogue_dir(tmp_path / "whole", "fr", {"Layer": "Couche", "Head": "Tête"}, template))
    assert i18n.completeness("fr") == 1.0 and i18n.offered() == ("en", "fr")
    assert i18n.from_browser("fr-FR") == "fr" and i18n.from_browser("ko-KR") == "en"
    assert i18n.gettext("fr", "Head") == "Tête" and i18n.gettext("en", "Head") == "Head"
    assert i18n.gettext("fr", "a message no catalogue has") == "a message no catalogue has"
    # a new model's label, not translated yet, among twenty messages: French stays offered, that label in English
    words = {f"word {i}": f"mot {i}" for i in range(19)}
    fresh(monkeypatch, catalogue_dir(tmp_path / "behind", "fr", words, [*words, "Bias of the query"]))
    assert i18n.completeness("fr") == 0.95 and i18n.offered() == ("en", "fr")
    assert i18n.gettext("fr", "word 3") == "mot 3" and i18n.gettext("fr", "Bias of the query") == "Bias of the query"
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
    from app_driver.apptest import messages, run_page

    at = run_page(lang="xx")
    assert "**lang** value could not be used" in messages(at)
    assert at.query_params.get("lang") in (None, [])
    assert not at.exception


# --- Korean particles (i18n.particles) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("칸(으)로", "칸으로"),  # a final consonant
        ("물(으)로", "물로"),  # a final ㄹ takes 로
        ("사과(으)로", "사과로"),  # a vowel
        ("책은(는) 사과은(는)", "책은 사과는"),
        ("책이(가) 사과이(가)", "책이 사과가"),
        ("책을(를) 사과을(를)", "책을 사과를"),
        ("책와(과) 사과와(과)", "책과 사과와"),
        ("책(이)다 사과(이)다", "책이다 사과다"),
        ("1,000,000(으)로", "1,000,000으로"),  # 영: the last digit read in Sino-Korean
        ("3486억(으)로", "3486억으로"),
        ("7(으)로 8(으)로 1(으)로", "7로 8로 1로"),  # 칠 팔 일
        ("3은(는) 6은(는) 10은(는)", "3은 6은 10은"),  # 삼 육 십
        ("2은(는) 4은(는) 5은(는) 9은(는)", "2는 4는 5는 9는"),  # 이 사 오 구
        ("0.57이(가) 0.5이(가)", "0.57이 0.5가"),
        ("62.6%이(가)", "62.6%가"),  # 퍼센트
        ("“고양이”을(를) “책”을(를)", "“고양이”를 “책”을"),  # a closing quote: the word inside
        ("**토큰**을(를)", "**토큰**을"),
        ("토큰(token)이(가) 가중치(7)은(는)", "토큰(token)이 가중치(7)는"),  # brackets: the word before them
        ("L(으)로 M(으)로 N와(과) A와(과) GPT은(는) MLP은(는)", "L로 M으로 N과 A와 GPT는 MLP는"),  # 엘 엠 엔 에이
        ("RMSNorm을(를) model은(는) layer은(는)", "RMSNorm을 model은 layer는"),  # 놈, 모델, 레이어
        ("−∞(으)로 x²은(는)", "−∞로 x²은"),  # 무한대, 제곱
        (
            "“보트”(파란색 선)와(과) “사람”(주황색 선)와(과)",
            "“보트”(파란색 선)와 “사람”(주황색 선)과",
        ),  # quote, bracket
        ("##ᄆ은(는) ##ᆷ은(는) ㅂ을(를) ##ᅡ은(는) ㅏ을(를)", "##ᄆ은 ##ᆷ은 ㅂ을 ##ᅡ는 ㅏ를"),  # lone jamo: 미음, 비읍; 아
        ("ᄅ(으)로 ㄹ(으)로 ᆫ(으)로", "ᄅ로 ㄹ로 ᆫ으로"),  # 리을 takes 로
    ],
)
def test_a_korean_particle_takes_the_form_its_word_calls_for(text, written):
    assert i18n.particles(text) == written


def test_a_korean_message_chooses_its_particles_once_its_places_are_filled():
    """The translator writes both forms after a {place}; the formatting (str.format, %, prose.fill) chooses."""
    message = i18n.Korean("{cells}(으)로 보이는 곳, “{word}”은(는), %(n)s개")
    assert i18n.particles(message, filled=False) == message  # the places are not filled yet: nothing chosen
    assert message.format(cells="회색 칸", word="고양이") == "회색 칸으로 보이는 곳, “고양이”는, %(n)s개"
    assert message.format(cells="−∞", word="책") == "−∞로 보이는 곳, “책”은, %(n)s개"
    assert isinstance(message.format(cells="", word=""), i18n.Korean)  # formatted again, it chooses again
    assert i18n.Korean("{n}이(가) %(m)s와(과)").format(n=3) % {"m": "8"} == "3이 8과"
    assert prose.fill("밑 {{base}}(으)로, {{share}}을(를)", base="1,000,000", share="1%") == "밑 1,000,000으로, 1%를"
    assert prose.fill("the base {{base}} (kept)", base="10") == "the base 10 (kept)"  # no Korean, nothing changes
    # a chapter's paragraph: a place in quotes with a gloss after it, and numbers (chapter 5's adjectives)
    filled = prose.fill(
        "“{{adjective}}”(형용사)은(는) {{weight}}을(를), {{other}}을(를)", adjective="파란", weight="0.016", other="0.5"
    )
    assert filled == "“파란”(형용사)은 0.016을, 0.5를"


FALLBACKS = ("(으)로", "은(는)", "는(은)", "이(가)", "가(이)", "을(를)", "를(을)", "와(과)", "과(와)")


def test_no_korean_message_writes_a_particle_fallback_after_a_fixed_word():
    """In the catalogue, a fallback stands only after a {place}: after a word the translator knows, the particle
    is written as it is said ("밑 1,000,000으로", never "(으)로")."""
    from tests.test_translations import po

    left = []
    for m in po("ko"):
        for text in m.string if isinstance(m.string, tuple) else (m.string,):
            if m.id and text and any(f in i18n.particles(text, filled=False) for f in FALLBACKS):
                for fallback in i18n.FALLBACK.finditer(text):
                    if i18n.final_sound(text[: fallback.start()], filled=False) is not None:
                        left.append(text[:80])
    assert left == []


def _korean_pages():
    from tests.test_architecture_words import PAGES

    return [*PAGES, "pages/00_explorer.py"]


@pytest.mark.parametrize("page", _korean_pages(), ids=[p.split("/")[-1] for p in _korean_pages()])
def test_no_korean_page_shows_a_particle_fallback(page):
    """Every page in Korean on the default model: every particle after a number, a token or a name in the form
    that word calls for, none of "(으)로", "은(는)", "이(가)", "을(를)", "와(과)" left for the student to choose."""
    from app_driver.apptest import run_page
    from tests.test_translations import page_words

    at = run_page(page, lang="ko")
    assert not at.exception
    shown = [t[:120] for t in page_words(at) if any(f in t for f in FALLBACKS)]
    assert shown == []


def test_clauses_are_separated_as_each_language_writes_them(monkeypatch):
    from ui.words import i18n

    for code, expected in {
        "en": "a; b",
        "fr": "a\u00a0; b",
        "ko": "헤드가 읽는다. 쿼리, 키",  # no semicolon in Korean: a full stop after a clause, a comma after a noun
    }.items():
        monkeypatch.setattr(i18n, "language", lambda code=code: code)
        parts = ["a", "b"] if code != "ko" else ["헤드가 읽는다", "쿼리", "키"]
        assert i18n.semicolons(parts) == expected
