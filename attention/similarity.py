"""Chapters 1 and 2: how alike two vectors are, and the lesson notes' hand-made embedding.

The notes describe five words with three features (tech, fruitness, other) and build a new
embedding for each word from its similarities to the others, first with the similarities
normalized to sum to 1, then with a softmax.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import ops

FEATURES = ("tech", "fruitness", "other")
# The notes' table: each word's coordinates on the three features.
TOY_EMBEDDING = {
    "orange": (0.0, 3.0, 0.0),
    "phone": (4.0, 0.0, 0.0),
    "apple": (2.0, 2.0, 0.0),
    "and": (0.0, 0.0, 2.0),
    "an": (0.0, 0.0, 3.0),
}


# What the notes print for the softmax weights of "an apple and an orange" (orange, apple, and, an).
# Their "and" and "an" rows sum to 1.3: they cannot be softmax outputs; the exact ones are computed by `mix`.
NOTES_SOFTMAX_WEIGHTS = np.array(
    [
        [0.4, 0.3, 0.15, 0.15],
        [0.3, 0.4, 0.15, 0.15],
        [0.15, 0.15, 0.5, 0.5],
        [0.15, 0.15, 0.5, 0.5],
    ]
)


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


def mix(words: list[str], how: str = "softmax") -> Mixing:
    """New embeddings from the cosine table of the sentence's distinct words.

    how: "normalized" divides each row by its sum; "softmax" takes the softmax of each row.
    """
    unique = list(dict.fromkeys(words))
    scores = cosine_table(unique)
    if how == "normalized":
        weights = scores / scores.sum(axis=1, keepdims=True)
    elif how == "softmax":
        weights = ops.softmax(scores, axis=1)
    else:
        raise ValueError(f"Unknown normalization '{how}': choose normalized or softmax.")
    return Mixing(words=tuple(unique), scores=scores, weights=weights, new_vectors=weights @ toy_vectors(unique))
