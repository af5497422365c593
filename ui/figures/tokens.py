"""The tokens themselves, as chips in reading order."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from .. import theme
from .base import figure, plain


def token_chips(
    texts: Sequence[str], special: Sequence[bool], continuation: Sequence[bool], width: float = 64.0
) -> go.Figure:
    """The tokens as chips in reading order, each with its position; word pieces and special tokens marked.

    Drawn with a handful of traces (not a shape per token), so hundreds of tokens draw quickly.
    """
    x, row, gap = 0.0, 0, 0.6
    xs, rows, widths = [], [], []
    for t in texts:
        w = max(2.2, 0.62 * len(t) + 1.2)
        if x + w > width and x > 0:
            x, row = 0.0, row + 1
        xs.append(x)
        rows.append(row)
        widths.append(w)
        x += w + gap
    n_rows = row + 1
    kinds = {
        "word": ("starts a word", "#dcebf7", theme.OKABE_ITO[0]),
        "piece": ("word piece (##)", "#fde9c8", theme.OKABE_ITO[1]),
        "special": ("special token", "#e6e6e6", theme.MUTED),
    }
    kind_of = ["special" if special[i] else "piece" if continuation[i] else "word" for i in range(len(texts))]
    traces = []
    for kind, (name, fill, line) in kinds.items():
        px, py = [], []
        for i, k in enumerate(kind_of):
            if k == kind:
                x0, x1, y = xs[i], xs[i] + widths[i], -rows[i] * 1.6
                px += [x0, x1, x1, x0, x0, None]
                py += [y - 0.5, y - 0.5, y + 0.5, y + 0.5, y - 0.5, None]
        traces.append(
            dict(
                type="scatter",
                x=px or [None],
                y=py or [None],
                mode="lines",
                fill="toself",
                fillcolor=fill,
                name=name,
                line=dict(color=line, width=1.5),
                hoverinfo="skip",
            )
        )
    centres = [xs[i] + widths[i] / 2 for i in range(len(texts))]
    ys = [-r * 1.6 for r in rows]
    traces.append(
        dict(
            type="scatter",
            x=centres,
            y=ys,
            mode="text",
            text=[plain(t) for t in texts],
            textfont=dict(size=16, color=theme.INK),
            showlegend=False,
            hovertext=[f"position {i}" for i in range(len(texts))],
            hoverinfo="text",
        )
    )
    traces.append(
        dict(
            type="scatter",
            x=centres,
            y=[y + 0.75 for y in ys],
            mode="text",
            text=[str(i) for i in range(len(texts))],
            textfont=dict(size=11, color=theme.MUTED),
            showlegend=False,
            hoverinfo="skip",
        )
    )
    return figure(
        traces,
        f"{len(texts)} tokens",
        90 + 62 * n_rows,
        xaxis=dict(visible=False, range=[-0.5, width + 0.5]),
        yaxis=dict(visible=False, range=[-(n_rows - 1) * 1.6 - 0.8, 1.3]),
        legend=dict(orientation="h", y=-0.02, yanchor="top", x=0),
        margin=dict(l=10, r=10, t=40, b=10),
    )
