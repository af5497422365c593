"""Chapter 6: the spread of q·k grows like √d_k; the scale keeps the softmax from collapsing."""

import streamlit as st

import attention
from attention.lessons import questions_chapters_6_to_10, scaling
from ui import figures
from ui.kit import chapter, choices, questions
from ui.kit.chart import chart
from ui.session import engine, models, state
from ui.words import architecture, i18n
from ui.words.i18n import _

RAW, SCALED = "q·k", "q·k / √dₖ"  # the scores, without and with the scale
QUOTED_WORDS = 8  # the session's sentence, named in a question: its first words


def session_trace() -> attention.Trace | None:
    """The session's sentence as the chosen model reads it (this page shows it only on a model with QK-norm), or None
    for a text with nothing to read."""
    try:
        return engine.trace(state.get("text"), None, models.model_name())
    except ValueError:
        return None


def quoted(text: str) -> str:
    """A sentence named in a question: its first words, as a code span (what a sentence holds is never Markdown)."""
    words = text.split()
    shown = " ".join(words[:QUOTED_WORDS]) + ("…" if len(words) > QUOTED_WORDS else "")
    return "`" + shown.replace("`", "ˋ") + "`"


def spread_values(tr: attention.Trace) -> dict[str, object]:
    """The places of the question on the real scores' spread in the first layer: the raw spread, and the spreads a
    student may answer, written alike, with as many decimals as keep them apart."""
    cfg = tr.config
    raw = questions_chapters_6_to_10.score_spread(tr.layers[0])
    options = questions_chapters_6_to_10.scaled_spread(raw, cfg.d_head, cfg.d_model)
    digits = questions_chapters_6_to_10.digits_apart(options.values, 2)
    names = ("spread_scaled", "spread_by_d", "spread_raw", "spread_by_model")
    return dict(
        sentence=quoted(tr.text),
        raw=i18n.num(raw, digits),
        **{name: i18n.num(v, digits) for name, v in zip(names, options.values, strict=True)},
    )


prose = chapter.begin("06_scaling.py")
st.latex(
    r"\operatorname{Var}(q \cdot k) = d_k \quad\Rightarrow\quad \operatorname{softmax}\!\Big(\frac{q \cdot k}{\sqrt{d_k}}\Big)"
)
st.markdown(prose["why"])


@st.fragment
def _metrics(exp, scaled: bool, shown: str, n_keys: int) -> None:
    """The experiment's four numbers: both spreads, the top key's weight and the entropy of the softmax shown."""
    m1, m2, m3, m4 = st.columns(4)
    m1.metric(
        _("spread (std) of {scores}").format(scores=RAW),
        i18n.num(exp.spread(False), 2),
        help=f"√d_k = {i18n.num(exp.root_d_k, 2)}",
    )
    m2.metric(
        _("spread (std) of {scores}").format(scores=SCALED),
        i18n.num(exp.spread(True), 2),
        help=_("about 1 at any width"),
    )
    m3.metric(
        _("top key's weight, mean"),
        i18n.num(exp.top_weight(scaled), 3),
        help=_("of the softmax of {scores}").format(scores=shown),
    )
    m4.metric(
        _("entropy, mean (nats)"),
        i18n.num(exp.mean_entropy(scaled), 3),
        help=_("of the softmax of {scores}; at most ln {n} = {most}").format(
            scores=shown, n=n_keys, most=i18n.num(exp.max_entropy, 3)
        ),
    )


def try_this(cfg: attention.ModelConfig, n_keys: int) -> None:
    """The chapter's Try this and its questions: the experiment's numbers at dₖ = 2 and 512, the session's sentence's
    spread of scores on the chosen model."""
    wide, narrow = (
        engine.once(scaling.scaling_experiment, 512, n_keys),
        engine.once(scaling.scaling_experiment, 2, n_keys),
    )
    tr = session_trace()
    left_out = {  # questions this sentence cannot ask: nothing to read; as many tokens as d_k, whose shapes read alike
        "quiz_2": tr is None,
        "quiz_shapes": tr is None or tr.n_tokens == cfg.d_head,
    }
    chapter.try_this(
        {key: text for key, text in prose.items() if not left_out.get(key)},
        **(spread_values(tr) if tr is not None else {}),
        **questions.shape_values(cfg, tr.n_tokens if tr is not None else 0),
        n_keys=n_keys,
        top_raw_2=i18n.num(narrow.top_weight(False), 2),
        top_raw_512=i18n.num(wide.top_weight(False), 2),
        top_scaled_2=i18n.num(narrow.top_weight(True), 2),
        top_scaled_512=i18n.num(wide.top_weight(True), 2),
        spread_raw_512=i18n.num(wide.spread(False), 1),
        root_512=i18n.num(wide.root_d_k, 2),
        two_sd=i18n.num(2 * wide.spread(False), 0),
    )


