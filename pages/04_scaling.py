"""Chapter 4: the spread of q·k grows like √d_k; the scale keeps the softmax from collapsing."""

import numpy as np
import streamlit as st

from attention import scaling
from ui import chapter, widgets
from ui import lesson_figures as lf

WIDTHS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]


@st.cache_data(show_spinner=False, max_entries=64)
def experiment(d_k: int, n_keys: int, n_samples: int = 1000) -> scaling.ScalingExperiment:
    return scaling.scaling_experiment(d_k, n_keys=n_keys, n_samples=n_samples)


prose = chapter.begin("04_scaling.py")
st.latex(r"\operatorname{Var}(q \cdot k) = d_k \quad\Rightarrow\quad \operatorname{softmax}\!\Big(\frac{q \cdot k}{\sqrt{d_k}}\Big)")
st.markdown(prose["why"])
c1, c2, c3 = st.columns(3)
d_k = c1.select_slider("d_k, the width of queries and keys", WIDTHS, value=64, key="w:ch4_dk")
n_keys = c2.slider("keys per query", 2, 64, 16, key="w:ch4_keys")
scaled = c3.toggle("Divide by √dₖ", value=True, key="w:ch4_scaled", help="A counterfactual when off.")
exp = experiment(d_k, n_keys)
dots = exp.dots / np.sqrt(d_k) if scaled else exp.dots
m1, m2, m3 = st.columns(3)
m1.metric("spread (std) of q·k", f"{exp.dots.std():.2f}", help=f"√d_k = {np.sqrt(d_k):.2f}")
m2.metric("mean weight of the top key", f"{exp.top_weight_scaled if scaled else exp.top_weight_raw:.3f}")
m3.metric("mean entropy (nats)", f"{exp.entropy_scaled if scaled else exp.entropy_raw:.3f}", help=f"at most ln {n_keys} = {exp.max_entropy:.3f}")
left, right = st.columns(2)
with left:
    widgets.chart(lf.histograms({"q·k / √dₖ" if scaled else "q·k": dots}, f"Scores of random q and k, d_k = {d_k}", "score"),
                  "score_histogram", key="fig_ch4_hist")
with right:
    example = exp.example_weights(scaled)
    widgets.chart(lf.bars([str(i + 1) for i in range(n_keys)], example, "One query's softmax weights", "weight",
                          highlight=int(np.argmax(example))), "example_weights", key="fig_ch4_example")
st.markdown(prose["entropy"])
runs = [experiment(w, n_keys, 300) for w in WIDTHS]
widgets.chart(lf.lines(np.array(WIDTHS), {"unscaled": np.array([r.entropy_raw for r in runs]),
                                          "divided by √dₖ": np.array([r.entropy_scaled for r in runs]),
                                          "uniform (ln n)": np.full(len(WIDTHS), np.log(n_keys))},
                       "Softmax entropy against d_k", "d_k", "mean entropy (nats)", marker_x=d_k).update_xaxes(type="log"),
              "entropy", key="fig_ch4_entropy")
widgets.try_this(prose["try"])
chapter.end()
