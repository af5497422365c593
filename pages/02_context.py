"""Chapter 2: the same word, moved by its context, first by hand, then by the real model."""

import numpy as np
import streamlit as st

from attention import similarity
from ui import chapter, engine, figures, widgets

SENTENCES = ("an apple and an orange", "an apple phone")
REFERENCES = ("orange", "phone")

prose = chapter.begin("02_context.py")
st.latex(
    r"e_i' = \sum_j w_{ij}\, e_j, \qquad w_{ij} = \frac{\cos(e_i, e_j)}{\sum_k \cos(e_i, e_k)} "
    r"\;\text{ or }\; w_{ij} = \frac{\exp \cos(e_i, e_j)}{\sum_k \exp \cos(e_i, e_k)}"
)
st.header("By hand")
st.markdown(prose["toy"])
c1, c2 = st.columns(2)
sentence = c1.radio("Sentence", SENTENCES, horizontal=True, key="w:ch2_sentence")
how = c2.radio(
    "Weights",
    ["softmax", "normalized"],
    horizontal=True,
    key="w:ch2_how",
    help="A counterfactual: attention uses the softmax.",
)
mixed = similarity.mix(sentence.split(), how=how)
words = list(mixed.words)
left, right = st.columns(2)
with left:
    widgets.chart(
        figures.table_heatmap(
            mixed.weights, words, words, f"Weights ({how}), each row sums to 1", fmt=".3f", zmin=0, zmax=1
        ),
        "toy_weights",
        key="fig_ch2_weights",
    )
with right:
    st.markdown("**New vectors** (tech, fruitness, other)")
    st.dataframe(
        {"word": words} | {f: np.round(mixed.new_vectors[:, i], 3) for i, f in enumerate(similarity.FEATURES)},
        hide_index=True,
    )

st.header("In the real model")
st.markdown(prose["real"])
engine.load_model_or_stop()
shift = engine.context_shift("apple", SENTENCES, REFERENCES)
widgets.chart(
    figures.lines(
        shift.layers,
        shift.series(),
        "Cosine similarity of “apple” with “orange” and “phone”, layer by layer",
        "layer (0 = input embeddings)",
        "cosine similarity",
    ),
    "apple_context",
    key="fig_ch2_context",
)
st.dataframe(
    {
        "sentence": SENTENCES,
        "cos(apple, orange)": np.round(shift.final[:, 0], 3),
        "cos(apple, phone)": np.round(shift.final[:, 1], 3),
        "nearer": shift.nearer,
    },
    hide_index=True,
)
widgets.try_this(prose["try"])
chapter.end()
