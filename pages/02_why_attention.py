"""Chapter 2: a recurrent network's memory fades with distance; attention reaches any token directly."""

import numpy as np
import streamlit as st

from attention.lessons import motivation, questions_chapters_1_to_5
from ui.figures import reach as reach_figures
from ui.kit import chapter, inputs, questions
from ui.kit.chart import chart
from ui.session import engine, models, state
from ui.words import architecture, i18n
from ui.words.i18n import N_, _, n_

# In the notes' sentence, the first word, which decides its meaning, a word far on that still needs it, and its last.
FIRST, LATER, LAST = "Don't", "kill", "paper"
# The English sentences the model reads here, to be glossed in the page's language (tests/test_exercises.py holds
# the first to motivation.NOTES_SENTENCE)
NOTES_GLOSS = N_(
    "Don't go insane, find the real identity of, and kill one by one all the reviewers that have just rejected your "
    "awesome paper."
)
EXPERIMENT_GLOSS = N_(
    "(“my friend ate an apple … and i ate an apple”, with “and then we walked along the river for a while” between.)"
)


def written_shares(values: tuple[float, ...]) -> list[str]:
    """Shares of the state, written alike and apart: as percentages where each reads as one, else as the page
    writes its far share (1.5 × 10⁻⁸)."""
    if min(values) >= 0.001:
        return questions_chapters_1_to_5.written_apart(i18n.share, values, 2)
    return questions_chapters_1_to_5.written_apart(i18n.sci, values, 1)


def memory_question(apart: int, keep: float) -> dict[str, object] | None:
    """The places of the computed question: the share of "Don't" left at the sentence's last word, beside the
    mistakes of questions_chapters_1_to_5.recurrent_options, all at the slider's λ (None for a model that cannot read that far)."""
    try:
        apart_last = engine.on_model(motivation.tokens_apart, motivation.NOTES_SENTENCE, FIRST, LAST)
    except ValueError:  # the sentence cut before its last word
        return None
    options = questions_chapters_1_to_5.recurrent_options(apart_last, apart, keep)
    names = ("share_paper", "share_no_entry", "share_one_more", "share_kill")
    return dict(
        zip(names, written_shares(options.values), strict=True),
        keep=i18n.num(keep, 2),
        apart=i18n.whole(apart),
        apart_paper=i18n.whole(apart_last),
        apart_paper_next=i18n.whole(apart_last + 1),
    )


prose = chapter.begin("02_why_attention.py")
model = chapter.model_view()
st.latex(
    i18n.in_words(_("recurrent:"))
    + r"\ h_t = \lambda\, h_{t-1} + (1-\lambda)\, x_t \;\Rightarrow\; "
    + i18n.in_words(_("share of {word} in {state}"), word="x_{t-d}", state="h_t")
    + r" = (1-\lambda)\lambda^{d}"
)
reach = (
    i18n.in_words(_("for every {j} (a decoder: the tokens read so far)"), j=r"j \le t")
    if model.config.is_decoder
    else i18n.in_words(_("for every {j} (an encoder: before and after {t})"), j="j", t="t")
)
st.latex(
    i18n.in_words(_("attention:"))
    + r"\ w_{tj} = \operatorname{softmax}_j\big(q_t \cdot k_j / \sqrt{d_k}\big)\ "
    + reach
)
apart = engine.on_model(motivation.tokens_apart, motivation.NOTES_SENTENCE, FIRST, LATER)
st.markdown(chapter.fill(prose["example"], apart=i18n.whole(apart)))
st.info(motivation.NOTES_SENTENCE)  # the sentence the model reads, in the notes' words
if i18n.language() != i18n.SOURCE:  # the model reads the notes' English; a French or Korean page glosses it
    st.caption(
        _("In English in the notes, which the model reads as they wrote it. In your language: {gloss}").format(
            gloss=_(NOTES_GLOSS)
        )
    )