def experiment(cfg: attention.ModelConfig) -> None:
    """Its own fragment: moving d_k or the number of keys redraws the experiment, not the whole page. cfg: the chosen
    model's, whose run on the session's sentence the questions read."""
    c1, c2, c3 = st.columns(3)
    d_k = c1.select_slider(
        _("d_k, the width of queries and keys"), state.D_K_WIDTHS, format_func=i18n.whole, **state.bound("sc_dk")
    )
    n_keys = c2.slider(_("keys per query"), 2, 64, **state.bound("sc_keys"))
    scaled = c3.toggle(_("Divide by √dₖ"), help=_("A counterfactual when off."), **state.bound("sc_scaled"))
    exp = engine.once(scaling.scaling_experiment, d_k, n_keys)
    shown = SCALED if scaled else RAW
    _metrics(exp, scaled, shown, n_keys)
    left, right = chapter.figure_columns(2)
    with left:
        chart(
            figures.histograms(
                {shown: exp.shown_scores(scaled)},
                _("{scores}, dₖ = {d_k}<br>spread {spread}").format(
                    scores=shown, d_k=d_k, spread=i18n.num(exp.spread(scaled), 2)
                ),
                _("score"),
                words=i18n.words(),
            ),
            "score_histogram",
            key="fig_scaling_hist",
            share=chapter.figure_share(0.5),
        )
    with right:
        chart(
            figures.bars(
                [str(i + 1) for i in range(n_keys)],
                exp.example_weights(scaled),
                _("One query's softmax weights<br>of {scores}").format(scores=shown),
                _("weight"),
                highlight=exp.example_top_key(scaled),
                label_title=_("key"),
                words=i18n.words(),
            ),
            "example_weights",
            key="fig_scaling_example",
            share=chapter.figure_share(0.5),
        )
    st.markdown(prose["entropy"])
    curve = engine.once(scaling.entropy_curve, state.D_K_WIDTHS, n_keys)
    chart(
        figures.lines(
            curve.widths,
            {_("unscaled"): curve.raw, _("divided by √dₖ"): curve.scaled, _("uniform (ln n)"): curve.uniform},
            _("Softmax entropy against dₖ"),
            _("dₖ (log scale)"),
            _("mean entropy (nats)"),
            marker_x=d_k,
            log_x=True,
            words=i18n.words(),
        ),
        "entropy",
        key="fig_scaling_entropy",
    )
    try_this(cfg, n_keys)
    state.sync_url()  # a fragment's rerun does not reach the end of app.py


model = chapter.model_view()  # the sentence, layer and head in the sidebar only where a section below uses them
cfg = model.config
experiment(cfg)

st.header(_("A second answer: QK-norm"), anchor="a-second-answer-qk-norm")
if not cfg.qk_norm:
    st.markdown(chapter.fill(prose["qk_norm_elsewhere"], model=cfg.name, pick=choices.models_with("qk_norm")))
else:
    view = chapter.sentence_view(model=model)
    view.trace()  # an empty text: says what to do, and stops here
    st.latex(architecture.qkv_latex(cfg))
    grow = st.select_slider(
        architecture.grown_input_label(cfg),
        state.QK_GROWTH,
        **state.bound("sc_grow"),
    )
    plain = engine.qk_norm_effect(view.text, view.layer, 1.0)
    grown = engine.qk_norm_effect(view.text, view.layer, float(grow))
    st.markdown(
        chapter.fill(
            prose["qk_norm"],
            model=cfg.name,
            layer=view.layer + 1,
            with_norm=i18n.num(plain.spread(plain.with_norm), 2),
            without_norm=i18n.num(plain.spread(plain.without_norm), 2),
            grow=grow,
            grown_input=architecture.grown_input_words(cfg),
            grown_with=i18n.num(grown.spread(grown.with_norm), 2),
            grown_without=i18n.num(grown.spread(grown.without_norm), 2),
        )
    )
    m1, m2 = st.columns(2)
    m1.metric(_("spread of {scores}, with QK-norm").format(scores=SCALED), i18n.num(grown.spread(grown.with_norm), 2))
    m2.metric(_("without it (a counterfactual)"), i18n.num(grown.spread(grown.without_norm), 2))
    visible = ~grown.mask
    cases = (("with", grown.with_norm, _("with QK-norm (the model)")), ("without", grown.without_norm, _("without it")))
    for col, (case, scores, what) in zip(chapter.figure_columns(2), cases, strict=True):
        with col:
            chapter.half_chart(
                figures.histograms(
                    {what: scores[:, visible]},
                    _("{scores} {what}<br>spread {spread} · input × {grow}").format(
                        scores=SCALED, what=what, spread=i18n.num(grown.spread(scores), 2), grow=grow
                    ),
                    _("score"),
                    words=i18n.words(),
                ),
                f"qk_norm_{case}",
                key=f"fig_scaling_qk_norm_{case}",
                layer=view.layer,
            )
chapter.end()
