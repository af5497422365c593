"""Chapter 14: attention and MLP stacked; a parameter calculator by component, with real models' presets."""

from dataclasses import replace

import streamlit as st

from attention.lessons import budget, options, questions_chapters_11_to_14
from ui import figures
from ui.components import table
from ui.kit import chapter, inputs, questions
from ui.kit.chart import chart
from ui.session import models, state
from ui.words import architecture, i18n
from ui.words.i18n import N_, _, n_

FIELDS = {  # the calculator's inputs: the link's name, the label (d_head a symbol), the DecoderSizes field, the range
    "bp_layers": (N_("layers"), "n_layers", 1, 512),
    "bp_heads": (N_("heads per layer"), "n_heads", 1, 512),
    "bp_d_head": ("d_head", "d_head", 1, 1024),
    "bp_vocab": (N_("vocabulary"), "vocab", 2, 1_000_000),
    "bp_context": (N_("context (positions)"), "context", 1, 1_000_000),
    "bp_mlp": (N_("MLP ratio"), "mlp_ratio", 1, 16),
}
CHOICES = [*budget.PRESETS, "custom"]  # where the calculator starts: a real model's sizes, or the student's own
COMPONENTS = {  # budget.decoder_budget's rows as the page names them
    "token embedding (also the output head)": N_("token embedding (also the output head)"),
    "position embedding": N_("position embedding"),
    "query W_Q, b_Q": N_("query W_Q, b_Q"),
    "key W_K, b_K": N_("key W_K, b_K"),
    "value W_V, b_V": N_("value W_V, b_V"),
    "output W_O, b_O": N_("output W_O, b_O"),
    "LayerNorm before attention": N_("LayerNorm before attention"),
    "MLP up": N_("MLP up"),
    "MLP down": N_("MLP down"),
    "LayerNorm before the MLP": N_("LayerNorm before the MLP"),
    "final LayerNorm": N_("final LayerNorm"),
}
# a row's group; "output": the loaded model's final norm and untied output head, after the last block
PARTS = {"embedding": N_("embedding"), "attention": N_("attention"), "mlp": N_("MLP"), "output": N_("output")}


def preset_name(key: str) -> str:
    return budget.PRESETS[key].name if key in budget.PRESETS else _("your own sizes")


def use_preset() -> None:
    chosen = st.session_state["w:bp_preset"]
    state.put("bp_preset", chosen)
    st.session_state.pop(inputs.UNREAD_COUNTS, None)  # the boxes show the preset's sizes
    if chosen in budget.PRESETS:
        for name, (_label, field, *_range) in FIELDS.items():
            state.put(name, getattr(budget.PRESETS[chosen], field))


def field_changed(name: str) -> None:
    sizes = {field: state.get(n) for n, (_label, field, *_range) in FIELDS.items()}
    match = [k for k, p in budget.PRESETS.items() if all(getattr(p, f) == v for f, v in sizes.items())]
    state.put("bp_preset", match[0] if match else "custom")


def show_budget(b: budget.Budget, name: str, key: str, row_names=lambda key: _(COMPONENTS[key])) -> None:
    names = [row_names(r[0]) for r in b.rows]
    table.table(
        {
            _("component"): names,
            _("part"): [_(PARTS[r[1]]) for r in b.rows],
            _("parameters"): [r[2] for r in b.rows],
            _("share"): [(i18n.share(r[2] / b.total, 2), r[2] / b.total) for r in b.rows],
        },
        key=f"budget_table_{key}",
        label=_("{model}: parameters by component").format(model=name),
        digits=0,
    )
    chart(
        figures.bars(
            names,
            [r[2] for r in b.rows],
            _("{model}: parameters by component").format(model=name),
            _("parameters"),
            horizontal=True,
            compact=True,
            words=i18n.words(),
        ),
        f"budget_{key}",
        key=f"fig_parameters_{key}",
    )


prose = chapter.begin("14_parameters.py")
st.latex(
    r"x \;\mapsto\; x + \operatorname{Attention}(x) \;\mapsto\; x + \operatorname{MLP}(x), \quad \text{"
    + _("repeated {n} times").format(n="$L$")
    + r"}"
)
st.markdown(prose["budget"])
st.selectbox(
    _("Start from"),
    CHOICES,
    format_func=preset_name,
    **state.bound("bp_preset", on_change=use_preset),
)
cols = st.columns(len(FIELDS))
for col, (name, (label, _field, low, high)) in zip(cols, FIELDS.items(), strict=True):  # `_` is the translation
    with col:
        inputs.count_input(_(label), name, low, high, on_change=field_changed)