st.markdown(prose["recurrent"])
keep = inputs.decimal_slider(
    _("λ, the share of the state a recurrent step keeps"), 0.5, 0.99, 0.01, 2, **state.bound("why_keep")
)
share_at_kill = float(motivation.recurrent_share(apart, keep))
c1, c2 = st.columns(2)
c1.metric(
    _("tokens from “{first}” to “{later}”").format(first=FIRST, later=LATER),
    apart,
    help=_("as {model}'s tokenizer cuts the sentence").format(model=model.config.name),
)
c2.metric(
    _("share of “{first}” left in the state at “{later}”").format(first=FIRST, later=LATER),
    i18n.share(share_at_kill, 2),
    help=f"(1 − λ) λ^{apart}",
)

memory = {keep: motivation.LeakyMemory(apart, keep) for keep in (0.9, 0.99)}
st.markdown(
    chapter.fill(
        prose["keep"],
        apart=apart,
        words=apart + 1,
        equal=i18n.share(1 / (apart + 1), 2),
        **{
            f"{name}_{round(keep * 100)}": i18n.share(getattr(m, name), 2)
            for keep, m in memory.items()
            for name in ("share", "entry", "kept", "words_total", "share_of_words")
        },
    )
)

st.header(_("Attention looks back directly"), anchor="attention-looks-back-directly")
exp = engine.distance_experiment()
layer_i, head_i = exp.layer, exp.head
st.markdown(
    chapter.fill(
        prose["attention"],
        layer=layer_i + 1,
        head=head_i + 1,
        reach=prose["reach_decoder" if model.config.is_decoder else "reach_encoder"].strip(),
        distance=architecture.distance_enters(model.config),
        window=architecture.window_clause(model.config),
    )
)
st.caption(
    _(
        "“{opening} …{closing}”, with {repeats} times “{filler}” in between: the apples are {distances} tokens apart."
    ).format(
        opening=motivation.OPENING,
        closing=motivation.CLOSING,
        repeats=", ".join(i18n.whole(r) for r in exp.repeats),
        filler=motivation.FILLER.strip(),
        distances=", ".join(i18n.whole(d) for d in exp.distances),
    )
    + ("" if i18n.language() == i18n.SOURCE else " " + _(EXPERIMENT_GLOSS))
)
distances = np.arange(0, int(exp.distances.max()) + 1)
# Two charts, each with its own axis: a share of the recurrent state and an attention weight are different
# measures, and one axis for both read as "attention keeps 97 % of the word".
left, right = chapter.figure_columns(2)
with left:
    chart(
        reach_figures.recurrent_memory(
            distances, motivation.recurrent_share(distances, keep), keep, words=i18n.words()
        ),
        "recurrent_memory",
        share=chapter.figure_share(0.5),
    )
with right:  # the layer and head after the model's name, on the title's second line
    chart(
        reach_figures.attention_reach(
            exp.distances, exp.best, float(distances[-1]), model.config.name, words=i18n.words()
        ),
        "attention_reach",
        layer=layer_i,
        head=head_i,
        text="",  # the experiment's own sentences, not the sidebar's
        share=chapter.figure_share(0.5),
    )
far = int(exp.distances[-1])
m1, m2 = st.columns(2)
m1.metric(
    n_("recurrent share {n} token back", "recurrent share {n} tokens back", far).format(n=i18n.whole(far)),
    i18n.sci(float(motivation.recurrent_share(far, keep)), 1),
)
m2.metric(
    n_("attention weight {n} token back", "attention weight {n} tokens back", far).format(n=i18n.whole(far)),
    i18n.num(float(exp.best[-1]), 3),
)
recurrent_asked = memory_question(apart, keep)
chapter.try_this(
    {key: text for key, text in prose.items() if key != "quiz_2" or recurrent_asked is not None},
    near=int(exp.distances[0]),
    far=far,
    w_near=i18n.num(float(exp.best[0]), 2),
    w_far=i18n.num(float(exp.best[-1]), 2),
    layer=layer_i + 1,
    head=head_i + 1,
    keep_far=i18n.sci(float(motivation.recurrent_share(far, 0.99)), 1),
    distance=architecture.distance_enters(model.config),
    **(recurrent_asked or {}),
    **questions.shape_values(
        model.config, len(engine.tokenized(models.model_name(), motivation.NOTES_SENTENCE).tokens)
    ),
)
chapter.end()
