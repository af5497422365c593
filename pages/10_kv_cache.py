"""Chapter 10: step-by-step attention with a key/value cache equals the full masked attention."""

import streamlit as st

from attention import budget, kv_cache
from ui import chapter, engine, figures, widgets

prose = chapter.begin("10_kv_cache.py")
st.latex(
    r"K_{1..t} = [K_{1..t-1};\, k_t], \quad V_{1..t} = [V_{1..t-1};\, v_t], \qquad "
    r"\text{out}_t = \operatorname{softmax}\!\Big(\frac{q_t K_{1..t}^\top}{\sqrt{d_k}}\Big) V_{1..t}"
)
st.markdown(prose["cache"])
view = chapter.sentence_view()
cfg, layer_i, head_i = view.config, view.layer, view.head
tr = view.trace("causal")
run = engine.cached_run(view.text, layer_i, head_i)
labels = figures.token_labels([t.display for t in tr.tokens])
step = st.slider("Step: tokens written so far", 1, tr.n_tokens, min(5, tr.n_tokens), key="w:ch10_step")
st.metric("max difference, step by step vs all at once", f"{run.max_difference:.1e}")
left, right = st.columns(2)
with left:
    widgets.chart(
        figures.bars(
            labels[:step],
            run.step_weights[step - 1],
            f"Step {step}: “{labels[step - 1]}” queries the cache",
            "weight",
            highlight=step - 1,
            text_fmt=".2f",
        ),
        "cached_step",
        key="fig_ch10_step",
    )
with right:
    widgets.chart(
        figures.attention_heatmap(run.full_weights, labels, "All at once, with the causal mask", half_width=True),
        "full_causal",
        key="fig_ch10_full",
    )

st.header("What the cache saves, and what it costs")
st.markdown(prose["cost"])
c1, c2 = st.columns(2)
gpt3 = budget.GPT3
which = c1.radio("Model", [cfg.name, gpt3.name], horizontal=True, key="w:ch10_model")
sizes = cfg if which == cfg.name else gpt3
n = c2.slider("Length of the text (tokens)", 16, 4096, cfg.max_tokens if sizes is cfg else gpt3.context, key="w:ch10_n")
costs = kv_cache.cache_costs(n, sizes.n_layers, sizes.n_heads, sizes.d_head, sizes.d_model)
left, right = st.columns(2)
with left:
    widgets.chart(
        figures.lines(
            costs.tokens,
            {"with the cache": costs.flops_with_cache, "without (rerun the prefix)": costs.flops_without_cache},
            "Attention work for one new token",
            "tokens so far",
            "multiply-adds",
            log_y=True,
        ),
        "cache_flops",
        key="fig_ch10_flops",
    )
with right:
    widgets.chart(
        figures.lines(costs.tokens, {"key/value cache": costs.cache_mb}, "Cache size (float32)", "tokens so far", "MB"),
        "cache_memory",
        key="fig_ch10_memory",
    )
st.metric(f"cache at {n:,} tokens", f"{costs.cache_mb[-1]:,.1f} MB")
widgets.try_this(prose["try"])
chapter.end()
