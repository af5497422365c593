"""Each language's messages and numbers, given the language: gettext catalogues read with Babel, Korean particles
chosen by the word before them, numbers written as each language writes them, and `Words`, all of it for one
language, which a figure is given as it is given its data. Nothing here reads a session: ui/words/i18n.py says
which language a session is in.

One catalogue per language, `locales/<code>/LC_MESSAGES/messages.po` (compiled beside it to `messages.mo`);
English is the catalogues' source language and needs none. A developer adds a language by adding a catalogue
(`pybabel init -i locales/messages.pot -d locales -l <code>`, then `pybabel compile -d locales`), and the app
offers it once nine messages in ten are translated: a half-translated page is worse than an English one, but a
language once offered stays offered when new messages come in before their translation (a new model's labels):
each of those shows in English alone, and tests/test_translations.py fails until it is translated.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from pathlib import Path

# the catalogues; ATTENTION_LOCALES points elsewhere (benchmarks/english_left.py's pseudo-translation)
LOCALES = Path(os.environ.get("ATTENTION_LOCALES") or Path(__file__).resolve().parents[2] / "locales")
DOMAIN = "messages"
SOURCE = "en"  # the language the messages are written in
NAMES = {"en": "English", "fr": "Français", "ko": "한국어"}  # each language in its own words, for the picker
OFFERED_FROM = 0.9  # the share of the template's messages a catalogue must translate for its language to be offered


@functools.cache
def catalogue(code: str):
    """The compiled catalogue of a language (babel.support.Translations), or None for the source language or a
    language without one."""
    from babel.support import Translations

    if code == SOURCE or not (LOCALES / code / "LC_MESSAGES" / f"{DOMAIN}.mo").is_file():
        return None
    return Translations.load(str(LOCALES), [code], DOMAIN)


@functools.cache
def completeness(code: str) -> float:
    """The share of the template's messages that the language's catalogue translates (fuzzy ones not counted)."""
    if code == SOURCE:
        return 1.0
    from babel.messages.pofile import read_po

    po = LOCALES / code / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not po.is_file():
        return 0.0
    with po.open("rb") as f:
        messages = [m for m in read_po(f) if m.id]
    done = sum(1 for m in messages if m.string and not m.fuzzy and (not isinstance(m.string, tuple) or all(m.string)))
    return done / len(messages) if messages else 0.0


@functools.cache
def offered() -> tuple[str, ...]:
    """The languages the app offers: the source language and every catalogue that translates at least
    OFFERED_FROM of the messages, a message it lacks shown in English (looked for once: every message a page
    translates asks, and the catalogues do not change while the server runs)."""
    found = sorted(p.name for p in LOCALES.iterdir() if (p / "LC_MESSAGES").is_dir()) if LOCALES.is_dir() else []
    return (SOURCE, *(code for code in found if code != SOURCE and completeness(code) >= OFFERED_FROM))


def from_browser(locale: str | None) -> str:
    """The offered language of a browser's locale ("fr-FR" -> "fr"), else the source language."""
    code = (locale or "").replace("_", "-").split("-")[0].lower()
    return code if code in offered() else SOURCE


@functools.lru_cache(maxsize=8192)  # a figure asks for the same few messages again and again
def gettext(code: str, message: str) -> str:
    t = catalogue(code)
    if t is None:
        return message
    return Korean(particles(t.ugettext(message), filled=False)) if code == "ko" else t.ugettext(message)


def ngettext(code: str, singular: str, plural: str, n: int) -> str:
    t = catalogue(code)
    if t is None:
        return singular if n == 1 else plural
    return (
        Korean(particles(t.ungettext(singular, plural, n), filled=False))
        if code == "ko"
        else t.ungettext(singular, plural, n)
    )


