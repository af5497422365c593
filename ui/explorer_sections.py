"""The explorer's last sections: how the heads move one token, and every token before and after."""

from __future__ import annotations

import streamlit as st

import attention

from . import engine, figures, state, widgets
from .prose import sections


@st.fragment
def displacement_section(tr, layer_i: int) -> None:
    """Its own fragment: following another token redraws only this section."""
    layer = tr.layers[layer_i]
    h = state.get("head") - 1
    prose = sections("explorer")
    st.markdown(prose["displacement"])
    st.latex(
        r"\Delta e_j^{(h)} = \Big(\sum_i w_{ji}\, v_i^{(h)}\Big) W_O^{(h)} \qquad e_j' = \mathrm{LayerNorm}\Big(e_j + \sum_h \Delta e_j^{(h)} + b_O\Big)"
    )
    token = state.get("token")
    if not 0 <= token < tr.n_tokens:
        token = widgets.default_token(tr)
    texts = [t.display for t in tr.tokens]
    st.session_state["w:token_follow"] = token
    st.selectbox(
        "Token to follow",
        range(tr.n_tokens),
        key="w:token_follow",
        format_func=lambda i: f"{i} · {texts[i]}",
        on_change=_follow,
    )
    pic = engine.displacement_picture(tr.text, tr.mask_kind, layer_i, token)
    labels = figures.token_labels(texts)
    cols = st.columns([3, 2])
    with cols[0]:
        widgets.chart(
            figures.displacement_figure(
                pic.e, pic.e_plus_head, pic.e_plus_sum, pic.updated, pic.projection.explained, token, labels, h
            ),
            "displacement",
            key="fig_disp",
        )
    with cols[1]:
        widgets.chart(
            figures.head_norm_bars(pic.head_norms[:, token], h, float(pic.sum_norms[token]), labels[token]),
            "head_norms",
            key="fig_norms",
        )
        st.caption(
            f"The picture is fitted to this token's points and keeps {pic.projection.explained_total:.0%} "
            f"of their variance; the bar chart's lengths are measured in all {layer.x.shape[1]} dimensions."
        )
    state.sync_url()  # a fragment rerun does not reach the end of app.py


def _follow() -> None:
    state.put("token", int(st.session_state["w:token_follow"]))


def updated_section(tr, layer, keep, show) -> None:
    which = st.radio(
        "After",
        ["attention", "layer"],
        horizontal=True,
        key="w:after",
        format_func={"attention": "attention + LayerNorm", "layer": "the whole layer (+ feed-forward)"}.get,
    )
    ba = engine.before_after(tr.text, tr.mask_kind, layer.index, which, tuple(keep))
    texts = [tr.tokens[i].display for i in keep]
    labels = figures.token_labels(texts, keep)
    show(
        figures.before_after_figure(ba.before, ba.after, ba.projection.explained, labels), "before_after", key="fig_ba"
    )
    moves = attention.moved_toward(ba)
    st.dataframe(
        {
            "token": [f"{keep[m.token]} · {texts[m.token]}" for m in moves],
            "moved most toward": [f"{keep[m.toward]} · {texts[m.toward]}" for m in moves],
            "cosine before": [round(m.cos_before, 3) for m in moves],
            "cosine after": [round(m.cos_after, 3) for m in moves],
            "change": [round(m.cos_after - m.cos_before, 3) for m in moves],
        },
        hide_index=True,
        width="stretch",
    )
