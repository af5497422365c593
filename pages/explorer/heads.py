"""The explorer's sections 1 to 4: the tokens, one head's queries, keys and values, its four steps from scores to
weights, and every head of the layer at a glance.

While the sentence is short, the q/k/v and step figures carry every head, for the head buttons (ui/components/head_switch.py).
"""

from __future__ import annotations

import collections
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
import streamlit as st

import attention
import attention.tokens
from pages.explorer.outputs import figure_view
from ui import figures
from ui.components import head_switch
from ui.figures import head_view, heads_grid, qkv, theme
from ui.figures.base import Canvas, isolated
from ui.kit import notices
from ui.kit.chart import chart
from ui.session import engine, models, state
from ui.words import architecture, i18n
from ui.words.i18n import N_, _, n_
from ui.words.prose import fill

# While a sentence has at most this many tokens, the q/k/v and step figures carry every head's matrices (0.2 MB
# at 13 tokens, 0.7 MB at 32, sent with every rerun) so that a head switch needs no round trip; beyond, one head's.
ALL_HEADS_UP_TO = 32


WIDE_PX = 1200  # a page column at least this wide (a 1920 px screen) gets larger type


NARROW_PX = 500  # a page column narrower than this (a phone) gets shorter figure titles


WINDOW = 16  # tokens: a longer text's sections 2 to 4 show this many at a time, every one named at 1280×720


STEP_BAR_PX = 56  # presenter mode's step bar, between the head buttons and the steps: on screen with them
ALL_STEPS = (0, 1, 2, 3)


UNKNOWN = "[UNK]"  # what a WordPiece tokenizer writes for a word its vocabulary has no pieces for


def pick_head(head: int) -> None:
    """A head picked on the head switch, shared by every view of the session."""
    state.put("head", head)


def mask_notes(tr: attention.Trace) -> tuple[str, str, str, str]:
    """A few words under each step's title: what the mask does to step 3 for this model."""
    if tr.mask_kind == "none":
        masked = _("no mask: the same as 2")
    else:
        masked = _("causal: the model's own") if tr.mask_is_real else _("causal: an illustration")
    return ("", "", masked, "")


def window_size(tr: attention.Trace, keep: Sequence[int], presenter: bool) -> int:
    """How many tokens sections 2 to 4 show at a time: WINDOW, or on a projector as many as the four steps can
    name every one of at once (13 of the default sentence at 1280×720: every other one was named at 14 px)."""
    if not presenter:
        return WINDOW
    texts = [t.display for t in tr.tokens]
    labels = figures.token_labels([texts[i] for i in keep], list(keep))
    wide = head_switch.page_size()["width"] >= WIDE_PX
    canvas = head_switch.canvas(theme.figure_type(True, wide=wide), below=head_switch.SWITCH_PX + STEP_BAR_PX)
    return min(
        WINDOW, head_view.steps_naming_all(labels, canvas, mask_notes(tr), state.get("layout"), words=i18n.words())
    )


def window(keep: Sequence[int], size: int = WINDOW) -> list[int]:
    """The tokens sections 2 to 4 draw: all of them, or, for a text longer than `size`, the `size` tokens from the
    one the student picked (the link's "win"), so that every label stays readable."""
    keep = list(keep)
    if len(keep) <= size:
        return keep
    first = state.clamp("win", 1, len(keep) - size + 1)
    return keep[first - 1 : first - 1 + size]


def window_control(keep: Sequence[int], shown: Sequence[int]) -> None:
    """For a long text, the slider that moves the window of tokens sections 2 to 4 show, and what it leaves out.
    It names positions as section 1's chips and the figures do (from 0); the link keeps the window's place."""
    if len(shown) == len(keep):
        return
    st.select_slider(
        _("First token of the window (sections 2 to 4 show {n} tokens at a time)").format(n=len(shown)),
        range(1, len(keep) - len(shown) + 2),
        format_func=lambda place: str(keep[place - 1]),
        **state.bound("win"),
    )
    st.caption(
        _(
            "Tokens {first} to {last} (numbered from 0, as in section 1), {count} of the {n}, each named in the "
            "figures. A query's weights on the keys outside the window are not drawn: a row sums to 1 only over all "
            "{n} keys."
        ).format(first=shown[0], last=shown[-1], count=len(shown), n=len(keep))
    )


