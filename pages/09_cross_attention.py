"""Chapter 9: queries from one sentence, keys and values from another."""

import streamlit as st

from ui import chapter, engine, figures, widgets

prose = chapter.begin("09_cross_attention.py")
st.latex(
    r"\operatorname{CrossAttention}(X_\text{target}, X_\text{source}) = "
    r"\operatorname{softmax}\!\Big(\frac{(X_\text{target} W_Q)(X_\text{source} W_K)^\top}{\sqrt{d_k}}\Big)\, X_\text{source} W_V"
)
st.markdown(prose["cross"])
view = chapter.sentence_view()
layer_i, head_i = view.layer, view.head
target = view.text
source = st.text_input(
    "Source sentence (keys and values)",
    "a small furry animal walked through the green woods",
    key="w:ch9_source",
    max_chars=2000,
)
self_only = st.toggle("Self-attention instead (the target answers its own queries)", key="w:ch9_self")
try:
    ca = engine.cross_attention(target, target if self_only else source, layer_i, head_i)
except ValueError as exc:
    st.info(str(exc))
    st.stop()
target_labels = figures.token_labels([t.display for t in ca.target])
source_labels = figures.token_labels([t.display for t in ca.source])
st.caption(f"Target: the sidebar's sentence ({len(ca.target)} tokens). Weights: {len(ca.target)} × {len(ca.source)}.")
widgets.chart(
    figures.attention_heatmap(
        ca.weights,
        target_labels,
        f"{'Self' if self_only else 'Cross'}-attention weights, layer {layer_i + 1}, head {head_i + 1}",
        key_labels=source_labels,
    ),
    "cross_attention",
    key="fig_ch9",
)
widgets.try_this(prose["try"])
chapter.end()
