"""Chapter 3: two projections, so that attention need not be symmetric."""

import streamlit as st

from attention import budget, heads
from ui import chapter, figures, widgets

prose = chapter.begin("05_queries_keys.py")
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
same = st.toggle("Same projection for queries and keys", help="A counterfactual: q = k.", **chapter.bound("qk_same"))
scores = heads.same_projection_scores(layer, head_i) if same else layer.scores[head_i]
xx = heads.self_similarity(layer)
left, right = st.columns(2)
with left:
    title = "k_i · k_j (one projection)" if same else "q_i · k_j"
    chapter.half_chart(
        figures.attention_heatmap(scores, labels, title, kind="scores", half_width=True),
        "qk_scores",
        key="fig_ch3_qk",
        layer=layer_i,
        head=head_i,
    )
    st.metric("asymmetry max|S − Sᵀ| / max|S|", f"{heads.asymmetry(scores):.3f}")
with right:
    chapter.half_chart(
        figures.attention_heatmap(xx, labels, "X Xᵀ of the embeddings", kind="scores", half_width=True),
        "xx",
        key="fig_ch3_xx",
        layer=layer_i,
    )
    st.metric("asymmetry of X Xᵀ", f"{heads.asymmetry(xx):.3f}")
st.header("From the model's width to a head's")
st.markdown(chapter.fill(prose["sizes"], gpt3_d_model=f"{budget.GPT3.d_model:,}", gpt3_d_head=budget.GPT3.d_head))
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
chapter.try_this(prose, d_model=cfg.d_model, d_head=cfg.d_head)
chapter.end()
