"""The numbers behind the computed questions of chapters 2 to 5: each right answer by the lesson's formula, beside
the mistakes a student plausibly makes, every option computed from the same numbers.

Options are plain numbers (or layers), the right one first; the page writes them in its language, with
`written_apart` choosing as few decimals as keep them apart."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .options import Options


def written_apart(write: Callable[[float, int], str], values: Sequence[float], least: int, most: int = 6) -> list[str]:
    """The values written by `write(value, digits)` with the fewest digits, from `least` on, at which they all read
    differently (at `most` if none does)."""
    for digits in range(least, most + 1):
        out = [write(v, digits) for v in values]
        if len(set(out)) == len(out):
            return out
    return out


# --- chapter 2: what is left of a word in a recurrent state ------------------------------------------------


def recurrent_options(apart: int, apart_shown: int, keep: float) -> Options:
    """A word read `apart` steps back makes up (1 − λ) λ^apart of a leaky recurrent state (λ = keep). Wrong: λ^apart,
    the share it entered with, 1 − λ, left out; (1 − λ) λ^(apart + 1), both words counted as steps, the first and the
    last; (1 − λ) λ^apart_shown, the share at the word the page's metric names instead. (Not λ^(apart − 1) beside
    λ^apart: at λ = 0.5, (1 − λ) λ^(apart − 1) is λ^apart.)"""
    entry = 1.0 - keep
    return Options(
        entry * keep**apart,
        (keep**apart, entry * keep ** (apart + 1), entry * keep**apart_shown),
    )


# --- chapter 3: the three measures are tied by the two lengths ----------------------------------------------


def distance_options(a: np.ndarray, b: np.ndarray) -> Options:
    """‖a − b‖ from the two lengths and the dot product, ‖a − b‖² = ‖a‖² + ‖b‖² − 2 a·b. Wrong: the sign of the
    dot product's term flipped (that is ‖a + b‖); the square root forgotten; the lengths subtracted, |‖a‖ − ‖b‖|,
    which is the distance only when the two point the same way."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    na, nb, dot = float(np.linalg.norm(a)), float(np.linalg.norm(b)), float(a @ b)
    squared = max(na**2 + nb**2 - 2 * dot, 0.0)
    return Options(math.sqrt(squared), (math.sqrt(na**2 + nb**2 + 2 * dot), squared, abs(na - nb)))


def word_places(tokens: Sequence, places: Sequence[int] | None = None) -> list[int]:
    """The places (all, or those given) of the tokens that hold a letter or a digit, special tokens left out: the
    ones a question names, not a lone space or comma."""
    wanted = range(len(tokens)) if places is None else places
    return [i for i in wanted if not tokens[i].is_special and any(c.isalnum() for c in tokens[i].display)]


def two_words(tokens: Sequence) -> tuple[int, int] | None:
    """The sentence's first and last word tokens (word_places); None when it has fewer than two."""
    words = word_places(tokens)
    return (words[0], words[-1]) if len(words) > 1 else None


# --- chapter 4: where the two words' similarity falls most -----------------------------------------------------


def fall_options(across: np.ndarray) -> tuple[int, ...] | None:
    """From a similarity layer by layer (index 0: the input embeddings), the layer `l` after which it falls most,
    from l to l + 1, then three wrong layers: the step into its lowest point (the lowest read as the largest fall),
    the step where it rises most (a rise read as a fall), the steps just after and before the largest fall (read
    one layer off), the second largest fall: the first three of these that differ. None where it never falls."""
    across = np.asarray(across, dtype=np.float64)
    falls = across[:-1] - across[1:]  # falls[l]: from layer l to layer l + 1
    if len(falls) < 4 or falls.max() <= 1e-3:
        return None
    right = int(falls.argmax())
    by_size = [int(i) for i in np.argsort(-falls, kind="stable")]
    candidates = [int(across.argmin()) - 1, int(falls.argmin()), right + 1, right - 1, *by_size[1:]]
    wrong: list[int] = []
    for layer in candidates:
        if 0 <= layer < len(falls) and layer != right and layer not in wrong:
            wrong.append(layer)
    return (right, *wrong[:3])


# --- chapter 5: a score read in its row, not its column ---------------------------------------------------------


@dataclass(frozen=True)
class ScorePair:
    """Two tokens, `query` after `key` in the sentence, whose scores for each other differ most, and the options for
    q_query · k_key."""

    query: int
    key: int
    options: Options


def score_options(scores: np.ndarray, x: np.ndarray, d_head: int, query: int, key: int) -> Options:
    """Right: the score of the query's row in the key's column, q_i · k_j. Wrong: the mirror cell, q_j · k_i (the
    row and the column swapped); the score divided by √d_head (the scaled score the heatmap does not show); the
    embeddings' own dot product x_i · x_j (the XXᵀ heatmap beside it, before the projections)."""
    s = float(scores[query, key])
    return Options(
        s,
        (float(scores[key, query]), s / math.sqrt(d_head), float(np.dot(x[query].astype(np.float64), x[key]))),
    )


def score_pair(scores: np.ndarray, x: np.ndarray, d_head: int, places: Sequence[int]) -> ScorePair | None:
    """Among `places` (the tokens the page draws), the pair whose two scores for each other differ most, |s_ij − s_ji|
    (the first of the largest in the sentence's order), with the later token as the query: in a decoder, the score
    the model uses. None with fewer than two places.

    scores: (n_tokens, n_tokens), one head's raw q·k; x: (n_tokens, d_model), the embeddings the layer reads."""
    places = sorted(places)
    if len(places) < 2:
        return None
    s = np.asarray(scores, dtype=np.float64)[np.ix_(places, places)]
    gap = np.abs(s - s.T)
    gap[np.triu_indices(len(places))] = -1.0  # rows after columns: the query later than the key
    i, j = np.unravel_index(int(gap.argmax()), gap.shape)
    query, key = places[i], places[j]
    return ScorePair(query, key, score_options(scores, x, d_head, query, key))
