"""Chapter 4: the same word, moved by its context, first by hand, then by the real model."""

import streamlit as st

from attention.lessons import context, questions_chapters_1_to_5, similarity
from ui import figures
from ui.components import table
from ui.figures import theme
from ui.kit import chapter, questions
from ui.kit.chart import chart
from ui.session import engine, models, state
from ui.words import i18n
from ui.words.i18n import N_, _

# The toy's sentences: the notes' own, in the toy embedding's words.
SENTENCES = ("an apple and an orange", "an apple phone")
# The ways of weighting (similarity.WEIGHTINGS) and the toy features (similarity.FEATURES), in words.
WEIGHTINGS = {
    "normalized": N_("divided by the sum"),  # in the order the prose takes them, the attention's own last
    "softmax_related": N_("softmax over the related words"),
    "softmax": N_("softmax over every distinct word"),
}
FEATURES = {"tech": N_("tech"), "fruitness": N_("fruitness"), "other": N_("other")}


def weighting(how: str) -> str:
    """A way of weighting, named in the session's language."""
    return _(WEIGHTINGS[how])


def fall_question(across) -> dict[str, object] | None:
    """The places of the computed question: the step between two layers where the two words' similarity falls
    most, beside the wrong steps of questions_chapters_1_to_5.fall_options (None where it never falls)."""
    layers = questions_chapters_1_to_5.fall_options(across)
    if layers is None:
        return None
    right = layers[0]
    names = ("fall", "other_a", "other_b", "other_c")
    return (
        {name: layer for name, layer in zip(names, layers, strict=True)}
        | {f"{name}_next": layer + 1 for name, layer in zip(names, layers, strict=True)}
        | dict(
            fall_high=i18n.num(float(across[right]), 2),
            fall_low=i18n.num(float(across[right + 1]), 2),
            fall_by=i18n.num(float(across[right] - across[right + 1]), 2),
            lowest=i18n.num(float(across.min()), 2),
            widest=int(across.argmin()),
        )
    )


prose = chapter.begin("04_context.py")
st.latex(
    r"e_i' = \sum_j w_{ij}\, e_j, \qquad w_{ij} = \frac{\cos(e_i, e_j)}{\sum_k \cos(e_i, e_k)} "
    + r"\;\text{ "
    + _("or")
    + r" }\; "
    + r"w_{ij} = \frac{\exp \cos(e_i, e_j)}{\sum_k \exp \cos(e_i, e_k)}"
)
st.header(_("By hand"), anchor="by-hand")
checks = {c.how: c for c in similarity.notes_check()}
orange_row = {f"{how}_{w}": i18n.num(getattr(c, w), 3) for how, c in checks.items() for w in ("orange", "apple")}
every_token = similarity.token_softmax_row(SENTENCES[0].split(), "orange")
orange_row |= {f"token_{w}": i18n.num(every_token[w], 3) for w in ("orange", "apple", "an")}
st.markdown(chapter.fill(prose["toy"], **orange_row))
chapter.notes_aside(
    chapter.fill(
        prose["aside_toy"],
        **orange_row,
        **dict(
            zip(
                ("notes_orange", "notes_apple"), (i18n.num(w, 2) for w in similarity.NOTES_RELATED_WEIGHTS), strict=True
            )
        ),
    )
)
c1, c2 = st.columns(2)
sentence = c1.radio(_("Sentence"), SENTENCES, horizontal=True, **state.bound("ctx_sentence"))
how = c2.radio(
    _("Weights"),
    list(similarity.WEIGHTINGS),
    format_func=weighting,
    help=_("Attention takes the softmax over every token; the notes' table, and this one, list each word once."),
    **state.bound("ctx_weights"),
)
mixed = similarity.mix(sentence.split(), how=how)
words = list(mixed.words)
left, right = chapter.figure_columns(2)
with left:
    chart(
        figures.table_heatmap(
            mixed.weights,
            words,
            words,
            _("Weights: {weighting}").format(weighting=weighting(how)),
            fmt=".3f",
            zmin=0,
            zmax=1,
            words=i18n.words(),
        ),
        "toy_weights",
        key="fig_context_weights",
        share=chapter.figure_share(0.5),
    )
with right:
    features = [_(FEATURES[f]) for f in similarity.FEATURES]
    new_vectors = _("**New vectors** ({features})").format(features=", ".join(features))
    st.markdown(new_vectors)
    table.table(  # every value to three decimals (st.dataframe wrote 1.810 as "1.81"), as the language writes them
        {_("word"): words} | {f: mixed.new_vectors[:, i].tolist() for i, f in enumerate(features)},
        key="context_new_vectors",
        label=new_vectors.replace("*", ""),
    )
notes_orange, notes_apple = (i18n.num(w, 2) for w in similarity.NOTES_RELATED_WEIGHTS)
three_ways = _("**Orange's row of “{sentence}”, three ways, beside the notes' {orange} and {apple}**").format(
    sentence=SENTENCES[0], orange=notes_orange, apple=notes_apple
)
st.markdown(three_ways)
table.table(
    {
        _("weights"): [weighting(c.how) for c in checks.values()],
        "orange → orange": [c.orange for c in checks.values()],
        "orange → apple": [c.apple for c in checks.values()],
        _("rounds to the notes' {orange} / {apple}").format(orange=notes_orange, apple=notes_apple): [
            _("yes") if c.matches_notes else _("no") for c in checks.values()
        ],
    },
    key="context_orange_row",
    label=three_ways.replace("*", ""),
    digits=4,
)
softmax_rows = similarity.mix(SENTENCES[0].split(), "softmax")
and_row = softmax_rows.weights[softmax_rows.words.index("and")]
chapter.notes_aside(
    chapter.fill(
        prose["aside_value_matrix"],
        and_and=i18n.num(and_row[softmax_rows.words.index("and")], 3),
        and_orange=i18n.num(and_row[softmax_rows.words.index("orange")], 3),
    )
)

