"""The explorer's sidebar (sentence, layer and head, then its own choices) and the notices above its sections."""

from __future__ import annotations

import streamlit as st

import attention
from ui.components import head_switch
from ui.figures.layout import LAYOUTS
from ui.kit import inputs, notices
from ui.session import models, state
from ui.words import architecture, i18n
from ui.words.i18n import _


def mask_help() -> str:
    return _(
        "{none}: every token sees every other (how an encoder runs). {causal}: a token sees only itself and the ones "
        "before it (how a decoder runs)."
    ).format(**architecture.mask_names())


def layout_names() -> dict[str, str]:
    """One name per LAYOUTS, in the page's language."""
    return {"paper": _("paper (rows are queries)"), "notes": _("lesson notes (columns are queries)")}


def colour_names() -> dict[str, str]:
    return {"unit": _("0 to 1"), "row": _("0 to each query's largest")}


def controls(cfg: attention.ModelConfig) -> int:
    """The sidebar: sentence, layer and head, then the explorer's own choices. Returns the layer, 0-based."""
    inputs.sentence_controls(models.max_tokens(cfg))
    layer_i, _head = inputs.layer_head(cfg.n_layers, cfg.n_heads)
    with st.sidebar:
        st.radio(
            _("Mask"),
            attention.MASKS,
            **state.bound("mask"),
            format_func=architecture.mask_names().get,
            horizontal=True,
            help=mask_help(),
        )
        st.radio(
            _("Layout"),
            LAYOUTS,
            **state.bound("layout"),
            format_func=layout_names().get,
        )
        named = architecture.specials_named(cfg)
        if named:  # a model that adds no token has none to show or hide
            st.toggle(_("Show {tokens}").format(tokens=named), **state.bound("specials"))
        st.radio(
            _("Weight colours"),
            list(colour_names()),
            **state.bound("colours"),
            format_func=colour_names().get,
            help=_(
                "0 to 1: one scale for every weight, to compare them across queries and heads. 0 to each query's "
                "largest weight: each row on its own scale, which shows where every token looks even when no weight "
                "is large; the colour bar then says per query."
            ),
        )
        st.toggle(
            _("Numbers in every cell"),
            **state.bound("numbers"),
            help=_(
                "Values are printed where they fit their cells. On: the cells grow until the values fit, as far "
                "as the page's width allows, and the four steps may no longer share one screen."
            ),
        )
        st.toggle(
            _("Presenter mode"),
            **state.bound("presenter"),
            help=_(
                "For a projector: larger type in the figures, the explanations hidden, the equations kept, and the "
                "four steps of a head on one screen, or one step at a time as large as the screen holds."
            ),
        )
    return layer_i


def show_notices(tr: attention.Trace) -> None:
    if head_switch.resized():  # the first run's notices again: the page was redrawn for the window at once
        st.session_state[state.NOTICES] = st.session_state.get("_notices_shown", [])
    st.session_state["_notices_shown"] = list(st.session_state.get(state.NOTICES, []))
    notices.url_notices()
    notices.cut_notice()
    notices.unread_notice(models.current_or_stop(), tr.text)
    if tr.truncated:
        cut = []
        if tr.chars_dropped:
            cut.append(
                _("{n} characters beyond the first {kept}").format(
                    n=i18n.whole(tr.chars_dropped), kept=i18n.whole(len(tr.text) - tr.chars_dropped)
                )
            )
        if tr.n_dropped:
            cut.append(
                _("{n} tokens beyond the model's limit of {limit}").format(
                    n=i18n.whole(tr.n_dropped), limit=i18n.whole(tr.n_tokens)
                )
            )
        st.warning(
            _("The text is longer than the model reads: {what} were left out.").format(what=_(" and ").join(cut))
        )
