"""Plain charts: lines, histograms and bars."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from .. import theme
from .base import GRID, colour, figure, label_px, plain

LOG_FLOOR = 1e-12  # a logarithmic axis cannot draw 0: values that are zero up to rounding are drawn here


def lines(
    x: np.ndarray,
    series: dict[str, np.ndarray],
    title: str,
    x_title: str,
    y_title: str,
    marker_x: float | None = None,
    log_y: bool = False,
) -> go.Figure:
    traces = [
        dict(
            type="scatter",
            x=x,
            y=np.maximum(y, LOG_FLOOR) if log_y else y,
            mode="lines+markers" if len(x) <= 12 else "lines",
            name=name,
            line=dict(width=3, color=colour(i)),
        )
        for i, (name, y) in enumerate(series.items())
    ]
    marker = []
    if marker_x is not None:
        marker.append(
            dict(
                type="line",
                x0=marker_x,
                x1=marker_x,
                xref="x",
                y0=0,
                y1=1,
                yref="y domain",
                line=dict(color=theme.MUTED, dash="dash"),
            )
        )
    return figure(
        traces,
        title,
        420,
        shapes=marker,
        xaxis=dict(title=dict(text=x_title), **GRID),
        yaxis=dict(title=dict(text=y_title), type="log" if log_y else "linear", **GRID),
        legend=dict(orientation="h", y=-0.2),
    )


def histograms(samples: dict[str, np.ndarray], title: str, x_title: str) -> go.Figure:
    traces = [
        dict(type="histogram", x=np.ravel(values), name=name, opacity=0.65, nbinsx=60, marker_color=colour(i))
        for i, (name, values) in enumerate(samples.items())
    ]
    return figure(
        traces,
        title,
        420,
        barmode="overlay",
        legend=dict(orientation="h", y=-0.2),
        xaxis=dict(title=dict(text=x_title)),
        yaxis=dict(title=dict(text="count")),
    )


def bars(
    labels: Sequence[str],
    values: Sequence[float],
    title: str,
    y_title: str,
    highlight: int | None = None,
    text_fmt: str | None = None,
    horizontal: bool = False,
) -> go.Figure:
    colors = [theme.OKABE_ITO[1] if i == highlight else theme.OKABE_ITO[0] for i in range(len(values))]
    labels = [plain(str(x)) for x in labels]
    bar = dict(
        type="bar",
        marker_color=colors,
        text=[format(v, text_fmt) for v in values] if text_fmt else None,
        textposition="auto",
    )
    if horizontal:
        return figure(
            [dict(bar, y=labels, x=list(values), orientation="h")],
            title,
            max(380, 60 + 34 * len(labels)),
            yaxis=dict(type="category", autorange="reversed"),
            xaxis=dict(title=dict(text=y_title)),
            margin=dict(l=label_px(labels) + 15),
        )
    return figure(
        [dict(bar, x=labels, y=list(values))],
        title,
        400,
        xaxis=dict(type="category"),
        yaxis=dict(title=dict(text=y_title)),
    )


def head_norm_bars(norms: np.ndarray, selected: int, sum_norm: float, token_label: str) -> go.Figure:
    """|Δe^(h)| of one token for every head, the selected head highlighted, and |ΣΔe| for comparison."""
    n = len(norms)
    colors = [theme.OKABE_ITO[1] if h == selected else theme.OKABE_ITO[5] for h in range(n)]
    per_head = dict(
        type="bar",
        x=[f"{h + 1}" for h in range(n)],
        y=norms,
        marker_color=colors,
        hovertemplate="head %{x}<br>|Δe| = %{y:.3f}<extra></extra>",
        name="|Δe| of a head",
    )
    sum_line = dict(
        type="line",
        x0=0,
        x1=1,
        xref="x domain",
        y0=sum_norm,
        y1=sum_norm,
        yref="y",
        line=dict(color=theme.OKABE_ITO[2], dash="dash", width=2),
    )
    sum_label = dict(
        text=f"|ΣΔe| = {sum_norm:.2f}",
        x=0,
        xanchor="left",
        xref="x domain",
        y=sum_norm,
        yanchor="bottom",
        yref="y",
        showarrow=False,
    )
    return figure(
        [per_head],
        f"How far each head pushes “{token_label}”",
        380,
        shapes=[sum_line],
        annotations=[sum_label],
        xaxis=dict(title=dict(text="head"), type="category"),
        yaxis=dict(title=dict(text="length of Δe in model space"), rangemode="tozero"),
    )
