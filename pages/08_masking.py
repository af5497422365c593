"""Chapter 8: the mask and the softmax, on the notes' worked example and on the real sentence."""

import numpy as np
import streamlit as st
from babel.numbers import get_decimal_symbol

import attention
from attention.lessons import masking, questions_chapters_6_to_10, window
from ui import figures, served
from ui.components import table
from ui.figures import theme
from ui.kit import chapter, choices, questions
from ui.kit.chart import chart
from ui.session import engine, state
from ui.words import architecture, i18n
from ui.words.i18n import _, n_

KEYS = [f"k{i + 1}" for i in range(4)]
QUERIES = [f"q{j + 1}" for j in range(4)]
VERSION = "_mk_table_version"  # a new table widget after each edit, drawn from the kept scores
PROBLEM = "_mk_table_problem"


def decimal_mark() -> str:
    """The decimal mark of the session's language ("," in French): the table's scores are written and read with it."""
    return get_decimal_symbol(i18n.language())


def table_changed(key: str) -> None:
    """Copy the table's edits into the kept scores (the link's "mk_scores"), refusing what is not a score."""
    scores = np.array(state.get("mk_scores"), dtype=float).reshape(4, 4)
    for row, cells in st.session_state[key].get("edited_rows", {}).items():
        for col, text in cells.items():
            try:
                scores[int(row), QUERIES.index(col)] = masking.parse_score(str(text).replace(decimal_mark(), "."))
            except ValueError:
                # the typed text is not repeated: it is the user's, and this message is markdown
                st.session_state[PROBLEM] = _(
                    "Key {key}, query {query}: that is not a score. Type a number, or −∞ (or -inf) for a masked one; "
                    "the cell keeps its value."
                ).format(key=KEYS[int(row)], query=col)
    state.put("mk_scores", tuple(scores.ravel().tolist()))
    st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1


def in_code(text: str) -> str:
    """A token in the prose, as a code span: what a sentence holds is never read as Markdown."""
    return "`" + " ".join(text.split()).replace("`", "ˋ") + "`"


def renormalised_values(tr: attention.Trace, head: int) -> dict[str, object] | None:
    """The places of the question on what the mask does to one weight in layer 1, where both runs read the same
    vectors: a query and key of the text, their weight with no mask, the query's weight on the keys the mask leaves
    it, and the weights a student may answer, written alike (None for a text of two tokens or fewer)."""
    places = [t.position for t in tr.tokens if not t.is_special]
    pick = questions_chapters_6_to_10.masked_pick(tr.layers[0].weights[head], places)
    if pick is None:
        return None
    names = figures.token_labels([t.display for t in tr.tokens], escaped=False)
    stem = pick.digits + 1  # the numbers to work from, one decimal more than the options
    return dict(
        query=in_code(names[pick.query]),
        key=in_code(names[pick.key]),
        weight=i18n.num(pick.weight, stem),
        visible=i18n.num(pick.kept, stem),
        freed=i18n.num(1 - pick.kept, stem),
        **{
            name: i18n.num(v, pick.digits)
            for name, v in zip(("renormalised", "unchanged", "shared", "given"), pick.options.values, strict=True)
        },
    )


def editable(scores: np.ndarray):
    """The scores as the table edits them: text, so that −∞ can be typed, each written with the language's decimal
    mark. A DataFrame: pandas, which a fresh server imports at its first quiet moment (ui/served.py), asked for now."""
    served.started()
    import pandas as pd

    return pd.DataFrame(
        [[masking.format_score(v).replace(".", decimal_mark()) for v in row] for row in scores],
        index=KEYS,
        columns=QUERIES,
    )


def reset_table() -> None:
    state.put("mk_scores", state.PARAMS["mk_scores"].default)
    st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1


prose = chapter.begin("08_masking.py")
st.latex(
    r"w_{ij} = \frac{\exp(s_{ij} + M_{ij})}{\sum_{j'} \exp(s_{ij'} + M_{ij'})}, \qquad "
    r"M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}"
)
st.markdown(prose["training"])
chapter.notes_aside(prose["aside_rule"])
st.header(_("The notes' worked example"), anchor="the-notes-worked-example")
st.markdown(prose["worked"])
typed = np.array(state.get("mk_scores"), dtype=float).reshape(4, 4)
key = f"w:mk_table_{st.session_state.get(VERSION, 0)}"
st.data_editor(
    editable(typed),
    key=key,
    on_change=table_changed,
    args=(key,),
    width="stretch",
)
if st.session_state.get(PROBLEM):
    st.warning(st.session_state.pop(PROBLEM))