preset = state.get("bp_preset")
sizes = replace(
    budget.PRESETS.get(preset, budget.GPT3),
    name=budget.PRESETS[preset].name if preset in budget.PRESETS else _("Your decoder"),
    published=budget.PRESETS[preset].published if preset in budget.PRESETS else "",
    **{field: int(state.get(name)) for name, (_label, field, *_range) in FIELDS.items()},
)
b = budget.decoder_budget(sizes)
m1, m2, m3, m4 = st.columns(4)
m1.metric(
    _("d_model = heads × d_head"),
    i18n.whole(sizes.d_model),
    help=_("{heads} × {d_head}; MLP width {d_ff}").format(
        heads=sizes.n_heads, d_head=sizes.d_head, d_ff=i18n.whole(sizes.d_ff)
    ),
)
m2.metric(
    _("total"),
    i18n.compact(b.total, 1),
    help=n_("{n} parameter", "{n} parameters", b.total).format(n=i18n.whole(b.total)),
)
m3.metric(_("attention share"), i18n.share(b.share("attention"), 1))
m4.metric(_("MLP share"), i18n.share(b.share("mlp"), 1))
if sizes.published:
    # the count to the precision its authors give ("175B"), set beside theirs, both abbreviated as the page's language
    # abbreviates a count ("175 Md", "1750억"): the paper's "B" is English
    scale = {"M": 1e6, "B": 1e9}[sizes.published[-1]]
    st.caption(
        _("{model}: {total} parameters, {rounded} to the precision its authors give; they publish {published}.").format(
            model=sizes.name,
            total=i18n.whole(b.total),
            rounded=i18n.compact(round(b.total / scale) * scale, 2),
            published=i18n.compact(float(sizes.published[:-1]) * scale, 2),
        )
    )
show_budget(b, sizes.name, "calculator")
tally = budget.matrix_tally(sizes)
st.markdown(
    chapter.fill(
        prose["tally"],
        tally=i18n.whole(tally.total),
        tally_attention=i18n.share(tally.share("attention"), 1),
    )
)

st.header(_("The loaded model"), anchor="the-loaded-model")
model = chapter.model_view()
st.markdown(prose["loaded"])
loaded = budget.model_budget(model)
show_budget(loaded, model.config.name, "loaded", lambda key: architecture.budget_row(model.config, key))
token_table = dict((r[0], r[2]) for r in loaded.rows)["word"]
st.markdown(
    chapter.fill(
        prose["vocabulary"],
        model=model.config.name,
        d_model=model.config.d_model,
        vocab=i18n.whole(model.config.vocab_size),
        table=i18n.whole(token_table),
        total=i18n.whole(loaded.total),
        share=i18n.share(token_table / loaded.total, 1),
        judgement=" ".join(  # the many-languages clause only for a model whose tokenizer reads many languages
            prose[key].strip()
            for key, said in (
                ("vocabulary_most", token_table > loaded.total / 2),
                ("vocabulary_some", token_table <= loaded.total / 2),
                ("vocabulary_languages", models.reads_many_languages()),
            )
            if said
        ),
        scale=architecture.scale_sentence(model.config),
    )
)
if model.config.is_decoder:
    same = budget.decoder_budget(budget.sizes_of(model.config)).total
    why = architecture.gap_sentence(model.config, budget.calculator_gap(model))
    st.markdown(
        chapter.fill(
            prose["check"],
            model=model.config.name,
            calculator=i18n.whole(same),
            arrays=i18n.whole(loaded.total),
            why=why,
        )
    )

gpt3, gpt2 = budget.decoder_budget(budget.GPT3), budget.decoder_budget(budget.GPT2_SMALL)
deeper = budget.decoder_budget(replace(budget.GPT3, n_layers=2 * budget.GPT3.n_layers))
gpt2_rows = {r[0]: r[2] for r in gpt2.rows}
embedding = gpt2_rows["token embedding (also the output head)"]
loaded_rows = {r[0]: r[2] for r in loaded.rows}
shares = questions_chapters_11_to_14.attention_share(
    loaded.group("attention"), loaded_rows["output"], loaded.group("mlp"), loaded.total
)
share_digits = options.digits_apart(tuple(100 * v for v in shares.values), 1)  # as percentages, kept apart
chapter.try_this(
    prose,
    gpt3_total=i18n.compact(gpt3.total, 0),
    gpt3_attention=i18n.share(gpt3.share("attention"), 1),
    deeper_layers=2 * budget.GPT3.n_layers,
    deeper_total=i18n.compact(deeper.total, 0),
    deeper_attention=i18n.share(deeper.share("attention"), 1),
    gpt2_attention=i18n.share(gpt2.share("attention"), 1),
    gpt2_embedding_share=i18n.share(embedding / gpt2.total, 1),
    gpt2_embedding=i18n.whole(embedding),
    gpt2_attention_total=i18n.whole(gpt2.group("attention")),
    gpt2_layers=budget.GPT2_SMALL.n_layers,
    gpt2_d=budget.GPT2_SMALL.d_model,
    gpt2_vocab=i18n.whole(budget.GPT2_SMALL.vocab),
    **{
        name: i18n.share(v, share_digits)
        for name, v in zip(
            ("attention_share", "attention_of_layers", "attention_without_output", "attention_to_rest"),
            shares.values,
            strict=True,
        )
    },
    attention_count=i18n.whole(loaded.group("attention")),
    total_count=i18n.whole(loaded.total),
    table_share=i18n.share(token_table / loaded.total, 1),
    table_count=i18n.whole(token_table),
    V_shape=model.config.vocab_size,  # in a shape, digits as numpy prints them: (30522, 384)
    **questions.shape_values(model.config, chapter.session_tokens()),
)
chapter.end()
