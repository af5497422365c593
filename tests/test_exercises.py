"""Issue 37: every exercise, example and question works on what the student has on screen, in each language."""

from __future__ import annotations

import re

import pytest

import attention
from attention.lessons import context
from tests import apptest
from tests.apptest import run_page
from tests.test_chapters import markdown, page
from ui import state


@pytest.mark.parametrize("code", ["fr", "ko"])
def test_4_context_parts_the_word_on_each_languages_default_model(code):
    """Each language's pair, its context before the word, on the model a session in that language opens on:
    the word's two vectors part (a decoder reading the context after the word would keep them identical)."""
    pair = context.PAIRS[code]
    _sentence, name = state.opening(code)
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
    _sentence, name = state.opening(code)
    model = attention.load_model(name)
    for sentence in state.EXAMPLES_IN[code]:
        tokens = [t for t in attention.trace(model, sentence).tokens if not t.is_special]
        words = re.findall(r"\w+|[^\w\s]", sentence)  # an elided l' or qu' is a word and its apostrophe
        assert len(tokens) <= (1.25 if code == "fr" else 2.5) * len(words), (sentence, [t.text for t in tokens])
