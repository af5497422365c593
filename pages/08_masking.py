"""Chapter 8: the mask and the softmax, on the notes' worked example and on the real sentence."""

import numpy as np
import pandas as pd
import streamlit as st

import attention
from attention.lessons import masking, window
from ui import chapter, engine, figures, state, theme, widgets

KEYS = [f"k{i + 1}" for i in range(4)]
QUERIES = [f"q{j + 1}" for j in range(4)]
VERSION = "_mk_table_version"  # a new table widget after each edit, drawn from the kept scores
PROBLEM = "_mk_table_problem"


def table_changed(key: str) -> None:
    """Copy the table's edits into the kept scores (the link's "mk_scores"), refusing what is not a score."""
    scores = np.array(state.get("mk_scores"), dtype=float).reshape(4, 4)
    for row, cells in st.session_state[key].get("edited_rows", {}).items():
        for col, text in cells.items():
            try:
                scores[int(row), QUERIES.index(col)] = masking.parse_score(text)
            except ValueError:
                # the typed text is not repeated: it is the user's, and this message is markdown
                st.session_state[PROBLEM] = (
                    f"Key {KEYS[int(row)]}, query {col}: that is not a score. Type a number, or −∞ (or -inf) for a "
                    "masked one; the cell keeps its value."
                )
    state.put("mk_scores", tuple(scores.ravel().tolist()))
    st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1


def reset_table() -> None:
    state.put("mk_scores", state.PARAMS["mk_scores"].default)
    st.session_state[VERSION] = st.session_state.get(VERSION, 0) + 1


prose = chapter.begin("08_masking.py")
st.latex(
    r"w_{ij} = \frac{\exp(s_{ij} + M_{ij})}{\sum_{j'} \exp(s_{ij'} + M_{ij'})}, \qquad "
    r"M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}"
)
st.markdown(prose["training"])
st.header("The notes' worked example")
st.markdown(prose["worked"])
typed = np.array(state.get("mk_scores"), dtype=float).reshape(4, 4)
key = f"w:mk_table_{st.session_state.get(VERSION, 0)}"
st.data_editor(
    pd.DataFrame([[masking.format_score(v) for v in row] for row in typed], index=KEYS, columns=QUERIES),
    key=key,
    on_change=table_changed,
    args=(key,),
    width="stretch",
)
if st.session_state.get(PROBLEM):
    st.warning(st.session_state.pop(PROBLEM))
c1, c2 = st.columns([3, 1])
mask_on = c1.toggle("Mask the later keys (−∞ below the diagonal)", **state.bound("mk_mask"))
c2.button("Back to the notes' table", on_click=reset_table)
scores = masking.apply_notes_mask(typed) if mask_on else typed
weights = masking.column_softmax(scores)
finite = np.abs(scores[np.isfinite(scores)])
top = float(finite.max()) if finite.size else 1.0
left, right = st.columns(2)
with left:
    widgets.chart(
        figures.table_heatmap(
            scores,
            KEYS,
            QUERIES,
            "The notes' scores",
            fmt="g",
            scale=theme.SCORES_SCALE,
            zmin=-top,  # centred at 0: a positive score is red, a negative one blue, whatever the range
            zmax=top,
            row_title="keys",
            col_title="queries",
        ),
        "worked_scores",
        key="fig_masking_scores",
        mask="causal" if mask_on else "none",
        text="",  # the notes' table, not the sidebar's sentence
    )
with right:
    widgets.chart(
        figures.table_heatmap(
            weights,
            KEYS,
            QUERIES,
            "Softmax down each column",
            fmt=".3f",
            zmin=0,
            zmax=1,
            row_title="keys",
            col_title="queries",
        ),
        "worked_softmax",
        key="fig_masking_softmax",
        mask="causal" if mask_on else "none",
        text="",
    )
blind = masking.unseeing_queries(weights)
if blind:
    st.warning(
        ", ".join(QUERIES[q] for q in blind) + " sees no key at all: every score in its column is −∞, and the "
        "softmax of nothing but −∞ is 0/0. A real mask always leaves a query its own key."
    )
