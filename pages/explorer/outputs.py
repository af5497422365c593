"""The explorer's sections 5 to 7: how the heads move one token, every token before and after, the next word."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import streamlit as st

import attention
from attention.lessons import prediction
from attention.lessons.geometry import AFTER, moved_toward, summarise_moves
from attention.tokens import readable
from ui import figures
from ui.components import head_switch
from ui.components.table import table
from ui.figures.base import isolated
from ui.figures.charts import next_token_bars
from ui.figures.heads_added import after_heads_figure, heads_summed_figure
from ui.kit import choices, downloads, inputs, next_word, notices
from ui.kit.chart import chart
from ui.session import engine, models, state
from ui.words import architecture, i18n
from ui.words.i18n import _, n_
from ui.words.prose import fill, sections

TOP_NEXT = 10  # next tokens shown
# The choices the explorer's figures are drawn from, besides the trace's model, sentence and mask and the page's
# size: a figure is kept for the whole view (chart), so a figure that depends on fewer is never stale. The
# head is not among them: a figure that shows one head says so to chart, which keeps it by its head.
VIEW = (
    "layer",
    "specials",
    "presenter",
    "colours",
    "layout",
    "numbers",
    "token",
    "win",
    "layernorm",
    "after",
    "ba_specials",
    "temperature",
)


def figure_view(tr: attention.Trace) -> tuple:
    """The explorer's view as plain values: what chart keeps its figures by, for every session."""
    size = head_switch.page_size()
    return (tr.model_name, tr.text, tr.mask_kind, size["width"], size["height"], *(state.get(n) for n in VIEW))


@st.fragment
def displacement_section(tr: attention.Trace, layer_i: int) -> None:
    """Its own fragment: following another token, or showing the LayerNorm step, redraws only this section."""
    layer = tr.layers[layer_i]
    h = state.get("head") - 1
    cfg = tr.config
    after_words = architecture.after_heads_sentence(cfg)
    notices.explanation(  # presenter mode keeps the equations, not the prose
        fill(sections("explorer", i18n.language())["displacement"], d_model=layer.x.shape[1], after=after_words),
        hidden=bool(state.get("presenter")),
    )
    then = architecture.after_heads_latex(cfg)
    st.latex(r"\Delta e_j^{(h)} = \Big(\sum_i w_{ji}\, v_i^{(h)}\Big) W_O^{(h)} \qquad e_j' = " + then)
    token = inputs.token_picker(tr, key="w:token_follow")
    texts = [t.display for t in tr.tokens]
    pic = engine.displacement_picture(tr.text, tr.mask_kind, layer_i, token)
    label = figures.token_labels(texts)[token]
    after = pic.after
    where = dict(layer=layer_i, head=h, mask=tr.mask_kind)
    each, summed = st.columns(2)
    view = figure_view(tr)
    with each:
        chart(
            lambda: figures.displacement_figure(
                pic.e[token],
                pic.e_plus_head[:, token],
                pic.projection.explained,
                pic.head_norms[:, token],
                label,
                h,
                _named(_("How the heads move “{token}”").format(token=label), **where),
                words=i18n.words(),
            ),
            "displacement",
            key="fig_disp",
            view=view,
            **where,
            share=0.5,
        )
    with summed:
        chart(
            lambda: heads_summed_figure(
                pic.tip_to_tail[:, token],
                pic.projection.explained,
                h,
                _named(_("The heads added up"), **where),
                then=architecture.after_heads_note(cfg),
                tip=architecture.heads_sum_tip(cfg)[:2],
                words=i18n.words(),
            ),
            "heads_summed",
            key="fig_heads_summed",
            view=view,
            **where,
            share=0.5,
        )
    st.caption(_moves_caption(cfg, h, pic, layer.x.shape[1]))
    lengths, step = st.columns(2)
    with lengths:
        chart(
            lambda: figures.head_norm_bars(
                pic.head_norms[:, token],
                h,
                float(pic.sum_norms[token]),
                label,
                title=_named(_("How far each head pushes “{token}”").format(token=label), **where),
                words=i18n.words(),
            ),
            "head_norms",
            key="fig_norms",
            view=view,
            **where,
            share=0.5,
        )
    with step:
        _after_heads_panel(tr, layer_i, after, view)
    state.sync_url()  # a fragment rerun does not reach the end of app.py