# --- Korean particles, chosen by the syllable before them ------------------------------------------------------
# A Korean particle has two forms, one after a final consonant (batchim) and one after a vowel: 책은 / 사과는,
# 책으로 / 사과로 (and 로 after a final ㄹ: 연필로). A message whose particle follows a {place} cannot know the
# word it will hold, so the translator writes both, "{cells}(으)로", "{word}은(는)", and the fallback is replaced by
# the right form once the message is formatted (Korean.format, prose.fill): nobody reads "(으)로" on a page.

PARTICLE_FALLBACKS = {  # fallback: (form after a final consonant, form after a vowel)
    "은(는)": ("은", "는"),
    "는(은)": ("은", "는"),
    "이(가)": ("이", "가"),
    "가(이)": ("이", "가"),
    "을(를)": ("을", "를"),
    "를(을)": ("을", "를"),
    "과(와)": ("과", "와"),
    "와(과)": ("과", "와"),
    "(으)로": ("으로", "로"),
    "(이)": ("이", ""),  # the copula's 이 in "(이)다", "(이)라는", "(이)나": dropped after a vowel
}
FALLBACK = re.compile(
    "|".join(re.escape(f) + ("(?=[가-힣])" if f == "(이)" else "") for f in sorted(PARTICLE_FALLBACKS, key=len)[::-1])
)
# what a word ends in, read aloud in Korean: True (a final consonant), "ㄹ" (a final ㄹ) or False (a vowel)
DIGIT_ENDS = {
    "0": True,
    "1": "ㄹ",
    "3": True,
    "6": True,
    "7": "ㄹ",
    "8": "ㄹ",
}  # 영 일 삼 육 칠 팔; 이 사 오 구, and 10 십
LETTER_ENDS = {
    "L": "ㄹ",
    "M": True,
    "N": True,
    "R": "ㄹ",
}  # 엘 엠 엔 알; every other letter ends in a vowel (에이, 비…)
SYMBOL_ENDS = {"ε": True, "ϵ": True, "ℓ": "ㄹ", "∞": False, "%": False}  # 엡실론, 엘, 무한대, 퍼센트
SYMBOL_ENDS |= dict.fromkeys("⁰¹²³⁴⁵⁶⁷⁸⁹", True)  # a power, read 제곱 or …승
SKIPPED = "”\"’')]}」』》〉*`$_"  # closing quotes and emphasis: the word is the one inside them
SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")


def final_sound(text: str, filled: bool = True) -> bool | str | None:
    """How the last word of `text` ends when read aloud in Korean: True after a final consonant (책, 3 삼, M 엠),
    "ㄹ" after a final ㄹ (연필, 1 일, L 엘), False after a vowel (사과, 2 이, A 에이, %), None where there is no word,
    or where the text is not `filled` yet and ends in a {place} (the fallback then waits for the formatting)."""
    if re.search(r"%\(\w+\)[sd][”\"’'*]*$", text):  # a %(place)s not filled yet
        return None
    i = len(text) - 1
    while i >= 0 and text[i] in SKIPPED:
        if text[i] == "}" and not filled:
            return None
        if text[i] == ")":  # a particle after brackets goes with the word before them: 토큰(token)은
            depth, j = 0, i
            while j >= 0:
                depth += {")": 1, "(": -1}.get(text[j], 0)
                if depth == 0:
                    break
                j -= 1
            if j > 0 and not text[j - 1].isspace():
                i = j
        i -= 1
    if i < 0:
        return None
    c = text[i]
    if "가" <= c <= "힣":
        final = (ord(c) - 0xAC00) % 28
        return "ㄹ" if final == 8 else final != 0
    if "\u1100" <= c <= "\u11ff" or "\u3131" <= c <= "\u3163":  # a lone jamo (MiniLM cuts 맘 into 마 + ##ᄆ)
        return jamo_sound(c)
    c = c.translate(SUBSCRIPTS)
    if c in "0123456789":
        return DIGIT_ENDS.get(c, False)
    if c in SYMBOL_ENDS:
        return SYMBOL_ENDS[c]
    if c.isascii() and c.isalpha():
        start = i
        while start > 0 and text[start - 1].isascii() and text[start - 1].isalpha():
            start -= 1
        word = text[start : i + 1]
        if len(word) == 1 or word.isupper():  # a letter or an acronym, read letter by letter: GPT 지피티, MLP
            return LETTER_ENDS.get(c.upper(), False)
        if word.lower().endswith(("m", "n", "ng")):  # token 토큰, RMSNorm 놈
            return True
        return "ㄹ" if word.lower().endswith("l") else False  # model 모델; cache 캐시, layer 레이어
    return False


