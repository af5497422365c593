"""Chapter 1: dot product, cosine similarity and distance, then the notes' hand-made embedding."""

import numpy as np
import streamlit as st

from attention import similarity
from ui import chapter, figures, widgets

prose = chapter.begin("01_similarity.py")
st.latex(
    r"a \cdot b = \sum_i a_i b_i \qquad \cos\theta = \frac{a \cdot b}{\lVert a\rVert\,\lVert b\rVert} \qquad "
    r"\lVert a - b\rVert = \sqrt{\textstyle\sum_i (a_i - b_i)^2}"
)

controls, picture = st.columns([1, 2])
with controls:
    a = np.array([st.slider("a₁", -5.0, 5.0, 3.0, 0.5), st.slider("a₂", -5.0, 5.0, 4.0, 0.5)])
    b = np.array([st.slider("b₁", -5.0, 5.0, 4.0, 0.5), st.slider("b₂", -5.0, 5.0, 3.0, 0.5)])
    if st.toggle("Double b's length", help="A counterfactual: same direction, twice as long."):
        b = 2 * b
    m1, m2 = st.columns(2)
    m1.metric("dot product a·b", f"{similarity.dot(a, b):.2f}")
    m2.metric("cosine", f"{similarity.cosine(a, b):.4f}")
    m1.metric("angle", f"{similarity.angle_degrees(a, b):.1f}°")
    m2.metric("distance ‖a − b‖", f"{similarity.euclidean(a, b):.2f}")
with picture:
    widgets.chart(figures.two_vectors(a, b), "two_vectors")
st.markdown(prose["measures"])

st.header("A hand-made embedding")
st.markdown(prose["toy"])
words = list(similarity.TOY_EMBEDDING)
left, right = st.columns([1, 2])
with left:
    st.dataframe(
        {"word": words}
        | {f: [similarity.TOY_EMBEDDING[w][i] for w in words] for i, f in enumerate(similarity.FEATURES)},
        hide_index=True,
    )
with right:
    widgets.chart(
        figures.table_heatmap(
            similarity.cosine_table(words),
            words,
            words,
            "Cosine similarity of the toy words",
            fmt=".4f",
            zmin=0,
            zmax=1,
        ),
        "toy_cosines",
        key="fig_toy_cosines",
    )
widgets.try_this(prose["try"])
chapter.end()