c1, c2 = st.columns([3, 1])
mask_on = c1.toggle(_("Mask the later keys (−∞ below the diagonal)"), **state.bound("mk_mask"))
c2.button(_("Back to the notes' table"), on_click=reset_table)
scores = masking.apply_notes_mask(typed) if mask_on else typed
overruled = np.argwhere(np.isfinite(typed) & np.isneginf(scores))  # typed below the diagonal, masked
if len(overruled):
    st.info(
        n_(
            "The mask holds here: the softmax reads −∞ where the table shows {cells}. Whatever is typed below the "
            "diagonal is masked; switch the mask off to use it.",
            "The mask holds here: the softmax reads −∞ where the table shows {cells}. Whatever is typed below the "
            "diagonal is masked; switch the mask off to use them.",
            len(overruled),
        ).format(
            cells=i18n.series(
                _("{key}, {query}: {value}").format(
                    key=KEYS[r], query=QUERIES[c], value=masking.format_score(typed[r, c]).replace(".", decimal_mark())
                )
                for r, c in overruled
            )
        )
    )
weights = masking.column_softmax(scores)
finite = np.abs(scores[np.isfinite(scores)])
top = float(finite.max()) if finite.size else 1.0
left, right = chapter.figure_columns(2)
with left:
    chart(
        figures.table_heatmap(
            scores,
            KEYS,
            QUERIES,
            _("The notes' scores"),
            fmt="g",
            scale=theme.SCORES_SCALE,
            zmin=-top,  # centred at 0: a positive score is red, a negative one blue, whatever the range
            zmax=top,
            row_title=_("keys"),
            col_title=_("queries"),
            words=i18n.words(),
        ),
        "worked_scores",
        key="fig_masking_scores",
        mask="causal" if mask_on else "none",
        text="",  # the notes' table, not the sidebar's sentence
        share=chapter.figure_share(0.5),
    )
with right:
    chart(
        figures.table_heatmap(
            weights,
            KEYS,
            QUERIES,
            _("Softmax down each column"),
            fmt=".3f",
            zmin=0,
            zmax=1,
            row_title=_("keys"),
            col_title=_("queries"),
            words=i18n.words(),
        ),
        "worked_softmax",
        key="fig_masking_softmax",
        mask="causal" if mask_on else "none",
        text="",
        share=chapter.figure_share(0.5),
    )
blind = masking.unseeing_queries(weights)
if blind:
    st.warning(
        n_(
            "{queries} sees no key at all: every score in its column is −∞, and the softmax of nothing but −∞ is "
            "0/0. A real mask always leaves a query its own key.",
            "{queries} see no key at all: every score in their columns is −∞, and the softmax of nothing but −∞ is "
            "0/0. A real mask always leaves a query its own key.",
            len(blind),
        ).format(queries=", ".join(QUERIES[q] for q in blind))
    )
sums = masking.column_sums(weights)
st.caption(
    _("Column sums: {sums}").format(
        sums=i18n.series(
            _("{query}: {sum}").format(query=q, sum=i18n.num(s, 6)) for q, s in zip(QUERIES, sums, strict=True)
        )
    )
)
if mask_on and masking.is_worked_example(typed) and chapter.notes_shown():
    slips = masking.notes_slips(weights)
    chapter.notes_aside(
        prose["aside_slips"]
        + " "
        + i18n.semicolons(
            _("{query}, {key}: the notes write {notes}, exactly {exact}").format(
                query=QUERIES[q], key=KEYS[k], notes=i18n.num(notes, 2), exact=i18n.num(exact, 3)
            )
            for k, q, notes, exact in slips
        )
        + "."
    )
    table.table(
        {
            _("query"): QUERIES,
            _("notes (rounded by hand)"): [i18n.series(i18n.num(v, 2) for v in c) for c in masking.NOTES_ROUNDED.T],
            _("exact"): [i18n.series(i18n.num(v, 3) for v in c) for c in weights.T],
        },
        key="masking_notes_weights",
        label=_("Each query's weights: the notes' and the exact ones"),
    )
small = masking.small_example_softmax()
st.markdown(
    chapter.fill(
        prose["small"], small=i18n.series(i18n.num(v, 7) for v in small), ratio=i18n.whole(round(small[1] / small[0]))
    )
)
chapter.notes_aside(prose["aside_small"])

st.header(_("On the real sentence"), anchor="on-the-real-sentence")
view = chapter.sentence_view(prefer_decoder=True)
layer_i, head_i = view.layer, view.head
st.markdown(prose["decoder" if view.config.is_decoder else "encoder"])
labels = figures.token_labels([t.display for t in view.trace().tokens])
shown = chapter.token_window(labels)  # a long sentence: the heatmaps' window of tokens, each named
drawn = [labels[i] for i in shown]
left, right = chapter.figure_columns(2)
for col, mask in zip((left, right), attention.MASKS, strict=True):
    with col:
        tr = view.trace(mask)
        what = _("Real") if tr.mask_is_real else _("Illustration")  # the mask the model was trained with, or not
        chapter.half_chart(
            figures.attention_heatmap(
                chapter.windowed(tr.layers[layer_i].weights[head_i], shown),
                drawn,
                what,
                **chapter.heatmap_room(),
                words=i18n.words(),
            ),
            f"weights_{mask}",
            key=f"fig_masking_{mask}",
            layer=layer_i,
            head=head_i,
            mask=mask,
        )