st.caption(
    "Column sums: " + ", ".join(f"{q}: {s:.6f}" for q, s in zip(QUERIES, masking.column_sums(weights), strict=True))
)
if mask_on and masking.is_worked_example(typed):
    slips = masking.notes_slips(weights)
    st.markdown(
        prose["slips"]
        + " "
        + "; ".join(
            f"{QUERIES[q]}, {KEYS[k]}: the notes write {notes:.2f}, exactly {exact:.3f}" for k, q, notes, exact in slips
        )
        + "."
    )
    st.dataframe(
        pd.DataFrame(
            {
                "query": QUERIES,
                "notes (rounded by hand)": [", ".join(f"{v:.2f}" for v in c) for c in masking.NOTES_ROUNDED.T],
                "exact": [", ".join(f"{v:.3f}" for v in c) for c in weights.T],
            }
        ),
        hide_index=True,
    )
small = masking.small_example_softmax()
st.markdown(
    chapter.fill(prose["small"], small=", ".join(f"{v:.7f}" for v in small), ratio=f"{small[1] / small[0]:,.0f}")
)

st.header("On the real sentence")
view = chapter.sentence_view(prefer_decoder=True)
layer_i, head_i = view.layer, view.head
st.markdown(prose["decoder" if view.config.is_decoder else "encoder"])
labels = figures.token_labels([t.display for t in view.trace().tokens])
left, right = st.columns(2)
for col, mask in zip((left, right), attention.MASKS, strict=True):
    with col:
        tr = view.trace(mask)
        what = "Real" if tr.mask_is_real else "Illustration"  # the mask the model was trained with, or not
        chapter.half_chart(
            figures.attention_heatmap(
                tr.layers[layer_i].weights[head_i],
                labels,
                f"{what}",
                half_width=True,
            ),
            f"weights_{mask}",
            key=f"fig_masking_{mask}",
            layer=layer_i,
            head=head_i,
            mask=mask,
        )
st.header("Sliding windows")
cfg = view.config
if not (cfg.sliding_window and cfg.layer_kinds):
    st.markdown(chapter.fill(prose["window_elsewhere"], model=cfg.name, pick=widgets.models_with("sliding_window")))
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
            window=f"{kinds.window:,}",
            reach=chapter.fill(prose["window_cuts" if kinds.cuts(n_tokens) else "window_short"], n_tokens=n_tokens),
            before=f"{kinds.window - 1:,}",
            n_tokens=n_tokens,
            saved=f"{kinds.cache_per_token_saved(cfg, cfg.max_tokens):.0%}",
            context=f"{cfg.max_tokens:,}",
        )
    )
    local = layer_i if cfg.is_local(layer_i) else kinds.local[0]  # the chosen layer, or the first local one
    width = st.slider(
        "A narrower window, on every local layer (a counterfactual)",
        1,
        max(2, min(n_tokens, kinds.window)),
        **state.bound("mk_window"),
        help=f"{cfg.name} was trained with {kinds.window:,}: a window this small was never in its training.",
    )
    banded = engine.windowed(view.text, width)
    native = view.trace()
    left, right = st.columns(2)
    for col, (tr, what) in zip(
        (left, right), ((native, f"Its own window ({kinds.window:,})"), (banded, f"A window of {width}")), strict=True
    ):
        with col:
            chapter.half_chart(
                figures.attention_heatmap(tr.layers[local].weights[head_i], labels, what, half_width=True),
                f"window_{tr.layers[local].window}",
                key=f"fig_masking_window_{'own' if tr is native else 'band'}",
                layer=local,
                head=head_i,
                mask="causal",
            )
    moved = window.weight_beyond(native, banded, local)
    st.caption(
        f"Layer {local + 1} is local. With a window of {width}, each query reads at most its own place and the "
        f"{width - 1} before it: the weight it gave the keys further back, {moved:.1%} of its attention on average "
        f"over the heads, now goes to the keys inside the band. The global layers ({', '.join(str(i + 1) for i in kinds.global_)}) "
        f"keep every key."
    )
column_2 = masking.column_softmax(masking.NOTES_SCORES)[:2, 1]
chapter.try_this(prose, q2=", ".join(f"{v:.3f}" for v in column_2))
chapter.end()
