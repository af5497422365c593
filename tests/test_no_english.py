"""No English function word on a French or Korean page (issue 37): every page, the explorer and the fourteen
chapters, on the language's opening model and on MiniLM, read headless; every text it shows (prose, notices,
titles, controls' labels, options and help, figures' titles, notes, axis titles, legends and hovers) holds none of
English's small words ("the", "of", "vs", the mask's "none"…) outside what may stay English: token pieces, the
lessons' English example sentences and the words quoted from them, equations and code, model names.

tests/test_translations.py looks for three English words together (a sentence left untranslated); this looks for
one, which is how an English word leaks into an assembled string ("apple dans … vs orange", "Masque → none")."""

from __future__ import annotations

import re

import pytest

from app_driver import catalogue as rules
from app_driver.apptest import run_page
from tests import typography
from tests.test_architecture_words import PAGES
from tests.test_translations import KEPT_TEXTS, KEPT_WORDS, outside_glosses, page_words
from ui.components import plot

# English's commonest small words, and the code names that leaked before (the mask's values, the head roles'
# keys, the MLP's matrices). Not those French also writes ("on", "or", "an", "as", "but", "causal"): those are
# looked for on Korean pages only.
# fmt: off
ENGLISH = {
    "the", "and", "of", "to", "is", "are", "was", "were", "with", "vs", "for", "from", "this", "that", "these",
    "those", "its", "which", "what", "each", "by", "into", "not", "it", "be", "in", "at", "none", "has", "have",
    "will", "can", "than", "then", "when", "where", "how", "why", "who", "if", "our", "your", "you", "we",
    "they", "their", "there", "here", "only", "also", "more", "most", "other", "some", "such", "no", "yes",
    "per", "up", "down", "broad", "mixed", "click", "hover", "press", "apply",
}
# fmt: on
ALSO = {"fr": set(), "ko": {"on", "or", "an", "as", "but", "causal"}}
MINILM = "all-MiniLM-L6-v2"
MODELS = {"opening": None, "minilm": MINILM}  # the language's opening model (Gemma 3), and the bundled encoder


def widget_help(at) -> list[str]:
    """The help text ("?" beside a control) of every control on the page."""
    out = []
    for kind in ("radio", "toggle", "slider", "select_slider", "selectbox", "text_area", "text_input", "button"):
        out += [getattr(w, "help", None) or "" for w in at.get(kind)]
    return out


def figure_hovers(at) -> list[str]:
    """Hover texts a figure writes out in full (customdata, text), beside its hovertemplate's words."""
    from ui.components import plot

    out = []
    for spec, config in plot.drawn(at):
        for trace in spec["data"]:
            for key in ("customdata", "hovertext"):
                values = trace.get(key)
                if isinstance(values, list):
                    out += [v for v in values if isinstance(v, str)]
        words = ((config.get("locales") or {}).get(config.get("locale", ""), {}) or {}).get("dictionary", {})
        out += list(words.values())  # plotly's toolbar, as the page says it
    return out


def english_left(text: str, code: str) -> list[str]:
    """The English small words of a text, outside its equations, code, tokens, quotations, glosses and the lessons'
    English sentences, and the references a chapter cites."""
    text = rules.CITATION.sub(" ", text)
    for kept in KEPT_TEXTS:
        text = text.replace(kept, " ")
    if re.search(r"\\(?:operatorname|mathrm|frac|begin|text)\b", text):
        return []  # an equation (st.latex): its words are LaTeX's, its \text{…} passed through the catalogue
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.DOTALL)
    text = re.sub(r"\$[^$]*\$|`[^`]*`|\]\([^)]*\)|<[^>]+>|␣\S*|##\S*|\\[a-zA-Z]+|%\{[^}]*\}", " ", text)
    text = outside_glosses(text)
    text = re.sub(r"(?<!\*)\*[A-Za-z]+\*(?!\*)", " ", text)  # a word in italics, cited as a word (a feature's name)
    words = re.findall(r"(?<!\w)[A-Za-z]+(?!\w)", text)  # a whole word: not "for" of « forêt »
    return [w for w in words if w.lower() in ENGLISH | ALSO[code] and w.lower() not in KEPT_WORDS]


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("code", ["fr", "ko"])
@pytest.mark.parametrize("page", PAGES, ids=[p.split("/")[-1] for p in PAGES])
def test_a_french_or_korean_page_has_no_english_function_word_and_keeps_its_typography(page, code, model):
    params = {"lang": code} | ({"model": MODELS[model]} if MODELS[model] else {})
    at = run_page(page, **params)
    assert not at.exception
    texts = [t for t in page_words(at) + widget_help(at) + figure_hovers(at) if isinstance(t, str) and t]
    read = sum(len(re.findall(r"\w+", t)) for t in texts)
    assert read > 60, f"only {read} words read: the page did not draw"  # the test measured a page
    left = [(t[:100], words) for t in texts if (words := english_left(t, code))]
    assert left == []
    # the same page's typography, in what the code assembles as well as in the catalogues
    broken = [fault for t in texts for fault in typography.faults(t, code)]
    broken += [fault for spec, _ in plot.drawn(at) for fault in typography.percent_axes(spec, code)]
    assert broken == []


def test_the_typography_rules_find_what_the_reviews_found():
    """The rules above fail on the strings the French and Korean reviews quoted, and pass their corrections."""
    broken = [
        "q1: 1,000000 ; q2\u00a0: 0,5",
        "ticks 0% 10%",
        "(−184 067 328); il n'a pas",
        "« -0,3 »",
        "“une créature”",
    ]
    right = [
        "q1\u00a0: 1,000000\u00a0; q2\u00a0: 0,5",
        "10\u00a0%",
        "(−184 067 328)\u00a0; il",
        "−0,3",
        "«\u00a0une\u00a0»",
    ]
    assert all(typography.faults(t, "fr") for t in broken)
    assert [f for t in right for f in typography.faults(t, "fr")] == []
    assert typography.faults("-0.123", "ko") and not typography.faults("−0.123, L1-H2, 1e-5", "ko")