st.header(_("Sliding windows"), anchor="sliding-windows")
cfg = view.config
if not (cfg.sliding_window and cfg.layer_kinds):
    st.markdown(
        chapter.fill(
            prose["window_elsewhere"],
            model=cfg.name,
            reads=architecture.reads_words(cfg),
            pick=choices.models_with("sliding_window"),
        )
    )
else:
    kinds = window.windows(cfg)
    n_tokens = view.trace().n_tokens
    st.markdown(
        chapter.fill(
            prose["window"],
            model=cfg.name,
            n_local=len(kinds.local),
            n_layers=cfg.n_layers,
            global_layers=", ".join(str(i + 1) for i in kinds.global_),
            window=i18n.whole(kinds.window),
            reach=chapter.fill(prose["window_cuts" if kinds.cuts(n_tokens) else "window_short"], n_tokens=n_tokens),
            before=i18n.whole(kinds.window - 1),
            n_tokens=n_tokens,
            saved=i18n.share(kinds.cache_per_token_saved(cfg, cfg.max_tokens)),
            context=i18n.whole(cfg.max_tokens),
        )
    )
    local = layer_i if cfg.is_local(layer_i) else kinds.local[0]  # the chosen layer, or the first local one
    widest = max(2, min(n_tokens, kinds.window))
    state.clamp("mk_window", 1, widest)  # a link's, or a longer sentence's, width past this sentence's
    width = st.slider(
        _("A narrower window, on every local layer (a counterfactual)"),
        1,
        widest,
        **state.bound("mk_window"),
        help=_("{model} was trained with {window}: a window this small was never in its training.").format(
            model=cfg.name, window=i18n.whole(kinds.window)
        ),
    )
    banded = engine.windowed(view.text, width)
    native = view.trace()
    left, right = chapter.figure_columns(2)
    titles = (
        _("Its own window ({window})").format(window=i18n.whole(kinds.window)),
        _("A window of {width}").format(width=width),
    )
    for col, tr, what in zip((left, right), (native, banded), titles, strict=True):
        with col:
            chapter.half_chart(
                figures.attention_heatmap(
                    chapter.windowed(tr.layers[local].weights[head_i], shown),
                    drawn,
                    what,
                    **chapter.heatmap_room(),
                    words=i18n.words(),
                ),
                f"window_{tr.layers[local].window}",
                key=f"fig_masking_window_{'own' if tr is native else 'band'}",
                layer=local,
                head=head_i,
                mask="causal",
            )
    moved = window.weight_beyond(native, banded, local)
    st.caption(
        n_(  # the same English either way: "the 1 before it", "the 2 before it"; other languages agree with the count
            "Layer {layer} is local. With a window of {width}, each query reads at most its own place and the "
            "{before} before it: the weight it gave the keys further back, {moved} of its attention on average over "
            "the heads, now goes to the keys inside the band. The global layers ({global_layers}) keep every key.",
            "Layer {layer} is local. With a window of {width}, each query reads at most its own place and the "
            "{before} before it: the weight it gave the keys further back, {moved} of its attention on average over "
            "the heads, now goes to the keys inside the band. The global layers ({global_layers}) keep every key.",
            width - 1,
        ).format(
            layer=local + 1,
            width=width,
            before=width - 1,
            moved=i18n.share(moved, 1),
            global_layers=", ".join(str(i + 1) for i in kinds.global_),
        )
    )
column_2 = masking.column_softmax(masking.NOTES_SCORES)[:2, 1]
seen = masking.NOTES_SCORES[:2, 1]  # q2's scores for k1 and k2, the keys the mask leaves it


def pair(values) -> str:
    return i18n.series(i18n.num(v, 3) for v in values)


renormalised = renormalised_values(view.trace("none"), head_i)
n_tokens = view.trace().n_tokens
left_out = {"quiz_2": renormalised is None, "quiz_shapes": n_tokens < 2}  # a text too short to ask them
chapter.try_this(
    {key: text for key, text in prose.items() if not left_out.get(key)},
    head=head_i + 1,
    **(renormalised or {}),
    **questions.shape_values(cfg, n_tokens),
    q2=pair(column_2),
    kept=pair(seen),
    even=pair([0.5, 0.5]),
    by_total=pair(seen / np.abs(seen).sum()),
)
chapter.end()
