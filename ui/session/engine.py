"""Everything computed from a model, for every session: the traces of a text (`trace`), the sentence accepted once
per text and model (`accept`), and the results the explorer and the chapters draw, each computed once per input.

Every cached function is keyed by plain values (the model's name, text, mask, layer, head…), never by a model or
a trace object, and calls pass every argument, so that one input is one cache entry; `per_model` passes the
chosen model's name. Its results are kept by their size in bytes, shared by every session (ui/caches.py): the
traces within TRACE_BUDGET_BYTES, every other result within RESULTS_BUDGET_BYTES; what was computed with a model
is let go of with it (ui/session/models.py keeps at most one model beside the bundled one).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import streamlit as st
from threadpoolctl import threadpool_limits

import attention
import attention.sources
import attention.tokens
from attention import kv_cache
from attention.lessons import (
    geometry,
    head_roles,
    heads,
    knockouts,
    motivation,
    position,
    prediction,
    qk_norm,
)
from attention.trace import trace_tokens
from ui import caches
from ui.session import models
from ui.session.models import max_tokens, model, model_name, stop
from ui.words.i18n import _

# Traces are kept by size, not by count: a 256-token trace of the encoder holds 54 MB (73 MB once the head roles
# have stacked its weights), a class sentence under 2 MB. With the server's own ~220 MB, the figures' and the other
# results' budgets and its sessions' state, this keeps it under 600 MB whatever is pasted (benchmarks/soak.py).
TRACE_BUDGET_BYTES = 100 * caches.MB
# Everything else computed from a sentence (the pictures of a token's move, the head roles, the chapters'
# experiments): a few kB for a class sentence, up to a few MB at 256 tokens (the position chapter's two traces,
# 110 MB at 256 tokens, are kept alone).
RESULTS_BUDGET_BYTES = 32 * caches.MB
TOKENS_BUDGET_BYTES = 4 * caches.MB


# One BLAS thread for the whole server: its sessions already run in threads of their own, and OpenBLAS's helper
# threads spin while they wait for work, which on two busy cores multiplied a trace's CPU several times over
# (benchmarks/README.md, "The figures behind the code's choices").
threadpool_limits(1, user_api="blas")


# --- traces ---------------------------------------------------------------------------------------------


# Keyed (model, mask, text) or (model, mask, text, window). A trace grows when its layers' weights, scores or
# hidden states are first stacked (Trace.weights…): it is measured again then.
TRACES = caches.bounded("traces", TRACE_BUDGET_BYTES, size=lambda tr: tr.nbytes, grows=lambda tr: len(vars(tr)))
# Keyed (function, model, its arguments…) for the functions with @per_model, (function, its arguments…) otherwise.
RESULTS = caches.bounded("results", RESULTS_BUDGET_BYTES)
# Keyed (model, text): each text as a model reads it (its tokens, a few kB), for acceptance, unread share and trace.
TOKENS = caches.bounded("tokens", TOKENS_BUDGET_BYTES)


def forget(name: str) -> None:
    """Let go of every trace and result computed with a model (keyed by its name), and of the memory they held."""
    TRACES.drop(lambda key: key[0] == name)
    RESULTS.drop(lambda key: len(key) > 1 and key[1] == name)
    TOKENS.drop(lambda key: key[0] == name)
    caches.release(force=True)


models.LET_GO.append(forget)  # called when ui/session/models.py lets go of a model


def tokenized(name: str, text: str) -> attention.tokens.Tokenization:
    """The text as a model reads it, cut to what the page traces: tokenized once per model and text, for the
    sentence's acceptance, its unread share and its trace alike (ValueError for an empty text)."""
    m = model(name)
    return TOKENS.get((name, text), lambda: attention.tokens.tokenize(m.tokenizer, text, max_tokens(m.config)))


