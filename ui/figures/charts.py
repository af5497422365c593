"""Plain charts: lines, histograms and bars."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from .. import theme
from .base import GRID, colour, figure, label_px, plain, title_room

LOG_FLOOR = 1e-12  # a logarithmic axis cannot draw 0: values that are zero up to rounding are drawn here


def lines(
    x: np.ndarray,
    series: dict[str, np.ndarray],
    title: str,
    x_title: str,
    y_title: str,
    marker_x: float | None = None,
    log_y: bool = False,
    log_x: bool = False,
) -> go.Figure:
    """One line per series. A logarithmic axis is labelled at its data's own x values (log_x) or at whole
    powers of ten written 10⁻⁴ (log_y), never with plotly's in-between "2, 5" ticks or SI prefixes (µ, n, p)."""
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
    # long names wrap one to a line; a single line needs no legend, its axis says what it is
    legend_rows = 0 if len(series) < 2 else len(series) if max(map(len, series)) > 28 else 1
    return figure(
        traces,
        title,
        400 + 26 * legend_rows,
        shapes=marker,
        xaxis=dict(title=dict(text=x_title, standoff=10), **(_log_x(x) if log_x else {}), **GRID),
        yaxis=dict(
            title=dict(text=y_title),
            range=_padded_range(list(series.values()), log_y),
            **(_log_y(list(series.values())) if log_y else {}),
            **GRID,
        ),
        # at the figure's foot, under the x axis's title, in the room the bottom margin keeps for it
        legend=dict(orientation="h", yref="container", y=0.01, yanchor="bottom"),
        margin=dict(b=74 + 26 * legend_rows),
        showlegend=legend_rows > 0,
    )


PAD = 0.06  # the share of a y axis's span left free above and below its lines, so that none runs along an edge


def _padded_range(values: list[np.ndarray], log_y: bool) -> list[float]:
    """The y axis's range: every line's lowest and highest point, with PAD of the span free on each side (on a
    logarithmic axis, in powers of ten, as plotly reads its range)."""
    flat = np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in values])
    flat = flat[np.isfinite(flat)]
    if log_y:
        flat = np.log10(np.maximum(flat, LOG_FLOOR))
    low, high = (float(flat.min()), float(flat.max())) if flat.size else (0.0, 1.0)
    pad = PAD * (high - low) if high > low else 0.5
    return [low - pad, high + pad]


LOG_Y = dict(type="log", dtick=1, exponentformat="power", minor=dict(showgrid=False, ticks=""))
LOG_TICKS = 7  # at most this many labelled powers of ten on a logarithmic axis


def _log_y(values: list[np.ndarray]) -> dict:
    """A logarithmic y axis labelled at every power of ten, or every second, third… so at most LOG_TICKS."""
    flat = np.concatenate([np.maximum(np.ravel(v), LOG_FLOOR) for v in values])
    decades = np.log10(flat.max()) - np.log10(flat.min())
    return LOG_Y | dict(dtick=max(1, int(np.ceil(decades / LOG_TICKS))))


def _log_x(x: np.ndarray) -> dict:
    values = [float(v) for v in np.asarray(x).ravel()]
    return dict(type="log", tickvals=values, ticktext=[f"{v:g}" for v in values], minor=dict(ticks=""))


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
    if horizontal:  # values printed beyond the bar's end, so that a short bar's number stays readable
        top = max((float(v) for v in values), default=1.0) or 1.0
        return figure(
            [dict(bar, y=labels, x=list(values), orientation="h", textposition="outside", cliponaxis=False)],
            title,
            max(380, 60 + 34 * len(labels)),
            yaxis=dict(type="category", autorange="reversed"),
            xaxis=dict(title=dict(text=y_title), range=[0, top * 1.18]),
            margin=dict(l=label_px(labels) + 15),
        )
    return figure(
        [dict(bar, x=labels, y=list(values))],
        title,
        400,
        xaxis=dict(type="category"),
        yaxis=dict(title=dict(text=y_title)),
    )


def head_norm_bars(
    norms: np.ndarray, selected: int, sum_norm: float, token_label: str, title: str | None = None
) -> go.Figure:
    """|Δe^(h)| of one token for every head, the selected head highlighted, and |ΣΔe| for comparison.

    title: by default how far each head pushes the token; it may run over lines (<br>), and the figure grows by
    them so that its plot keeps its height."""
    title = title or f"How far each head pushes “{token_label}”"
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
        title,
        306 + title_room(title),  # stand_alone's title room, and 306 px for the plot and its axis
        checked=False,
        shapes=[sum_line],
        annotations=[sum_label],
        xaxis=dict(title=dict(text="head"), type="category"),
        yaxis=dict(title=dict(text="|Δe| in model space"), rangemode="tozero"),
    )


