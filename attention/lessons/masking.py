"""Chapter 8: the lesson notes' worked example of masking and a column-wise softmax.

The notes draw keys as rows and queries as columns, so each column is one query's scores and
the softmax runs down each column. Their hand-rounded answers are kept here only to show where
they differ from the exact ones.
"""

from __future__ import annotations

import numpy as np

from .. import ops

NEG_INF = -np.inf
# Keys are rows, queries are columns; −∞ below the diagonal: a key after its query is masked.
NOTES_SCORES = np.array(
    [
        [3.5, 0.8, 1.9, 4.4],
        [NEG_INF, -0.3, -0.2, 0.8],
        [NEG_INF, NEG_INF, 0.99, 0.67],
        [NEG_INF, NEG_INF, NEG_INF, 1.31],
    ]
)
NOTES_ROUNDED = np.array(  # what the notes wrote for the softmax, rounded by hand
    [
        [1.0, 0.75, 0.69, 0.92],
        [0.0, 0.25, 0.08, 0.02],
        [0.0, 0.0, 0.24, 0.02],
        [0.0, 0.0, 0.0, 0.04],
    ]
)
NOTES_SMALL_EXAMPLE = np.array([10.0, 20.0, 10.0])  # the notes write softmax of this as (0.33, 0.67, 0)


def column_softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax down each column (the notes' layout: each column is a query). A column with every key
    masked has no weights: NaN, which `unseeing_queries` names."""
    with np.errstate(invalid="ignore"):
        return ops.softmax(np.asarray(scores, dtype=float), axis=0)


def causal_mask_notes(n: int) -> np.ndarray:
    """In the notes' layout (keys rows, queries columns) the mask hides keys after the query: below the diagonal."""
    return ops.causal_mask(n).T


def additive_mask(n: int) -> np.ndarray:
    """The mask M that is added to the scores (rows are queries): 0 where a query may look, −∞ at a later key.
    The same M as in w = softmax(s + M); a 0/1 mask is another object and is never drawn."""
    return np.where(ops.causal_mask(n), NEG_INF, 0.0)


def apply_notes_mask(scores: np.ndarray) -> np.ndarray:
    scores = np.asarray(scores, dtype=float)
    return ops.apply_mask(scores, causal_mask_notes(scores.shape[0]))


def parse_score(text: str) -> float:
    """A score typed into the table: a number, or −∞ written as "−∞", "-inf" or "-infinity"."""
    t = str(text).strip().replace("−", "-").replace("∞", "inf").lower()
    if t in ("-inf", "-infinity"):
        return NEG_INF
    value = float(t)  # raises ValueError on anything else
    if not np.isfinite(value):
        raise ValueError(f"“{text}” is not a score: type a number, or −∞ for a masked one.")
    return value


def format_score(value: float) -> str:
    """A score as the table shows it: −∞ for a masked one, as the notes write it."""
    return "−∞" if np.isneginf(value) else f"{value:g}"


def is_worked_example(scores: np.ndarray) -> bool:
    """Whether a (possibly edited) table still holds the notes' own scores, so their answers apply."""
    scores = np.asarray(scores, dtype=float)
    return bool(np.array_equal(np.isneginf(scores), np.isneginf(NOTES_SCORES)) and np.allclose(scores, NOTES_SCORES))


def notes_slips(weights: np.ndarray, decimals: int = 2) -> list[tuple[int, int, float, float]]:
    """Where the notes' hand-rounded softmax differs from the exact one rounded as they round:
    (key, query, notes, exact), 0-based, in the notes' layout (keys are rows)."""
    exact = np.round(np.asarray(weights, dtype=float), decimals)
    return [
        (int(k), int(q), float(NOTES_ROUNDED[k, q]), float(weights[k, q]))
        for k, q in zip(*np.nonzero(~np.isclose(exact, NOTES_ROUNDED)), strict=True)
    ]


def unseeing_queries(weights: np.ndarray) -> list[int]:
    """The queries (columns) whose every key is masked: no weights at all, since the softmax of only −∞ is 0/0."""
    return [int(q) for q in np.nonzero(np.isnan(np.asarray(weights, dtype=float)).all(axis=0))[0]]


def column_sums(weights: np.ndarray) -> np.ndarray:
    """Each query's weights added up: 1 for every column of a softmax down the columns."""
    return np.asarray(weights).sum(axis=0)


def small_example_softmax() -> np.ndarray:
    """softmax(10, 20, 10), exactly: the notes' (0.33, 0.67, 0) is not what it gives."""
    return ops.softmax(NOTES_SMALL_EXAMPLE)
