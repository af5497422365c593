"""Chapter 10: step-by-step attention with a key/value cache equals the full masked attention."""

import streamlit as st

from attention import budget, kv_cache
from ui import chapter, figures, widgets
from ui import lesson_figures as lf
from ui.figures import HALF_WIDTH_NUMBERS

prose = chapter.begin("10_kv_cache.py")
st.latex(r"K_{1..t} = [K_{1..t-1};\, k_t], \quad V_{1..t} = [V_{1..t-1};\, v_t], \qquad "
         r"\text{out}_t = \operatorname{softmax}\!\Big(\frac{q_t K_{1..t}^\top}{\sqrt{d_k}}\Big) V_{1..t}")
st.markdown(prose["cache"])
view = chapter.sentence_view()
model, cfg, layer_i, head_i = view.model, view.config, view.layer, view.head
tr = view.trace("causal")
run = kv_cache.cached_attention(tr.layers[layer_i], head_i)
labels = figures.token_labels([t.text for t in tr.tokens])
step = st.slider("Step: tokens written so far", 1, tr.n_tokens, min(5, tr.n_tokens), key="w:ch10_step")
st.metric("max difference, step by step vs all at once", f"{run.max_difference:.1e}")
left, right = st.columns(2)
with left:
    widgets.chart(lf.bars(labels[:step], run.step_weights[step - 1], f"Step {step}: “{labels[step - 1]}” queries the cache",
                          "weight", highlight=step - 1, text_fmt=".2f"), "cached_step", key="fig_ch10_step")
with right:
    widgets.chart(figures.attention_heatmap(run.full_weights, labels, "All at once, with the causal mask",
                                            numbers=len(labels) <= HALF_WIDTH_NUMBERS), "full_causal",
                  key="fig_ch10_full")

st.header("What the cache saves, and what it costs")
st.markdown(prose["cost"])
c1, c2 = st.columns(2)
which = c1.radio("Model", [cfg.name, "GPT-3 175B"], horizontal=True, key="w:ch10_model")
n = c2.slider("Length of the text (tokens)", 16, 4096, 2048 if which != cfg.name else 256, key="w:ch10_n")
sizes = (dict(n_layers=96, n_heads=96, d_head=128, d_model=budget.GPT3["d_model"]) if which != cfg.name
         else dict(n_layers=cfg.n_layers, n_heads=cfg.n_heads, d_head=cfg.d_head, d_model=cfg.d_model))
costs = kv_cache.cache_costs(n, **sizes)
left, right = st.columns(2)
with left:
    widgets.chart(lf.lines(costs.tokens, {"with the cache": costs.flops_with_cache, "without (rerun the prefix)": costs.flops_without_cache},
                           "Attention work for one new token", "tokens so far", "multiply-adds", log_y=True), "cache_flops",
                  key="fig_ch10_flops")
with right:
    widgets.chart(lf.lines(costs.tokens, {"key/value cache": costs.cache_bytes / 2**20}, "Cache size (float32)", "tokens so far", "MB"),
                  "cache_memory", key="fig_ch10_memory")
st.metric(f"cache at {n:,} tokens", f"{costs.cache_bytes[-1] / 2**20:,.1f} MB")
widgets.try_this(prose["try"])
chapter.end()