def next_token_bars(tokens: Sequence[str], probabilities: Sequence[float], title: str) -> go.Figure:
    """The most likely next tokens as horizontal bars, the likeliest on top, each with its probability.

    tokens: as a person reads them (spaces marked); rows by position, so two tokens that read alike stay two.
    title: may run over lines (<br>)."""
    names = [plain(t) for t in tokens]
    rows = list(range(len(names)))
    top = max(probabilities, default=1.0)
    bar = dict(
        type="bar",
        orientation="h",
        y=rows,
        x=list(probabilities),
        marker_color=theme.OKABE_ITO[0],
        text=[f"{p:.1%}" for p in probabilities],
        textposition="outside",
        cliponaxis=False,
        customdata=names,
        hovertemplate="%{customdata}: %{x:.2%}<extra></extra>",
    )
    return figure(
        [bar],
        title,
        title_room(title) + 55 + 36 * len(names),
        checked=False,
        yaxis=dict(tickmode="array", tickvals=rows, ticktext=names, autorange="reversed"),
        xaxis=dict(title=dict(text="probability"), range=[0, top * 1.25], tickformat=".0%", **GRID),
        margin=dict(l=label_px(names) + 15, r=20, b=55),
    )


def fading_memory(
    distances: np.ndarray,
    recurrent: np.ndarray,
    measured_at: np.ndarray,
    measured: np.ndarray,
    keep: float,
    head_name: str,
) -> go.Figure:
    """The share of a word d tokens back: a recurrent state's fixed decay (a line) against the weight one
    attention head of the real model gives it (points), on a logarithmic scale."""
    traces = [
        dict(
            type="scatter",
            x=distances,
            y=np.maximum(recurrent, LOG_FLOOR),
            mode="lines",
            name=f"recurrent state, λ = {keep:g}",
            line=dict(width=3, color=colour(0)),
            hovertemplate="%{x} tokens back: %{y:.2e}<extra>recurrent</extra>",
        ),
        dict(
            type="scatter",
            x=measured_at,
            y=np.maximum(measured, LOG_FLOOR),
            mode="lines+markers",
            name=plain(head_name),
            line=dict(width=2, color=colour(3), dash="dot"),
            marker=dict(size=11),
            hovertemplate="%{x} tokens back: %{y:.3f}<extra>attention</extra>",
        ),
    ]
    return figure(
        traces,
        "How much of a word d tokens back is left",
        440,
        xaxis=dict(title=dict(text="distance d (tokens)"), **GRID),
        yaxis=dict(title=dict(text="share of the word (log scale)"), **_log_y([recurrent, measured]), **GRID),
        legend=dict(orientation="h", y=-0.22),
    )


BOX_HEIGHT = 0.8  # of one row of the diagram


@dataclass(frozen=True)
class Box:
    name: str
    detail: str  # sizes, on the right of the box
    params: str  # its parameter count as shown, under the detail ("" for none)
    link: str  # a relative address the name opens, in the same tab ("" for none)
    in_block: bool  # part of the block repeated in every layer
    highlight: bool = False