def _moves_caption(cfg: attention.ModelConfig, h: int, pic, d_model: int) -> str:
    """Under the heads' two pictures: what each shows, how much of their spread the projection keeps."""
    return _(
        "Left, at the scale of the heads: one arrow per head, numbered (hover a tip for its length), head "
        "{head} (picked in the sidebar) in orange. Right, the same {n} arrows laid tip to tail: {ends}. Both "
        "pictures are one projection, fitted to these points alone: it keeps {kept} of their spread. The bar "
        "chart's lengths are measured in all {d} dimensions."
    ).format(
        head=h + 1,
        ends=architecture.heads_sum_tip(cfg)[2],
        n=len(pic.head_norms),
        kept=i18n.share(pic.projection.explained_total),
        d=d_model,
    )


def _after_heads_panel(tr: attention.Trace, layer_i: int, after, view) -> None:
    """The step after the heads, where the model takes one (a bias, a norm), behind its switch; else what e′ is."""
    cfg = tr.config
    d_model = tr.layers[layer_i].x.shape[1]
    if architecture.has_step_after_heads(cfg):
        st.toggle(architecture.after_heads_toggle(cfg), **state.bound("layernorm"))
    else:
        st.caption("e′ = e + ΣΔe. " + architecture.after_heads_sentence(cfg))
    if architecture.has_step_after_heads(cfg) and state.get("layernorm"):
        steps = architecture.after_heads_steps(cfg)
        chart(
            lambda: after_heads_figure(
                after.points,
                after.projection.explained,
                steps,
                _named(_("The step after the heads"), layer_i, None, tr.mask_kind),
                unadded=after.unadded,
                unadded_label=architecture.unadded_sum(cfg),
                words=i18n.words(),
            ),
            "after_heads",
            key="fig_after_heads",
            view=view,
            layer=layer_i,
            mask=tr.mask_kind,
            share=0.5,
        )
        lengths = [
            _("{step}: {length}").format(step=step.caption, length=i18n.num(length, 2))
            for step, length in zip(steps[1:], after.lengths, strict=True)
        ]
        if after.unadded_length is not None:
            lengths.append(
                _("{step}: {length}").format(
                    step=architecture.unadded_sum(cfg, caption=True), length=i18n.num(after.unadded_length, 2)
                )
            )
        st.caption(
            _(
                "A projection of its own, fitted to these {n} points: it keeps {kept} of their spread. Each "
                "arrow's length in all {d} dimensions: {lengths}."
            ).format(
                n=len(after.points) + (after.unadded is not None),
                kept=i18n.share(after.projection.explained_total),
                d=d_model,
                lengths=_("; ").join(lengths),
            )
        )


def _named(title: str, layer: int, head: int | None, mask: str) -> str:
    """A title for half the page's width: what the figure shows on a second line, where chart() looks for it."""
    return title + "<br>" + " · ".join(downloads.what_it_shows(layer, head, mask))


@st.fragment
def updated_section(
    tr: attention.Trace, layer: attention.LayerTrace, keep: Sequence[int], show: Callable[..., None]
) -> None:
    """Every token shown (keep: [CLS] and [SEP] only when they are shown) before and after a step of the layer.

    Its own fragment: choosing the step redraws only this section."""
    first = architecture.attention_step_name(tr.config)
    names = dict(zip(AFTER, (first, _("the whole layer (+ feed-forward)")), strict=True))
    st.radio(
        _("After"),
        AFTER,
        horizontal=True,
        **state.bound("after"),
        format_func=names.get,
    )
    which = state.get("after")
    keep = _without_specials(tr, keep)
    ba = engine.before_after(tr.text, tr.mask_kind, layer.index, which, tuple(keep))
    texts = [tr.tokens[i].display for i in keep]
    labels = figures.token_labels(texts, keep)
    show(
        lambda: figures.before_after_figure(
            ba.before,
            ba.after,
            ba.projection.explained,
            labels,
            title=_named(_("Every token, before → after"), layer.index, None, tr.mask_kind),
            words=i18n.words(),
        ),
        "before_after",
        key="fig_ba",
        view=figure_view(tr),
        layer=layer.index,
        mask=tr.mask_kind,
    )
    if not tr.config.predicts_next_token:
        removed_head(tr)
    moves = moved_toward(ba)
    st.caption(_moves_summary(tr, moves, keep, texts))
    table(
        {
            _("token"): [f"{keep[m.token]} · {isolated(texts[m.token])}" for m in moves],
            _("moved most toward"): [f"{keep[m.toward]} · {isolated(texts[m.toward])}" for m in moves],
            _("cosine before"): [m.cos_before for m in moves],
            _("cosine after"): [m.cos_after for m in moves],
            _("change"): [m.cos_after - m.cos_before for m in moves],
        },
        key="moved_toward",
        label=_("Which token each token moved most toward"),
    )
    state.sync_url()