def tokens_section(tr: attention.Trace, cfg: attention.ModelConfig, prose: dict[str, str], view: HeadView) -> None:
    st.header("1 · " + _("Tokens"), anchor="1-tokens")
    pieces = collections.Counter(t.word for t in tr.tokens if not t.is_special)  # each word's number of tokens
    unknown = {t.word for t in tr.tokens if t.text == "[UNK]"}  # a word read as [UNK] is one token, but not read
    notices.explanation(
        fill(
            prose["tokens"],
            vocab=i18n.whole(cfg.vocab_size),
            pieces=architecture.pieces_sentence(attention.tokens.spelling(models.current_or_stop().tokenizer)),
            added=architecture.added_tokens_sentence(cfg),
            positions=architecture.positions_sentence(cfg),
            words=i18n.whole(len(pieces)),
            whole=i18n.whole(sum(n == 1 and w not in unknown for w, n in pieces.items())),
        ),
        hidden=view.presenter,
    )
    st.latex(architecture.embedding_latex(cfg))
    chips = figures.token_chips(
        [t.display for t in tr.tokens],
        [t.is_special for t in tr.tokens],
        [t.is_continuation for t in tr.tokens],
        canvas=Canvas(width=head_switch.page_size()["width"], type=view.type),
        words=i18n.words(),
    )
    screen = head_switch.canvas(view.type).height
    with st.container(height=screen) if chips["layout"]["height"] > screen else st.container():  # a long text scrolls
        chart(chips, "tokens", key="fig_tokens", text=tr.text)  # the sentence under its title and in its file
    # in the order the text has them, each once
    unknown = list(dict.fromkeys(tr.text[t.start : t.end] for t in tr.tokens if t.text == UNKNOWN and t.end > t.start))
    if unknown:
        st.caption(
            _(
                "**{unknown}** is the unknown token: the model's {n} pieces hold nothing for {words}, so the "
                "tokenizer put this one token in its place, and the model reads only that something it does not "
                "know stood there (emoji, for one, are unknown to this encoder)."
            ).format(
                unknown=UNKNOWN,
                n=i18n.whole(cfg.vocab_size),
                words=", ".join(f"“{isolated(w)}”" for w in unknown),
            )
        )


