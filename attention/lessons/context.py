"""The same word, two sentences, two meanings, measured on the real model."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .. import ops
from ..model import Model
from ..trace import trace


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


def _position(tr, word: str) -> int:
    """The token that ends the word's first whole-word appearance in the text: for a decoder, the one
    that has read all of it."""
    for m in re.finditer(rf"\b{re.escape(word)}\b", tr.text):
        last = m.end() - 1
        for t in tr.tokens:
            if not t.is_special and t.start <= last < t.end:
                return t.position
    raise ValueError(f"“{word}” is not a word of “{tr.text}”.")


def context_shift(model: Model, word: str, sentences: list[str], references: list[str]) -> ContextShift:
    """Cosine similarity, at every layer, between `word`'s embedding inside each sentence and each
    reference word's embedding when that word is run through the model on its own; and between the word's
    embeddings in the first two sentences."""
    traces = [trace(model, s) for s in sentences]
    words = [tr.hidden[:, _position(tr, word)] for tr in traces]  # each (n_layers + 1, d_model)
    refs = []
    for r in references:
        tr = trace(model, r)
        refs.append(tr.hidden[:, _position(tr, r)])
    sim = np.array([[ops.cosine(w, ref) for ref in refs] for w in words])  # (n_sentences, n_refs, n_layers + 1)
    across = ops.cosine(words[0], words[1])  # (n_layers + 1,)
    return ContextShift(
        word=word,
        sentences=tuple(sentences),
        references=tuple(references),
        similarity=np.moveaxis(sim, -1, 0),
        across=across,
    )
