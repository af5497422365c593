"""Cross-attention, with queries from one sentence and keys and values from another.

This model has no cross-attention layer; the chapter reuses one of its self-attention heads'
projections to show the shapes and the computation a translation model's decoder performs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import ops
from ..model import Model
from ..tokens import Token
from ..trace import trace


@dataclass(frozen=True)
class CrossAttention:
    target: tuple[Token, ...]  # the sentence asking (queries)
    source: tuple[Token, ...]  # the sentence answering (keys and values)
    weights: np.ndarray  # (n_target, n_source): each row sums to 1
    displacement: np.ndarray  # (n_target, d_model): what the head adds to each target token

    def strongest(self) -> tuple[int, int]:
        """(target position, source position) of the largest weight between two tokens of text: special tokens
        ([CLS], <bos>), which many heads rest on, are left out unless a sentence holds nothing else."""
        rows = [t.position for t in self.target if not t.is_special] or [t.position for t in self.target]
        cols = [t.position for t in self.source if not t.is_special] or [t.position for t in self.source]
        sub = self.weights[np.ix_(rows, cols)]
        i, j = np.unravel_index(int(np.argmax(sub)), sub.shape)
        return rows[i], cols[j]


def cross_attention(model: Model, target_text: str, source_text: str, layer: int, head: int) -> CrossAttention:
    target_trace, source_trace = trace(model, target_text), trace(model, source_text)
    t, s = target_trace.layers[layer], source_trace.layers[layer]
    # this head's queries from one sentence, and the keys and values it reads (its key/value group's) from the
    # other, as the model computed them from what its heads read (rotated, where positions are rotary)
    q, k, v = t.q[head], s.k[head], s.v[head]  # (n_target, d_head), (n_source, d_head) twice
    d_head = q.shape[-1]
    weights = ops.softmax(ops.scale(ops.scores(q, k), d_head))  # (n_target, n_source)
    displacement = ops.attend(weights, v) @ model.w_o_heads[layer][head]  # (n_target, d_model)
    return CrossAttention(
        target=target_trace.tokens, source=source_trace.tokens, weights=weights, displacement=displacement
    )