BARELY = 0.9  # a mean-centred cosine of the two words above this at every layer: they barely part
st.header(_("In the real model"), anchor="in-the-real-model")
cfg = chapter.model_view().config
# The real model reads a pair written in the page's language, its context before the word (context.PAIRS), when
# it was trained on many languages; a model trained on English reads the English pair, glossed in the prose.
PAIR = context.pair(i18n.language() if models.reads_many_languages() else "en")
word, (first, second), (ref_a, ref_b) = PAIR.word, PAIR.sentences, PAIR.references
real = dict(word=word, first=first, second=second, ref_a=ref_a, ref_b=ref_b, layers=cfg.n_layers)
st.markdown(chapter.fill(prose["decoder" if cfg.is_decoder else "real"], **real))
if PAIR is not context.pair(i18n.language()):  # the page's language has a pair this model was not trained on
    st.caption(
        _(
            "{model} was trained on English text only, so it reads an English pair; a model trained on many "
            "languages (chosen in the sidebar) reads a pair in the page's language."
        ).format(model=cfg.name)
    )
if not cfg.start_token:  # context.FIRST_PLACE: the reference words are not read as a text's first place
    st.caption(
        _(
            "{model} adds no token of its own before a text, so a text's first token takes the attention a decoder "
            "parks on its first place, and its vector ends far from every other: each reference word is run after a "
            "line break, which takes that place, and no text's first token counts in the mean."
        ).format(model=cfg.name)
    )
shift = engine.on_model(context.context_shift, word, PAIR.sentences, PAIR.references)
# Each line in its reference's colour, each sentence in its own dash: the colours say which word the shared word
# is compared with, never contradicting the words.
REFERENCE_COLOURS = {ref_a: theme.OKABE_ITO[1], ref_b: theme.OKABE_ITO[0]}
by_layer, styles = {}, {}
for i, s in enumerate(PAIR.sentences):
    for j, r in enumerate(PAIR.references):
        name = _("{word} in “{sentence}” vs {reference}").format(word=word, sentence=s, reference=r)
        by_layer[name] = shift.similarity[:, i, j]
        styles[name] = dict(color=REFERENCE_COLOURS[r], dash="solid" if i == 0 else "dash")
chart(
    figures.lines(
        shift.layers,
        by_layer,
        _("Mean-centred cosine of “{word}” with “{first}” and “{second}”, layer by layer").format(
            word=word, first=ref_a, second=ref_b
        ),
        _("layer (0 = input embeddings)"),
        _("mean-centred cosine"),
        styles=styles,
        words=i18n.words(),
    ),
    "apple_context",
    key="fig_context_apple",
)
lean_a, lean_b = (i18n.num(v, 2) for v in shift.lean)
leans = dict(real, lean_first=lean_a, lean_second=lean_b)
if shift.lean[0] > 0 > shift.lean[1]:  # each sentence's word nearer its own meaning's reference word
    said = "leans"
elif shift.lean[0] > shift.lean[1]:  # the first pulled toward ref_a more than the second, both on one side
    said = "leans_both_nearer_" + ("first" if shift.lean[1] > 0 else "second")
else:
    said = "leans_not"
st.markdown(chapter.fill(prose[said], **leans))
lowest = float(shift.across[shift.widest])
if shift.parted:
    apart = chapter.fill(
        prose["apart" if lowest < BARELY else "apart_barely"], **real, widest=shift.widest, lowest=i18n.num(lowest, 2)
    )
else:
    apart = chapter.fill(prose["apart_same"], **real)
st.markdown(apart)
chart(
    figures.lines(
        shift.layers,
        {_("the two “{word}”s").format(word=word): shift.across},
        _("“{word}” in “{first}” vs in “{second}”").format(word=word, first=first, second=second),
        _("layer (0 = input embeddings)"),
        _("mean-centred cosine"),
        styles={_("the two “{word}”s").format(word=word): dict(color=theme.OKABE_ITO[7])},
        y_range=[min(0.0, float(shift.across.min()) - 0.05), 1.05],
        words=i18n.words(),
    ),
    "two_apples",
    key="fig_context_two_apples",
)
table.table(
    {
        _("sentence"): list(PAIR.sentences),
        f"cos({word}, {ref_a})": shift.final[:, 0].tolist(),
        f"cos({word}, {ref_b})": shift.final[:, 1].tolist(),
        _("nearer"): list(shift.nearer),
    },
    key="context_final_cosines",
    label=_("After the last layer: mean-centred cosine of “{word}” with “{first}” and “{second}”").format(
        word=word, first=ref_a, second=ref_b
    ),
)
fell = fall_question(shift.across)
chapter.try_this(
    {key: text for key, text in prose.items() if key != "quiz_2" or fell is not None},
    **(fell or {}),
    **real,
    **questions.shape_values(cfg, len(engine.tokenized(models.model_name(), first).tokens)),
    **orange_row,
    softmax_an=i18n.num(softmax_rows.weights[softmax_rows.words.index("apple"), softmax_rows.words.index("an")], 3),
    question=chapter.fill(prose["question_decoder" if cfg.is_decoder else "question_encoder"], **real).strip(),
)
chapter.end()
