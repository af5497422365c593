"""Small Streamlit helpers every page uses."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

import attention
import attention.loading

from . import engine, state, theme


def chart(
    fig: go.Figure,
    name: str,
    key: str | None = None,
    *,
    layer: int | None = None,
    head: int | None = None,
    mask: str | None = None,
) -> None:
    """A figure with our template (not Streamlit's), its camera button saving PNG 3× or SVG as chosen.

    layer, head (0-based) and mask: what the figure shows, where they apply, so that an exported figure
    and its file name say so."""
    st.plotly_chart(fig, config=theme.chart_config(name, state.get("export")), key=key, theme=None)


def model_choice() -> None:
    """The Model choice, in the sidebar: the bundled encoder, and the GPT-2 decoders where this machine has them.

    A model that cannot be used here is named with the reason, and the page (and its link) stay on the
    bundled model."""
    options = engine.choices()
    chosen = state.get("model")
    if chosen != engine.model_name():
        why = engine.failed_reason(chosen) or (options[chosen].reason if chosen in options else "not offered")
        st.warning(f"**{chosen}** cannot be used here ({why}), so the page shows {engine.MODEL}.")
        state.put("model", engine.MODEL)
        state.put("mask", "none")
    with st.sidebar:
        st.selectbox(
            "Model",
            list(options),
            key=state.widget_key("model"),
            on_change=_model_changed,
            format_func=lambda n: options[n].label + ("" if options[n].available else " · unavailable"),
            help="\n\n".join(f"**{c.label}**: {c.reason}." for c in options.values()),
        )


def _model_changed() -> None:
    name = st.session_state["w:model"]
    state.put("model", name)
    choice = engine.choices().get(name)
    if choice is not None and choice.available:  # the new model's own mask: causal for a decoder
        state.put("mask", "causal" if name in attention.loading.DECODERS else "none")


def sentence_controls(max_tokens: int) -> None:
    """The sentence box and the examples, in the sidebar: one sentence shared by every page.

    A text longer than the page traces is cut to the part the model reads before it is kept anywhere
    (cache keys, the link), and the page says so (cut_notice).
    max_tokens: the most tokens the page traces."""
    cut = engine.accept_text(state.get("text"), engine.model_name())
    if cut is not None:
        state.put("text", cut.kept)
        st.session_state["_cut"] = cut
    with st.sidebar:
        st.text_area(
            "Sentence",
            key=state.widget_key("text"),
            on_change=state.copy_back("text"),
            height=110,
            help=f"Any text: the model reads up to {max_tokens} tokens of it. Press Ctrl+Enter to apply.",
        )
        st.selectbox("…or pick an example", ["—", *state.EXAMPLES], key="w:example", on_change=_use_example, index=0)


def _use_example() -> None:
    chosen = st.session_state.get("w:example")
    if chosen and chosen != "—":
        state.put("text", chosen)
        state.put("token", -1)
    st.session_state["w:example"] = "—"


def layer_head(n_layers: int, n_heads: int) -> tuple[int, int]:
    """Layer and head pickers in the sidebar, bound to the shared choice; returns them 0-based."""
    box = st.sidebar
    box.selectbox(
        "Layer",
        range(1, n_layers + 1),
        key=state.widget_key("layer"),
        on_change=state.copy_back("layer"),
        help=f"This model has {n_layers} layers; each runs {n_heads} heads.",
    )
    box.selectbox("Head", range(1, n_heads + 1), key=state.widget_key("head"), on_change=state.copy_back("head"))
    return state.clamp("layer", 1, n_layers) - 1, state.clamp("head", 1, n_heads) - 1


def cut_notice() -> None:
    """Say that the sentence was cut, for as long as the cut text is the one shown."""
    cut = st.session_state.get("_cut")
    if cut is not None and cut.kept == state.get("text"):
        st.warning(cut.message)


def url_notices() -> None:
    """Say which values of the link could not be used (each once)."""
    for name in state.take_notices():
        st.warning(f"The link's **{name}** value could not be used here, so the default is shown.")


def try_this(markdown: str) -> None:
    with st.container(border=True):
        st.markdown("**Try this.** " + markdown)


def default_token(tr) -> int:
    """The example's chosen token, else the last token that is not [CLS] or [SEP]."""
    wanted = state.EXAMPLES.get(tr.text)
    for t in tr.tokens:
        if t.text == wanted:
            return t.position
    words = [t.position for t in tr.tokens if not t.is_special]
    return words[-1] if words else 0


def token_picker(tr, label: str = "Token to follow", container=None) -> int:
    """A token of the trace, bound to the shared choice (the explorer's followed token)."""
    token = state.get("token")
    if not 0 <= token < tr.n_tokens:
        token = default_token(tr)
    st.session_state["w:token_pick"] = token
    texts = [t.display for t in tr.tokens]
    (container or st).selectbox(
        label,
        range(tr.n_tokens),
        key="w:token_pick",
        format_func=lambda i: f"{i} · {texts[i]}",
        on_change=lambda: state.put("token", int(st.session_state["w:token_pick"])),
    )
    return token
