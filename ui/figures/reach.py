"""How far attention reaches, against a recurrent network's memory: a recurrent state's share of a word as it\nrecedes (recurrent_memory), an attention head's weights by distance (attention_reach), and the mask as a matrix\n(mask_matrix)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.figures import theme
from ui.figures.base import ALL_TOKENS, GRID, colour, figure, pair_hover, plain
from ui.figures.charts import LOG_FLOOR, _log_y
from ui.figures.text import MINUS_INFINITY, label_px
from ui.words.locales import Words

# chapter 2's two titles, of three short lines each (what is measured, then its setting), and the top margin that
# holds them: the two charts side by side keep their plots level
THREE_LINE_TOP = theme.TEMPLATE.layout.margin.t + 2 * round(1.3 * theme.TEMPLATE.layout.title.font.size) + 12


def recurrent_memory(distances: np.ndarray, share: np.ndarray, keep: float, *, words: Words) -> go.Figure:
    """A leaky recurrent state's share (1 − λ) λ^d of a word read d tokens back, on a logarithmic scale: the word's
    part of the one vector that carries everything read so far. Drawn alone, never on an axis with attention
    weights, which measure something else (attention_reach)."""
    line = dict(
        type="scatter",
        x=distances,
        y=np.maximum(share, LOG_FLOOR),
        mode="lines",
        line=dict(width=3, color=colour(0)),
        hovertemplate=words._("distance {d}: {share}").format(d="%{x}", share="%{y:.2e}") + "<extra></extra>",
    )
    return figure(
        [line],
        "<br>".join((words._("A recurrent state:"), words._("the word's share of it"), f"λ = {words.fmt(keep, 'g')}")),
        440,
        margin=dict(t=THREE_LINE_TOP),
        showlegend=False,
        xaxis=dict(
            title=dict(text=words._("distance d (tokens)")), range=_distance_range(float(np.max(distances))), **GRID
        ),
        yaxis=dict(title=dict(text=words._("share of the state (log scale)")), **_log_y([share]), **GRID),
    )


def _distance_range(top: float) -> list[float]:
    """The distance axis of both chapter 2 charts, so that side by side they read the same distances."""
    return [-0.04 * top, 1.04 * top]


def attention_reach(distances: np.ndarray, weights: np.ndarray, top: float, model: str, *, words: Words) -> go.Figure:
    """The weight one attention head gives a word d tokens back, on a linear axis from 0 to 1: how much that head
    reads the word's value when it looks back at it, not a share of a state that carries the word along.

    top: the x axis's end, the recurrent chart's, so that the two charts beside each other share their distances.
    model: its name, on the title's second line, where the page adds the layer and head."""
    points = dict(
        type="scatter",
        x=distances,
        y=weights,
        mode="lines+markers",
        line=dict(width=2, color=colour(3), dash="dot"),
        marker=dict(size=11),
        hovertemplate=words._("distance {d}: {weight}").format(d="%{x}", weight="%{y:.3f}") + "<extra></extra>",
    )
    return figure(
        [points],
        "<br>".join((words._("One attention head:"), words._("its weight on the word"), plain(model))),
        440,
        margin=dict(t=THREE_LINE_TOP),
        showlegend=False,
        xaxis=dict(title=dict(text=words._("distance d (tokens)")), range=_distance_range(top), **GRID),
        yaxis=dict(title=dict(text=words._("attention weight (0 to 1)")), range=[0, 1.05], dtick=0.2, **GRID),
    )


SEEN = "#e3eef8"  # a cell the mask lets through: pale, so that the grey −∞ cells and their 0s both read


def mask_matrix(
    mask: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    title: str,
    numbers: bool = True,
    *,
    words: Words,
) -> go.Figure:
    """The additive mask M of softmax(s + M): two states only, 0 (the key may be seen) and −∞ (it may not),
    each a colour of its own in a two-entry colour bar; never a 0-to-1 scale, which would read as weights.

    mask: 0 or −∞ in every cell, rows are queries; rows and cols: already escaped labels."""
    m = np.asarray(mask, dtype=float)
    if not np.all((m == 0) | np.isneginf(m)):
        raise ValueError("A mask holds only 0 and −∞.")
    hidden = np.isneginf(m).astype(float)  # 0: may look, 1: masked
    two_states = [[0.0, SEEN], [0.5, SEEN], [0.5, theme.MASKED], [1.0, theme.MASKED]]
    text = [[MINUS_INFINITY if h else "0" for h in row] for row in hidden]
    heatmap = dict(
        type="heatmap",
        z=hidden,
        x=list(cols),
        y=list(rows),
        zmin=0,
        zmax=1,
        colorscale=two_states,
        colorbar=dict(
            thickness=14,
            len=0.5,
            tickvals=[0.25, 0.75],
            ticktext=[words._("0: may look"), words._("−∞: may not")],
            outlinewidth=1,
        ),
        text=text,
        customdata=text,
        texttemplate="%{text}" if numbers else None,
        textfont=dict(size=13),
        xgap=1,
        ygap=1,
        hovertemplate=pair_hover("query", "key", "M = %{customdata}", words=words) + "<extra></extra>",
    )
    slanted = len(cols) > 6
    top = 80 + (int(label_px(cols) * 0.87) if slanted else 22)
    return figure(
        [heatmap],
        dict(text=title, y=0.995, yanchor="top", yref="container"),
        max(340, min(860, top + 60 + 34 * len(rows))),
        xaxis=dict(
            title=dict(text=words._(ALL_TOKENS["key"])), side="top", type="category", tickangle=-60 if slanted else 0
        ),
        yaxis=dict(title=dict(text=words._(ALL_TOKENS["query"])), type="category", autorange="reversed"),
        plot_bgcolor="white",
        margin=dict(t=top, l=label_px(rows) + 45, r=20, b=20),
    )
