"""The explorer: a typed sentence through one layer of the model, every step drawn."""

from __future__ import annotations

import numpy as np
import streamlit as st

import attention

from . import engine, figures, state, theme, widgets
from .explorer_sections import displacement_section, updated_section
from .prose import sections

MASK_HELP = "none: how this encoder really runs. causal: what a decoder does, applied here as an illustration."
LAYOUT_NAMES = {
    "paper": "paper (rows are queries)",
    "notes": "lesson notes (columns are queries)",
}  # one per attention.LAYOUTS


def show_notices(tr: attention.Trace) -> None:
    widgets.url_notices()
    widgets.cut_notice()
    if tr.truncated:
        cut = []
        if tr.chars_dropped:
            cut.append(f"{tr.chars_dropped:,} characters beyond the first {len(tr.text) - tr.chars_dropped:,}")
        if tr.n_dropped:
            cut.append(f"{tr.n_dropped:,} tokens beyond the model's limit of {tr.n_tokens}")
        st.warning("The text is longer than the model reads: " + " and ".join(cut) + " were left out.")


def render() -> None:
    state.init()
    prose = sections("explorer")
    widgets.model_choice()
    model = engine.current_or_stop()
    cfg = model.config
    widgets.sentence_controls(engine.max_tokens(cfg))
    layer_i, _ = widgets.layer_head(cfg.n_layers, cfg.n_heads)
    with st.sidebar:
        st.radio(
            "Mask",
            attention.MASKS,
            key=state.widget_key("mask"),
            on_change=state.copy_back("mask"),
            horizontal=True,
            help=MASK_HELP,
        )
        st.radio(
            "Layout",
            attention.LAYOUTS,
            key=state.widget_key("layout"),
            on_change=state.copy_back("layout"),
            format_func=LAYOUT_NAMES.get,
        )
        st.toggle("Show [CLS] and [SEP]", key=state.widget_key("specials"), on_change=state.copy_back("specials"))
        st.radio(
            "Camera button saves",
            list(theme.EXPORT_FORMATS),
            key=state.widget_key("export"),
            on_change=state.copy_back("export"),
            format_func=lambda f: theme.EXPORT_FORMATS[f].label,
            horizontal=True,
        )

    text, mask, layout = state.get("text"), state.get("mask"), state.get("layout")

    st.title("Attention, step by step")
    st.markdown(prose["intro"])
    tr = engine.trace_or_stop(text, mask)
    show_notices(tr)
    layer = tr.layers[layer_i]
    texts = [t.display for t in tr.tokens]
    keep = [t.position for t in tr.tokens if state.get("specials") or not t.is_special] or list(range(tr.n_tokens))
    labels = figures.token_labels([texts[i] for i in keep], keep)
    show = widgets.chart

    st.header("1 · Tokens")
    st.markdown(prose["tokens"])
    st.latex(r"e_i = \mathrm{LayerNorm}\big(W_E[t_i] + P_i + T_0\big)")
    show(
        figures.token_chips(texts, [t.is_special for t in tr.tokens], [t.is_continuation for t in tr.tokens]), "tokens"
    )

    head_section(tr, layer, keep, labels, layout, prose, show)

    st.header("5 · Displacement: what each head adds")
    displacement_section(tr, layer_i)

    st.header("6 · Updated embeddings")
    st.markdown(prose["updated"])
    updated_section(tr, layer, keep, show)


def head_section(tr, layer, keep, labels, layout, prose, show) -> None:
    h = state.get("head") - 1
    ix = np.ix_(keep, keep)
    st.header(f"2 · Queries, keys and values (layer {layer.index + 1}, head {h + 1})")
    st.markdown(prose["qkv"])
    st.latex(r"q_i = W_Q\,e_i + b_Q \qquad k_j = W_K\,e_j + b_K \qquad v_j = W_V\,e_j + b_V")
    cols = st.columns(3)
    for col, (name, arr) in zip(cols, (("Q", layer.q), ("K", layer.k), ("V", layer.v)), strict=True):
        with col:
            show(
                figures.vectors_heatmap(arr[h][keep], labels, f"{name}: {len(keep)} tokens × {layer.d_head}"),
                f"{name.lower()}_heatmap",
            )

    st.header("3 · From scores to weights")
    hidden_note = (
        ""
        if len(keep) == tr.n_tokens
        else " [CLS] and [SEP] are hidden, so the weights shown no longer add up to exactly 1."
    )
    raw, scaled, masked, weights = (m[ix] for m in layer.score_steps(h))
    steps = (
        ("raw", r"s_{ij} = q_i \cdot k_j", raw, "scores", "1. Raw scores q · k"),
        ("scaled", rf"s_{{ij}} \,/\, \sqrt{{d_k}}, \quad d_k = {layer.d_head}", scaled, "scores", "2. Scaled: ÷ √dₖ"),
        (
            "masked",
            r"s_{ij}/\sqrt{d_k} + M_{ij}, \quad M_{ij} = -\infty \text{ if } j > i",
            masked,
            "scores",
            "3. Masked",
        ),
        (
            "softmax",
            r"w_{ij} = \frac{\exp(s_{ij}/\sqrt{d_k} + M_{ij})}{\sum_{j'} \exp(s_{ij'}/\sqrt{d_k} + M_{ij'})}",
            weights,
            "weights",
            "4. Softmax weights",
        ),
    )
    for key, eq, matrix, kind, title in steps:  # one step per row: its words beside its picture, in order
        text_col, figure_col = st.columns([1, 2], vertical_alignment="center")
        with text_col:
            st.markdown(prose[key] + (hidden_note if key == "softmax" else ""))
            st.latex(eq)
        with figure_col:
            show(
                figures.attention_heatmap(matrix, labels, title, kind=kind, layout=layout),
                f"{key}_scores",
                key=f"fig_{key}",
            )

    st.header("4 · All heads at a glance")
    st.markdown(prose["heads"])
    st.latex(r"\mathrm{head}_h = \mathrm{softmax}\!\Big(\frac{Q_h K_h^\top}{\sqrt{d_k}} + M\Big) V_h")
    n_heads = len(layer.weights)
    # the grid does not mark the chosen head, so that switching heads does not redraw it: the pills below do
    show(
        figures.head_grid(
            layer.weights[(slice(None), *ix)], labels, layout, f"All {n_heads} heads of layer {layer.index + 1}"
        ),
        "all_heads",
        key="fig_heads",
    )
    st.session_state["w:head_pick"] = h + 1
    st.pills(
        "Pick a head", list(range(1, n_heads + 1)), key="w:head_pick", on_change=_pick_head, selection_mode="single"
    )


def _pick_head() -> None:
    picked = st.session_state.get("w:head_pick")
    if picked:
        state.put("head", int(picked))
