"""Chapter 6: the spread of q·k grows like √d_k; the scale keeps the softmax from collapsing."""

import streamlit as st

from ui import architecture, chapter, engine, figures, state, widgets

prose = chapter.begin("06_scaling.py")
st.latex(
    r"\operatorname{Var}(q \cdot k) = d_k \quad\Rightarrow\quad \operatorname{softmax}\!\Big(\frac{q \cdot k}{\sqrt{d_k}}\Big)"
)
st.markdown(prose["why"])


@st.fragment
def experiment() -> None:
    """Its own fragment: moving d_k or the number of keys redraws the experiment, not the whole page."""
    c1, c2, c3 = st.columns(3)
    d_k = c1.select_slider("d_k, the width of queries and keys", state.D_K_WIDTHS, **state.bound("sc_dk"))
    n_keys = c2.slider("keys per query", 2, 64, **state.bound("sc_keys"))
    scaled = c3.toggle("Divide by √dₖ", help="A counterfactual when off.", **state.bound("sc_scaled"))
    exp = engine.scaling_experiment(d_k, n_keys)
    shown = "q·k / √dₖ" if scaled else "q·k"
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("spread (std) of q·k", f"{exp.spread(False):.2f}", help=f"√d_k = {exp.root_d_k:.2f}")
    m2.metric("spread (std) of q·k / √dₖ", f"{exp.spread(True):.2f}", help="about 1 at any width")
    m3.metric("top key's weight, mean", f"{exp.top_weight(scaled):.3f}", help=f"of the softmax of {shown}")
    m4.metric(
        "entropy, mean (nats)",
        f"{exp.mean_entropy(scaled):.3f}",
        help=f"of the softmax of {shown}; at most ln {n_keys} = {exp.max_entropy:.3f}",
    )
    left, right = st.columns(2)
    with left:
        widgets.chart(
            figures.histograms(
                {shown: exp.shown_scores(scaled)},
                f"{shown}, d_k = {d_k}: spread {exp.spread(scaled):.2f}",
                "score",
            ),
            "score_histogram",
            key="fig_scaling_hist",
        )
    with right:
        widgets.chart(
            figures.bars(
                [str(i + 1) for i in range(n_keys)],
                exp.example_weights(scaled),
                f"One query's softmax weights ({shown})",
                "weight",
                highlight=exp.example_top_key(scaled),
            ),
            "example_weights",
            key="fig_scaling_example",
        )
    st.markdown(prose["entropy"])
    curve = engine.entropy_curve(state.D_K_WIDTHS, n_keys)
    widgets.chart(
        figures.lines(
            curve.widths,
            {"unscaled": curve.raw, "divided by √dₖ": curve.scaled, "uniform (ln n)": curve.uniform},
            "Softmax entropy against d_k",
            "d_k (log scale)",
            "mean entropy (nats)",
            marker_x=d_k,
            log_x=True,
        ),
        "entropy",
        key="fig_scaling_entropy",
    )
    wide, narrow = engine.scaling_experiment(512, n_keys), engine.scaling_experiment(2, n_keys)
    chapter.try_this(
        prose,
        n_keys=n_keys,
        top_raw_2=f"{narrow.top_weight(False):.2f}",
        top_raw_512=f"{wide.top_weight(False):.2f}",
        top_scaled_2=f"{narrow.top_weight(True):.2f}",
        top_scaled_512=f"{wide.top_weight(True):.2f}",
        spread_raw_512=f"{wide.spread(False):.1f}",
        root_512=f"{wide.root_d_k:.2f}",
        two_sd=f"{2 * wide.spread(False):.0f}",
    )
    state.sync_url()  # a fragment's rerun does not reach the end of app.py


experiment()

st.header("A second answer: QK-norm")
view = chapter.sentence_view()
cfg = view.config
if not cfg.qk_norm:
    st.markdown(chapter.fill(prose["qk_norm_elsewhere"], model=cfg.name, pick=widgets.models_with("qk_norm")))
else:
    st.latex(architecture.qkv_latex(cfg))
    grow = st.select_slider(
        "The vectors entering the layer, made this many times larger (a counterfactual)",
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
            with_norm=f"{plain.spread(plain.with_norm):.2f}",
            without_norm=f"{plain.spread(plain.without_norm):,.2f}",
            grow=grow,
            grown_with=f"{grown.spread(grown.with_norm):.2f}",
            grown_without=f"{grown.spread(grown.without_norm):,.2f}",
        )
    )
    m1, m2 = st.columns(2)
    m1.metric("spread of q·k / √dₖ, with QK-norm", f"{grown.spread(grown.with_norm):.2f}")
    m2.metric("without it (a counterfactual)", f"{grown.spread(grown.without_norm):,.2f}")
    visible = ~grown.mask
    for col, (scores, what) in zip(
        st.columns(2), ((grown.with_norm, "with QK-norm (the model)"), (grown.without_norm, "without it")), strict=True
    ):
        with col:
            chapter.half_chart(
                figures.histograms(
                    {what: scores[:, visible]},
                    f"q·k / √dₖ {what}: spread {grown.spread(scores):,.2f}<br>input × {grow}",
                    "score",
                ),
                f"qk_norm_{'with' if scores is grown.with_norm else 'without'}",
                key=f"fig_scaling_qk_norm_{'with' if scores is grown.with_norm else 'without'}",
                layer=view.layer,
            )
chapter.end()
