"""The French and Korean catalogues: complete, compiled, faithful to what a page fills in, in the glossary's words;
and every page, read in a pseudo-language and in each real language, with no English left but tokens, names and
equations."""

from __future__ import annotations

import re

import pytest
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from app_driver import catalogue as rules
from app_driver.apptest import ROOT, run_page
from app_driver.words import PAGES, page_text
from attention.lessons import motivation
from ui.components import plot
from ui.session import opening, state
from ui.words import i18n

LANGUAGES = ("fr", "ko")


def po(code: str):
    with (ROOT / "locales" / code / "LC_MESSAGES" / "messages.po").open("rb") as f:
        return read_po(f, locale=code)


def flat(value) -> str | tuple:
    """A message's id or string as a value to compare: plural forms as a tuple (read_mo gives lists)."""
    return value if isinstance(value, str) else tuple(value)


def key(message_id) -> str:
    return message_id if isinstance(message_id, str) else message_id[0]


@pytest.mark.parametrize("code", LANGUAGES)
def test_every_message_is_translated(code):
    """Every message of the template, translated (every plural form), none fuzzy: the app offers the language."""
    catalogue = po(code)
    translated = {key(m.id): m for m in catalogue if m.id}
    template = rules.template_messages()
    missing = [key(m.id) for m in template if key(m.id) not in translated]
    fuzzy = [key(m.id) for m in catalogue if m.id and m.fuzzy]
    empty = [
        key(m.id) for m in catalogue if m.id and (not m.string or (isinstance(m.string, tuple) and not all(m.string)))
    ]
    assert not missing and not fuzzy and not empty, (missing[:5], fuzzy[:5], empty[:5])
    if any(isinstance(m.id, tuple) for m in template):
        assert all(len(m.string) == catalogue.num_plurals for m in catalogue if isinstance(m.id, tuple))
    assert code in i18n.offered()


@pytest.mark.parametrize("code", LANGUAGES)
def test_the_compiled_catalogue_is_the_catalogue(code):
    """messages.mo, which the app reads, says what messages.po says (compiled again after every change)."""
    with (ROOT / "locales" / code / "LC_MESSAGES" / "messages.mo").open("rb") as f:
        compiled = {flat(m.id): flat(m.string) for m in read_mo(f) if m.id}
    assert compiled == {flat(m.id): flat(m.string) for m in po(code) if m.id}


@pytest.mark.parametrize("code", LANGUAGES)
def test_translations_keep_what_pages_fill_and_say_the_glossary_s_words(code):
    """Places, equations, code and links kept; each term as the glossary says it; the English term beside each
    glossed term at its first use in every chapter (app_driver/catalogue.py)."""
    draft = {key(m.id): (list(m.string) if isinstance(m.string, tuple) else m.string) for m in po(code) if m.id}
    assert rules.check_draft(code, draft) == []


@pytest.mark.parametrize("code", ["en", *LANGUAGES])
def test_markdown_reads_every_bold_and_italic(code):
    """No message shows its markup as typed: CommonMark closes a bold that ends in punctuation only before a space
    or punctuation, so "**값(values)**은", as Korean attaches its particles, would show its asterisks. Read with
    the CommonMark parser, its places filled with a number as a page fills them."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark")
    texts = [m.id if code == "en" else m.string for m in (rules.template_messages() if code == "en" else po(code))]
    texts = [t for text in texts if text for t in ([text] if isinstance(text, str) else text)]
    shown = {t[:80]: md.render(re.sub(r"\{\{?\w+\}?\}", "1", t)) for t in texts if "*" in t}
    assert [t for t, html in shown.items() if re.search(r"\*\*|(?<![\\\w])\*\w", html)] == []


def test_the_rules_catch_a_lost_place_a_word_off_the_glossary_and_a_missing_gloss():
    terms = rules.glossary("fr")
    assert rules.problems("fr", "{n} keys", "{n} clés", terms) == []
    assert rules.problems("fr", "{n} keys", "clés", terms)  # the count is gone
    assert rules.problems("fr", "$x_{i}$", "$x_{j}$", terms)  # the equation changed
    assert rules.problems("fr", "the keys", "les touches", terms)  # not the glossary's clé
    assert rules.first_use_problems([("The query asks.", "La requête (query) demande.")], terms) == []
    assert rules.first_use_problems([("The query asks.", "La requête demande.")], terms)
    ko = rules.glossary("ko")
    assert rules.first_use_problems([("The key answers.", "키(key)가 답한다.")], ko) == []
    assert rules.first_use_problems([("The key answers.", "가리키는 키(key)가 답한다.")], ko) == []  # 가리키 is no 키


# --- the pages ---------------------------------------------------------------------------------------------------

# What may stand in English on any page: the sentences the lessons' English examples feed the models (the numbers
# come from them), and model and tokenizer names.
KEPT_TEXTS = sorted(
    {*opening.EXAMPLES, state.CROSS_SOURCE, "an apple and an orange", "an apple phone", motivation.NOTES_SENTENCE},
    key=len,
)[::-1]
KEPT_WORDS = {"minilm", "smollm", "gemma", "gpt", "bert", "llama", "bos", "eos", "cls", "sep", "unk", "pad"}
KEPT_WORDS |= {
    "rmsnorm",
    "layernorm",
    "norm",
    "mlp",
    "rope",
    "qwen",
    "mistral",
    "mib",
    "gib",
    "float",
    "small",
    "brown",
}
# the English words the lessons feed a model or compare its guesses with (chapters 3, 4 and 7)
KEPT_WORDS |= {"apple", "orange", "phone", "dog", "cat", "bluebird", "creature", "animal", "fluffy", "blue", "doll"}


def english_words(text: str) -> list[str]:
    """The Latin words of a text that a French or Korean page should not show: its equations, places, link
    targets, tokens ("␣forest"), the examples' sentences, the names above and the references cited left out."""
    text = rules.CITATION.sub(" ", text)
    for kept in KEPT_TEXTS:
        text = text.replace(kept, " ")
    if re.search(r"\\(?:operatorname|mathrm|frac|begin)\b", text):
        return []  # an equation (st.latex): its words are LaTeX's
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.DOTALL)
    text = re.sub(r"\$[^$]*\$|`[^`]*`|\]\([^)]*\)|<[^>]+>|␣\S*|\\[a-zA-Z]+", " ", text)
    return [w for w in re.findall(r"[A-Za-z][A-Za-z']{2,}", text) if w.lower() not in KEPT_WORDS]


