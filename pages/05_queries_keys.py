"""Chapter 5: two projections, so that attention need not be symmetric."""

import streamlit as st

from attention.lessons import budget, heads, similarity
from ui import chapter, figures, state, theme, widgets

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
same = st.toggle("Same projection for queries and keys", help="A counterfactual: q = k.", **state.bound("qk_same"))
scores = heads.same_projection_scores(layer, head_i) if same else layer.scores[head_i]
xx = heads.self_similarity(layer)
left, right = st.columns(2)
with left:
    title = "k_i · k_j (one projection)" if same else "q_i · k_j"
    chapter.half_chart(
        figures.attention_heatmap(scores, labels, title, kind="scores", half_width=True),
        "qk_scores",
        key="fig_queries_keys_qk",
        layer=layer_i,
        head=head_i,
    )
    st.metric("asymmetry max|S − Sᵀ| / max|S|", f"{heads.asymmetry(scores):.3f}")
with right:
    chapter.half_chart(
        figures.attention_heatmap(xx, labels, "X Xᵀ of the embeddings", kind="scores", half_width=True),
        "xx",
        key="fig_queries_keys_xx",
        layer=layer_i,
    )
    st.metric("asymmetry of X Xᵀ", f"{heads.asymmetry(xx):.3f}")
st.header("Symmetric scores, asymmetric weights")
sym = similarity.symmetric_scores()
s_oa, w_oa, w_ao = sym.pair("orange", "and")
st.markdown(
    chapter.fill(prose["symmetric"], s_orange_and=f"{s_oa:g}", w_orange_and=f"{w_oa:.4f}", w_and_orange=f"{w_ao:.4f}")
)
left, right = st.columns(2)
with left:
    widgets.chart(
        figures.table_heatmap(
            sym.scores, sym.words, sym.words, "Scores: symmetric", fmt=".4f", scale=theme.SCORES_SCALE, zmin=-1, zmax=1
        ),
        "symmetric_scores",
        key="fig_queries_keys_sym_scores",
    )
with right:
    widgets.chart(
        figures.table_heatmap(
            sym.weights, sym.words, sym.words, "Softmax of each row: not symmetric", fmt=".4f", zmin=0, zmax=1
        ),
        "row_softmax",
        key="fig_queries_keys_sym_weights",
    )
st.metric("asymmetry of these weights, max|W − Wᵀ| / max|W|", f"{heads.asymmetry(sym.weights):.3f}")

st.header("From the model's width to a head's")
gpt3 = budget.GPT3
sizes = dict(
    cfg_d_model=f"{cfg.d_model:,}",
    cfg_n_heads=cfg.n_heads,
    cfg_d_head=cfg.d_head,
    gpt3_d_model=f"{gpt3.d_model:,}",
    gpt3_d_head=gpt3.d_head,
    gpt3_heads=gpt3.n_heads,
    gpt3_vocab=f"{gpt3.vocab:,}",
    gpt3_context=f"{gpt3.context:,}",
)
st.markdown(chapter.fill(prose["sizes"], **sizes))
st.info(chapter.fill(prose["slip"], **sizes))
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
    key="fig_queries_keys_widths",
)
chapter.try_this(prose, d_model=cfg.d_model, d_head=cfg.d_head)
chapter.end()
