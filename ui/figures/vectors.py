"""Vectors in a 2D picture: two vectors and their angle, a chain of weighted values, tokens moved by a layer."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .. import theme
from .base import GRID, arrow, axis_titles, figure, plain


def _point(x: float, y: float, name: str, label: str, position: str, **marker) -> dict:
    """One labelled point."""
    return dict(
        type="scatter", x=[x], y=[y], mode="markers+text", name=name, text=[label], textposition=position, marker=marker
    )


def two_vectors(a: np.ndarray, b: np.ndarray, names: tuple[str, str] = ("a", "b")) -> go.Figure:
    """Two 2D vectors drawn from the origin, with the projection of a onto b."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    top = float(max(np.abs(a).max(), np.abs(b).max(), 1.0)) * 1.2
    arrows = [arrow((0, 0), a, theme.OKABE_ITO[0], 4), arrow((0, 0), b, theme.OKABE_ITO[3], 4)]
    traces = []
    nb = float(b @ b)
    if nb > 0:
        proj = (a @ b) / nb * b
        traces.append(
            dict(
                type="scatter",
                x=[a[0], proj[0]],
                y=[a[1], proj[1]],
                mode="lines",
                line=dict(dash="dot", color=theme.MUTED),
                name="projection of a onto b",
            )
        )
    traces.append(
        dict(
            type="scatter",
            x=[a[0], b[0]],
            y=[a[1], b[1]],
            mode="markers+text",
            text=list(names),
            textposition="top center",
            marker=dict(size=10, color=[theme.OKABE_ITO[0], theme.OKABE_ITO[3]]),
            showlegend=False,
            textfont=dict(size=18),
        )
    )
    axis = dict(range=[-top, top], zeroline=True, zerolinecolor="#bbbbbb", **GRID)
    return figure(
        traces,
        "Two vectors",
        520,
        annotations=arrows,
        xaxis=axis,
        yaxis=dict(axis, scaleanchor="x", scaleratio=1),
        legend=dict(orientation="h", y=-0.1),
    )


def arrow_chain(
    start: np.ndarray,
    steps: np.ndarray,
    step_labels: Sequence[str],
    explained: np.ndarray,
    title: str,
    total_label: str = "Δe",
) -> go.Figure:
    """Arrows laid tip to tail from `start` (2D), one per step, and the total from start to the end."""
    points = np.vstack([start, start + np.cumsum(steps, axis=0)])
    arrows = [arrow(points[i], points[i + 1], theme.OKABE_ITO[5], 2) for i in range(len(steps))]
    arrows.append(arrow(points[0], points[-1], theme.OKABE_ITO[2], 4))
    traces = [
        dict(
            type="scatter",
            x=points[1:, 0],
            y=points[1:, 1],
            mode="markers+text",
            text=[plain(s) for s in step_labels],
            textposition="top right",
            marker=dict(size=6, color=theme.OKABE_ITO[5]),
            name="after each weighted value",
            textfont=dict(size=12, color=theme.MUTED),
        ),
        dict(
            type="scatter",
            x=[points[0, 0]],
            y=[points[0, 1]],
            mode="markers+text",
            text=["e"],
            textposition="bottom center",
            marker=dict(size=13, color=theme.INK),
            name="e (start)",
        ),
        dict(
            type="scatter",
            x=[points[-1, 0]],
            y=[points[-1, 1]],
            mode="markers+text",
            text=[f"e + {total_label}"],
            textposition="bottom center",
            marker=dict(size=13, color=theme.OKABE_ITO[2]),
            name=f"e + {total_label}",
        ),
    ]
    return figure(
        traces, title, 560, annotations=arrows, legend=dict(orientation="h", y=-0.18), **axis_titles(explained)
    )


def displacement_figure(
    e: np.ndarray,
    e_plus_head: np.ndarray,
    e_plus_sum: np.ndarray,
    updated: np.ndarray,
    explained: np.ndarray,
    token: int,
    labels: Sequence[str],
    selected_head: int,
) -> go.Figure:
    """For one token j, in 2D: e_j, an arrow per head to e_j + Δe_j^(h), the summed arrow to e_j + ΣΔe_j,
    and the updated embedding after the LayerNorm.

    e, e_plus_sum, updated: (n_tokens, 2); e_plus_head: (n_heads, n_tokens, 2).
    """
    labels = list(labels)
    start = e[token]
    n_heads = e_plus_head.shape[0]
    arrows = [
        arrow(start, e_plus_head[h, token], theme.OKABE_ITO[5], 1.5) for h in range(n_heads) if h != selected_head
    ]
    arrows.append(arrow(start, e_plus_head[selected_head, token], theme.OKABE_ITO[1], 3.5))
    arrows.append(arrow(start, e_plus_sum[token], theme.OKABE_ITO[2], 4))
    arrows.append(arrow(e_plus_sum[token], updated[token], theme.OKABE_ITO[3], 2, dash=True))
    tips = e_plus_head[:, token]
    chosen = f"head {selected_head + 1}"
    traces = [
        dict(
            type="scatter",
            x=tips[:, 0],
            y=tips[:, 1],
            mode="markers",
            name="e + Δe of one head",
            marker=dict(size=7, color=theme.OKABE_ITO[5]),
            text=[f"head {h + 1}" for h in range(n_heads)],
            hovertemplate="%{text}<extra>e + Δe</extra>",
        ),
        _point(
            tips[selected_head, 0],
            tips[selected_head, 1],
            f"e + Δe of {chosen}",
            chosen,
            "bottom center",
            size=11,
            color=theme.OKABE_ITO[1],
        ),
        _point(
            e_plus_sum[token, 0],
            e_plus_sum[token, 1],
            "e + ΣΔe (all heads)",
            "e + ΣΔe",
            "top center",
            size=12,
            color=theme.OKABE_ITO[2],
        ),
        _point(
            updated[token, 0],
            updated[token, 1],
            "after LayerNorm",
            "updated",
            "bottom center",
            size=13,
            symbol="diamond",
            color=theme.OKABE_ITO[3],
        ),
        dict(
            _point(
                start[0], start[1], f"e of {labels[token]}", labels[token], "bottom center", size=14, color=theme.INK
            ),
            textfont=dict(size=16),
        ),
    ]
    return figure(
        traces,
        f"How the heads move “{labels[token]}”",
        620,
        annotations=arrows,
        legend=dict(orientation="h", y=-0.18, x=0),
        **axis_titles(explained),
    )


def before_after_figure(
    before: np.ndarray, after: np.ndarray, explained: np.ndarray, labels: Sequence[str], after_name: str = "after"
) -> go.Figure:
    """Every token before → after a step, in one 2D projection, with an arrow each."""
    labels = list(labels)
    traces = [
        dict(
            type="scatter",
            x=before[:, 0],
            y=before[:, 1],
            mode="markers",
            name="before",
            marker=dict(size=10, color="white", line=dict(color=theme.OKABE_ITO[0], width=2)),
            text=labels,
            hovertemplate="%{text}<extra>before</extra>",
        ),
        dict(
            type="scatter",
            x=after[:, 0],
            y=after[:, 1],
            mode="markers+text",
            name=after_name,
            marker=dict(size=10, color=theme.OKABE_ITO[3]),
            text=labels,
            textposition="top center",
            hovertemplate="%{text}<extra>after</extra>",
        ),
    ]
    return figure(
        traces,
        "Every token, before → after",
        560,
        annotations=[arrow(before[i], after[i], "#9aa3ad", 1.5) for i in range(len(labels))],
        legend=dict(orientation="h", y=-0.15, x=0),
        **axis_titles(explained),
    )
