"""Chapter 1: where attention sits in a transformer, drawn from the loaded model's own sizes."""

import streamlit as st

from attention.lessons import budget
from ui.components import page_width
from ui.figures import diagrams
from ui.kit import chapter, questions
from ui.kit.chart import chart
from ui.session import engine
from ui.words import architecture, chapters, i18n
from ui.words.i18n import N_, _, n_

prose = chapter.begin("01_big_picture.py")
model = chapter.model_view()
cfg = model.config
arch = engine.on_model(budget.architecture)
st.latex(architecture.pipeline_latex(cfg))


def chapter_at(file: str) -> chapters.Chapter:
    return chapters.by_file(file)


# Where each box is opened up: a chapter, or a section of the explorer (None, with its anchor).
OPENS = {
    "tokens": (None, "1-tokens", N_("The explorer: tokens")),
    "embedding": (chapter_at("03_similarity.py"), "", ""),
    "norm_attention": (None, "6-updated-embeddings", N_("The explorer: updated embeddings")),
    "norm_attention_out": (None, "5-displacement-what-each-head-adds", N_("The explorer: displacement")),
    "norm_mlp_out": (None, "6-updated-embeddings", N_("The explorer: updated embeddings")),
    "attention": (chapter_at("10_heads.py"), "", ""),  # the box is multi-head attention: its chapter is many heads
    "add_attention": (None, "6-updated-embeddings", N_("The explorer: updated embeddings")),
    "norm_mlp": (None, "6-updated-embeddings", N_("The explorer: updated embeddings")),
    "mlp": (chapter_at("14_parameters.py"), "", ""),
    "add_mlp": (None, "6-updated-embeddings", N_("The explorer: updated embeddings")),
    "final_norm": (chapter_at("07_next_word.py"), "", ""),
    "output": (chapter_at("07_next_word.py" if cfg.is_decoder else "04_context.py"), "", ""),
}


def per_layer(n: int, in_block: bool) -> str:
    if n == 0:
        return ""
    if in_block:
        return n_("{n} parameter per layer", "{n} parameters per layer", n).format(n=i18n.whole(n))
    return n_("{n} parameter", "{n} parameters", n).format(n=i18n.whole(n))


words = {p.key: architecture.part_words(model, p.key) for p in arch.parts}
boxes = [
    diagrams.Box(
        *words[p.key],
        per_layer(p.parameters, p.in_block),
        chapter.address(OPENS[p.key][0], OPENS[p.key][1]),
        p.in_block,
        highlight=p.key == "attention",
        key=p.key,
    )
    for p in arch.parts
]
m1, m2, m3, m4, m5 = st.columns([1, 1, 1, 1, 2])  # the count of parameters, nine digits and their separators, whole
m1.metric(_("layers"), cfg.n_layers)
m2.metric(_("width d_model"), i18n.whole(cfg.d_model))
m3.metric(_("heads per layer"), cfg.n_heads)  # a count; each head's width is the next metric
m4.metric(_("width per head d_head"), i18n.whole(cfg.d_head))
m5.metric(_("parameters"), i18n.whole(arch.total))
chart(
    diagrams.architecture_diagram(
        boxes, cfg.n_layers, _("{model}, box by box").format(model=cfg.name), width=page_width.page_px()
    ),
    "architecture",
    text="",
)
attention_percent = i18n.share(arch.part("attention").parameters * cfg.n_layers / arch.total)
st.markdown(chapter.fill(prose["count"], attention=attention_percent, total=i18n.whole(arch.total)))
st.markdown(
    chapter.fill(
        prose["decoder"] if cfg.is_decoder else prose["encoder"],
        block=architecture.block_sentence(cfg),
        embedding=architecture.positions_sentence(cfg),
        output=architecture.output_sentence(cfg),
    )
)

st.subheader(_("Where each box is opened up"))
cols, seen = st.columns(2), []
for p in arch.parts:
    target, anchor, explorer_label = OPENS[p.key]
    if (target, anchor) in seen:
        continue
    seen.append((target, anchor))
    with cols[(len(seen) - 1) % 2]:
        label = f"{words[p.key][0]} → {target.title if target else _(explorer_label)}"
        if target is None:
            chapter.link_explorer(label)
        else:
            chapter.link(target, label)
n_tokens = chapter.session_tokens()
chapter.try_this(
    {key: text for key, text in prose.items() if key != "quiz_shapes" or n_tokens},  # no shapes of an empty text
    layers=cfg.n_layers,
    heads=cfg.n_heads,
    layers_heads=cfg.n_layers * cfg.n_heads,
    attention=attention_percent,
    **questions.shape_values(cfg, n_tokens),
)
chapter.end()