class HeadView:
    """Sections 2 to 4: one head's queries, keys and values, its four steps from scores to weights, every head.

    While the sentence is short, the q/k/v and step figures carry every head, for the head buttons."""

    def __init__(self, tr: attention.Trace, layer: attention.LayerTrace, keep: Sequence[int], presenter: bool) -> None:
        self.tr, self.layer, self.keep, self.presenter = tr, layer, list(keep), presenter
        texts = [t.display for t in tr.tokens]
        self.labels = figures.token_labels([texts[i] for i in keep], keep)
        self.head = state.get("head") - 1
        self.n_heads = len(layer.weights)
        self.heads = list(range(self.n_heads)) if len(keep) <= ALL_HEADS_UP_TO else [self.head]
        self.type = theme.figure_type(presenter, wide=head_switch.page_size()["width"] >= WIDE_PX)
        self.at = dict(layer=layer.index, head=self.head, mask=tr.mask_kind)  # what the figures show, for chart()
        self.narrow = head_switch.page_size()["width"] < NARROW_PX
        self.view = figure_view(tr)  # what the figures are drawn from, for chart to keep them by
        self.switch = self.head if len(self.heads) > 1 else None  # the head switch shows another head at once

    def title(self, what: str) -> str:
        """ "Layer 1 · head 3: what (detail)", only "Layer 1 · head 3" on a phone, where a longer title is cut (the
        panels name the steps; "head N" is what the head buttons rewrite)."""
        name = _("Layer {layer} · head {head}").format(layer=self.layer.index + 1, head=self.head + 1)
        return name if self.narrow else _("{layer_and_head}: {what}").format(layer_and_head=name, what=what)

    def qkv(self, prose: dict[str, str]) -> None:
        layer, h, keep = self.layer, self.head, self.keep
        st.header("2 · " + _("Queries, keys and values"), anchor="2-queries-keys-and-values")
        qk_norm = architecture.qk_norm_sentence(self.tr.config)
        notices.explanation(" ".join(filter(None, (prose["qkv"], qk_norm))), hidden=self.presenter)
        st.latex(architecture.qkv_latex(self.tr.config))
        head_switch.head_switch(self.n_heads, key="heads_qkv", head=state.get("head"), on_pick=pick_head, measure=True)
        q, k, v = (a[self.heads][:, keep] for a in (layer.q, layer.k, layer.v))
        title = self.title(
            n_(
                "queries, keys and values ({n} token × {d})", "queries, keys and values ({n} tokens × {d})", len(keep)
            ).format(n=len(keep), d=layer.d_head)
        )
        canvas = head_switch.canvas(self.type)
        fig = chart(
            lambda: qkv.qkv_figure(q, k, v, self.labels, h, self.heads, title, canvas, words=i18n.words()),
            "qkv",
            key="fig_qkv",
            view=self.view,
            switch=self.switch,
            **self.at,
        )
        cfg = self.tr.config
        if cfg.n_kv_heads < cfg.n_heads:  # grouped-query attention: say whose keys and values each head reads
            groups = i18n.semicolons(
                _("heads {first}–{last} read key/value head {kv}").format(
                    first=g * cfg.group_size + 1, last=(g + 1) * cfg.group_size, kv=g + 1
                )
                for g in range(cfg.n_kv_heads)
            )
            sets = n_(
                "{model} computes {n} set of keys and values per layer for its {heads} query heads ({sharing})",
                "{model} computes {n} sets of keys and values per layer for its {heads} query heads ({sharing})",
                cfg.n_kv_heads,
            ).format(model=cfg.name, n=cfg.n_kv_heads, heads=cfg.n_heads, sharing=architecture.sharing_name(cfg))
            st.caption(
                _(
                    "{sets}: {groups}. Heads of one group show the same k and v, each its own q; k (and q) are shown "
                    "after their rotation by position."
                ).format(sets=sets, groups=groups)
                if cfg.positions == "rotary"
                else f"{cfg.name}: {groups}."
            )
        labelled = len(fig["layout"]["yaxis"]["tickvals"])  # a Spec (ui/figures/pixels.py)
        if labelled < len(keep):
            st.caption(
                _(
                    "{n} tokens in one screen: each is a thin row, and one row in {every} is named; hover a row for "
                    "its token."
                ).format(n=len(keep), every=-(-len(keep) // labelled))
            )

    def shown(self) -> tuple[int, ...]:
        """The steps the figure draws (0 raw … 3 weights): all four, or in presenter mode the one chosen alone."""
        step = state.get("step") if self.presenter else 0
        return (step - 1,) if step else ALL_STEPS

    def steps(self) -> None:
        ix = np.ix_(self.keep, self.keep)
        # on screen with the figure: the head buttons, and on a projector the step bar
        canvas = head_switch.canvas(self.type, below=head_switch.SWITCH_PX + (STEP_BAR_PX if self.presenter else 0))
        shown = self.shown()
        chart(
            lambda: head_view.steps_figure(
                [m[self.heads][(slice(None), *ix)] for m in self.layer.score_steps()],
                self.labels,
                self.head,
                self.heads,
                self.title(_("from scores to weights")),
                notes=mask_notes(self.tr),
                layout=state.get("layout"),
                weight_colours=state.get("colours"),
                numbers=bool(state.get("numbers")),
                canvas=canvas,
                shown=shown,
                words=i18n.words(),
            ),
            "steps",
            key="fig_steps",
            view=(self.view, shown),  # the step shown changes this figure alone
            switch=self.switch,
            **self.at,
        )

    def steps_words(self, prose: dict[str, str]) -> None:
        """Section 3's heading, each step's words and equation, and the head buttons: above the steps' figure,
        which the page sends before them."""
        st.header("3 · " + _("From scores to weights"), anchor="3-from-scores-to-weights")
        hidden = any(t.is_special for t in self.tr.tokens) and not state.get("specials")  # [CLS] and [SEP] left out
        steps_text(self.tr, self.layer, prose, self.presenter, hidden=hidden, shown=self.shown())
        shown = ",".join(str(k + 1) for k in self.shown())  # as the steps figure's meta names them
        head_switch.head_switch(
            self.n_heads,
            key="heads_steps",
            head=state.get("head"),
            on_pick=pick_head,
            reveal=shown if self.presenter else None,
        )
        if self.presenter:
            step_bar()

    def steps_note(self) -> None:
        """Under the steps' figure: what its colours mean."""
        caption = steps_caption(self.tr, state.get("colours"), state.get("layout"))
        notices.explanation(caption, hidden=self.presenter, caption=True)

    def grid(self, prose: dict[str, str]) -> None:
        layer = self.layer
        st.header("4 · " + _("All heads at a glance"), anchor="4-all-heads-at-a-glance")
        projections = architecture.projections_sentence(self.tr.config)
        looks = "heads_causal" if self.tr.mask_kind == "causal" else "heads"  # a causal mask hides the next token
        notices.explanation(fill(prose[looks], projections=projections), hidden=self.presenter)
        st.latex(r"\operatorname{head}_h = \operatorname{softmax}\!\Big(\frac{Q_h K_h^\top}{\sqrt{d_k}} + M\Big) V_h")
        # the figure names what it shows and nothing else: an exported slide has no head to click
        title = _("All {n} heads of layer {layer}").format(n=self.n_heads, layer=layer.index + 1)
        canvas = head_switch.canvas(self.type, below=0)

        def grid() -> go.Figure:
            roles = engine.roles(self.tr.text, self.tr.mask_kind).roles[layer.index]
            return heads_grid.heads_grid(
                layer.weights[(slice(None), *np.ix_(self.keep, self.keep))],
                self.labels,
                self.head,
                title,
                layout=state.get("layout"),
                weight_colours=state.get("colours"),
                canvas=canvas,
                roles=[_(ROLE_WORDS[r]) if r in ROLE_WORDS else "" for r in roles],
                words=i18n.words(),
            )

        at = dict(layer=layer.index, mask=self.tr.mask_kind)
        # a click on a panel: head_switch.js, which also moves the frame
        chart(grid, "all_heads", key="fig_heads", view=self.view, switch=self.head, **at)
        st.caption(_("Click a head to pick it: the figures above show it, framed here."))


ROLE_WORDS = {  # a head's role as its panel in the grid names it (ui/figures/roles.py draws the whole model's)
    "first token": N_("first token"),
    "previous token": N_("previous"),
    "[SEP]": "[SEP]",
    "self": N_("itself"),
    "broad": N_("broad"),
    "induction": N_("induction"),
}


def step_bar() -> None:
    """Presenter mode: all four steps, or one at a time as large as the screen holds, the one before and after a
    click or an arrow key away (a presenter's remote sends them too)."""
    step = state.get("step")
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button(
            _("Previous step"),  # no arrow icon: Streamlit draws the shortcut's own ← beside the words
            on_click=state.put,
            args=("step", step - 1),
            disabled=step == 0,
            key="w:step_back",
            shortcut="Left",
        )
        st.segmented_control(
            _("Steps shown"),
            range(len(ALL_STEPS) + 1),
            format_func=lambda k: str(k) if k else _("All four"),
            label_visibility="collapsed",
            required=True,
            **state.bound("step"),
        )
        st.button(
            _("Next step"),
            on_click=state.put,
            args=("step", step + 1),
            disabled=step == len(ALL_STEPS),
            key="w:step_next",
            shortcut="Right",
        )


def steps_text(
    tr: attention.Trace,
    layer: attention.LayerTrace,
    prose: dict[str, str],
    presenter: bool,
    hidden: bool,
    shown: Sequence[int] = ALL_STEPS,
) -> None:
    """Each step's words and equation, two by two as the panels below are laid out; the equations alone in
    presenter mode, the shown step's alone where it is shown alone."""
    d_k = layer.d_head
    equations = {
        "raw": r"s_{ij} = q_i \cdot k_j",
        "scaled": rf"s_{{ij}} \,/\, \sqrt{{d_k}}, \quad d_k = {d_k}",
        "masked": r"s_{ij}/\sqrt{d_k} + M_{ij}, \quad "
        + i18n.in_words(_("{value} if {condition}"), value=r"M_{ij} = -\infty", condition="j > i"),
        "softmax": r"w_{ij} = \frac{\exp(s_{ij}/\sqrt{d_k} + M_{ij})}{\sum_{j'} \exp(s_{ij'}/\sqrt{d_k} + M_{ij'})}",
    }
    named = architecture.specials_named(tr.config)
    hidden_note = " " + n_(
        "{tokens} is hidden, so the weights shown no longer add up to exactly 1.",
        "{tokens} are hidden, so the weights shown no longer add up to exactly 1.",
        len(architecture.special_tokens(tr.config)),
    ).format(tokens=named)
    hidden_note = hidden_note if hidden and named else ""
    words = {"masked": architecture.mask_sentence(tr.config)}
    keys = list(equations)
    if len(shown) == 1:
        st.latex(equations[keys[shown[0]]])
        return
    for pair in (keys[:2], keys[2:]):
        for col, key in zip(st.columns(2), pair, strict=True):
            with col:
                if not presenter:
                    st.markdown(fill(prose[key], mask=words["masked"]) + (hidden_note if key == "softmax" else ""))
                st.latex(equations[key])


def steps_caption(tr: attention.Trace, colours: str, layout: str) -> str:
    if colours == "row":
        weights = (
            _(
                "Weights are coloured from 0 to the largest weight in their row (each query's own scale); hover a cell for its value."
            )
            if layout == "paper"
            else _(
                "Weights are coloured from 0 to the largest weight in their column (each query's own scale); hover a "
                "cell for its value."
            )
        )
    else:
        weights = _("Weights are coloured from 0 to 1.")
    scores = _("Scores: red above 0, blue below, each step on its own scale.")
    if tr.mask_kind == "none":
        mask = _("With no mask nothing is hidden, so step 3 is step 2 unchanged.")
        if not tr.mask_is_real:
            mask += " " + _(
                "This decoder was trained with the causal mask: without it, every token here is a counterfactual."
            )
    elif tr.mask_is_real:
        mask = _("Grey: −∞, the keys after each query, hidden by this decoder's own causal mask.")
    else:
        mask = _(
            "Grey: −∞, the keys after each query; this encoder was trained without the mask, so this is an "
            "illustration."
        )
    return f"{scores} {mask} {weights}"