def _moves_summary(tr: attention.Trace, moves, keep: Sequence[int], texts: Sequence[str]) -> str:
    """Under the before → after picture: how "moved most toward" is measured, how many tokens moved toward a
    neighbour, and which special tokens are left out."""
    named = architecture.specials_named(tr.config)
    verb = "are" if " and " in named else "is"
    hidden = (
        ""
        if len(keep) == tr.n_tokens or not named
        else " "
        + n_("{tokens} is left out of both.", "{tokens} are left out of both.", 2 if verb == "are" else 1).format(
            tokens=named
        )
    )
    summary = summarise_moves(moves)
    counted = (
        " "
        + n_(
            "Here {count} of the {n} token moved most toward a neighbour (the token just before or after it).",
            "Here {count} of the {n} tokens moved most toward a neighbour (the token just before or after it).",
            summary.n,
        ).format(count=summary.to_neighbour, n=summary.n)
        + " "
        + n_(
            "The one most moved toward is {tokens}, by {most}.",
            "The ones most moved toward are {tokens}, by {most} each.",
            len(summary.commonest),
        ).format(
            tokens=i18n.listing(_("“{token}”").format(token=isolated(texts[t])) for t in summary.commonest),
            most=summary.commonest_count,
        )
        if summary.n
        else ""
    )
    return (
        _(
            "The picture is fitted to the tokens shown. **Moved most toward**: the other token whose cosine "
            "similarity with it rose the most through this step. The cosines are mean-centred: the mean of the "
            "tokens shown is subtracted first, since every token drifts toward one shared direction that pushes "
            "every plain cosine toward 1."
        )
        + counted
        + hidden
    )


def _without_specials(tr: attention.Trace, keep: Sequence[int]) -> list[int]:
    """The tokens the picture and the table show: the tokenizer's own ([CLS] and [SEP], <bos>) only when asked for
    here too. Their updated embeddings lie far from the words' (many heads' attention pools in them): shown,
    they squeeze the words into a corner of the picture."""
    specials = [i for i in keep if tr.tokens[i].is_special]
    if not specials:
        return list(keep)
    named = architecture.specials_named(tr.config) or _("the tokenizer's own tokens")
    shown = st.toggle(
        _("Show {tokens} here").format(tokens=named),
        **state.bound("ba_specials"),
        help=architecture.specials_aside(tr.config),
    )
    words = [i for i in keep if not tr.tokens[i].is_special]
    return list(keep) if shown or not words else words


@st.fragment
def _encoder_predicts_nothing(tr: attention.Trace) -> None:
    """An encoder has no next word: say why, and offer the decoders this machine has."""
    decoders = [c for c in models.choices().values() if c.available and c.native_mask == "causal"]
    st.caption(
        _(
            "{model} is an encoder: it reads the whole sentence at once and has no head that predicts a next "
            "word. Only a decoder, trained to write a text one token after another, predicts the next word."
        ).format(model=tr.model_name)
        + ("" if decoders else " " + choices.decoders_here())
    )
    for column, choice in zip(st.columns(max(len(decoders), 1)), decoders, strict=False):
        column.button(
            _("See {model} predict it").format(model=choices.short_label(choice)),
            on_click=choices.choose_model,
            args=(choice.name,),
            key=f"w:next_with_{choice.name}",
        )