def trace(text: str, mask: str | None, model_name: str) -> attention.Trace:
    """The trace of `text` (cut to what the page traces), cached by size across sessions."""
    m = model(model_name)
    mask = m.config.native_mask if mask is None else mask

    def run() -> attention.Trace:
        toks = tokenized(model_name, text)
        return trace_tokens(m, toks.tokens, text, mask, n_dropped=toks.n_dropped, chars_dropped=toks.chars_dropped)

    return TRACES.get((model_name, mask, text), run)


def windowed(text: str, window: int) -> attention.Trace:
    """The chosen model's causal trace with its local layers narrowed to `window` keys (a counterfactual), kept
    with the other traces, by size."""
    name = model_name()
    m = model(name)
    return TRACES.get(
        (name, "causal", text, window),
        lambda: attention.trace(m, text, mask="causal", max_tokens=max_tokens(m.config), window=window),
    )


def layer(text: str, mask: str | None, layer_i: int, name: str | None = None) -> attention.LayerTrace:
    """One layer (0-based) of a model's cached trace (name None: the chosen model)."""
    return trace(text, mask, name or model_name()).layers[layer_i]


def _on(name: str, compute: Callable[..., Any], *args: Hashable) -> Any:
    key = (f"{compute.__module__}.{compute.__name__}", name, *args)
    return RESULTS.get(key, lambda: compute(model(name), *args))


def on_model(compute: Callable[..., Any], *args: Hashable) -> Any:
    """compute(the chosen model, *args), a lesson's computation (attention.lessons…) called with plain values: once
    per model and arguments for every session, kept by its size with the other results."""
    return _on(model_name(), compute, *args)


def once(compute: Callable[..., Any], *args: Hashable) -> Any:
    """compute(*args), a computation that reads no model (the scaling chapter's random vectors), once per
    arguments for every session, kept with the results."""
    return RESULTS.get((f"{compute.__module__}.{compute.__name__}", *args), lambda: compute(*args))


def per_model(cached: Callable) -> Callable:
    """A cached function whose first argument is the model's name, called with the chosen model's:
    every cache is keyed by the model as well as by the plain values the page passes."""

    @functools.wraps(cached)
    def call(*args: Any, **kwargs: Any) -> Any:
        return cached(model_name(), *args, **kwargs)

    call.cached = cached
    return call


def trace_or_stop(text: str, mask: str | None = None) -> attention.Trace:
    """The chosen model's trace of `text` (mask None: the model's own), or the reason there is none
    (empty text…) shown to the user and a stop."""
    try:
        return trace(text, mask, model_name())
    except ValueError as exc:
        st.info(_(str(exc)))  # the engine's messages are in the catalogues (attention/messages.py)
        stop()


# --- the explorer ------------------------------------------------------------------------------


@per_model
@caches.kept(RESULTS)
def displacement_picture(name: str, text: str, mask: str, layer_i: int, token: int) -> geometry.DisplacementPicture:
    """The followed token's heads, in a picture fitted to them; the step after them (b_O, a norm) apart."""
    cfg = model(name).config
    return geometry.displacement_picture(
        layer(text, mask, layer_i, name), token=token, bias=cfg.has_bias("o"), norm_position=cfg.norm_position
    )


@per_model
@caches.kept(RESULTS)
def before_after(
    name: str, text: str, mask: str, layer_i: int, which: str, keep: tuple[int, ...]
) -> geometry.BeforeAfter:
    """Before and after for the tokens shown (keep), fitted to them alone: a hidden [CLS] does not stretch it.

    which: "attention" (after the attention sub-layer) or "layer" (after the whole layer)."""
    return geometry.layer_before_after(layer(text, mask, layer_i, name), which, keep)


# --- the chapters ------------------------------------------------------------------------------


@per_model
@caches.kept(RESULTS)
def value_chain(
    name: str, text: str, layer_i: int, head: int, token: int, uniform: bool
) -> tuple[geometry.Chain, float]:
    """One token's weighted values laid tip to tail (uniform: every token weighs 1/n), and |Δe| in all dimensions."""
    lt = layer(text, None, layer_i, name)  # the model's own mask: causal for a decoder
    parts = heads.uniform_contributions(lt, head) if uniform else heads.value_contributions(lt, head, token)
    return geometry.chain(lt.x[token], parts), heads.displacement_length(parts)