def jamo_sound(c: str) -> bool | str:
    """How a lone jamo ends: a consonant, conjoining (ᄆ, ᆷ) or compatibility (ㅁ), is read as its own final
    consonant, "ㄹ" for ㄹ; a vowel (ᅡ, ㅏ) ends in a vowel."""
    if "\u1160" <= c <= "\u11a7" or "\u314f" <= c <= "\u3163":  # a vowel, conjoining or compatibility
        return False
    return "ㄹ" if c in "\u1105\u11af\u3139" else True  # ᄅ (initial), ᆯ (final), ㄹ


def particles(text: str, filled: bool = True) -> str:
    """Korean text with each particle fallback ("(으)로", "은(는)"…) replaced by the form its preceding word takes;
    in a message not `filled` yet, a fallback right after a {place} is left for the formatting to replace."""

    def chosen(m: re.Match) -> str:
        end = final_sound(text[: m.start()], filled)
        if end is None:
            return m.group(0)
        after_consonant, after_vowel = PARTICLE_FALLBACKS[m.group(0)]
        if m.group(0) == "(으)로" and end == "ㄹ":
            return after_vowel
        return after_consonant if end else after_vowel

    return FALLBACK.sub(chosen, text) if "(" in text else text


class Korean(str):
    """A Korean message: formatted (str.format, %), its particle fallbacks take the form the filled-in words call
    for ("{cells}(으)로" with "회색 칸" gives "회색 칸으로", with "−∞" "−∞로")."""

    __slots__ = ()

    def format(self, *args, **kwargs) -> Korean:
        return Korean(particles(str.format(self, *args, **kwargs)))

    def format_map(self, mapping) -> Korean:
        return Korean(particles(str.format_map(self, mapping)))

    def __mod__(self, values) -> Korean:
        return Korean(particles(str.__mod__(self, values)))


# --- numbers, as each language writes them ---------------------------------------------------------------------


def decimal(code: str, value: float, digits: int) -> str:
    """A number with `digits` decimals and the language's separators: 0.573 (en, ko), 0,573 (fr)."""
    from babel.numbers import format_decimal

    return minus(
        format_decimal(value, format=_decimal_pattern(digits), locale=_locale(code), decimal_quantization=True)
    )


@functools.cache
def _decimal_pattern(digits: int):
    """Babel's number pattern with `digits` decimals, parsed once: a page writes hundreds of numbers a run."""
    from babel.numbers import parse_pattern

    return parse_pattern("#,##0" + ("." + "0" * digits if digits else ""))


@functools.cache
def _locale(code: str):
    """Babel's locale, read once: given by its code, each number made a new one and looked up its symbols again."""
    from babel import Locale

    return Locale.parse(code)


MINUS = "\u2212"  # the minus sign, as the figures and equations write it (−∞): never a hyphen before a number


def minus(text: str) -> str:
    """A number written with a hyphen for its sign ("-0.57", "-1.3e-05"), written with the minus sign instead."""
    return re.sub(r"(?<![\w.])-(?=[\d.])", MINUS, text)


def integer(code: str, value: int) -> str:
    """A whole number with the language's grouping: 174,604,259,328 (en, ko), 174 604 259 328 (fr)."""
    return decimal(code, value, 0)


def read_integer(code: str, text: str) -> int | None:
    """The whole number a student typed, as the language writes it (50 257 or 50257 in French, 50,257 in English
    and Korean), or None for text that is not one (a decimal, a letter, nothing)."""
    from babel.numbers import NumberFormatError, parse_number

    try:
        return int(parse_number(text.strip(), locale=code))
    except (NumberFormatError, ValueError):
        return None


