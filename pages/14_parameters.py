"""Chapter 14: attention and MLP stacked; a parameter calculator by component, with real models' presets."""

from dataclasses import replace

import streamlit as st

from attention.lessons import budget
from ui import architecture, chapter, figures, state, widgets

FIELDS = {  # the calculator's inputs: the link's name, the label, the DecoderSizes field, the range
    "bp_layers": ("layers", "n_layers", 1, 512),
    "bp_heads": ("heads per layer", "n_heads", 1, 512),
    "bp_d_head": ("d_head", "d_head", 1, 1024),
    "bp_vocab": ("vocabulary", "vocab", 2, 1_000_000),
    "bp_context": ("context (positions)", "context", 1, 1_000_000),
    "bp_mlp": ("MLP ratio", "mlp_ratio", 1, 16),
}
PRESET_NAMES = {key: sizes.name for key, sizes in budget.PRESETS.items()} | {"custom": "your own sizes"}


def use_preset() -> None:
    chosen = st.session_state["w:bp_preset"]
    state.put("bp_preset", chosen)
    if chosen in budget.PRESETS:
        for name, (_, field, _, _) in FIELDS.items():
            state.put(name, getattr(budget.PRESETS[chosen], field))


def field_changed(name: str) -> None:
    state.put(name, int(st.session_state[f"w:{name}"]))
    sizes = {field: state.get(n) for n, (_, field, _, _) in FIELDS.items()}
    match = [k for k, p in budget.PRESETS.items() if all(getattr(p, f) == v for f, v in sizes.items())]
    state.put("bp_preset", match[0] if match else "custom")


ROW_PX = 35  # a table row's height in Streamlit's dataframe (the header's too)


def show_budget(b: budget.Budget, name: str, key: str, row_names=lambda key: key) -> None:
    names = [row_names(r[0]) for r in b.rows]
    st.dataframe(
        {
            "component": names,
            "part": [r[1] for r in b.rows],
            "parameters": [f"{r[2]:,}" for r in b.rows],
            "share": [f"{r[2] / b.total:.2%}" for r in b.rows],
        },
        hide_index=True,
        width="stretch",
        height=ROW_PX * (len(b.rows) + 1) + 3,  # every row in sight, no scrolling, no empty row after the last
    )
    widgets.chart(
        figures.bars(
            names,
            [r[2] for r in b.rows],
            f"{name}: parameters by component",
            "parameters",
            horizontal=True,
        ),
        f"budget_{key}",
        key=f"fig_parameters_{key}",
    )


prose = chapter.begin("14_parameters.py")
st.latex(
    r"x \;\mapsto\; x + \operatorname{Attention}(x) \;\mapsto\; x + \operatorname{MLP}(x), \quad \text{repeated } L \text{ times}"
    r", \qquad d_\text{model} = n_\text{heads} \times d_\text{head}"
)
st.markdown(prose["budget"])
st.selectbox(
    "Start from",
    list(PRESET_NAMES),
    format_func=PRESET_NAMES.get,
    **state.bound("bp_preset", on_change=use_preset),
)
cols = st.columns(len(FIELDS))
for col, (name, (label, _, low, high)) in zip(cols, FIELDS.items(), strict=True):
    col.number_input(label, low, high, step=1, **state.bound(name, on_change=field_changed), args=(name,))
preset = state.get("bp_preset")
sizes = replace(
    budget.PRESETS.get(preset, budget.GPT3),
    name=PRESET_NAMES[preset] if preset in budget.PRESETS else "Your decoder",
    published=budget.PRESETS[preset].published if preset in budget.PRESETS else "",
    **{field: int(state.get(name)) for name, (_, field, _, _) in FIELDS.items()},
)
b = budget.decoder_budget(sizes)
m1, m2, m3, m4 = st.columns(4)
m1.metric(
    "d_model = heads × d_head", f"{sizes.d_model:,}", help=f"{sizes.n_heads} × {sizes.d_head}; MLP width {sizes.d_ff:,}"
)
m2.metric("total", budget.short(b.total), help=f"{b.total:,} parameters")
m3.metric("attention share", f"{b.share('attention'):.1%}")
m4.metric("MLP share", f"{b.share('mlp'):.1%}")
if sizes.published:
    unit = sizes.published[-1]
    st.caption(
        f"{sizes.name}: {b.total:,} parameters, {budget.rounded(b.total, unit)} to the precision its authors give; "
        f"they publish {sizes.published}."
    )
show_budget(b, sizes.name, "calculator")
tally = budget.matrix_tally(sizes)
st.markdown(chapter.fill(prose["tally"], tally=f"{tally.total:,}", tally_attention=f"{tally.share('attention'):.1%}"))

st.header("The loaded model")
model = chapter.model_view()
st.markdown(prose["loaded"])
loaded = budget.model_budget(model)
show_budget(loaded, model.config.name, "loaded", lambda key: architecture.budget_row(model.config, key))
table = dict((r[0], r[2]) for r in loaded.rows)["word"]
st.markdown(
    chapter.fill(
        prose["vocabulary"],
        model=model.config.name,
        d_model=model.config.d_model,
        vocab=f"{model.config.vocab_size:,}",
        table=f"{table:,}",
        total=f"{loaded.total:,}",
        share=f"{table / loaded.total:.1%}",
        judgement=prose["vocabulary_most" if table > loaded.total / 2 else "vocabulary_some"].strip(),
        scale=architecture.scale_sentence(model.config),
    )
)
if model.config.is_decoder:
    same = budget.decoder_budget(budget.sizes_of(model.config)).total
    why = architecture.gap_sentence(model.config, budget.calculator_gap(model))
    st.markdown(
        chapter.fill(
            prose["check"], model=model.config.name, calculator=f"{same:,}", arrays=f"{loaded.total:,}", why=why
        )
    )

gpt3, gpt2 = budget.decoder_budget(budget.GPT3), budget.decoder_budget(budget.GPT2_SMALL)
deeper = budget.decoder_budget(replace(budget.GPT3, n_layers=2 * budget.GPT3.n_layers))
gpt2_rows = {r[0]: r[2] for r in gpt2.rows}
embedding = gpt2_rows["token embedding (also the output head)"]
chapter.try_this(
    prose,
    gpt3_total=budget.rounded(gpt3.total, "B"),
    gpt3_attention=f"{gpt3.share('attention'):.1%}",
    deeper_layers=2 * budget.GPT3.n_layers,
    deeper_total=budget.rounded(deeper.total, "B"),
    deeper_attention=f"{deeper.share('attention'):.1%}",
    gpt2_attention=f"{gpt2.share('attention'):.1%}",
    gpt2_embedding_share=f"{embedding / gpt2.total:.1%}",
    gpt2_embedding=f"{embedding:,}",
    gpt2_attention_total=f"{gpt2.group('attention'):,}",
    gpt2_layers=budget.GPT2_SMALL.n_layers,
    gpt2_d=budget.GPT2_SMALL.d_model,
    gpt2_vocab=f"{budget.GPT2_SMALL.vocab:,}",
)
chapter.end()
