"""Chapter 5: two projections, so that attention need not be symmetric."""

import streamlit as st

from attention import LayerTrace, Token
from attention.lessons import budget, heads, questions_chapters_1_to_5, similarity, word_order
from ui import figures
from ui.figures import theme
from ui.kit import chapter, questions
from ui.kit.chart import chart
from ui.session import state
from ui.words import architecture, i18n
from ui.words.i18n import _


def in_code(text: str) -> str:
    """A token in the prose, as a code span: what a sentence holds is never read as Markdown."""
    return "`" + " ".join(text.split()).replace("`", "ˋ") + "`"


def score_question(layer: LayerTrace, head_i: int, tokens: list[Token], shown: list[int]) -> dict | None:
    """The places of the computed question: of the word tokens the heatmaps draw, the two whose scores for each other
    differ most, and the score of the later one's query for the other's key beside the mistakes of
    questions_chapters_1_to_5.score_options, written alike and apart (None with fewer than two tokens drawn)."""
    places = questions_chapters_1_to_5.word_places(tokens, shown)
    pair = questions_chapters_1_to_5.score_pair(
        layer.scores[head_i], layer.x, layer.d_head, places if len(places) > 1 else shown
    )
    if pair is None:
        return None
    names = figures.token_labels([t.display for t in tokens], escaped=False)
    written = questions_chapters_1_to_5.written_apart(i18n.num, pair.options.values, 2)
    return dict(
        zip(("score", "score_mirror", "score_scaled", "score_embeddings"), written, strict=True),
        query=in_code(names[pair.query]),
        key=in_code(names[pair.key]),
    )


prose = chapter.begin("05_queries_keys.py")
st.latex(
    r"q_i = e_i W_Q, \quad k_j = e_j W_K, \quad W_Q, W_K \in \mathbb{R}^{d_\text{model} \times d_\text{head}}, "
    r"\qquad s_{ij} = q_i \cdot k_j \;\neq\; s_{ji}"
)
view = chapter.sentence_view()
cfg, layer_i, head_i = view.config, view.layer, view.head
st.markdown(architecture.scores_sentence(cfg))  # the equation is the idea; the heatmap is the model's own q · k
tr = view.trace()
layer = tr.layers[layer_i]
labels = figures.token_labels([t.display for t in tr.tokens])
st.markdown(prose["why"])
chapter.notes_aside(prose["aside_why"])
if tr.mask_kind == "causal":  # word order decides who can read whom: the noun its adjectives, or the other way
    noun, adjectives = word_order.NOUN_ADJECTIVES.get(i18n.language(), word_order.NOUN_ADJECTIVES["en"])
    for i, read in enumerate(word_order.adjective_reads(tr, layer_i, head_i, noun, adjectives)):
        # the layer's head that puts the most, named where it is not the head already shown
        best = (
            ""
            if read.best_head == head_i
            else (
                _(", and {weight} in head {head}, the head of this layer that puts the most on it")
                if read.after
                else " " + _("({weight} in head {head}, the head of this layer that puts the most)")
            ).format(weight=i18n.num(read.best_weight, 3), head=read.best_head + 1)
        )
        st.markdown(
            ("" if i else prose["order"] + " ")  # the decoder's rule said once, before the first adjective
            + chapter.fill(
                prose["order_after" if read.after else "order_before"],
                noun=read.noun,
                adjective=read.adjective,
                layer=layer_i + 1,
                head=head_i + 1,
                noun_on_adjective=i18n.num(read.noun_on_adjective, 3),
                adjective_on_noun=i18n.num(read.adjective_on_noun, 3),
                best=best,
            )
        )
same = st.toggle(
    _("Same projection for queries and keys"), help=_("A counterfactual: q = k."), **state.bound("qk_same")
)
scores = heads.same_projection_scores(layer, head_i) if same else layer.scores[head_i]
xx = heads.self_similarity(layer)
shown = chapter.token_window(labels)  # a long sentence: a window of tokens, each named
drawn = [labels[i] for i in shown]
left, right = chapter.figure_columns(2)
with left:
    # plotly reads <sub> in a title: an underscore would be printed as typed
    title = (
        _("{scores} (one projection)").format(scores="k<sub>i</sub> · k<sub>j</sub>")
        if same
        else "q<sub>i</sub> · k<sub>j</sub>"
    )
    chapter.half_chart(
        figures.attention_heatmap(
            chapter.windowed(scores, shown), drawn, title, kind="scores", **chapter.heatmap_room(), words=i18n.words()
        ),
        "qk_scores",
        key="fig_queries_keys_qk",
        layer=layer_i,
        head=head_i,
    )
    st.metric(_("asymmetry {measure}").format(measure="max|S − Sᵀ| / max|S|"), i18n.num(heads.asymmetry(scores), 3))
