"""Chapter 4: the spread of q·k grows like √d_k; the scale keeps the softmax from collapsing."""

import streamlit as st

from ui import chapter, engine, figures, widgets

WIDTHS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)

prose = chapter.begin("04_scaling.py")
st.latex(
    r"\operatorname{Var}(q \cdot k) = d_k \quad\Rightarrow\quad \operatorname{softmax}\!\Big(\frac{q \cdot k}{\sqrt{d_k}}\Big)"
)
st.markdown(prose["why"])
c1, c2, c3 = st.columns(3)
d_k = c1.select_slider("d_k, the width of queries and keys", WIDTHS, value=64, key="w:ch4_dk")
n_keys = c2.slider("keys per query", 2, 64, 16, key="w:ch4_keys")
scaled = c3.toggle("Divide by √dₖ", value=True, key="w:ch4_scaled", help="A counterfactual when off.")
exp = engine.scaling_experiment(d_k, n_keys)
m1, m2, m3 = st.columns(3)
m1.metric("spread (std) of q·k", f"{exp.dots.std():.2f}", help=f"√d_k = {exp.root_d_k:.2f}")
m2.metric("mean weight of the top key", f"{exp.top_weight(scaled):.3f}")
m3.metric("mean entropy (nats)", f"{exp.mean_entropy(scaled):.3f}", help=f"at most ln {n_keys} = {exp.max_entropy:.3f}")
left, right = st.columns(2)
with left:
    widgets.chart(
        figures.histograms(
            {"q·k / √dₖ" if scaled else "q·k": exp.shown_scores(scaled)},
            f"Scores of random q and k, d_k = {d_k}",
            "score",
        ),
        "score_histogram",
        key="fig_ch4_hist",
    )
with right:
    widgets.chart(
        figures.bars(
            [str(i + 1) for i in range(n_keys)],
            exp.example_weights(scaled),
            "One query's softmax weights",
            "weight",
            highlight=exp.example_top_key(scaled),
        ),
        "example_weights",
        key="fig_ch4_example",
    )
st.markdown(prose["entropy"])
curve = engine.entropy_curve(WIDTHS, n_keys)
widgets.chart(
    figures.lines(
        curve.widths,
        {"unscaled": curve.raw, "divided by √dₖ": curve.scaled, "uniform (ln n)": curve.uniform},
        "Softmax entropy against d_k",
        "d_k",
        "mean entropy (nats)",
        marker_x=d_k,
    ).update_xaxes(type="log"),
    "entropy",
    key="fig_ch4_entropy",
)
widgets.try_this(prose["try"])
chapter.end()
