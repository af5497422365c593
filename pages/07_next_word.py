"""Chapter 7: why a decoder masks: training predicts every next token of a passage at once."""

import numpy as np
import streamlit as st

import attention
import attention.tokens
from attention.lessons import masking, prediction, questions_chapters_6_to_10
from ui import figures
from ui.components import table
from ui.kit import chapter, choices, inputs, next_word, questions
from ui.kit.chart import chart
from ui.session import engine
from ui.words import i18n
from ui.words.i18n import _, n_

TOP = 5  # guesses kept at every position
READS = 24  # characters of what a position has read shown in the table: its column then fits beside the others
NOTES_CONTEXT = "the fluffy"  # the words the notes' candidates (prediction.NOTES_CANDIDATES) come after

prose = chapter.begin("07_next_word.py")
st.latex(
    r"p(t_{i+1} \mid t_1 \dots t_i) = \operatorname{softmax}\big(h_i\, W_E^\top\big)_{t_{i+1}}, \qquad "
    r"\mathcal{L} = -\frac{1}{n-1} \sum_{i=1}^{n-1} \ln p(t_{i+1} \mid t_1 \dots t_i)"
)
st.markdown(prose["training"])
chapter.notes_aside(prose["aside_training"])
candidates = prediction.candidate_probabilities(prediction.NOTES_CANDIDATES)
st.markdown(prose["notes"])
left, right = st.columns([2, 3])
left.dataframe(
    {
        _("next word"): list(candidates),
        _("score"): [
            i18n.num(s, 1) for s in prediction.NOTES_CANDIDATES.values()
        ],  # 4,1 in French, as its softmax column
        _("softmax"): [i18n.num(p, 4) for p in candidates.values()],
    },
    hide_index=True,
)
with right:
    chart(
        figures.bars(
            list(candidates),
            list(candidates.values()),
            _("After “{context}”: the notes' scores, softmaxed").format(context=NOTES_CONTEXT),
            _("probability"),
            highlight=int(np.argmax(list(candidates.values()))),
            text_fmt=".4f",
            words=i18n.words(),
        ),
        "notes_candidates",
        key="fig_next_word_notes",
        text="",
        share=3 / 5,
    )
st.markdown(
    chapter.fill(
        prose["notes_after"],
        animal=i18n.num(candidates["animal"], 4),
        tie=i18n.num(candidates["bluebird"], 4),
        cat=i18n.num(candidates["cat"], 4),
    )
)
view = chapter.sentence_view(prefer_decoder=True)
cfg, layer_i, head_i = view.config, view.layer, view.head
tr = view.trace()  # the model's own mask: causal for a decoder
texts = [t.display for t in tr.tokens]
labels = figures.token_labels(texts)
words = [t.position for t in tr.tokens if not t.is_special]


def set_apart_said(guesses: prediction.EveryNextToken) -> str:
    """What the guesses rank (text tokens, renormalised), where the model's own likeliest was a set-apart token and
    what that token is, and which loss the metric is."""
    first = guesses.set_apart_first
    said = _(
        "Every guess here, the table's and the bars', is among text tokens only, with probabilities renormalised "
        "over them: the tokens that write no text ({which}) take {share} of a position's probability on average in "
        "this passage."
    ).format(which=next_word.which(view.model), share=i18n.share(float(guesses.set_apart_share.mean()), 1))
    if first.any():
        at = max(np.flatnonzero(first), key=lambda i: guesses.set_apart_best[i].probability)
        likeliest = guesses.set_apart_best[at]
        said += " " + n_(
            "At {n} position the model's own likeliest next token is one of them.",
            "At {n} positions the model's own likeliest next token is one of them.",
            int(first.sum()),
        ).format(n=int(first.sum()))
        said += " " + _("The likeliest of them here is {token}, with {share} after “{after}”: it is {what}.").format(
            token=next_word.code(shown(likeliest)),
            share=i18n.share(likeliest.probability, 1),
            after=labels[at],
            what=next_word.kind_words(int(view.model.token_kinds[likeliest.id])),
        )
    if not np.isfinite(guesses.text_loss):  # one token: no next token of the text to score
        return said
    return (
        said
        + " "
        + _(
            "The training loss above is the model's own, over its whole vocabulary; over text tokens alone it "
            "would be {loss}."
        ).format(loss=i18n.num(guesses.text_loss, 2))
    )


def reads(i: int) -> str:
    """What position i has read: the text up to the end of its token, its last READS characters (a long passage's
    start cut, …), or the tokenizer's own tokens where that text is empty (Gemma's <bos> alone). A space it ends
    on is drawn (␣), so that a row that has read one more space does not look like the row before it."""
    text = tr.text[: tr.tokens[i].end]
    if not text.strip():
        return " ".join(t.display for t in tr.tokens[: i + 1])
    kept = text.rstrip()
    text = kept + "".join("↵" if c == "\n" else "␣" for c in text[len(kept) :])
    return text if len(text) <= READS else "…" + text[-(READS - 1) :].lstrip()


