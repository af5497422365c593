"""Chapter 5: the mask and the softmax, on the notes' worked example and on the real sentence."""

import pandas as pd
import streamlit as st

import attention
from attention import masking
from ui import chapter, figures, theme, widgets

KEYS = [f"k{i + 1}" for i in range(4)]
QUERIES = [f"q{j + 1}" for j in range(4)]

prose = chapter.begin("05_masking.py")
st.latex(
    r"w_{ij} = \frac{\exp(s_{ij} + M_{ij})}{\sum_{j'} \exp(s_{ij'} + M_{ij'})}, \qquad "
    r"M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}"
)
st.markdown(prose["training"])
st.header("The notes' worked example")
st.markdown(prose["worked"])
edited = st.data_editor(
    pd.DataFrame(masking.editable_scores(), index=KEYS, columns=QUERIES), key="w:ch5_table", width="stretch"
)
mask_on = st.toggle("Mask the later keys (−∞ below the diagonal)", value=True, key="w:ch5_mask")
scores = edited.to_numpy(dtype=float)
scores = masking.apply_notes_mask(scores) if mask_on else scores
weights = masking.column_softmax(scores)
left, right = st.columns(2)
with left:
    widgets.chart(
        figures.table_heatmap(
            scores,
            KEYS,
            QUERIES,
            "Scores (keys × queries)",
            fmt=".2f",
            scale=theme.SCORES_SCALE,
            row_title="keys",
            col_title="queries",
        ),
        "worked_scores",
        key="fig_ch5_scores",
    )
with right:
    widgets.chart(
        figures.table_heatmap(
            weights,
            KEYS,
            QUERIES,
            "Softmax down each column, exact",
            fmt=".3f",
            zmin=0,
            zmax=1,
            row_title="keys",
            col_title="queries",
        ),
        "worked_softmax",
        key="fig_ch5_softmax",
    )
st.caption(
    "Column sums: " + ", ".join(f"{q}: {s:.6f}" for q, s in zip(QUERIES, masking.column_sums(weights), strict=True))
)
if mask_on and masking.is_worked_example(edited.to_numpy(dtype=float)):
    st.dataframe(
        pd.DataFrame(
            {
                "query": QUERIES,
                "notes (rounded by hand)": [", ".join(f"{v:.2f}" for v in c) for c in masking.NOTES_ROUNDED.T],
                "exact": [", ".join(f"{v:.3f}" for v in c) for c in weights.T],
            }
        ),
        hide_index=True,
    )
small = masking.small_example_softmax()
st.markdown(f"softmax(10, 20, 10) = ({small[0]:.7f}, {small[1]:.7f}, {small[2]:.7f})")

st.header("On the real sentence")
st.markdown(prose["real"])
view = chapter.sentence_view()
layer_i, head_i = view.layer, view.head
labels = figures.token_labels([t.display for t in view.trace().tokens])
left, right = st.columns(2)
for col, mask in zip((left, right), attention.MASKS, strict=True):
    with col:
        tr = view.trace(mask)
        widgets.chart(
            figures.attention_heatmap(
                tr.layers[layer_i].weights[head_i],
                labels,
                f"mask: {mask}, layer {layer_i + 1}, head {head_i + 1}",
                half_width=True,
            ),
            f"weights_{mask}",
            key=f"fig_ch5_{mask}",
        )
widgets.try_this(prose["try"])
chapter.end()