EXACT = 1e-9  # a share this close to 0 or 1 is 0 % or 100 % (a sum of floats that should be whole)


def percent(code: str, share: float, digits: int = 0) -> str:
    """A share as a percentage, in the language's own pattern: 62.6% (en), 62,6 % (fr). A share that rounds to
    0 % or 100 % without being it is written as a bound, "< 0.01%" or "> 99.99%" (at digits=2; a no-break space keeps the sign with its number): a printed
    "0.00%" or "100.0%" reads as exact."""
    from babel import Locale
    from babel.numbers import format_percent

    pattern = Locale.parse(code).percent_formats[None].pattern
    if digits:  # "#,##0%" -> "#,##0.0%": the decimals after the integer part's last digit
        pattern = pattern.replace("0", "0." + "0" * digits, 1)
    step = 10.0**-digits / 100  # the last digit's worth, as a share
    if EXACT < abs(share) < step / 2:
        return "<\u00a0" + format_percent(step, format=pattern, locale=code, decimal_quantization=True)
    if 1 - step / 2 <= share < 1 - EXACT:
        return ">\u00a0" + format_percent(1 - step, format=pattern, locale=code, decimal_quantization=True)
    return format_percent(share, format=pattern, locale=code, decimal_quantization=True)


@functools.cache
def _separators_table(code: str) -> dict[int, str]:
    """str.translate's table from Python's separators (. and ,) to the language's, and its hyphen to a minus sign."""
    from babel.numbers import get_decimal_symbol, get_group_symbol

    return str.maketrans({".": get_decimal_symbol(code), ",": get_group_symbol(code), "-": "\u2212"})


def formatted(code: str, value: float, spec: str, minus: bool = True) -> str:
    """format(value, spec) with the language's separators: for the many numbers a figure prints in its cells,
    where Babel's own formatting, one call per number, would cost more than the figure ("0.57" -> "0,57"). A
    negative number takes the minus sign (U+2212), as the −∞ of a masked cell does: "−0,30", not "-0,30".
    minus=False keeps the hyphen, for the values printed inside a heatmap's cells only: the figures' font (DejaVu
    Sans) draws U+2212 2.3 times as wide as a hyphen (0.838 em against 0.361), and a score matrix's values, sized to
    fit their cells, would no longer fit at a readable size (the explorer's scores of a 7-token sentence went blank)."""
    text = format(value, spec).translate(_separators_table(code))
    return text if minus else text.replace("\u2212", "-")


def separated(code: str, text: str) -> str:
    """A number Python wrote ("1,234.5") with the language's separators ("1 234,5")."""
    return text.translate(_separators_table(code))


def plotly_separators(code: str) -> str:
    """Plotly's `separators`: the decimal mark, then the thousands separator, as the language writes them."""
    from babel.numbers import get_decimal_symbol, get_group_symbol

    return get_decimal_symbol(code) + get_group_symbol(code)


def in_words(sentence: str, **math: str) -> str:
    r"""A translated sentence inside an equation: its words in \text{…}, each of its {places} the LaTeX `math` names
    ("{value} if {condition}" -> "M_{ij} = -\infty \text{ if } j > i"), so that a language orders them its way."""
    pieces = re.split(r"\{(\w+)\}", sentence)
    return " ".join(math[p] if i % 2 else rf"\text{{{p}}}" for i, p in enumerate(pieces) if p)


def N_(message: str) -> str:
    """A message marked for the catalogues where it is written, translated with `_` where it is shown."""
    return message


SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


PLAIN_FROM, PLAIN_BELOW = 0.01, 10_000  # measured numbers between these are written as plain decimals


