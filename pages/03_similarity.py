"""Chapter 3: dot product, cosine similarity and distance, then the notes' hand-made embedding."""

import numpy as np
import streamlit as st

from attention import Trace
from attention.lessons import questions_chapters_1_to_5, similarity
from ui import figures
from ui.components import table
from ui.figures import theme
from ui.kit import chapter, inputs, questions
from ui.kit.chart import chart
from ui.session import engine, models, state
from ui.words import i18n
from ui.words.i18n import N_, _

# The toy embedding's features (similarity.FEATURES), in words.
FEATURES = {"tech": N_("tech"), "fruitness": N_("fruitness"), "other": N_("other")}


def in_code(text: str) -> str:
    """A token in the prose, as a code span: what a sentence holds is never read as Markdown."""
    return "`" + " ".join(text.split()).replace("`", "ˋ") + "`"


def session_trace() -> Trace | None:
    """The session's sentence through the chosen model (this page has no sentence box of its own), or None for a
    text it cannot read."""
    try:
        return engine.trace(state.get("text"), None, models.model_name())
    except ValueError:
        return None


def distance_question(tr: Trace) -> dict[str, object] | None:
    """The places of the computed question: two word tokens' input embeddings, their lengths and dot product, and
    ‖a − b‖ beside the mistakes of questions_chapters_1_to_5.distance_options, written alike and apart (None for a sentence with
    fewer than two words)."""
    pair = questions_chapters_1_to_5.two_words(tr.tokens)
    if pair is None:
        return None
    a, b = (tr.embeddings[i].astype(np.float64) for i in pair)
    names = figures.token_labels([t.display for t in tr.tokens], escaped=False)
    options = questions_chapters_1_to_5.distance_options(a, b)
    written = questions_chapters_1_to_5.written_apart(i18n.num, options.values, 2)
    return dict(
        zip(("distance", "distance_sum", "distance_squared", "length_gap"), written, strict=True),
        first=in_code(names[pair[0]]),
        second=in_code(names[pair[1]]),
        len_a=i18n.num(float(np.linalg.norm(a)), 2),
        len_b=i18n.num(float(np.linalg.norm(b)), 2),
        dot=i18n.num(float(a @ b), 2),
    )


prose = chapter.begin("03_similarity.py")
cfg = chapter.model_view().config  # the shared sentence's model, for the questions at the end
st.latex(
    r"a \cdot b = \sum_i a_i b_i \qquad \cos\theta = \frac{a \cdot b}{\lVert a\rVert\,\lVert b\rVert} \qquad "
    r"\lVert a - b\rVert = \sqrt{\textstyle\sum_i (a_i - b_i)^2}"
)

controls, picture = st.columns([1, 2])
with controls:
    a1, a2, b1, b2 = (
        inputs.decimal_slider(f"{v}{i}", -5.0, 5.0, 0.5, 1, **state.bound(f"sim_{v}{n}"))
        for v in "ab"
        for i, n in (("₁", 1), ("₂", 2))
    )
    a, b = np.array([a1, a2]), np.array([b1, b2])
    if st.toggle(
        _("Double b's length"),
        help=_("A counterfactual, a what-if the real model never computes: same direction, twice as long."),
        **state.bound("sim_double"),
    ):
        b = 2 * b
    m1, m2 = st.columns(2)
    m1.metric(_("dot product {product}").format(product="a·b"), i18n.num(similarity.dot(a, b), 2))
    m2.metric(_("cosine"), i18n.num(similarity.cosine(a, b), 4))
    m1.metric(_("angle"), i18n.num(similarity.angle_degrees(a, b), 1) + "°")
    m2.metric(_("distance {norm}").format(norm="‖a − b‖"), i18n.num(similarity.euclidean(a, b), 2))
with picture:
    chart(figures.two_vectors(a, b, words=i18n.words()), "two_vectors", share=2 / 3)
st.markdown(prose["measures"])
st.markdown(prose["angles"])
table.table(
    {
        _("angle"): [(f"{a}°", a) for a in similarity.NOTES_ANGLES],
        _("the slides write"): [(i18n.fmt(v, "g"), v) for v in similarity.NOTES_ANGLES.values()],
        _("cosine, exactly"): [similarity.cosine_of_angle(a) for a in similarity.NOTES_ANGLES],
    },
    key="similarity_angles",
    label=_("The slides' cosines of three angles, and the exact ones"),
    digits=4,
)

st.header(_("A hand-made embedding"), anchor="a-hand-made-embedding")
words = list(similarity.TOY_EMBEDDING)
cosines = similarity.cosine_table(words)
cos_apple = cosines[words.index("apple"), words.index("orange")]
st.markdown(chapter.fill(prose["toy"], cos_apple=i18n.num(cos_apple, 4)))
chapter.notes_aside(chapter.fill(prose["aside_toy"], cos_apple_short=i18n.num(cos_apple, 2)))
left, right = chapter.figure_columns([2, 3])  # the table of four columns whole in French too
with left:
    table.table(
        {_("word"): words}
        | {_(FEATURES[f]): [similarity.TOY_EMBEDDING[w][i] for w in words] for i, f in enumerate(similarity.FEATURES)},
        key="similarity_toy_embedding",
        label=_("The toy words' vectors, one feature a column"),
        digits=1,
    )
with right:
    chart(
        figures.table_heatmap(
            cosines,
            words,
            words,
            _("Cosine similarity of the toy words"),
            fmt=".4f",
            scale=theme.SCORES_SCALE,  # a similarity, on the scores' diverging scale: −1 blue, 0 white, 1 red
            zmin=-1,
            zmax=1,
            words=i18n.words(),
        ),
        "toy_cosines",
        key="fig_toy_cosines",
        share=chapter.figure_share(3 / 5),
    )
tr = session_trace()
asked = distance_question(tr) if tr is not None else None
left_out = {"quiz_2": asked is None, "quiz_shapes": tr is None}  # a text the model cannot read asks neither
chapter.try_this(
    {key: text for key, text in prose.items() if not left_out.get(key)},
    **(asked or {}),
    **questions.shape_values(cfg, tr.n_tokens if tr is not None else 0),
    cos_ab=i18n.num(similarity.cosine(np.array([3.0, 4.0]), np.array([4.0, 3.0])), 2),
    cos_right=i18n.num(similarity.cosine(np.array([3.0, 4.0]), np.array([-4.0, 3.0])), 0),
    dot_right=i18n.num(similarity.dot(np.array([3.0, 4.0]), np.array([-4.0, 3.0])), 0),
)
chapter.end()
