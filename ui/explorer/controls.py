"""The explorer's sidebar (sentence, layer and head, then its own choices) and the notices above its sections."""

from __future__ import annotations

import streamlit as st

import attention

from .. import architecture, engine, head_switch, state, widgets

MASK_HELP = "none: every token sees every other (how an encoder runs). causal: a token sees only itself and the ones before it (how a decoder runs)."


LAYOUT_NAMES = {
    "paper": "paper (rows are queries)",
    "notes": "lesson notes (columns are queries)",
}  # one per attention.LAYOUTS


COLOUR_NAMES = {"row": "0 to each query's largest", "unit": "0 to 1"}


def controls(cfg: attention.ModelConfig) -> int:
    """The sidebar: sentence, layer and head, then the explorer's own choices. Returns the layer, 0-based."""
    widgets.sentence_controls(engine.max_tokens(cfg))
    layer_i, _ = widgets.layer_head(cfg.n_layers, cfg.n_heads)
    with st.sidebar:
        st.radio(
            "Mask",
            attention.MASKS,
            **state.bound("mask"),
            horizontal=True,
            help=MASK_HELP,
        )
        st.radio(
            "Layout",
            attention.LAYOUTS,
            **state.bound("layout"),
            format_func=LAYOUT_NAMES.get,
        )
        named = architecture.specials_named(cfg)
        if named:  # a model that adds no token has none to show or hide
            st.toggle(f"Show {named}", **state.bound("specials"))
        st.radio(
            "Weight colours",
            list(COLOUR_NAMES),
            **state.bound("colours"),
            format_func=COLOUR_NAMES.get,
            help="0 to each query's largest weight shows where every token looks, even when no weight is large. "
            "0 to 1 compares weights across queries and heads.",
        )
        st.toggle(
            "Numbers in every cell",
            **state.bound("numbers"),
            help="Values are printed where they fit their cells. On: the cells grow until the values fit, as far "
            "as the page's width allows, and the four steps may no longer share one screen.",
        )
        st.toggle(
            "Presenter mode",
            **state.bound("presenter"),
            help="For a projector: larger type in the figures, the explanations hidden, the equations kept.",
        )
    return layer_i


def show_notices(tr: attention.Trace) -> None:
    if head_switch.resized():  # the first run's notices again: the page was redrawn for the window at once
        st.session_state[state.NOTICES] = st.session_state.get("_notices_shown", [])
    st.session_state["_notices_shown"] = list(st.session_state.get(state.NOTICES, []))
    widgets.url_notices()
    widgets.cut_notice()
    widgets.unread_notice(engine.current_or_stop(), tr.text)
    if tr.truncated:
        cut = []
        if tr.chars_dropped:
            cut.append(f"{tr.chars_dropped:,} characters beyond the first {len(tr.text) - tr.chars_dropped:,}")
        if tr.n_dropped:
            cut.append(f"{tr.n_dropped:,} tokens beyond the model's limit of {tr.n_tokens}")
        st.warning("The text is longer than the model reads: " + " and ".join(cut) + " were left out.")
