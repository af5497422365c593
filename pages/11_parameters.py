"""Chapter 11: attention and MLP stacked; a parameter calculator by component."""

from dataclasses import replace

import streamlit as st

from attention import budget
from ui import chapter, engine, figures, widgets


def show_budget(b: budget.Budget, name: str, key: str) -> None:
    st.dataframe(
        {
            "component": [r[0] for r in b.rows],
            "part": [r[1] for r in b.rows],
            "parameters": [f"{r[2]:,}" for r in b.rows],
            "share": [f"{r[2] / b.total:.2%}" for r in b.rows],
        },
        hide_index=True,
        width="stretch",
    )
    m1, m2, m3 = st.columns(3)
    m1.metric("total", f"{b.total:,}")
    m2.metric("attention share", f"{b.share('attention'):.1%}")
    m3.metric("MLP share", f"{b.share('mlp'):.1%}")
    widgets.chart(
        figures.bars(
            [r[0] for r in b.rows],
            [r[2] for r in b.rows],
            f"{name}: parameters by component",
            "parameters",
            horizontal=True,
        ),
        f"budget_{key}",
        key=f"fig_ch11_{key}",
    )


prose = chapter.begin("11_parameters.py")
st.latex(
    r"x \;\mapsto\; x + \operatorname{Attention}(x) \;\mapsto\; x + \operatorname{MLP}(x), \quad \text{repeated } L \text{ times}"
)
st.markdown(prose["budget"])
g = budget.GPT3
cols = st.columns(6)
sizes = replace(
    g,
    name="This decoder",
    d_model=int(cols[0].number_input("d_model", 16, 65536, g.d_model, key="w:ch11_d")),
    n_layers=int(cols[1].number_input("layers", 1, 512, g.n_layers, key="w:ch11_layers")),
    n_heads=int(cols[2].number_input("heads", 1, 512, g.n_heads, key="w:ch11_heads")),
    d_head=int(cols[3].number_input("d_head", 1, 4096, g.d_head, key="w:ch11_dhead")),
    vocab=int(cols[4].number_input("vocabulary", 2, 1_000_000, g.vocab, key="w:ch11_vocab")),
    d_ff=int(cols[5].number_input("MLP width", 16, 262144, g.d_ff, key="w:ch11_dff")),
)
show_budget(budget.decoder_budget(sizes), sizes.name, "calculator")
st.header("The loaded model")
st.markdown(prose["loaded"])
model = engine.load_model_or_stop()
show_budget(budget.model_budget(model), model.config.name, "loaded")
widgets.try_this(prose["try"])
chapter.end()