def architecture_diagram(boxes: Sequence[Box], n_layers: int, title: str, row_px: int = 58) -> go.Figure:
    """The model as boxes from input (top) to output (bottom), the repeated block framed "× n_layers"."""
    n = len(boxes)
    shapes, notes = [], []
    block = [i for i, b in enumerate(boxes) if b.in_block]
    for i, box in enumerate(boxes):
        name, detail, params, link, in_block = box.name, box.detail, box.params, box.link, box.in_block
        y = n - 1 - i  # the first row at the top
        fill = theme.OKABE_ITO[5] if box.highlight else ("#e8f1f8" if in_block else "#f2f2f2")
        shapes.append(
            dict(
                type="rect",
                x0=0.6,
                x1=4.6,
                y0=y - BOX_HEIGHT / 2,
                y1=y + BOX_HEIGHT / 2,
                line=dict(color=theme.INK, width=1.5),
                fillcolor=fill,
                layer="below",
            )
        )
        label = f"<b>{plain(name)}</b>"
        if link:
            label = f'<a href="{link}" target="_self" style="color:{theme.INK}">{label} ↗</a>'
        notes.append(dict(x=2.6, y=y, text=label, showarrow=False, font=dict(size=15)))
        line = plain(detail) + (f"<br><b>{plain(params)}</b>" if params else "")
        notes.append(
            dict(
                x=4.8,
                y=y,
                xanchor="left",
                align="left",
                text=line,
                showarrow=False,
                font=dict(size=13, color=theme.SUBTLE),
            )
        )
        if i + 1 < n:
            notes.append(
                dict(
                    x=2.6,
                    y=y - 1 + BOX_HEIGHT / 2,
                    ax=2.6,
                    ay=y - BOX_HEIGHT / 2,
                    xref="x",
                    yref="y",
                    axref="x",
                    ayref="y",
                    showarrow=True,
                    arrowhead=2,
                    arrowwidth=1.5,
                    arrowcolor=theme.MUTED,
                    text="",
                )
            )
    if block:
        top, bottom = n - 1 - block[0] + 0.5, n - 1 - block[-1] - 0.5
        shapes.append(
            dict(type="rect", x0=0.35, x1=11.8, y0=bottom, y1=top, line=dict(color=theme.OKABE_ITO[0], dash="dash"))
        )
        notes.append(
            dict(
                x=0.2,
                y=(top + bottom) / 2,
                text=f"<b>× {n_layers}</b>",
                showarrow=False,
                xanchor="right",
                font=dict(size=20, color=theme.OKABE_ITO[0]),
            )
        )
    return figure(
        [dict(type="scatter", x=[0, 12], y=[-0.6, n - 0.4], mode="markers", marker=dict(opacity=0), hoverinfo="skip")],
        title,
        80 + row_px * n,
        shapes=shapes,
        annotations=notes,
        showlegend=False,
        xaxis=dict(visible=False, range=[-0.9, 12], fixedrange=True),
        yaxis=dict(visible=False, range=[-0.6, n - 0.4], fixedrange=True),
        margin=dict(l=10, r=10, t=50, b=10),
    )


CHAIN_LABELS = 4  # the chain's longest steps that get their token's name; the rest say it on hover


def value_chain(
    start: np.ndarray, steps: np.ndarray, step_labels: Sequence[str], explained: np.ndarray, title: str
) -> go.Figure:
    """The weighted values laid tip to tail (vectors.arrow_chain), with only the longest few steps named: a
    dozen short steps near one point would otherwise leave no room for any name."""
    from .vectors import arrow_chain

    lengths = np.linalg.norm(np.asarray(steps, dtype=float), axis=1)
    longest = np.argsort(-lengths, kind="stable")[:CHAIN_LABELS].tolist()
    return arrow_chain(start, steps, step_labels, explained, title, named=longest)


MINUS_INFINITY = "−∞"
SEEN = "#e3eef8"  # a cell the mask lets through: pale, so that the grey −∞ cells and their 0s both read


def mask_matrix(
    mask: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    title: str,
    row_title: str = "queries",
    col_title: str = "keys",
    numbers: bool = True,
) -> go.Figure:
    """The additive mask M of softmax(s + M): two states only, 0 (the key may be seen) and −∞ (it may not),
    each a colour of its own in a two-entry colour bar; never a 0-to-1 scale, which would read as weights.

    mask: 0 or −∞ in every cell; rows and cols: already escaped labels."""
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
            thickness=14, len=0.5, tickvals=[0.25, 0.75], ticktext=["0: may look", "−∞: may not"], outlinewidth=1
        ),
        text=text,
        customdata=text,
        texttemplate="%{text}" if numbers else None,
        textfont=dict(size=13),
        xgap=1,
        ygap=1,
        hovertemplate=f"{row_title[:-1]}: %{{y}}<br>{col_title[:-1]}: %{{x}}<br>M = %{{customdata}}<extra></extra>",
    )
    slanted = len(cols) > 6
    top = 80 + (int(label_px(cols) * 0.87) if slanted else 22)
    return figure(
        [heatmap],
        dict(text=title, y=0.995, yanchor="top", yref="container"),
        max(340, min(860, top + 60 + 34 * len(rows))),
        xaxis=dict(title=dict(text=col_title), side="top", type="category", tickangle=-60 if slanted else 0),
        yaxis=dict(title=dict(text=row_title), type="category", autorange="reversed"),
        plot_bgcolor="white",
        margin=dict(t=top, l=label_px(rows) + 45, r=20, b=20),
    )


