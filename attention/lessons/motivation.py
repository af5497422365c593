"""Why attention: a recurrent network's memory of a word fades with every step; attention's does not.

A recurrent network reads a text one token at a time and carries everything it has read in one
vector, rewritten at every step. In its simplest, leaky form, h_t = λ h_{t−1} + (1 − λ) x_t, a word
read d steps ago still makes up (1 − λ) λ^d of the state: a fixed decay, whatever the word meant.
(LSTMs learn when to keep and when to forget, but still through one vector, and the lesson notes'
point stands: the start of a long sequence has little impact.) Attention gives each token a weight
from its score alone, so a word far back can weigh as much as the word just before.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import Model
from ..trace import trace

# The lesson notes' long-range example: "Don't", at the very start, decides what the whole sentence means.
NOTES_SENTENCE = (
    "Don't go insane, find the real identity of, and kill one by one all the reviewers "
    "that have just rejected your awesome paper."
)
# The distance experiment: the same word twice, with more and more text between the two.
OPENING, FILLER, CLOSING = (
    "my friend ate an apple",
    " and then we walked along the river for a while",
    " and i ate an apple",
)
WORD = "apple"
REPEATS = (0, 1, 2, 4, 8, 16)


def recurrent_share(distance: np.ndarray, keep: float) -> np.ndarray:
    """The share of a leaky recurrent state h_t = λ h_{t−1} + (1 − λ) x_t that comes from the token
    `distance` steps back: (1 − λ) λ^distance, with λ = keep."""
    return (1.0 - keep) * keep ** np.asarray(distance, dtype=float)


@dataclass(frozen=True)
class LeakyMemory:
    """Where the share (1 − λ) λ^d of the first word read, d steps back, comes from, with the state starting at 0.

    A word enters with the share 1 − λ and keeps λ of it at every later step. The words read so far, d + 1 of
    them, hold 1 − λ^(d+1) of the state together (a geometric sum); the rest is still the empty start."""

    distance: int
    keep: float

    @property
    def entry(self) -> float:
        """The share a word takes when it is read: 1 − λ."""
        return 1.0 - self.keep

    @property
    def kept(self) -> float:
        """The part of that share left d steps later: λ^d."""
        return self.keep**self.distance

    @property
    def share(self) -> float:
        """(1 − λ) λ^d: the first word's share of the state."""
        return self.entry * self.kept

    @property
    def words_total(self) -> float:
        """1 − λ^(d+1): the share of the state that comes from the d + 1 words read at all."""
        return 1.0 - self.keep ** (self.distance + 1)

    @property
    def share_of_words(self) -> float:
        """The first word's part of what the words contribute: share / words_total."""
        return self.share / self.words_total


def token_at(tr, char_index: int) -> int:
    """The position of the token that covers a character of the text."""
    for t in tr.tokens:
        if not t.is_special and t.start <= char_index < t.end:
            return t.position
    raise ValueError(f"No token covers character {char_index} of “{tr.text}”.")


def tokens_apart(model: Model, text: str, first: str, second: str) -> int:
    """How many tokens after the first token of `first` the first token of `second` comes (each word's
    first appearance)."""
    tr = trace(model, text)
    return token_at(tr, text.index(second)) - token_at(tr, text.index(first))


@dataclass(frozen=True)
class DistanceExperiment:
    """How much the second copy of a word attends to the first, as the text between them grows."""

    repeats: tuple[int, ...]  # the fillers between the two copies in each text (OPENING + FILLER × k + CLOSING)
    distances: np.ndarray  # (n_texts,): tokens from the first copy to the second
    weights: np.ndarray  # (n_texts, n_layers, n_heads): the weight the second copy gives the first
    layer: int  # 0-based: the head that looks back most, on average over the texts
    head: int

    @property
    def best(self) -> np.ndarray:
        """(n_texts,): that head's weight at every distance."""
        return self.weights[:, self.layer, self.head]


def distance_experiment(model: Model, max_tokens: int, repeats: tuple[int, ...] = REPEATS) -> DistanceExperiment:
    """Trace "my friend ate an apple … and i ate an apple" with 0, 1, 2, 4… fillers between the two
    apples (as many as fit in `max_tokens`), and read every head's weight from the second apple to the first."""
    distances, weights = [], []
    for k in repeats:
        text = OPENING + FILLER * k + CLOSING
        tr = trace(model, text, max_tokens=max_tokens)
        if tr.truncated:
            break
        first, second = token_at(tr, text.index(WORD)), token_at(tr, text.rindex(WORD))
        distances.append(second - first)
        weights.append(tr.weights[:, :, second, first])  # (n_layers, n_heads)
    if not distances:
        raise ValueError(f"Even the shortest text of the experiment is longer than {max_tokens} tokens.")
    w = np.array(weights)
    layer, head = np.unravel_index(int(w.mean(axis=0).argmax()), w.shape[1:])
    return DistanceExperiment(repeats[: len(distances)], np.array(distances), w, int(layer), int(head))
