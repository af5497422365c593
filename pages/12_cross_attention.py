"""Chapter 12: queries from one sentence, keys and values from another."""

import streamlit as st

from attention.lessons import cross as crossing
from ui import figures
from ui.components import page_width
from ui.figures import diagrams
from ui.figures.base import shortened
from ui.kit import chapter, questions
from ui.kit.chart import chart
from ui.session import engine, models, opening, state
from ui.words import i18n
from ui.words.i18n import _, n_


def in_code(text: str) -> str:
    """User text in the prose, as a code span: what a sentence holds is never read as Markdown."""
    return "`" + " ".join(text.split()).replace("`", "ˋ") + "`"


prose = chapter.begin("12_cross_attention.py")
st.latex(
    r"\operatorname{CrossAttention}(X_\text{target}, X_\text{source}) = "
    r"\operatorname{softmax}\!\Big(\frac{(X_\text{target} W_Q)(X_\text{source} W_K)^\top}{\sqrt{d_k}}\Big)\, X_\text{source} W_V"
)
view = chapter.sentence_view()
layer_i, head_i = view.layer, view.head
st.markdown(
    chapter.fill(
        prose["cross"], model=view.config.name, kind=_("a decoder") if view.config.is_decoder else _("an encoder")
    )
)
chart(
    diagrams.encoder_decoder_diagram(
        _("Encoder and decoder: where cross-attention reads the source"), width=page_width.page_px(), words=i18n.words()
    ),
    "encoder_decoder",
    key="fig_cross_stacks",
    text="",  # a diagram of the architecture, no sentence in it
)
st.markdown(prose["stacks"])
target = view.text
source = st.text_input(_("Source sentence (keys and values)"), max_chars=2000, **state.bound("cr_source"))
self_only = st.toggle(_("Self-attention instead (the target answers its own queries)"), **state.bound("cr_self"))
try:
    ca = engine.on_model(crossing.cross_attention, target, target if self_only else source, layer_i, head_i)
except ValueError:  # a text with nothing to read: empty, or only spaces and unprintable characters
    st.info(
        _(
            "The source sentence or the sidebar's holds nothing to read: type a sentence with letters, digits or "
            "symbols in each."
        )
    )
    models.stop()
if not self_only and source == state.CROSS_SOURCE and target == opening.opening(i18n.language())[0] != source:
    # the page's language's opening sentence under its English original: the original Transformer's task (in
    # English, the two are one sentence in other words)
    said = "paraphrase" if i18n.language() == i18n.SOURCE else "translation"
    st.markdown(chapter.fill(prose[said], source=in_code(source), target=in_code(target)))
target_labels = figures.token_labels([t.display for t in ca.target])
source_labels = figures.token_labels([t.display for t in ca.source])
st.caption(
    n_(
        "Target: the sidebar's sentence ({n} token). Weights: {rows} × {columns}.",
        "Target: the sidebar's sentence ({n} tokens). Weights: {rows} × {columns}.",
        len(ca.target),
    ).format(n=len(ca.target), rows=len(ca.target), columns=len(ca.source))
)
chart(
    figures.attention_heatmap(
        ca.weights,
        target_labels,
        (
            _("Self-attention weights, layer {layer}, head {head}")
            if self_only
            else _("Cross-attention weights, layer {layer}, head {head}")
        ).format(layer=layer_i + 1, head=head_i + 1)
        # both sentences named, as a slide needs them: the subtitle names only the sidebar's (the target)
        + "<br>"
        + _("queries: “{target}” · keys and values: “{source}”").format(
            target=figures.plain(shortened(target)), source=figures.plain(shortened(target if self_only else source))
        ),
        key_labels=source_labels,
        words=i18n.words(),
    ),
    "cross_attention",
    key="fig_cross_weights",
    layer=layer_i,
    head=head_i,
    mask="none",
)
# the exercise's pair, read from the cross-attention the chart shows (or would show, in self-attention's place)
cross = engine.on_model(crossing.cross_attention, target, source, layer_i, head_i) if self_only else ca
asking, answering = cross.strongest()
added = [t.position for t in cross.source if t.is_special]  # [CLS], <bos>: tokens the tokenizer adds, no word
rest = max(added, key=lambda j: cross.weights[asking, j]) if added else None
special = (
    " "
    + _(
        "The source's {token}, no word of it but a token the tokenizer adds, takes {weight} of that row: many "
        "heads rest on such a token."
    ).format(
        token=in_code(figures.token_labels([t.display for t in cross.source], escaped=False)[rest]),
        weight=i18n.num(float(cross.weights[asking, rest]), 2),
    )
    if rest is not None and rest != answering
    else ""
)
chapter.try_this(
    # a source exactly d_head tokens long would write the weights' shape as the output's: that question is left out
    {key: text for key, text in prose.items() if key != "quiz_shapes" or len(ca.source) != view.config.d_head},
    n_target=len(ca.target),
    n_source=len(ca.source),
    source=in_code(source),
    layer=layer_i + 1,
    head=head_i + 1,
    target_token=in_code(figures.token_labels([t.display for t in cross.target], escaped=False)[asking]),
    source_token=in_code(figures.token_labels([t.display for t in cross.source], escaped=False)[answering]),
    weight=i18n.num(float(cross.weights[asking, answering]), 2),
    special=special,
    S=len(ca.source),  # the source's tokens, beside the target's C: the shapes question's second length
    **questions.shape_values(view.config, len(ca.target)),
)
chapter.end()
