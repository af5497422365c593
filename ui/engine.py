"""The app's only door to the model: loaded once per server process, traces cached per input.

Both caches are keyed by their arguments as passed, so every call names the model explicitly:
`model()` and `model(None)` would be two entries, and two copies of the weights.
"""

from __future__ import annotations

import streamlit as st

import attention

# A 256-token trace keeps about 56 MB, a class sentence under 2 MB: six long ones stay within a 690 MB server.
TRACE_CACHE_ENTRIES = 6


@st.cache_resource(show_spinner=False)
def model(name: str = attention.DEFAULT_MODEL) -> attention.Model:
    """The model's weights in numpy, copied in a child process so that this server never holds torch."""
    return attention.load_model(name, isolated=True)


@st.cache_resource(show_spinner=False, max_entries=TRACE_CACHE_ENTRIES)
def trace(text: str, mask: str = "none", model_name: str = attention.DEFAULT_MODEL) -> attention.Trace:
    return attention.trace(model(model_name), text, mask=mask)


def load_model_or_stop() -> attention.Model:
    """The model, behind a spinner on first use; a clear message and a stop if it cannot be loaded."""
    try:
        with st.spinner("Loading all-MiniLM-L6-v2 (once per server start)…"):
            return model(attention.DEFAULT_MODEL)
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