def next_word_section(tr: attention.Trace) -> None:
    """A decoder's guess for the token after the text: the top ten, with a temperature.

    Its own fragment: moving the temperature redraws only this section."""
    if tr.next_logits is None:
        _encoder_predicts_nothing(tr)
        return
    norm = architecture.norm_name(tr.config)
    st.latex(rf"p = \operatorname{{softmax}}\Big(\operatorname{{{norm}}}_f\big(e'_n\big)\, W_E^{{\top}} \,/\, T\Big)")
    vocabulary = len(tr.next_logits)
    words, picture = st.columns([2, 3])
    with words:
        if not state.get("presenter"):
            st.markdown(
                _(
                    "What the model would write next: the last token's updated embedding $e'_n$, as the last layer "
                    "leaves it, through the final {norm}, times the token embedding matrix $W_E$ (one score for "
                    "each of the {n} tokens in its vocabulary), divided by the temperature $T$ and softmaxed. Below "
                    "1, $T$ sharpens the guess; above 1, it flattens it."
                ).format(norm=norm, n=i18n.whole(vocabulary))
            )
        low, high, step = state.TEMPERATURES
        inputs.decimal_slider(
            _("Temperature T"), low, high, step, 1, **state.bound("temperature", on_change=_temperature)
        )
        temperature = state.get("temperature")
        model = models.model(models.model_name())
        words_next = prediction.next_words_after(model, tr, top=TOP_NEXT, temperature=temperature)
        predictions = words_next.text
        shown = sum(p.probability for p in predictions)
        st.caption(
            next_word.named(model, words_next.set_apart)
            + (" " if words_next.set_apart else "")
            + next_word.text_only(model, words_next.set_apart_share)
            + " "
            + _("The other {n} text tokens share {share}.").format(
                n=i18n.whole(vocabulary - int((model.token_kinds != 0).sum()) - len(predictions)),
                share=i18n.share(1 - shown, 1),
            )
        )
        if not tr.mask_is_real:
            st.caption(
                _(
                    "With mask = none every earlier token also saw the ones after it, which this decoder was never "
                    "trained for: this guess is a counterfactual."
                )
            )
    tokens = [readable(model.tokenizer, p.token, p.id) for p in predictions]
    last = figures.plain(tr.tokens[-1].display)
    with picture:
        chart(
            lambda: next_token_bars(
                tokens,
                [p.probability for p in predictions],
                _("The next token after “{token}”").format(token=last)
                + f"<br>T = {i18n.fmt(temperature, 'g')} · "
                + _("text tokens only"),
                words=i18n.words(),
            ),
            "next_token",
            key="fig_next",
            view=figure_view(tr),
            mask=tr.mask_kind,
            share=3 / 5,
        )
    removed_head(tr)
    state.sync_url()


def removed_head(tr: attention.Trace) -> None:
    """ "Remove this head": the model run again without the chosen head, and what its output loses."""
    layer_i, h = min(state.get("layer"), len(tr.layers)) - 1, state.get("head") - 1
    remove = _("Remove head {head} of layer {layer}").format(head=h + 1, layer=layer_i + 1)
    if not st.toggle(remove, key=f"w:remove_{tr.config.is_decoder}"):
        return
    gone = engine.removed(tr.text, layer_i, h, "zero")
    if gone.kl_divergence is not None:
        model = models.model(models.model_name())
        pct = functools.partial(i18n.share, digits=1)
        st.caption(
            _(
                "Without it (its Δe set to 0), the next token's distribution moves by KL = {kl} nats. Its likeliest "
                "text tokens, renormalised over text tokens: {moves}."
            ).format(
                kl=i18n.num(gone.kl_divergence, 4),
                moves=i18n.semicolons(
                    f"{next_word.code(readable(model.tokenizer, p.token, p.id))} {pct(p.probability)} → {pct(q)}"
                    for p, q in zip(gone.words_before.text, gone.words_before_after, strict=True)
                ),
            )
        )
    else:
        worst = int(gone.token_cosines.argmin())
        st.caption(
            _(
                "Without it (its Δe set to 0), the sentence embedding keeps a cosine of {sentence} with the one it "
                "had, and the token that changes most, {token}, keeps {cosine}. The chapter **Many heads** maps "
                "every head's role."
            ).format(
                sentence=i18n.num(gone.sentence_cosine, 4),
                token=figures.plain(tr.tokens[worst].display),
                cosine=i18n.num(float(gone.token_cosines[worst]), 4),
            )
        )


def _temperature() -> None:
    state.put("temperature", round(float(st.session_state["w:temperature"]), 6))  # 0.30000000000000004 → 0.3
