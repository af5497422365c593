"""The same word, two sentences, two meanings, measured on the real model."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import ops
from ..model import Model
from ..trace import trace


@dataclass(frozen=True)
class Pair:
    """A word that means two things, two sentences that each give it one meaning with the context BEFORE the
    word (so a decoder, which reads only what comes before, sees it too), and a reference word for each meaning."""

    word: str
    sentences: tuple[str, str]
    references: tuple[str, str]


# One pair per language, checked on that language's default model (tests/test_chapters.py): the word's two
# vectors part after the first layers.
PAIRS = {
    "en": Pair("apple", ("an orange and an apple", "a phone made by apple"), ("orange", "phone")),
    "fr": Pair("avocat", ("J’ai mangé un avocat", "J’ai consulté un avocat"), ("banane", "juge")),
    "ko": Pair("배", ("과일 가게에서 배", "바다에서 배"), ("사과", "보트")),
}


def pair(code: str) -> Pair:
    """The pair a page in this language shows, English's when the language has none."""
    return PAIRS.get(code, PAIRS["en"])


@dataclass(frozen=True)
class ContextShift:
    word: str
    sentences: tuple[str, ...]
    references: tuple[str, ...]
    similarity: np.ndarray  # (n_layers + 1, n_sentences, n_references): cos(word in sentence, reference alone)
    across: np.ndarray  # (n_layers + 1,): cos(word in the first sentence, word in the second), layer by layer

    @property
    def layers(self) -> np.ndarray:
        """0, 1, …, n_layers: 0 is the input embeddings, before any layer."""
        return np.arange(self.similarity.shape[0])

    @property
    def final(self) -> np.ndarray:
        """(n_sentences, n_references): the similarities after the last layer."""
        return self.similarity[-1]

    @property
    def nearer(self) -> tuple[str, ...]:
        """For each sentence, the reference the word ends up closest to."""
        return tuple(self.references[int(np.argmax(row))] for row in self.final)

    @property
    def lean(self) -> np.ndarray:
        """(n_sentences,): after the last layer, how much nearer the first reference than the second the word
        is in each sentence (a difference of cosines): the sentence with the larger lean pulls it more toward
        the first reference."""
        return self.final[:, 0] - self.final[:, 1]

    @property
    def parted(self) -> bool:
        """Whether the two sentences' words are different vectors at some layer (a decoder's are not when the
        words that differ come after the word)."""
        return bool(np.any(self.across < 1 - 1e-4))

    @property
    def widest(self) -> int:
        """The layer where the word's two vectors are furthest apart."""
        return int(np.argmin(self.across))


def _position(tr, word: str) -> int:
    """The token that ends the word's first whole-word appearance in the text: for a decoder, the one
    that has read all of it."""
    for m in re.finditer(rf"\b{re.escape(word)}\b", tr.text):
        last = m.end() - 1
        for t in tr.tokens:
            if not t.is_special and t.start <= last < t.end:
                return t.position
    raise ValueError(f"“{word}” is not a word of “{tr.text}”.")


# Before a reference word, where the model adds no start token: a decoder parks its attention on a text's first
# place, whose vector grows far from every other's; a line break takes that place, so that the word is read as a
# word, not as the first place (without it SmolLM2's "orange" and "phone" are one vector from layer 3 on).
FIRST_PLACE = "\n"


def shared_mean(traces, first: bool = True) -> np.ndarray:
    """(n_layers + 1, d_model): at every layer, the mean vector of every token of these texts (special tokens
    left out, and each text's first token unless `first`). Every token's vector drifts toward one shared direction
    from layer to layer, a decoder's most of all, which pushes every plain cosine toward 1; subtracting this mean
    leaves what sets the tokens apart."""
    vectors = [
        tr.hidden[:, [t.position for t in tr.tokens if not t.is_special and (first or t.position > 0)]] for tr in traces
    ]
    return np.concatenate(vectors, axis=1).mean(axis=1)


def context_shift(model: Model, word: str, sentences: Sequence[str], references: Sequence[str]) -> ContextShift:
    """Mean-centred cosine similarity, at every layer, between `word`'s embedding inside each sentence and each
    reference word's embedding when that word is run through the model on its own; and between the word's
    embeddings in the first two sentences. Every vector has the mean of all these texts' tokens, at its layer,
    subtracted first (`shared_mean`). Where the model adds no start token, each reference word comes after a line
    break (FIRST_PLACE) and no text's first token counts in the mean."""
    bare = not model.config.start_token  # a text's first place is one of its own tokens
    traces = [trace(model, s) for s in sentences]
    ref_traces = [trace(model, (FIRST_PLACE if bare else "") + r) for r in references]
    mean = shared_mean([*traces, *ref_traces], first=not bare)
    words = [tr.hidden[:, _position(tr, word)] - mean for tr in traces]  # each (n_layers + 1, d_model)
    refs = [tr.hidden[:, _position(tr, r)] - mean for tr, r in zip(ref_traces, references, strict=True)]
    sim = np.array([[ops.cosine(w, ref) for ref in refs] for w in words])  # (n_sentences, n_refs, n_layers + 1)
    across = ops.cosine(words[0], words[1])  # (n_layers + 1,)
    return ContextShift(
        word=word,
        sentences=tuple(sentences),
        references=tuple(references),
        similarity=np.moveaxis(sim, -1, 0),
        across=across,
    )
