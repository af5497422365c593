"""Cross-attention, with queries from one sentence and keys and values from another.

This model has no cross-attention layer; the chapter reuses one of its self-attention heads'
projections to show the shapes and the computation a translation model's decoder performs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import ops
from .model import Model
from .tokens import Token
from .trace import trace


@dataclass(frozen=True)
class CrossAttention:
    target: tuple[Token, ...]  # the sentence asking (queries)
    source: tuple[Token, ...]  # the sentence answering (keys and values)
    weights: np.ndarray  # (n_target, n_source): each row sums to 1
    displacement: np.ndarray  # (n_target, d_model): what the head adds to each target token


def cross_attention(model: Model, target_text: str, source_text: str, layer: int, head: int) -> CrossAttention:
    target_trace, source_trace = trace(model, target_text), trace(model, source_text)
    t, s = target_trace.layers[layer], source_trace.layers[layer]
    w = model.layers[layer]
    d_head = model.config.d_head
    cols = slice(head * d_head, (head + 1) * d_head)  # this head's columns of W_Q, W_K and W_V
    # what the heads read: the embeddings themselves (BERT) or their LayerNorm (GPT-2)
    q = ops.linear(t.attention_input, w.w_q[:, cols], w.b_q[cols])  # (n_target, d_head)
    k = ops.linear(s.attention_input, w.w_k[:, cols], w.b_k[cols])  # (n_source, d_head)
    v = ops.linear(s.attention_input, w.w_v[:, cols], w.b_v[cols])  # (n_source, d_head)
    weights = ops.softmax(ops.scale(ops.scores(q, k), d_head))  # (n_target, n_source)
    displacement = ops.attend(weights, v) @ model.w_o_heads[layer][head]  # (n_target, d_model)
    return CrossAttention(
        target=target_trace.tokens, source=source_trace.tokens, weights=weights, displacement=displacement
    )
