"""Chapters on similarity and context: how alike two vectors are, and the lesson notes' hand-made embedding.

The notes describe five words with three features (tech, fruitness, other) and build a new
embedding for each word from its similarities to the others. Their "scaling" slide turns each
word's similarities into weights with a softmax over the words it is related to (its non-zero
cosines); their value-matrix slide takes the softmax over every distinct word of the sentence (its table lists
"an" once, though the sentence has it twice, and so does `mix`). Dividing by
the sum is the third way a reader might expect; all three are here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import ops

FEATURES = ("tech", "fruitness", "other")
# The notes' table: each word's coordinates on the three features.
TOY_EMBEDDING = {
    "orange": (0.0, 3.0, 0.0),
    "phone": (4.0, 0.0, 0.0),
    "apple": (2.0, 2.0, 0.0),
    "and": (0.0, 0.0, 2.0),
    "an": (0.0, 0.0, 3.0),
}


# The slides' angle examples: cos 14° = 0.97, cos 76° = 0.24, cos 90° = 0, as they round them.
NOTES_ANGLES = {14: 0.97, 76: 0.24, 90: 0.0}


def cosine_of_angle(degrees: float) -> float:
    """The cosine similarity of two vectors the given angle apart, exactly."""
    return float(np.cos(np.radians(degrees)))


# The notes' scaling slide: "Orange → 0.57 Orange + 0.43 Apple" (and the same for apple and phone).
NOTES_RELATED_WEIGHTS = (0.57, 0.43)
# Each way of turning similarities into weights, as it is named on screen.
WEIGHTINGS = {
    "normalized": "divided by the sum",
    "softmax_related": "softmax over the related words",
    "softmax": "softmax over every distinct word",
}


def dot(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b))


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float(ops.cosine(np.asarray(a, float), np.asarray(b, float)))


def euclidean(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(np.asarray(a, float) - np.asarray(b, float)))


def angle_degrees(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.degrees(np.arccos(np.clip(cosine(a, b), -1.0, 1.0))))


def toy_vectors(words: list[str]) -> np.ndarray:
    """(n_words, 3): the hand-made embedding of each word (a word not in the table raises KeyError)."""
    return np.array([TOY_EMBEDDING[w] for w in words], dtype=float)


def cosine_table(words: list[str]) -> np.ndarray:
    """(n_words, n_words): the cosine similarity of every pair of the words' toy vectors."""
    return ops.cosine_matrix(toy_vectors(words))


@dataclass(frozen=True)
class Mixing:
    """Each word's new embedding as a weighted sum of the sentence's words: new = weights @ vectors."""

    words: tuple[str, ...]
    scores: np.ndarray  # (n, n): the similarities the weights come from
    weights: np.ndarray  # (n, n): each row sums to 1
    new_vectors: np.ndarray  # (n, 3)


def row_weights(scores: np.ndarray, how: str) -> np.ndarray:
    """Each row of similarities turned into weights that sum to 1.

    how: "softmax" over every (distinct) word; "softmax_related" over the words with a non-zero similarity only
    (the others get exactly 0, as on the notes' scaling slide); "normalized" divides by the row's sum.
    """
    scores = np.asarray(scores, dtype=float)
    if how == "normalized":
        return scores / scores.sum(axis=1, keepdims=True)
    if how == "softmax":
        return ops.softmax(scores, axis=1)
    if how == "softmax_related":
        return ops.softmax(ops.apply_mask(scores, np.isclose(scores, 0.0)), axis=1)
    raise ValueError(f"Unknown normalization '{how}': choose one of {', '.join(WEIGHTINGS)}.")


def mix(words: list[str], how: str = "softmax") -> Mixing:
    """New embeddings from the cosine table of the sentence's distinct words (how: see `row_weights`)."""
    unique = list(dict.fromkeys(words))
    scores = cosine_table(unique)
    weights = row_weights(scores, how)
    return Mixing(words=tuple(unique), scores=scores, weights=weights, new_vectors=weights @ toy_vectors(unique))


@dataclass(frozen=True)
class NotesCheck:
    """One way of weighting, applied to orange's row of "an apple and an orange", beside the notes' 0.57 / 0.43."""

    how: str
    orange: float  # the weight orange gives itself
    apple: float  # the weight orange gives apple

    @property
    def matches_notes(self) -> bool:
        """Whether this way, rounded to two decimals as the notes round, gives their 0.57 and 0.43."""
        return (round(self.orange, 2), round(self.apple, 2)) == NOTES_RELATED_WEIGHTS


def notes_check() -> tuple[NotesCheck, ...]:
    """Orange's weights for itself and apple under every way of weighting, exactly."""
    out = []
    for how in WEIGHTINGS:
        m = mix(["an", "apple", "and", "an", "orange"], how)
        row = m.weights[m.words.index("orange")]
        out.append(NotesCheck(how, float(row[m.words.index("orange")]), float(row[m.words.index("apple")])))
    return tuple(out)


@dataclass(frozen=True)
class SymmetricScores:
    """One projection for queries and keys makes the scores symmetric, s_ij = s_ji; the softmax still normalises
    each row on its own, so the weights w_ij and w_ji differ wherever rows i and j have different totals."""

    words: tuple[str, ...]
    scores: np.ndarray  # (n, n): symmetric
    weights: np.ndarray  # (n, n): each row's softmax; not symmetric

    def pair(self, a: str, b: str) -> tuple[float, float, float]:
        """The score of a and b (either way), a's weight on b, and b's weight on a."""
        i, j = self.words.index(a), self.words.index(b)
        return float(self.scores[i, j]), float(self.weights[i, j]), float(self.weights[j, i])


def symmetric_scores(words: tuple[str, ...] = ("orange", "apple", "and", "an")) -> SymmetricScores:
    """The notes' cosine table (a symmetric score table, as one shared projection would give) and its row softmax."""
    m = mix(list(words), "softmax")
    return SymmetricScores(words=m.words, scores=m.scores, weights=m.weights)


def token_softmax_row(words: list[str], word: str) -> dict[str, float]:
    """One word's softmax weights over every token of the sentence, a repeated word counted at each of its places
    (as attention over tokens counts it), summed per distinct word."""
    vectors = toy_vectors(words)
    row = ops.softmax(ops.cosine_matrix(vectors)[words.index(word)])
    out: dict[str, float] = {}
    for w, weight in zip(words, row, strict=True):
        out[w] = out.get(w, 0.0) + float(weight)
    return out
