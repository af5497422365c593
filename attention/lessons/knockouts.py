"""Whether a head matters: the same text run again with that head knocked out, and what changed.

A decoder's next-token distribution p before and q after: KL(p ‖ q) = Σ_v p_v (ln p_v − ln q_v), in nats (0 when
nothing changed), and the top tokens of each. An encoder's vectors: each token's final-layer cosine between the
two runs, and the sentence embedding's. One knock-out costs one trace: the unchanged one is passed in or made once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from .. import ops, text_tokens
from ..model import Model
from ..trace import Knockout, trace, trace_tokens
from ..traced import Prediction, Trace
from .prediction import NextWords, next_words_after

TOP = 5  # next tokens shown before and after


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """ln softmax(x) = x − ln Σ exp(x), in float64, with the maximum subtracted first."""
    x = logits.astype(np.float64)
    x = x - x.max(axis=-1, keepdims=True)
    return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))


def kl_divergence(logits_p: np.ndarray, logits_q: np.ndarray) -> float:
    """KL(p ‖ q) = Σ_v p_v (ln p_v − ln q_v) of the two distributions softmax(logits), in nats."""
    log_p, log_q = log_softmax(logits_p), log_softmax(logits_q)
    return float((np.exp(log_p) * (log_p - log_q)).sum())


@dataclass(frozen=True, eq=False)
class KnockoutEffect:
    """One head knocked out of one text: the two runs, and how far apart they end."""

    knockout: Knockout
    before: Trace
    after: Trace
    token_cosines: np.ndarray  # (n_tokens,): cos(before, after) of each token's final-layer vector (trace.hidden[-1])
    sentence_cosine: float | None  # an encoder's sentence embedding, cos(before, after); None for a decoder
    top_before: tuple[Prediction, ...]  # a decoder's TOP next tokens, unchanged run; () for an encoder
    top_after: tuple[Prediction, ...]  # a decoder's TOP next tokens with the head knocked out
    top_before_after: tuple[float, ...]  # the knocked-out run's probability of each of top_before's tokens
    kl_divergence: float | None  # KL(before ‖ after) of the next-token distributions, nats; None for an encoder
    words_before: NextWords | None = None  # a decoder's TOP next text tokens, unchanged run (prediction.next_words)
    words_before_after: tuple[float, ...] = ()  # the knocked-out run's probability of each, renormalised the same way


def check_knockout(model: Model, layer: int, head: int, kind: str) -> Knockout:
    cfg = model.config
    if not 0 <= layer < cfg.n_layers:
        raise ValueError(f"Choose a layer from 0 to {cfg.n_layers - 1}: {model.config.name} has {cfg.n_layers}.")
    if not 0 <= head < cfg.n_heads:
        raise ValueError(f"Choose a head from 0 to {cfg.n_heads - 1}: each layer has {cfg.n_heads}.")
    if kind not in ("zero", "uniform"):
        raise ValueError(f"Unknown knock-out '{kind}': choose 'zero' or 'uniform'.")
    return Knockout(layer, head, kind)


def knockout_effect(
    model: Model,
    text: str,
    layer: int,
    head: int,
    kind: Literal["zero", "uniform"] = "zero",
    before: Trace | None = None,
    top: int = TOP,
) -> KnockoutEffect:
    """Run `text` again with head `head` of layer `layer` knocked out ("zero": its Δe removed; "uniform": its
    pattern spread evenly over the keys it may see), and compare with the unchanged run.

    before: the unchanged trace of this text, if the caller has it (then only one trace is run); the knocked-out
    run reads the same tokens with the same mask. Raises ValueError for a layer, head or kind out of range.
    """
    knockout = check_knockout(model, layer, head, kind)
    before = trace(model, text) if before is None else before
    if before.text != text or before.model_name != model.config.name:
        raise ValueError("The unchanged trace passed in is of another text or model: pass the one of this text.")
    after = trace_tokens(
        model,
        before.tokens,
        before.text,
        before.mask_kind,
        n_dropped=before.n_dropped,
        chars_dropped=before.chars_dropped,
        knockout=knockout,
    )
    token_cosines = ops.cosine(before.hidden[-1].astype(np.float64), after.hidden[-1].astype(np.float64))
    if not model.config.predicts_next_token:
        sentence = float(ops.cosine(before.sentence_embedding.astype(np.float64), after.sentence_embedding))
        return KnockoutEffect(knockout, before, after, token_cosines, sentence, (), (), (), None)
    top_before, top_after = tuple(before.next_tokens(top)), tuple(after.next_tokens(top))
    after_probabilities = np.exp(log_softmax(after.next_logits))
    words_before = next_words_after(model, before, top)
    after_text = text_tokens.renormalised(after_probabilities, model.token_kinds)
    return KnockoutEffect(
        knockout=knockout,
        before=before,
        after=after,
        token_cosines=token_cosines,
        sentence_cosine=None,
        top_before=top_before,
        top_after=top_after,
        top_before_after=tuple(float(after_probabilities[p.id]) for p in top_before),
        kl_divergence=kl_divergence(before.next_logits, after.next_logits),
        words_before=words_before,
        words_before_after=tuple(float(after_text[p.id]) for p in words_before.text),
    )