@per_model
@caches.kept(RESULTS)
def heads_move(name: str, text: str, layer_i: int, head: int | None) -> geometry.Moves:
    """Every token's displacement by one head (or by all, head=None), in the plane that keeps the most of them."""
    return geometry.displacement_directions(heads.proposed(layer(text, None, layer_i, name), head))


@per_model
@caches.kept(RESULTS)
def shifted(name: str, text: str, shift: int) -> position.Shifted:
    return position.shift_experiment(model(name), text, shift, max_tokens(model(name).config))


@per_model
@caches.kept(RESULTS)
def unread_share(name: str, text: str) -> float | None:
    """The share of the text's words the model reads only as unknown or byte pieces (attention.tokens), computed
    once per model and text, not at every rerun; None for a text with nothing to read."""
    try:
        toks = tokenized(name, text)
    except ValueError:
        return None
    return attention.tokens.unread_share(toks.tokens, text)


@per_model
@caches.kept(RESULTS)
def qk_norm_effect(name: str, text: str, layer_i: int, scale: float) -> qk_norm.QKNormEffect:
    """One layer's scaled scores with and without its QK-norm, its input made `scale` times larger."""
    return qk_norm.qk_norm_effect(model(name), layer(text, None, layer_i, name), scale)


@per_model
@caches.kept(RESULTS)
def cached_run(name: str, text: str, layer_i: int, head: int) -> kv_cache.CachedRun:
    """One head replayed token by token with a key/value cache, on the causally masked trace."""
    return kv_cache.cached_attention(layer(text, "causal", layer_i, name), head)


@per_model
@caches.kept(RESULTS)
def generate_with_cache(name: str, text: str) -> kv_cache.CachedGeneration:
    """The whole model run one token at a time with a key/value cache, against its full causal pass."""
    return kv_cache.generate_with_cache(model(name), trace(text, "causal", name))


@per_model
@caches.kept(RESULTS)
def every_next_token(name: str, text: str, top: int) -> prediction.EveryNextToken:
    """A decoder's best next-token guesses at every position of the sentence (ValueError for an encoder)."""
    return prediction.every_next_token(model(name), trace(text, None, name), top=top)


@per_model
@caches.kept(RESULTS)
def distance_experiment(name: str) -> motivation.DistanceExperiment:
    return motivation.distance_experiment(model(name), max_tokens(model(name).config))


# --- what each head does ----------------------------------------------------------------------------------


@per_model
@caches.kept(RESULTS)
def roles(name: str, text: str, mask: str | None) -> head_roles.HeadRoles:
    """Every head's measures on this text and its role, the induction run included: once per sentence."""
    return head_roles.head_roles(trace(text, mask, name), _on(name, head_roles.induction_scores))


@dataclass(frozen=True)
class Removed:
    """What one head's knock-out changed, without the two traces (a cache entry stays small)."""

    kind: str
    token_cosines: np.ndarray
    sentence_cosine: float | None
    top_before: tuple[attention.Prediction, ...]
    top_after: tuple[attention.Prediction, ...]
    top_before_after: tuple[float, ...]
    kl_divergence: float | None
    words_before: prediction.NextWords | None  # the likeliest text tokens, as every next-word view offers them
    words_before_after: tuple[float, ...]


@per_model
@caches.kept(RESULTS)
def removed(name: str, text: str, layer_i: int, head: int, kind: str) -> Removed:
    """The model run again without one head (its Δe zeroed, or its pattern made uniform), beside its own run."""
    e = knockouts.knockout_effect(model(name), text, layer_i, head, kind, before=trace(text, None, name))
    return Removed(
        e.knockout.kind,
        e.token_cosines,
        e.sentence_cosine,
        e.top_before,
        e.top_after,
        e.top_before_after,
        e.kl_divergence,
        e.words_before,
        e.words_before_after,
    )