with right:
    chapter.half_chart(
        figures.attention_heatmap(
            chapter.windowed(xx, shown),
            drawn,
            _("{scores} of the embeddings").format(scores="X Xᵀ"),
            kind="scores",
            **chapter.heatmap_room(),
            words=i18n.words(),
        ),
        "xx",
        key="fig_queries_keys_xx",
        layer=layer_i,
    )
    st.metric(_("asymmetry of {scores}").format(scores="X Xᵀ"), i18n.num(heads.asymmetry(xx), 3))
st.header(_("Symmetric scores, asymmetric weights"), anchor="symmetric-scores-asymmetric-weights")
sym = similarity.symmetric_scores()
s_oa, w_oa, w_ao = sym.pair("orange", "and")
st.markdown(
    chapter.fill(
        prose["symmetric"],
        s_orange_and=i18n.fmt(s_oa, "g"),
        w_orange_and=i18n.num(w_oa, 4),
        w_and_orange=i18n.num(w_ao, 4),
    )
)
left, right = st.columns(2)
with left:
    chart(
        figures.table_heatmap(
            sym.scores,
            sym.words,
            sym.words,
            _("Scores: symmetric"),
            fmt=".4f",
            scale=theme.SCORES_SCALE,
            zmin=-1,
            zmax=1,
            words=i18n.words(),
        ),
        "symmetric_scores",
        key="fig_queries_keys_sym_scores",
        share=0.5,
    )
with right:
    chart(
        figures.table_heatmap(
            sym.weights,
            sym.words,
            sym.words,
            _("Softmax of each row: not symmetric"),
            fmt=".4f",
            zmin=0,
            zmax=1,
            words=i18n.words(),
        ),
        "row_softmax",
        key="fig_queries_keys_sym_weights",
        share=0.5,
    )
st.metric(
    _("asymmetry of these weights, {measure}").format(measure="max|W − Wᵀ| / max|W|"),
    i18n.num(heads.asymmetry(sym.weights), 3),
)

st.header(_("From the model's width to a head's"), anchor="from-the-model-s-width-to-a-head-s")
gpt3 = budget.GPT3
sizes = dict(
    cfg_d_model=i18n.whole(cfg.d_model),
    cfg_n_heads=cfg.n_heads,
    cfg_d_head=cfg.d_head,
    gpt3_d_model=i18n.whole(gpt3.d_model),
    gpt3_d_head=gpt3.d_head,
    gpt3_heads=gpt3.n_heads,
    gpt3_vocab=i18n.whole(gpt3.vocab),
    gpt3_context=i18n.whole(gpt3.context),
    cfg_q_width=i18n.whole(cfg.n_heads * cfg.d_head),
    stored=architecture.stacked_words(cfg),
)
# most models split their width between the heads; Gemma 3's heads are wider than that split
split = cfg.n_heads * cfg.d_head == cfg.d_model
st.markdown(chapter.fill(prose["sizes" if split else "sizes_wider"], **sizes))
chapter.notes_aside(chapter.fill(prose["aside_width"], **sizes))
chart(
    figures.bars(
        ["GPT-3 d_model", "GPT-3 d_head", f"{cfg.name} d_model", f"{cfg.name} d_head"],
        [gpt3.d_model, gpt3.d_head, cfg.d_model, cfg.d_head],
        _("Widths before and after the projection"),
        _("dimensions"),
        text_fmt=",",
        horizontal=True,
        words=i18n.words(),
    ),
    "widths",
    key="fig_queries_keys_widths",
)
asked = score_question(layer, head_i, list(tr.tokens), shown)
chapter.try_this(
    {key: text for key, text in prose.items() if key != "quiz_2" or asked is not None},
    **(asked or {}),
    layer=layer_i + 1,
    head=head_i + 1,
    d_model=cfg.d_model,
    d_head=cfg.d_head,
    **questions.shape_values(cfg, tr.n_tokens),
)
chapter.end()
