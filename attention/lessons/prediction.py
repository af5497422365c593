"""A decoder predicts the next token at every position of a passage in one pass: the reason for its mask.

In training, each position's prediction is scored against the token that really comes next, so one
passage of n tokens is n − 1 lessons at once. That only works because the causal mask keeps each
position from seeing the token it must predict. After the final LayerNorm, a position's scores over
the vocabulary are its vector times the token embeddings (GPT-2's output head is W_E itself):
logits = final W_Eᵀ.

Some tokens of a vocabulary write no text (the tokenizer's control tokens and tags, text_tokens): the guesses a
page offers as "the next word" are text tokens, their probabilities renormalised over the text tokens, beside the
share the others take. The loss stays the model's own, over its whole vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import ops, text_tokens
from ..model import Model
from ..traced import Prediction, Trace

# The lesson notes' worked scores for the word after "the fluffy": raw scores (logits), before any softmax.
NOTES_CANDIDATES = {"dog": 4.1, "cat": 3.1, "bluebird": 5.1, "creature": 5.1, "animal": 5.5}
ROWS_AT_ONCE = 64  # logits for 64 positions × 50,257 tokens at a time: 13 MB, not n × 50,257 at once


@dataclass(frozen=True)
class NextWords:
    """One next-token distribution read as text: its likeliest text tokens, and what the set-apart tokens take."""

    text: tuple[Prediction, ...]  # the likeliest text tokens, best first; probability renormalised over text tokens
    set_apart: tuple[Prediction, ...]  # set-apart tokens among the model's own `top` likeliest, its probability
    set_apart_share: float  # the model's total probability on every set-apart token (text_tokens: CONTROL, MARKUP)


def next_words(probabilities: np.ndarray, kinds: np.ndarray, vocabulary: tuple[str, ...], top: int) -> NextWords:
    """The `top` likeliest text tokens of one distribution (vocab_size,), their probabilities renormalised over the
    text tokens, beside the set-apart tokens the model itself ranks among its `top` likeliest."""
    text = text_tokens.renormalised(probabilities, kinds)
    best, own = likeliest(text, top), likeliest(probabilities, top)
    return NextWords(
        text=tuple(Prediction(vocabulary[j], int(j), float(text[j])) for j in best),
        set_apart=tuple(
            Prediction(vocabulary[j], int(j), float(probabilities[j])) for j in own if kinds[j] != text_tokens.TEXT
        ),
        set_apart_share=float(probabilities[kinds != text_tokens.TEXT].sum()),
    )


def likeliest(p: np.ndarray, top: int) -> np.ndarray:
    """The ids of the `top` largest of p, largest first (a tie by the smaller id), without sorting all of p."""
    if top >= p.size:
        return np.argsort(-p, kind="stable")
    kept = np.argpartition(-p, top - 1)[:top]
    return kept[np.lexsort((kept, -p[kept]))]


def next_words_after(model: Model, tr: Trace, top: int = 10, temperature: float = 1.0) -> NextWords:
    """The next word after the trace's last token: softmax(logits / temperature), read as text (next_words)."""
    if tr.next_logits is None:
        raise ValueError(f"{tr.model_name} is an encoder: it has no head that predicts the next token.")
    if not temperature > 0:
        raise ValueError("The temperature must be above 0.")
    probabilities = ops.softmax(tr.next_logits.astype(np.float64) / temperature)
    return next_words(probabilities, model.token_kinds, model.vocabulary, top)


@dataclass(frozen=True)
class EveryNextToken:
    """At each position, the model's best guesses among text tokens for the token after it, how likely it found
    the real one, and what the tokenizer's set-apart tokens took."""

    guesses: tuple[tuple[Prediction, ...], ...]  # (n_tokens,) of (top,): text tokens, best first, renormalised
    actual_probability: np.ndarray  # (n_tokens - 1,): at position i, the model's probability of token i + 1
    actual_text_probability: np.ndarray  # (n_tokens - 1,): the same, renormalised over text tokens
    set_apart_share: np.ndarray  # (n_tokens,): the model's total probability on set-apart tokens, at each position
    set_apart_best: tuple[Prediction, ...]  # (n_tokens,): each position's likeliest set-apart token, its probability

    @property
    def top1_ids(self) -> np.ndarray:
        return np.array([g[0].id for g in self.guesses])

    @property
    def loss(self) -> float:
        """The training loss on this passage: the mean of −ln p(the real next token) over its positions, p the
        model's own distribution over its whole vocabulary."""
        return float(-np.log(self.actual_probability).mean()) if self.actual_probability.size else float("nan")

    @property
    def text_loss(self) -> float:
        """The same mean with each p renormalised over text tokens: never above the loss."""
        return float(-np.log(self.actual_text_probability).mean()) if self.actual_probability.size else float("nan")

    @property
    def set_apart_first(self) -> np.ndarray:
        """(n_tokens,): whether a set-apart token is the model's own likeliest next token there (above the best text
        token's own probability, its renormalised one times the text tokens' share)."""
        return np.array(
            [
                apart.probability > words[0].probability * (1 - share)
                for apart, words, share in zip(self.set_apart_best, self.guesses, self.set_apart_share, strict=True)
            ]
        )

    def hits(self, ids: list[int]) -> np.ndarray:
        """(n_tokens - 1,): whether position i's best text guess is the token that really comes next."""
        return self.top1_ids[:-1] == np.asarray(ids[1:])


def every_next_token(model: Model, tr: Trace, top: int = 3) -> EveryNextToken:
    """Each position's `top` next-token guesses among text tokens (softmax of final W_out, renormalised over the
    text tokens), the real next token's probability, and the share the set-apart tokens took.

    Raises ValueError for an encoder: it has no output head that predicts a next token."""
    if tr.final is None:
        raise ValueError(f"{tr.model_name} is an encoder: it has no head that predicts the next token.")
    ids = [t.id for t in tr.tokens]
    kinds, apart = model.token_kinds, np.flatnonzero(model.token_kinds != text_tokens.TEXT)
    guesses, actual, actual_text, shares, best_apart = [], [], [], [], []
    for start in range(0, tr.n_tokens, ROWS_AT_ONCE):
        rows = slice(start, start + ROWS_AT_ONCE)
        logits = model.logits(tr.final[rows])  # (rows, vocab_size), in float32 as the model computes it
        probabilities = ops.softmax(logits.astype(np.float64))
        for offset, p in enumerate(probabilities):
            i = start + offset
            words = next_words(p, kinds, model.vocabulary, top)
            guesses.append(words.text)
            shares.append(words.set_apart_share)
            j = int(apart[np.argmax(p[apart])]) if apart.size else int(np.argmax(p))
            best_apart.append(Prediction(model.vocabulary[j], j, float(p[j]) if apart.size else 0.0))
            if i + 1 < len(ids):
                actual.append(float(p[ids[i + 1]]))
                text_total = 1.0 - words.set_apart_share
                actual_text.append(float(p[ids[i + 1]]) / text_total if kinds[ids[i + 1]] == text_tokens.TEXT else 0.0)
    return EveryNextToken(
        guesses=tuple(guesses),
        actual_probability=np.array(actual),
        actual_text_probability=np.array(actual_text),
        set_apart_share=np.array(shares),
        set_apart_best=tuple(best_apart),
    )


def candidate_probabilities(scores: dict[str, float]) -> dict[str, float]:
    """The softmax of a few candidates' scores: each next word's probability among them."""
    p = ops.softmax(np.array(list(scores.values()), dtype=float))
    return dict(zip(scores, (float(v) for v in p), strict=True))
