"""The app in the student's language: which language a session is in, and the words and numbers of that language
for the code that runs in the session (pages, the page kit, the words for a model's fields). The languages
themselves, their catalogues and their numbers, are ui/words/locales.py's, for any language given; a figure is
given its `Words` (words()) and reads nothing here.

The language of a session is the link's `lang`, else the browser's (st.context.locale) where the app offers it,
else English; the sidebar's picker changes it. `_()` reads the session's, so every word a page shows, prose and
labels alike, passes through it or through the Words a figure is given.
"""

from __future__ import annotations

from collections.abc import Iterable

from ui.words.locales import (  # noqa: F401  (what the session's code uses, by the names it always had)
    FALLBACK,
    LOCALES,
    N_,
    NAMES,
    OFFERED_FROM,
    SOURCE,
    Korean,
    Words,
    catalogue,
    completeness,
    decimal,
    final_sound,
    formatted,
    from_browser,
    gettext,
    in_words,
    integer,
    measured,
    minus,
    ngettext,
    offered,
    particles,
    percent,
    plotly_separators,
    read_integer,
    separated,
)


def language() -> str:
    """The session's language (the link's `lang`, the browser's, or English): what `_` translates into. Before
    the page has read the link (app.py's menu, on a session's first run), read from the link and the browser."""
    import streamlit as st

    from ui.internals import session_value  # a module, not a package: found at once in sys.modules

    code = session_value("lang")
    if code is None:
        code = st.query_params.get("lang") or from_browser(_browser_locale())
    return code if code in offered() else SOURCE


def _browser_locale() -> str | None:
    """The browser's language ("fr-FR"), where Streamlit knows it (not in a headless test run)."""
    import streamlit as st

    try:
        return st.context.locale
    except Exception:  # no browser behind this run
        return None


def words() -> Words:
    """The session's language's words and numbers, to give a figure."""
    return Words(language())


def _(message: str) -> str:
    """A message in the session's language."""
    return gettext(language(), message)


def n_(singular: str, plural: str, n: int) -> str:
    """A message whose words follow a count ("1 token", "13 tokens"), in the session's language."""
    return ngettext(language(), singular, plural, n)


def num(value: float, digits: int) -> str:
    """A number with `digits` decimals, written as the session's language writes it."""
    return words().num(value, digits)


def share(value: float, digits: int = 0) -> str:
    """A share as a percentage, written as the session's language writes it: 62.6% (en), 62,6 % (fr)."""
    return words().share(value, digits)


def fmt(value: float, spec: str) -> str:
    """format(value, spec) ("+.2f", ".1e", ",d"…) with the session's language's separators."""
    return words().fmt(value, spec)


def sci(value: float, digits: int = 1) -> str:
    """measured(), in the session's language."""
    return words().sci(value, digits)


def whole(value: int) -> str:
    """A whole number, grouped as the session's language groups it."""
    return words().whole(value)


def series(numbers: Iterable[str]) -> str:
    """Numbers already written, one after another, as the session's language tells them apart (Words.series)."""
    return words().series(numbers)


def semicolons(parts: Iterable[str]) -> str:
    """Clauses or items one after another, as the session's language separates them (Words.semicolons)."""
    return words().semicolons(parts)


def listing(items: Iterable[str]) -> str:
    """Names one after another as the session's language lists them (Words.listing)."""
    return words().listing(items)


def compact(count: float, digits: int = 0) -> str:
    """A count in a few digits, as the session's language abbreviates it (Words.compact)."""
    return words().compact(count, digits)