def shown(p: attention.Prediction) -> str:
    """A predicted token as a person reads it (a byte-level "Ġforest" as "␣forest")."""
    return attention.tokens.readable(view.model.tokenizer, p.token, p.id)


def hidden_values(n: int) -> dict[str, object]:
    """The places of the question on the scores the mask hides in a table of n × n: the counts a student may answer,
    the right one first, each written as a whole number."""
    options = questions_chapters_6_to_10.hidden_scores(n)
    names = ("hidden", "kept", "every", "other")
    return dict(n=n, lessons=n - 1, **{name: i18n.whole(v) for name, v in zip(names, options.values, strict=True)})


if cfg.is_decoder:
    st.markdown(prose["decoder"])
    guesses = engine.every_next_token(view.text, TOP)
    ids = [t.id for t in tr.tokens]
    hits = guesses.hits(ids)
    m1, m2, m3 = st.columns(3)
    m1.metric(_("lessons in this one passage"), tr.n_tokens - 1)
    m2.metric(_("best guess right"), _("{right} of {n}").format(right=int(hits.sum()), n=len(hits)))
    m3.metric(
        _("training loss on it (nats)"),
        i18n.num(guesses.loss, 2) if np.isfinite(guesses.loss) else "—",  # one token: no lesson, no loss
        help=_("the mean of −ln p(the real next token), p the model's own probability over its whole vocabulary"),
    )
    st.caption(set_apart_said(guesses))
    table.table(
        {
            _("reads"): [reads(i) for i in range(tr.n_tokens - 1)],
            _("answer"): texts[1:],
            _("best guess"): [shown(g[0]) for g in guesses.guesses[:-1]],
            _("p(guess)"): [g[0].probability for g in guesses.guesses[:-1]],
            _("p(answer)"): list(guesses.actual_text_probability),
            _("right"): ["✓" if h else "" for h in hits],
        },
        key="next_word_lessons",
        label=_("Each position's lesson: what it reads, the answer, and the model's best guess among text tokens"),
    )
    at = inputs.token_picker(tr, _("Guesses at position"), name="nw_at", key="w:nw_at", default=tr.n_tokens - 1)
    window = chapter.token_window(labels)  # a long sentence: the heatmap's window of tokens, each named
    left, right = chapter.figure_columns(2)
    with left:
        top = guesses.guesses[at]
        chapter.half_chart(
            figures.bars(
                [shown(g) for g in top],
                [g.probability for g in top],
                _("Likeliest after “{token}” (position {position})").format(token=labels[at], position=at),
                _("probability"),
                text_fmt=".3f",
                horizontal=True,
                words=i18n.words(),
            ),
            "next_token_guesses",
        )
    with right:
        chapter.half_chart(
            figures.attention_heatmap(
                chapter.windowed(tr.layers[layer_i].weights[head_i], window),
                [labels[i] for i in window],
                _("The real causal weights"),
                **chapter.heatmap_room(),
                words=i18n.words(),
            ),
            "causal_weights",
            layer=layer_i,
            head=head_i,
            mask="causal",
        )
    example = dict(n_lessons=tr.n_tokens - 1, first=texts[0], second=texts[1] if tr.n_tokens > 1 else "")
    masked = tr.n_tokens  # the tokens the causal weights are drawn over
else:
    st.info(chapter.fill(prose["encoder"], model=cfg.name, decoders=choices.decoders_here()))
    table.table(
        {
            _("reads"): [reads(i) for i in words[:-1]],
            _("must predict"): [texts[j] for j in words[1:]],
        },
        key="next_word_lessons",
        label=_("Each position's lesson: what it reads and what it must predict"),
    )
    word_labels = figures.token_labels([texts[j] for j in words])
    chart(
        figures.mask_matrix(
            masking.additive_mask(len(words)),
            word_labels,
            word_labels,
            _("The causal mask M: 0 where a query may look, −∞ where it may not"),
            numbers=figures.numbers_fit(len(words)),
            words=i18n.words(),
        ),
        "causal_mask",
        mask="causal",
    )
    example = dict(
        n_lessons=len(words) - 1,
        first=texts[words[0]] if words else "",
        second=texts[words[1]] if len(words) > 1 else "",
    )
    masked = len(words)  # the tokens the mask is drawn over: the passage's, without [CLS] and [SEP]


# one token: nothing hidden, and shapes that read alike. C is the passage's tokens, as the mask is drawn: a decoder
# reads no [CLS] nor [SEP]
left_out = {"quiz_2": masked < 2, "quiz_shapes": masked < 2}
chapter.try_this(
    {key: text for key, text in prose.items() if not left_out.get(key)},
    "try" if cfg.is_decoder else "try_encoder",
    **example,
    **(hidden_values(masked) if masked > 1 else {}),
    V_shape=cfg.vocab_size,  # in a shape, digits as numpy prints them: (12, 30522)
    **questions.shape_values(cfg, masked),
)
chapter.end()