def measured(code: str, value: float, digits: int = 1) -> str:
    """A measured number of any size with digits + 1 significant digits, as a class writes it: 1.3 × 10⁻⁵ (1,3 ×
    10⁻⁵ in French) where it is very small or large, never Python's 1.3e-05; plain where plain digits read at once
    (120, not 1.2 × 10²; 0.053)."""
    if value == 0:
        return "0"
    mantissa, exponent = format(value, f".{digits}e").split("e")
    power, rounded = int(exponent), float(f"{mantissa}e{exponent}")  # 9.96 at digits=1 is 10, plain
    if PLAIN_FROM <= abs(rounded) < PLAIN_BELOW:
        return decimal(code, rounded, max(0, digits - power))
    return minus(f"{formatted(code, float(mantissa), f'.{digits}f')} × 10{str(power).translate(SUPERSCRIPT)}")


class Words:
    """One language's words and numbers: what a figure is given, like its data, to write its titles, labels and
    numbers (a figure reads no session). The session's language is ui/words/i18n.words()."""

    __slots__ = ("code",)

    def __init__(self, code: str):
        self.code = code

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Words) and other.code == self.code

    def __hash__(self) -> int:
        return hash(("Words", self.code))

    def __repr__(self) -> str:
        return f"Words({self.code!r})"

    def _(self, message: str) -> str:
        """A message in this language."""
        return gettext(self.code, message)

    def n_(self, singular: str, plural: str, n: int) -> str:
        """A message whose words follow a count ("1 token", "13 tokens")."""
        return ngettext(self.code, singular, plural, n)

    def num(self, value: float, digits: int) -> str:
        """A number with `digits` decimals, written as this language writes it."""
        return decimal(self.code, value, digits)

    def share(self, value: float, digits: int = 0) -> str:
        """A share as a percentage: 62.6% (en), 62,6 % (fr)."""
        return percent(self.code, value, digits)

    def fmt(self, value: float, spec: str) -> str:
        """format(value, spec) ("+.2f", ".1e", ",d"…) with this language's separators."""
        return formatted(self.code, value, spec)

    def sci(self, value: float, digits: int = 1) -> str:
        """measured(), in this language."""
        return measured(self.code, value, digits)

    def whole(self, value: int) -> str:
        """A whole number, grouped as this language groups it."""
        return integer(self.code, value)

    def series(self, numbers: Iterable[str]) -> str:
        """Numbers already written, one after another, so that the language can tell them apart: "0.33, 0.67, 0"
        (en, ko), "0,33 ; 0,67 ; 0" in French, whose comma is the decimal mark."""
        from babel.numbers import get_decimal_symbol

        return ("\u00a0; " if get_decimal_symbol(self.code) == "," else ", ").join(numbers)

    def semicolons(self, parts: Iterable[str]) -> str:
        """Clauses or items already written, one after another, as this language separates them: "a; b" (en),
        "a ; b" in French (a no-break space before the semicolon), and in Korean, which writes no semicolon, a full
        stop after a clause that ends a sentence (…다) and a comma after a noun phrase."""
        parts = [p for p in parts if p]
        if self.code == "fr":
            return "\u00a0; ".join(parts)
        if self.code == "ko":
            return "".join(p + (". " if p.rstrip().endswith("다") else ", ") for p in parts[:-1]) + (
                parts[-1] if parts else ""
            )
        return "; ".join(parts)

    def listing(self, items: Iterable[str]) -> str:
        """Names one after another as this language lists them: "a, b and c" (en), "a, b et c" (fr)."""
        from babel.lists import format_list

        return format_list(list(items), locale=self.code)

    def compact(self, count: float, digits: int = 0) -> str:
        """A count in a few digits, as this language abbreviates it: "174.6B" (en), "174,6 Md" (fr), "1746억" (ko)."""
        from babel.numbers import format_compact_decimal

        return format_compact_decimal(count, format_type="short", locale=self.code, fraction_digits=digits)

    @property
    def separators(self) -> str:
        """plotly's separators for this language: the decimal mark, then the thousands separator."""
        return plotly_separators(self.code)
