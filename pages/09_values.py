"""Chapter 9: the weighted values, added up to the displacement, and the low-rank value map."""

import streamlit as st

from attention.lessons import budget, heads, questions_chapters_6_to_10
from ui import figures
from ui.figures import diagrams
from ui.kit import chapter, inputs, questions
from ui.kit.chart import chart
from ui.session import engine, state
from ui.words import architecture, i18n
from ui.words.i18n import _, n_


def in_code(text: str) -> str:
    """A token in the prose, as a code span: what a sentence holds is never read as Markdown."""
    return "`" + text.replace("`", "ˋ") + "`"


def arrow_values(arrow: questions_chapters_6_to_10.Arrow, names: list[str]) -> dict[str, object]:
    """The places of the question on one token's arrow: the token that sends it, the numbers to work from (one
    decimal more than the options) and the lengths a student may answer, written alike."""
    stem = arrow.digits + 1
    return dict(
        key=in_code(names[arrow.key]),
        weight=i18n.num(arrow.weight, stem),
        value=i18n.num(arrow.value, stem),
        carried=i18n.num(arrow.carried, stem),
        **{
            name: i18n.num(v, arrow.digits)
            for name, v in zip(("arrow", "arrow_unweighted", "arrow_narrow"), arrow.options.values, strict=True)
        },
    )


prose = chapter.begin("09_values.py")
view = chapter.sentence_view()
cfg, layer_i, head_i = view.config, view.layer, view.head
# the model's own step: v from what its heads read (e or ê), e′ as its norm takes the heads' sum
st.latex(
    r"\Delta e_j^{(h)} = \Big(\sum_i w_{ji}\, v_i\Big) W_O^{(h)}, \qquad "
    + architecture.value_latex(cfg)
    + r", \qquad e_j' = "
    + architecture.after_heads_latex(cfg)
)
tr = view.trace()
texts = [t.display for t in tr.tokens]
st.markdown(chapter.fill(prose["displacement"], value=architecture.value_words(cfg)))
chapter.notes_aside(prose["aside_displacement"])
st.markdown(architecture.residual_sentence(cfg, cfg.name))
c1, c2 = st.columns([2, 1])
token = inputs.token_picker(tr, container=c1)
uniform = c2.toggle(
    _("Uniform weights"), help=_("A counterfactual: every token weighs 1/n."), **state.bound("val_uniform")
)
path, length = engine.value_chain(view.text, layer_i, head_i, token, uniform)
longest = path.longest(diagrams.CHAIN_LABELS)  # named in the picture, the exercise's two first among them
chart(
    diagrams.value_chain(
        path.points[0],
        path.steps,
        figures.token_labels(texts),
        path.projection.explained,
        _("“{token}”: weighted values of layer {layer}, head {head}, tip to tail").format(
            token=figures.token_labels(texts)[token], layer=layer_i + 1, head=head_i + 1
        ),
        longest,
        end_label=architecture.head_end_label(cfg),
        words=i18n.words(),
    ),
    "value_chain",
    key="fig_values_chain",
    layer=layer_i,
    head=head_i,
)
st.metric(_("|Δe| in all dimensions"), i18n.num(length, 3))

st.header(_("A low-rank value map"), anchor="a-low-rank-value-map")
vm = engine.on_model(heads.value_map, layer_i, head_i)
gpt3_full, gpt3_low_rank = budget.value_map_parameters(budget.GPT3.d_model, budget.GPT3.d_head)
st.markdown(prose["lowrank"])
m1, m2, m3 = st.columns(3)
# words, not LaTeX: an equation in a third of the page's width was drawn as a column of glyphs
m1.metric(
    _("rank of the value map"),
    vm.rank,
    help=_("the rank of {product}, at most d_head = {d_head}").format(
        product="$W_V^{(h)} W_O^{(h)}$", d_head=cfg.d_head
    ),
)
for column, model, full, low_rank in (
    (m2, cfg.name, vm.full_parameters, vm.low_rank_parameters),
    (m3, "GPT-3", gpt3_full, gpt3_low_rank),
):  # a share, short enough for a third of the page; the two counts on hover
    column.metric(
        _("{model}: low-rank share").format(model=model),
        i18n.share(low_rank / full, 1),
        help=_("{low_rank} numbers per head instead of {full}").format(
            low_rank=i18n.whole(low_rank), full=i18n.whole(full)
        ),
    )
shown = min(len(vm.singular_values), 2 * cfg.d_head)  # the rank's worth, then as many zeros: the drop fills the width
chart(
    figures.lines(
        vm.indices[:shown],
        {_("singular value"): vm.singular_values[:shown]},
        n_(
            "Singular values of W<sub>V</sub><sup>(h)</sup> W<sub>O</sub><sup>(h)</sup>, layer {layer}, head {head}: {rank} of {n} is not zero",
            "Singular values of W<sub>V</sub><sup>(h)</sup> W<sub>O</sub><sup>(h)</sup>, layer {layer}, head {head}: {rank} of {n} are not zero",
            vm.rank,
        ).format(layer=layer_i + 1, head=head_i + 1, rank=vm.rank, n=len(vm.singular_values)),
        _("index (the first {shown} of {n})").format(shown=shown, n=len(vm.singular_values)),
        _("singular value (log scale)"),
        marker_x=cfg.d_head,
        log_y=True,
        words=i18n.words(),
    ),
    "singular_values",
    key="fig_values_sv",
    layer=layer_i,
    head=head_i,
    text="",  # the weights alone: no sentence
)
arrow = questions_chapters_6_to_10.longest_arrow(
    tr.layers[layer_i], head_i, token
)  # with the model's weights, uniform or not
chapter.try_this(
    {key: text for key, text in prose.items() if key != "quiz_2" or arrow is not None},
    **(arrow_values(arrow, figures.token_labels(texts, escaped=False)) if arrow is not None else {}),
    **questions.shape_values(cfg, tr.n_tokens),
    d_head=cfg.d_head,
    d_model=cfg.d_model,
    rank=vm.rank,
    # the tokens as the picture names them (a repeated one with its position), each in a code span: user text
    token=in_code(figures.token_labels(texts, escaped=False)[token]),
    first=in_code(figures.token_labels(texts, escaped=False)[longest[0]]),
    second=in_code(figures.token_labels(texts, escaped=False)[longest[min(1, len(longest) - 1)]]),
    layer=layer_i + 1,
    head=head_i + 1,
)
chapter.end()