def figure_texts(spec: dict) -> list[str]:
    """What a figure writes beside its title and notes: axis and colour-bar titles, legend names, hover texts'
    words (their %{…} values aside)."""
    layout = spec["layout"]
    texts = [v.get("title", {}).get("text", "") for k, v in layout.items() if re.match(r"[xy]axis\d*$", k)]
    for trace in spec["data"]:
        texts += [trace.get("name") or "", re.sub(r"%\{[^}]*\}", " ", trace.get("hovertemplate") or "")]
        texts.append(((trace.get("colorbar") or {}).get("title") or {}).get("text", ""))
    return [t for t in texts if isinstance(t, str)]


def page_words(at) -> list[str]:
    """Every text a page shows: its prose, notices, titles, controls' labels and options, figures' texts."""
    texts = page_text(at) + [e.value for e in at.get("success")] + [e.value for e in at.get("error")]
    for box in (
        *at.selectbox,
        *at.text_area,
        *at.slider,
        *at.select_slider,
        *at.number_input,
        *at.text_input,
        *at.button,
        *at.metric,
    ):
        texts.append(box.label)
    texts += [str(o) for box in at.selectbox for o in box.options if not re.match(r"^\d+ · ", str(o))]
    texts += [str(o) for r in at.radio for o in r.options]
    for spec, _ in plot.drawn(at):
        texts += figure_texts(spec)
    return texts


def outside_glosses(text: str) -> str:
    """The text without its glosses and quotations: the English term a chapter puts in brackets beside its own
    ("쿼리(query)", « requête (query) »), the English words it quotes because a model reads them, and the references
    a chapter cites (their titles and authors as published)."""
    text = rules.CITATION.sub(" ", text)
    return re.sub(r"\([^()]*\)|“[^”]*”|\"[^\"]*\"|«[^»]*»|'[^']*'", " ", text)


@pytest.mark.parametrize("page", PAGES, ids=[p.split("/")[-1] for p in PAGES])
def test_no_english_sentence_on_a_korean_page(page):
    """Every page in Korean on Gemma: no text holds three Latin words outside tokens, names, equations, glosses
    and quotations (Korean writes none of its own: what is left did not pass through the catalogue)."""
    at = run_page(page, model="gemma3", lang="ko")
    assert not at.exception
    left = [(t[:90], english_words(outside_glosses(t))) for t in page_words(at)]
    assert [(t, w) for t, w in left if len(w) >= 3] == []


FUNCTION_WORDS = {"the", "of", "and", "is", "are", "that", "with", "this", "its", "from", "each", "which", "what"}


@pytest.mark.parametrize("page", PAGES, ids=[p.split("/")[-1] for p in PAGES])
def test_no_english_sentence_on_a_french_page(page):
    """Every page in French on Gemma: no text holds three of English's commonest words (French words that look
    English, "attention", "information", pass; an English sentence does not)."""
    at = run_page(page, model="gemma3", lang="fr")
    assert not at.exception
    english = [t[:120] for t in page_words(at) if len(FUNCTION_WORDS & set(w.lower() for w in english_words(t))) >= 3]
    assert english == []


FRENCH_SPACE = re.compile(r" [:;!?]|« | »")  # a plain space where French sets a no-break one
NOT_PROSE = re.compile(
    rules.CITATION.pattern + r"|\$\$.*?\$\$|\$[^$]*\$|\{\{?[^{}]*\}?\}|`[^`]*`|https?://\S+|\]\([^)]*\)|<[^>]*>"
)  # references, maths, places, code, links' targets


def test_french_messages_keep_their_punctuation_with_a_no_break_space():
    """« », and the space before : ; ! ?, never broken from their word at a line's end: U+00A0, not a plain space."""
    broken = []
    for m in po("fr"):
        for text in m.string if isinstance(m.string, tuple) else (m.string,):
            if m.id and FRENCH_SPACE.search(NOT_PROSE.sub("", text or "")):
                broken.append(text[:80])
    assert broken == []