def encoder_decoder_diagram(title: str) -> go.Figure:
    """The original Transformer as the slides draw it: an encoder stack reading the source, a decoder stack
    writing the target, and the encoder's last vectors sent to the cross-attention of every decoder block
    as its keys and values (the decoder's own tokens give the queries). Add & Norm steps are left out."""
    boxes = [  # (x0, y0, x1, y1, text, highlighted)
        (0.5, 1.0, 4.0, 1.8, "embedding + positions", False),
        (0.8, 2.8, 3.7, 3.9, "self-attention<br>(no mask)", False),
        (0.8, 4.4, 3.7, 5.4, "MLP", False),
        (6.0, 1.0, 9.5, 1.8, "embedding + positions", False),
        (6.3, 2.8, 9.2, 3.9, "masked self-attention", False),
        (6.3, 4.4, 9.2, 5.5, "<b>cross-attention</b>", True),
        (6.3, 6.0, 9.2, 7.0, "MLP", False),
        (6.0, 8.0, 9.5, 8.8, "linear + softmax", False),
    ]
    frames = [(0.6, 2.5, 3.9, 5.8, "encoder block × N"), (6.1, 2.5, 9.4, 7.4, "decoder block × N")]
    shapes = [
        dict(
            type="rect",
            x0=x0,
            y0=y0,
            x1=x1,
            y1=y1,
            line=dict(color=theme.INK, width=1),
            fillcolor=theme.OKABE_ITO[5] if lit else "#e8f1f8",
        )
        for x0, y0, x1, y1, _, lit in boxes
    ] + [
        dict(type="rect", x0=x0, y0=y0, x1=x1, y1=y1, line=dict(color=theme.MUTED, dash="dash", width=1.5))
        for x0, y0, x1, y1, _ in frames
    ]
    notes = [dict(x=(x0 + x1) / 2, y=(y0 + y1) / 2, text=text, showarrow=False) for x0, y0, x1, y1, text, _ in boxes]
    notes += [
        dict(x=x0 + 0.05, y=y1 + 0.05, text=text, showarrow=False, xanchor="left", yanchor="bottom", font_size=13)
        for x0, y0, x1, y1, text in frames
    ]
    notes += [
        dict(x=2.25, y=0.45, text="source sentence", showarrow=False),
        dict(x=7.75, y=0.45, text="target, written so far", showarrow=False),
        dict(x=7.75, y=9.45, text="next target token", showarrow=False),
        dict(x=2.25, y=6.75, text="the source's vectors<br>(last encoder layer)", showarrow=False),
    ]

    def arrow(x0: float, y0: float, x1: float, y1: float, colour: str = theme.INK, width: float = 1.5) -> dict:
        return dict(
            x=x1, y=y1, ax=x0, ay=y0, xref="x", yref="y", axref="x", ayref="y", text="", showarrow=True,
            arrowhead=2, arrowsize=1.2, arrowwidth=width, arrowcolor=colour,
        )  # fmt: skip

    for x in (2.25, 7.75):
        notes += [arrow(x, 0.65, x, 1.0), arrow(x, 1.8, x, 2.8), arrow(x, 3.9, x, 4.4)]
    notes += [arrow(2.25, 5.4, 2.25, 6.35), arrow(7.75, 5.5, 7.75, 6.0), arrow(7.75, 7.0, 7.75, 8.0)]
    notes += [arrow(7.75, 8.8, 7.75, 9.25)]
    cross = theme.OKABE_ITO[3]
    notes += [
        arrow(3.6, 6.6, 6.3, 5.15, cross, 3),  # keys and values, into every decoder block's cross-attention
        dict(x=4.9, y=6.25, text="keys and values", showarrow=False, font=dict(color=cross, size=14), textangle=19),
        dict(x=8.75, y=4.15, text="queries ↑", showarrow=False, font=dict(color=cross, size=13)),
    ]
    hidden = dict(visible=False, range=None, fixedrange=True)
    return figure(
        [],
        title,
        560,
        shapes=shapes,
        annotations=notes,
        xaxis=hidden | dict(range=[0, 10]),
        yaxis=hidden | dict(range=[0, 9.8]),
        margin=dict(l=10, r=10, t=50, b=10),
        plot_bgcolor="white",
    )
