"""A decoder predicts the next token at every position of a passage in one pass: the reason for its mask.

In training, each position's prediction is scored against the token that really comes next, so one
passage of n tokens is n − 1 lessons at once. That only works because the causal mask keeps each
position from seeing the token it must predict. After the final LayerNorm, a position's scores over
the vocabulary are its vector times the token embeddings (GPT-2's output head is W_E itself):
logits = final W_Eᵀ.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import ops
from ..model import Model
from ..trace import Prediction, Trace

# The lesson notes' worked scores for the word after "the fluffy": raw scores (logits), before any softmax.
NOTES_CANDIDATES = {"dog": 4.1, "cat": 3.1, "bluebird": 5.1, "creature": 5.1, "animal": 5.5}
ROWS_AT_ONCE = 64  # logits for 64 positions × 50,257 tokens at a time: 13 MB, not n × 50,257 at once


@dataclass(frozen=True)
class EveryNextToken:
    """At each position, the model's best guesses for the token after it, and how likely it found the real one."""

    guesses: tuple[tuple[Prediction, ...], ...]  # (n_tokens,) of (top,): best first
    actual_probability: np.ndarray  # (n_tokens - 1,): at position i, the probability given to token i + 1

    @property
    def top1_ids(self) -> np.ndarray:
        return np.array([g[0].id for g in self.guesses])

    @property
    def loss(self) -> float:
        """The training loss on this passage: the mean of −ln p(the real next token) over its positions."""
        return float(-np.log(self.actual_probability).mean()) if self.actual_probability.size else float("nan")

    def hits(self, ids: list[int]) -> np.ndarray:
        """(n_tokens - 1,): whether position i's best guess is the token that really comes next."""
        return self.top1_ids[:-1] == np.asarray(ids[1:])


def every_next_token(model: Model, tr: Trace, top: int = 3) -> EveryNextToken:
    """Each position's `top` next-token guesses (softmax of final W_out) and the real next token's probability.

    Raises ValueError for an encoder: it has no output head that predicts a next token."""
    if tr.final is None:
        raise ValueError(f"{tr.model_name} is an encoder: it has no head that predicts the next token.")
    ids = [t.id for t in tr.tokens]
    guesses, actual = [], []
    for start in range(0, tr.n_tokens, ROWS_AT_ONCE):
        rows = slice(start, start + ROWS_AT_ONCE)
        logits = model.logits(tr.final[rows])  # (rows, vocab_size), in float32 as the model computes it
        probabilities = ops.softmax(logits.astype(np.float64))
        for offset, p in enumerate(probabilities):
            i = start + offset
            best = np.argsort(-p, kind="stable")[:top]
            guesses.append(tuple(Prediction(model.vocabulary[j], int(j), float(p[j])) for j in best))
            if i + 1 < len(ids):
                actual.append(float(p[ids[i + 1]]))
    return EveryNextToken(guesses=tuple(guesses), actual_probability=np.array(actual))


def candidate_probabilities(scores: dict[str, float]) -> dict[str, float]:
    """The softmax of a few candidates' scores: each next word's probability among them."""
    p = ops.softmax(np.array(list(scores.values()), dtype=float))
    return dict(zip(scores, (float(v) for v in p), strict=True))
