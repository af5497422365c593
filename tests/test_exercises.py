"""Issue 37: every exercise, example and question works on what the student has on screen, in each language."""

from __future__ import annotations

import re

import pytest

import attention
from app_driver import apptest
from app_driver.apptest import run_page
from attention.lessons import context
from tests.test_chapters import markdown, page
from ui import figures
from ui.session import opening, state


@pytest.mark.parametrize("code", ["fr", "ko"])
def test_4_context_parts_the_word_on_each_languages_default_model(code):
    """Each language's pair, its context before the word, on the model a session in that language opens on:
    the word's two vectors part (a decoder reading the context after the word would keep them identical)."""
    pair = context.PAIRS[code]
    _sentence, name = opening.opening(code)
    at = run_page(page("context"), lang=code, model=name)
    assert not at.exception
    shift = context.context_shift(attention.load_model(name), pair.word, list(pair.sentences), list(pair.references))
    assert shift.parted and shift.across.min() < 0.8, shift.across  # visibly apart, not 0.99
    assert shift.across[0] == pytest.approx(1.0, abs=1e-4)  # the same token before the first layer
    assert pair.sentences[0] in markdown(at)  # the prose names the pair the chart shows
    final = apptest.table(at, "context_final_cosines")
    assert list(final[next(iter(final))]) == list(pair.sentences)


@pytest.mark.parametrize("code", ["fr", "ko"])
def test_each_languages_examples_are_common_words_that_tokenize_cleanly(code):
    """The examples a session in this language offers, on the model it opens on: French words whole (at most one
    word in four cut in two), Korean 어절 in at most two or three pieces each on average (a stem, its particle)."""
    _sentence, name = opening.opening(code)
    model = attention.load_model(name)
    for sentence in opening.EXAMPLES_IN[code]:
        tokens = [t for t in attention.trace(model, sentence).tokens if not t.is_special]
        words = re.findall(r"\w+|[^\w\s]", sentence)  # an elided l' or qu' is a word and its apostrophe
        assert len(tokens) <= (1.25 if code == "fr" else 2.5) * len(words), (sentence, [t.text for t in tokens])


def _labels(model: attention.Model, text: str) -> set[str]:
    """The tokens of a text as the charts name them (a repeated one with its position)."""
    return set(figures.token_labels([t.display for t in attention.trace(model, text).tokens], escaped=False))


@pytest.mark.parametrize("code", ["fr", "ko"])
@pytest.mark.parametrize("name", ["values", "cross_attention"])
def test_the_exercises_name_only_words_on_screen_in_each_language(code, name):
    """Chapters 9 and 12 on a French or Korean session's opening: every token the exercise names is a token of the
    sentences shown, and no English word of the notes' sentence ("creature", "fluffy", "forest") is asked for."""
    sentence, model = opening.opening(code)
    at = run_page(page(name), lang=code, model=model)
    assert not at.exception
    exercise = markdown(at)
    named = re.findall(r"`([^`]+)`", exercise)  # the pages name a token of the sentence in a code span
    assert named, exercise
    loaded = attention.load_model(model)
    shown = _labels(loaded, sentence) | {sentence}
    if name == "cross_attention":
        shown |= _labels(loaded, state.CROSS_SOURCE) | {state.CROSS_SOURCE}
    for token in named:
        assert token in shown, (token, exercise)
    for english in ("creature", "fluffy"):  # the notes' words; "forest" is chapter 12's English source's
        assert english not in exercise
    if name == "cross_attention":  # a translation: the English source above its French or Korean target
        assert state.CROSS_SOURCE in at.text_input(key="w:cr_source").value
        assert sentence in markdown(at)


def test_a_sentence_in_another_language_reads_as_not_english_and_an_english_one_does_not():
    from ui.kit.notices import looks_not_english

    assert looks_not_english("un petit animal bleu vivait dans la forêt verte")
    assert looks_not_english("l'animal n'a pas traversé la rue parce qu'il était trop fatigué")
    assert looks_not_english("el gato negro duerme en el sofá")  # Spanish
    assert looks_not_english("die kleine Katze schläft auf dem Sofa")  # German
    assert not looks_not_english("a fluffy blue creature roamed the verdant forest")
    assert not looks_not_english("the café on the corner")  # one accented loan word does not tip an English sentence
    assert not looks_not_english("대한민국의 수도는")


@pytest.mark.parametrize("model", ["all-MiniLM-L6-v2", "smollm2"])
def test_french_on_an_english_only_model_gets_the_notice_and_gemma_does_not(model):
    """fr19 / fr38: MiniLM and SmolLM2 were trained on English: a French sentence on them is said so, with the
    multilingual model one click away; the same sentence on Gemma 3 is not."""
    text = "un petit animal bleu vivait dans la forêt verte"
    at = run_page(text=text, model=model)
    assert "trained on English text only" in apptest.messages(at)
    assert any(b.key == "w:unread" for b in at.button)
    gemma = run_page(text=text, model="gemma3")
    assert "trained on English text only" not in apptest.messages(gemma)
    english = run_page(text="a fluffy blue creature roamed the verdant forest", model=model)
    assert "trained on English text only" not in apptest.messages(english)
    spanish = run_page(text="el gato negro duerme en el sofá de la casa", model=model)
    assert "trained on English text only" in apptest.messages(spanish)


@pytest.mark.parametrize("code", ["fr", "ko"])
def test_chapter_5_says_who_reads_whom_when_the_adjective_follows_the_noun(code):
    """fr31: on a causal decoder, « bleu » after « animal » cannot be read by it; the page says so with the weights
    of the head shown, computed (0 by the mask one way, the adjective's weight on the noun the other)."""
    from attention.lessons import word_order

    sentence, name = opening.opening(code)
    at = run_page(page("queries_keys"), lang=code, model=name)
    assert not at.exception
    noun, adjectives = word_order.NOUN_ADJECTIVES[code]
    tr = attention.trace(attention.load_model(name), sentence, mask="causal")
    reads = word_order.adjective_reads(tr, 0, 0, noun, adjectives)
    assert [r.after for r in reads] == ([False, True] if code == "fr" else [False, False])
    for r in reads:
        assert (r.adjective_on_noun if not r.after else r.noun_on_adjective) == 0.0  # the mask: the later is unseen
        assert r.best_weight >= (r.adjective_on_noun if r.after else r.noun_on_adjective)
    text = markdown(at)
    assert all(r.adjective in text for r in reads)
    if code == "fr":
        bleu = reads[1]
        assert "l’ordre des mots change le tableau" in text
        assert f"{bleu.adjective_on_noun:.3f}".replace(".", ",") in text


def test_chapter_2s_english_sentences_are_glossed_on_french_and_korean_pages():
    """ko31: the notes' sentence and the distance experiment, which the model reads in English, are translated
    beside them on a French or Korean page, and only there."""
    from attention.lessons import motivation
    from ui.words import i18n

    for code in ("fr", "ko"):  # the page's gloss is the catalogue's translation of the very sentence the model reads
        assert i18n.gettext(code, motivation.NOTES_SENTENCE) != motivation.NOTES_SENTENCE
    english = run_page(page("why_attention"))
    assert "In your language" not in " ".join(c.value for c in english.caption)
    for code, word in (("fr", "pomme"), ("ko", "사과")):
        at = run_page(page("why_attention"), lang=code)
        captions = " ".join(c.value for c in at.caption)
        assert word in captions, captions
