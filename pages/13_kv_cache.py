"""Chapter 13: step-by-step attention with a key/value cache equals the full masked attention."""

import streamlit as st

from attention import budget, kv_cache
from ui import chapter, engine, figures, state, widgets

prose = chapter.begin("13_kv_cache.py")
st.latex(
    r"K_{1..t} = [K_{1..t-1};\, k_t], \quad V_{1..t} = [V_{1..t-1};\, v_t], \qquad "
    r"\text{out}_t = \operatorname{softmax}\!\Big(\frac{q_t K_{1..t}^\top}{\sqrt{d_k}}\Big) V_{1..t}"
)
st.markdown(prose["cache"])
view = chapter.sentence_view(prefer_decoder=True)
cfg, layer_i, head_i = view.config, view.layer, view.head
st.markdown(
    chapter.fill(prose["decoder" if cfg.is_decoder else "encoder"], model=cfg.name, decoders=widgets.decoders_here())
)
tr = view.trace("causal")
run = engine.cached_run(view.text, layer_i, head_i)
whole = engine.generate_with_cache(view.text)
labels = figures.token_labels([t.display for t in tr.tokens])
step = state.clamp("kv_step", 1, tr.n_tokens)  # a step beyond this sentence falls back
if tr.n_tokens > 1:
    step = st.slider("Step: tokens written so far", 1, tr.n_tokens, **chapter.bound("kv_step"))
m1, m2 = st.columns(2)
m1.metric(f"max difference, head {head_i + 1} step by step vs all at once", f"{run.max_difference:.1e}")
m2.metric(
    "max difference, whole model, step by step vs causal pass",
    f"{whole.max_difference:.1e}",
    help=f"all {cfg.n_layers} layers and {cfg.n_heads} heads compute only the new token's q, k and v, and read the "
    "rest from the cache; compared with the last layer's vectors of one causal pass",
)
left, right = st.columns(2)
with left:
    chapter.half_chart(
        figures.bars(
            labels[:step],
            run.step_weights[step - 1],
            f"Step {step}: “{labels[step - 1]}” reads the cache",
            "weight",
            highlight=step - 1,
            text_fmt=".2f",
        ),
        "cached_step",
        key="fig_ch10_step",
        layer=layer_i,
        head=head_i,
        mask="causal",
    )
with right:
    chapter.half_chart(
        figures.attention_heatmap(
            run.full_weights,
            labels,
            "All at once",
            half_width=True,
        ),
        "full_causal",
        key="fig_ch10_full",
        layer=layer_i,
        head=head_i,
        mask="causal",
    )

st.header("What the cache saves, and what it costs")
st.markdown(prose["cost"])
c1, c2 = st.columns(2)
gpt3 = budget.GPT3
which = c1.radio(
    "Model",
    ["loaded", "gpt3"],
    format_func={"loaded": cfg.name, "gpt3": gpt3.name}.get,
    horizontal=True,
    **chapter.bound("kv_model"),
)
sizes = cfg if which == "loaded" else gpt3
n = c2.slider("Length of the text (tokens)", 16, 4096, **chapter.bound("kv_tokens"))
costs = kv_cache.cache_costs(n, sizes.n_layers, sizes.n_heads, sizes.d_head, sizes.d_model)
left, right = st.columns(2)
with left:
    widgets.chart(
        figures.lines(
            costs.tokens,
            {"with the cache": costs.flops_with_cache, "without (rerun the prefix)": costs.flops_without_cache},
            "Attention work for one new token",
            "tokens so far",
            "multiply-adds (log scale)",
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
gpt3_2048 = kv_cache.cache_costs(2048, gpt3.n_layers, gpt3.n_heads, gpt3.d_head, gpt3.d_model)
chapter.try_this(
    prose,
    step=step,
    gpt3_mb=f"{gpt3_2048.cache_mb[-1]:,.0f}",
    layers=gpt3.n_layers,
    width=f"{gpt3.d_model:,}",
)
chapter.end()
