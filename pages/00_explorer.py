"""The explorer, the app's home page: a typed sentence through one layer of the model, every step drawn.

Sections 2 to 4 show one head. While the sentence is short, their figures hold every head's matrices, and the
head buttons (ui/components/head_switch.py) switch heads in the browser at once; the rerun that follows brings the URL, the
sidebar and the later sections in step, and sends those figures unchanged, so the browser has nothing to redraw
(a head picked in the sidebar is shown the same way). Every figure that should share one screen is sized from the page
column's width and the window's height, which the head buttons report. The sections themselves are in pages/explorer/.
"""

from __future__ import annotations

import streamlit as st

from pages.explorer import controls, heads, outputs
from ui.kit import choices, inputs, notices, worksheets
from ui.kit.chapter import address
from ui.kit.chart import chart
from ui.kit.numpy_code import disclosure
from ui.session import engine, models, opening, state
from ui.words import architecture, i18n
from ui.words.i18n import _
from ui.words.prose import fill, sections

# Phones: equations a little smaller; one still too wide scrolls sideways (Streamlit's own rule, kept here).
PAGE_CSS = "<style>@media (max-width: 640px) { .katex-display { font-size: 0.9em; overflow-x: auto; } }</style>"


def render() -> None:
    opening.init()
    choices.language_choice()
    st.html(PAGE_CSS)
    prose = sections("explorer", i18n.language())
    choices.model_choice()
    model = models.current_or_stop()
    cfg = model.config
    layer_i = controls.controls(cfg)
    presenter = bool(state.get("presenter"))
    # The four steps are sent first, the picture a class waits for: what stands above them on the page is
    # filled in right after, into this container; the title first of all, so that a page stopped on an empty
    # sentence still says what it is
    above = st.container()
    with above:
        st.title(_("Attention, step by step"))
    tr = engine.trace_or_stop(state.get("text"), state.get("mask"))
    layer = tr.layers[layer_i]
    keep = [t.position for t in tr.tokens if state.get("specials") or not t.is_special] or list(range(tr.n_tokens))
    shown = heads.window(keep, heads.window_size(tr, keep, presenter))  # a long text: a window, every token named
    view = heads.HeadView(tr, layer, shown, presenter)

    view.steps()
    with above:
        notices.explanation(fill(prose["intro"], model=cfg.name), hidden=presenter)
        controls.show_notices(tr)
        heads.tokens_section(tr, cfg, prose, view)
        disclosure(_("the embeddings"), tr, layer, "embeddings")
        heads.window_control(keep, shown)
        view.qkv(prose)
        disclosure(_("queries, keys and values"), tr, layer, "qkv")
        view.steps_words(prose)
    view.steps_note()
    disclosure(_("scores, scaling, mask and softmax"), tr, layer, "scores", "scaling", "mask", "softmax")
    view.grid(prose)

    st.header("5 · " + _("Displacement: what each head adds"), anchor="5-displacement-what-each-head-adds")
    outputs.displacement_section(tr, layer_i)
    disclosure(_("the weighted values and W_O"), tr, layer, "values", "w_o")

    st.header("6 · " + _("Updated embeddings"), anchor="6-updated-embeddings")
    aside = architecture.specials_aside(cfg)
    notices.explanation(fill(prose["updated"], specials=f" {aside}" if aside else ""), hidden=presenter)
    outputs.updated_section(tr, layer, keep, chart)
    disclosure(_("the step after the heads"), tr, layer, "after")

    st.header("7 · " + _("The next word"), anchor="7-the-next-word")
    outputs.next_word_section(tr)
    inputs.download_all()
    worksheets.buttons(_("Attention, step by step"), None, address(None), "explorer")


render()
