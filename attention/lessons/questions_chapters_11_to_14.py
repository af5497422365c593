"""The numbers behind the computed questions of chapters 11, 13 and 14: each right answer by the lesson's formula,
beside the mistakes a student plausibly makes, every option computed from the same numbers.

Options are returned as plain numbers, the right one first; the page writes them in its language. `digits_apart`
says how many decimals keep them apart as the page writes them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .options import Options

# --- chapter 11: a weight travels with its two tokens, not with their places -------------------------------


@dataclass(frozen=True)
class ShufflePair:
    """Two tokens of the sentence, where the shuffle puts them, and the question's options: the shuffled run's
    weight from the first to the second (places `p` to `q`), beside readings of the original weights at the
    wrong cells, apart when written with `digits` decimals."""

    i: int  # the first token's place in the sentence (0-based)
    j: int  # the second's
    p: int  # the first token's place in the shuffled sentence
    q: int  # the second's
    options: Options
    digits: int


def shuffle_options(
    original: np.ndarray, put_back: np.ndarray, i: int, j: int, p: int, q: int, positions: bool, digits: int
) -> Options | None:
    """Right: the shuffled run's weight from place p to place q, which is the put-back table's cell (i, j). Wrong,
    the first three that write apart from the right one and from each other at `digits` decimals: the original
    weight at the new places (p, q), as if a weight stayed with its places; the original weight from the second
    token to the first (j, i), the row and the column swapped; with the positions on, the original weight (i, j),
    as if they changed nothing (off, the original weight from q to p: both mistakes at once); then, where a text
    repeats itself and some of these are equal, the first token's weights on the other tokens (the wrong column).
    None if fewer than three such are found."""
    n = len(original)
    cells = [(p, q), (j, i), (i, j) if positions else (q, p), *((i, c) for c in range(n) if c != j)]
    right = float(put_back[i, j])
    seen, wrong = {round(right, digits)}, []
    for r, c in cells:
        value = float(original[r, c])
        if round(value, digits) not in seen:
            seen.add(round(value, digits))
            wrong.append(value)
        if len(wrong) == 3:
            return Options(right, tuple(wrong))
    return None


def shuffle_pair(
    original: np.ndarray, put_back: np.ndarray, order: np.ndarray, places: list[int], positions: bool
) -> ShufflePair | None:
    """Two tokens among `places` (the text's tokens the page draws), both moved by the shuffle, whose options lie
    furthest apart: at 2 decimals, else at 3 or 4 (a long text's weights are small). Not the pair of the largest
    weight: its right option would stand out as the largest. None where no two tokens moved (a text of one or two
    words, or a shuffle that left them in place) or no pair's options write apart. Pairs whose wrong options are
    the three mistakes come first, at any number of decimals; a text that repeats itself may leave only pairs that
    need the wrong column, and then the first such pair is taken.

    original, put_back: (n_tokens, n_tokens), one head's weights on the sentence and the shuffled run's put back in
    the sentence's order. order: the shuffled sentence is tokens[order]."""
    where = np.argsort(order)  # where[i]: the place token i takes in the shuffled sentence
    pairs = np.array([(i, j) for i in places for j in places if i != j and where[i] != i and where[j] != j], dtype=int)
    if not len(pairs):
        return None
    i, j = pairs.T
    p, q = where[i], where[j]
    # every pair's right option and its three mistakes at once: (n_pairs, 4)
    values = np.stack(
        [put_back[i, j], original[p, q], original[j, i], original[i, j] if positions else original[q, p]], 1
    )
    for digits in (2, 3, 4):
        rounded = np.round(values, digits)
        gaps = np.abs(rounded[:, :, None] - rounded[:, None, :]) + np.eye(4) * 2  # (n_pairs, 4, 4), apart from itself
        spread = gaps.min(axis=(1, 2))
        if spread.max() > 0.5 * 10.0**-digits:  # some pair's four options write apart: the furthest, first in order
            k = int(np.argmax(spread))
            return ShufflePair(
                int(i[k]),
                int(j[k]),
                int(p[k]),
                int(q[k]),
                Options(float(values[k, 0]), tuple(map(float, values[k, 1:]))),
                digits,
            )
    for digits in (2, 3, 4):  # a text that repeats itself: the mistakes may coincide; the wrong column then
        for k in range(len(pairs)):
            options = shuffle_options(original, put_back, i[k], j[k], p[k], q[k], positions, digits)
            if options is not None:
                return ShufflePair(int(i[k]), int(j[k]), int(p[k]), int(q[k]), options, digits)
    return None


# --- chapter 13: the keys a head computes, with and without the cache --------------------------------------


def keys_computed(n_tokens: int) -> Options:
    """Writing n tokens one at a time, the keys one key/value head of one layer computes without a cache: step t
    runs the t tokens written so far again, 1 + 2 + … + n = n(n + 1)/2. Wrong: n, the count with the cache; n², as
    if every step ran the whole sentence; n(n − 1)/2, as if a step recomputed only the tokens before the new one."""
    n = n_tokens
    return Options(n * (n + 1) // 2, (n, n * n, n * (n - 1) // 2))


# --- chapter 14: attention's share of a model's parameters --------------------------------------------------


def attention_share(attention: int, output: int, mlp: int, total: int) -> Options:
    """Attention's share of every parameter of the model (`output`: its W_O rows, within `attention`). Wrong: its
    share of the layers alone (attention and MLP, the embeddings left out); W_O left out of attention; attention
    against the rest of the model instead of the whole."""
    return Options(
        attention / total,
        (attention / (attention + mlp), (attention - output) / total, attention / (total - attention)),
    )
