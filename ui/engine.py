"""The app's only door to the model: loaded once per server process, every computation cached per input.

Every cached function is keyed by plain values (text, mask, layer, head…), never by a model or a
trace object, and calls pass every argument, so that one input is one cache entry. The lesson's
computations run on the default model, loaded once.
"""

from __future__ import annotations

import numpy as np
import streamlit as st

import attention
from attention import context, cross, geometry, heads, kv_cache, position, scaling

MODEL = attention.DEFAULT_MODEL
# A 256-token trace keeps about 56 MB, a class sentence under 2 MB: six long ones stay within a 690 MB server.
TRACE_CACHE_ENTRIES = 6
PICTURE_CACHE_ENTRIES = 32  # small results (a few tokens' projected points), one per view


@st.cache_resource(show_spinner=False)
def model(name: str) -> attention.Model:
    """The model's weights in numpy, read from its files (torch is never imported here)."""
    return attention.load_model(name)


@st.cache_resource(show_spinner=False, max_entries=TRACE_CACHE_ENTRIES)
def trace(text: str, mask: str, model_name: str) -> attention.Trace:
    return attention.trace(model(model_name), text, mask=mask)


def layer(text: str, mask: str, layer_i: int) -> attention.LayerTrace:
    """One layer (0-based) of the default model's cached trace."""
    return trace(text, mask, MODEL).layers[layer_i]


def load_model_or_stop() -> attention.Model:
    """The model, behind a spinner on first use; a clear message and a stop if it cannot be loaded."""
    try:
        with st.spinner(f"Loading {MODEL} (once per server start)…"):
            return model(MODEL)
    except attention.ModelError as exc:
        st.error(str(exc))
        st.stop()


def trace_or_stop(text: str, mask: str = "none") -> attention.Trace:
    """The trace of `text`, or the reason there is none (empty text…) shown to the user and a stop."""
    try:
        return trace(text, mask, MODEL)
    except ValueError as exc:
        st.info(str(exc))
        st.stop()


# --- the explorer ------------------------------------------------------------------------------


@st.cache_resource(show_spinner=False, max_entries=PICTURE_CACHE_ENTRIES)
def displacement_picture(text: str, mask: str, layer_i: int, token: int) -> geometry.DisplacementPicture:
    return attention.displacement_picture(layer(text, mask, layer_i), token=token)


@st.cache_resource(show_spinner=False, max_entries=PICTURE_CACHE_ENTRIES)
def before_after(text: str, mask: str, layer_i: int, which: str, keep: tuple[int, ...]) -> geometry.BeforeAfter:
    """Before and after for the tokens shown, so a hidden [CLS] does not stretch the projection.

    which: "attention" (after the attention sub-layer) or "layer" (after the whole layer)."""
    lt = layer(text, mask, layer_i)
    after = lt.updated if which == "attention" else lt.output
    return attention.before_after(lt.x[list(keep)], after[list(keep)])


# --- the chapters ------------------------------------------------------------------------------


@st.cache_resource(show_spinner=False, max_entries=4)
def context_shift(word: str, sentences: tuple[str, ...], references: tuple[str, ...]) -> context.ContextShift:
    return context.context_shift(model(MODEL), word, list(sentences), list(references))


@st.cache_resource(show_spinner=False, max_entries=64)
def scaling_experiment(d_k: int, n_keys: int) -> scaling.ScalingExperiment:
    return scaling.scaling_experiment(d_k, n_keys=n_keys)


@st.cache_resource(show_spinner=False, max_entries=64)
def entropy_curve(widths: tuple[int, ...], n_keys: int) -> scaling.EntropyCurve:
    return scaling.entropy_curve(widths, n_keys=n_keys)


@st.cache_resource(show_spinner=False, max_entries=PICTURE_CACHE_ENTRIES)
def value_chain(text: str, layer_i: int, head: int, token: int, uniform: bool) -> tuple[geometry.Chain, float]:
    """One token's weighted values laid tip to tail (uniform: every token weighs 1/n), and |Δe| in all dimensions."""
    lt = layer(text, "none", layer_i)
    parts = heads.uniform_contributions(lt, head) if uniform else heads.value_contributions(lt, head, token)
    return geometry.chain(lt.x[token], parts), heads.displacement_length(parts)


@st.cache_resource(show_spinner=False, max_entries=PICTURE_CACHE_ENTRIES)
def value_map(layer_i: int, head: int) -> heads.ValueMap:
    return heads.value_map(model(MODEL), layer_i, head)


@st.cache_resource(show_spinner=False, max_entries=PICTURE_CACHE_ENTRIES)
def heads_move(text: str, layer_i: int, head: int | None) -> geometry.BeforeAfter:
    """Every token before and after one head's displacement (or all heads', head=None)."""
    lt = layer(text, "none", layer_i)
    return attention.before_after(lt.x, heads.moved(lt, head))


@st.cache_resource(show_spinner=False, max_entries=PICTURE_CACHE_ENTRIES)
def shuffle(text: str, seed: int, positions: bool) -> position.Shuffle:
    return position.shuffle_experiment(model(MODEL), text, seed=seed, positions=positions)


@st.cache_resource(show_spinner=False, max_entries=8)
def position_similarity(n_positions: int) -> np.ndarray:
    return position.position_similarity(model(MODEL), n_positions)


@st.cache_resource(show_spinner=False, max_entries=PICTURE_CACHE_ENTRIES)
def cross_attention(target: str, source: str, layer_i: int, head: int) -> cross.CrossAttention:
    return cross.cross_attention(model(MODEL), target, source, layer_i, head)


@st.cache_resource(show_spinner=False, max_entries=PICTURE_CACHE_ENTRIES)
def cached_run(text: str, layer_i: int, head: int) -> kv_cache.CachedRun:
    """One head replayed token by token with a key/value cache, on the causally masked trace."""
    return kv_cache.cached_attention(layer(text, "causal", layer_i), head)
