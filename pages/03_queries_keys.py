"""Chapter 3: two projections, so that attention need not be symmetric."""

import streamlit as st

from attention import budget, heads
from ui import chapter, figures, widgets

prose = chapter.begin("03_queries_keys.py")
st.latex(
    r"q_i = W_Q\, e_i, \quad k_j = W_K\, e_j, \quad W_Q, W_K \in \mathbb{R}^{d_\text{head} \times d_\text{model}}, "
    r"\qquad s_{ij} = q_i \cdot k_j \;\neq\; s_{ji}"
)
view = chapter.sentence_view()
cfg, layer_i, head_i = view.config, view.layer, view.head
tr = view.trace()
layer = tr.layers[layer_i]
labels = figures.token_labels([t.display for t in tr.tokens])
st.markdown(prose["why"])
same = st.toggle("Same projection for queries and keys", key="w:ch3_same", help="A counterfactual: q = k.")
scores = heads.same_projection_scores(layer, head_i) if same else layer.scores[head_i]
xx = heads.self_similarity(layer)
left, right = st.columns(2)
with left:
    title = "k_i · k_j (one projection)" if same else f"q_i · k_j, layer {layer_i + 1}, head {head_i + 1}"
    widgets.chart(
        figures.attention_heatmap(scores, labels, title, kind="scores", half_width=True), "qk_scores", key="fig_ch3_qk"
    )
    st.metric("asymmetry max|S − Sᵀ| / max|S|", f"{heads.asymmetry(scores):.3f}")
with right:
    widgets.chart(
        figures.attention_heatmap(xx, labels, "X Xᵀ (embeddings with themselves)", kind="scores", half_width=True),
        "xx",
        key="fig_ch3_xx",
    )
    st.metric("asymmetry of X Xᵀ", f"{heads.asymmetry(xx):.3f}")
st.header("From the model's width to a head's")
st.markdown(prose["sizes"])
gpt3 = budget.GPT3
widgets.chart(
    figures.bars(
        ["GPT-3 d_model", "GPT-3 d_head", f"{cfg.name} d_model", f"{cfg.name} d_head"],
        [gpt3.d_model, gpt3.d_head, cfg.d_model, cfg.d_head],
        "Widths before and after the projection",
        "dimensions",
        text_fmt=",",
        horizontal=True,
    ),
    "widths",
    key="fig_ch3_widths",
)
widgets.try_this(prose["try"])
chapter.end()
