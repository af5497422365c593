"""Chapter 4: the same word, moved by its context, first by hand, then by the real model."""

import numpy as np
import streamlit as st

from attention.lessons import similarity
from ui import chapter, engine, figures, state, widgets

SENTENCES = ("an apple and an orange", "an apple phone")
REFERENCES = ("orange", "phone")

prose = chapter.begin("04_context.py")
st.latex(
    r"e_i' = \sum_j w_{ij}\, e_j, \qquad w_{ij} = \frac{\cos(e_i, e_j)}{\sum_k \cos(e_i, e_k)} "
    r"\;\text{ or }\; w_{ij} = \frac{\exp \cos(e_i, e_j)}{\sum_k \exp \cos(e_i, e_k)}"
)
st.header("By hand")
checks = {c.how: c for c in similarity.notes_check()}
orange_row = {f"{how}_{w}": f"{getattr(c, w):.3f}" for how, c in checks.items() for w in ("orange", "apple")}
every_token = similarity.token_softmax_row(SENTENCES[0].split(), "orange")
orange_row |= {f"token_{w}": f"{every_token[w]:.3f}" for w in ("orange", "apple", "an")}
st.markdown(chapter.fill(prose["toy"], **orange_row))
c1, c2 = st.columns(2)
sentence = c1.radio("Sentence", SENTENCES, horizontal=True, **state.bound("ctx_sentence"))
how = c2.radio(
    "Weights",
    list(similarity.WEIGHTINGS),
    format_func=similarity.WEIGHTINGS.get,
    help="Attention takes the softmax over every token; the notes' table, and this one, list each word once.",
    **state.bound("ctx_weights"),
)
mixed = similarity.mix(sentence.split(), how=how)
words = list(mixed.words)
left, right = st.columns(2)
with left:
    widgets.chart(
        figures.table_heatmap(
            mixed.weights,
            words,
            words,
            f"Weights: {similarity.WEIGHTINGS[how]}",
            fmt=".3f",
            zmin=0,
            zmax=1,
        ),
        "toy_weights",
        key="fig_context_weights",
    )
with right:
    st.markdown("**New vectors** (tech, fruitness, other)")
    st.dataframe(
        {"word": words} | {f: np.round(mixed.new_vectors[:, i], 3) for i, f in enumerate(similarity.FEATURES)},
        hide_index=True,
    )
st.markdown("**Orange's row of “an apple and an orange”, three ways, beside the notes' 0.57 and 0.43**")
st.dataframe(
    {
        "weights": [similarity.WEIGHTINGS[c.how] for c in checks.values()],
        "orange → orange": [f"{c.orange:.4f}" for c in checks.values()],
        "orange → apple": [f"{c.apple:.4f}" for c in checks.values()],
        "rounds to the notes' 0.57 / 0.43": ["yes" if c.matches_notes else "no" for c in checks.values()],
    },
    hide_index=True,
)
softmax_rows = similarity.mix(SENTENCES[0].split(), "softmax")
and_row = softmax_rows.weights[softmax_rows.words.index("and")]
st.markdown(
    chapter.fill(
        prose["value_matrix"],
        and_and=f"{and_row[softmax_rows.words.index('and')]:.3f}",
        and_orange=f"{and_row[softmax_rows.words.index('orange')]:.3f}",
    )
)

st.header("In the real model")
cfg = chapter.model_view().config
st.markdown(chapter.fill(prose["decoder" if cfg.is_decoder else "real"], layers=cfg.n_layers))
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
    key="fig_context_apple",
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
chapter.try_this(
    prose,
    **orange_row,
    softmax_an=f"{softmax_rows.weights[softmax_rows.words.index('apple'), softmax_rows.words.index('an')]:.3f}",
    question=prose["question_decoder" if cfg.is_decoder else "question_encoder"].strip(),
)
chapter.end()
