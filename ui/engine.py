"""The app's only door to the model: loaded once per server process, traces cached per input."""

from __future__ import annotations

import streamlit as st

import attention

TRACE_CACHE_ENTRIES = 16  # a 256-token trace keeps about 56 MB; most class sentences keep under 2 MB


@st.cache_resource(show_spinner=False)
def model(name: str | None = None) -> attention.Model:
    """The model's weights in numpy, copied in a child process so that this server never holds torch."""
    return attention.load_model(name, isolated=True)


@st.cache_resource(show_spinner=False, max_entries=TRACE_CACHE_ENTRIES)
def trace(text: str, mask: str = "none", model_name: str | None = None) -> attention.Trace:
    return attention.trace(model(model_name), text, mask=mask)


def load_model_or_stop() -> attention.Model:
    """The model, behind a spinner on first use; a clear message and a stop if it cannot be loaded."""
    try:
        with st.spinner("Loading all-MiniLM-L6-v2 (once per server start)…"):
            return model()
    except attention.ModelError as exc:
        st.error(str(exc))
        st.stop()


def trace_or_stop(text: str, mask: str = "none") -> attention.Trace:
    """The trace of `text`, or the reason there is none (empty text…) shown to the user and a stop."""
    try:
        return trace(text, mask)
    except ValueError as exc:
        st.info(str(exc))
        st.stop()
