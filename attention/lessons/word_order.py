"""Word order and a causal decoder: which of a noun and its adjective can read the other."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..traced import Trace
from .context import _position

# Each language's opening sentence's noun and the adjectives that describe it, as whole words of the sentence: French
# puts « bleu » after « animal » (and « petit » before it); English and Korean put every adjective before the noun.
NOUN_ADJECTIVES = {
    "en": ("creature", ("fluffy", "blue")),
    "fr": ("animal", ("petit", "bleu")),
    "ko": ("동물이", ("작고", "파란")),
}


@dataclass(frozen=True)
class AdjectiveRead:
    noun: str
    adjective: str
    after: bool  # the adjective follows the noun
    noun_on_adjective: float  # the weight the noun's (last) token puts on the adjective's, in the head shown
    adjective_on_noun: float  # the weight the adjective's token puts on the noun's, in the head shown
    best_head: int  # the head of the layer in which the later word's token puts the most on the earlier one's
    best_weight: float


def adjective_reads(tr: Trace, layer: int, head: int, noun: str, adjectives: tuple[str, ...]) -> list[AdjectiveRead]:
    """For each adjective found in the text with its noun, who reads whom in `layer` (each word by its last token,
    the one that has read all of it). Words the text does not hold are left out."""
    try:
        n = _position(tr, noun)
    except ValueError:
        return []
    weights = tr.layers[layer].weights  # (n_heads, n_tokens, n_tokens), rows are queries
    out = []
    for adjective in adjectives:
        try:
            a = _position(tr, adjective)
        except ValueError:
            continue
        later, earlier = (a, n) if a > n else (n, a)
        per_head = weights[:, later, earlier]
        best = int(np.argmax(per_head))
        out.append(
            AdjectiveRead(
                noun=noun,
                adjective=adjective,
                after=a > n,
                noun_on_adjective=float(weights[head, n, a]),
                adjective_on_noun=float(weights[head, a, n]),
                best_head=best,
                best_weight=float(per_head[best]),
            )
        )
    return out
