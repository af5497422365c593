"""Chapter 3: dot product, cosine similarity and distance, then the notes' hand-made embedding."""

import numpy as np
import streamlit as st

from attention.lessons import similarity
from ui import chapter, figures, state, theme, widgets

prose = chapter.begin("03_similarity.py")
st.latex(
    r"a \cdot b = \sum_i a_i b_i \qquad \cos\theta = \frac{a \cdot b}{\lVert a\rVert\,\lVert b\rVert} \qquad "
    r"\lVert a - b\rVert = \sqrt{\textstyle\sum_i (a_i - b_i)^2}"
)

controls, picture = st.columns([1, 2])
with controls:
    a1, a2 = (st.slider(f"a{i}", -5.0, 5.0, step=0.5, **state.bound(f"sim_a{n}")) for i, n in (("₁", 1), ("₂", 2)))
    b1, b2 = (st.slider(f"b{i}", -5.0, 5.0, step=0.5, **state.bound(f"sim_b{n}")) for i, n in (("₁", 1), ("₂", 2)))
    a, b = np.array([a1, a2]), np.array([b1, b2])
    if st.toggle(
        "Double b's length", help="A counterfactual: same direction, twice as long.", **state.bound("sim_double")
    ):
        b = 2 * b
    m1, m2 = st.columns(2)
    m1.metric("dot product a·b", f"{similarity.dot(a, b):.2f}")
    m2.metric("cosine", f"{similarity.cosine(a, b):.4f}")
    m1.metric("angle", f"{similarity.angle_degrees(a, b):.1f}°")
    m2.metric("distance ‖a − b‖", f"{similarity.euclidean(a, b):.2f}")
with picture:
    widgets.chart(figures.two_vectors(a, b), "two_vectors")
st.markdown(prose["measures"])
st.markdown(prose["angles"])
st.dataframe(
    {
        "angle": [f"{a}°" for a in similarity.NOTES_ANGLES],
        "the slides write": [f"{v:g}" for v in similarity.NOTES_ANGLES.values()],
        "cosine, exactly": [f"{similarity.cosine_of_angle(a):.4f}" for a in similarity.NOTES_ANGLES],
    },
    hide_index=True,
)

st.header("A hand-made embedding")
words = list(similarity.TOY_EMBEDDING)
table = similarity.cosine_table(words)
st.markdown(chapter.fill(prose["toy"], cos_apple=f"{table[words.index('apple'), words.index('orange')]:.4f}"))
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
            table,
            words,
            words,
            "Cosine similarity of the toy words",
            fmt=".4f",
            scale=theme.SCORES_SCALE,  # a similarity, on the scores' diverging scale: −1 blue, 0 white, 1 red
            zmin=-1,
            zmax=1,
        ),
        "toy_cosines",
        key="fig_toy_cosines",
    )
chapter.try_this(
    prose,
    cos_ab=f"{similarity.cosine(np.array([3.0, 4.0]), np.array([4.0, 3.0])):.2f}",
    cos_right=f"{similarity.cosine(np.array([3.0, 4.0]), np.array([-4.0, 3.0])):.0f}",
    dot_right=f"{similarity.dot(np.array([3.0, 4.0]), np.array([-4.0, 3.0])):.0f}",
)
chapter.end()
