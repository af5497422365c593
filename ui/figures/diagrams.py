"""Diagrams: the model's architecture box by box, the encoder beside the decoder, and the value chain."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from .. import theme
from ..contrast import darkened
from ..i18n import _
from .base import figure, plain
from .vectors import arrow_chain

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
    lengths = np.linalg.norm(np.asarray(steps, dtype=float), axis=1)
    longest = np.argsort(-lengths, kind="stable")[:CHAIN_LABELS].tolist()
    return arrow_chain(start, steps, step_labels, explained, title, named=longest)


def encoder_decoder_diagram(title: str) -> go.Figure:
    """The original Transformer as the slides draw it: an encoder stack reading the source, a decoder stack
    writing the target, and the encoder's last vectors sent to the cross-attention of every decoder block
    as its keys and values (the decoder's own tokens give the queries). Add & Norm steps are left out."""
    embedding, mlp = _("embedding + positions"), _("MLP")
    boxes = [  # (x0, y0, x1, y1, text, highlighted)
        (0.5, 1.0, 4.0, 1.8, embedding, False),
        (0.8, 2.8, 3.7, 3.9, _("self-attention<br>(no mask)"), False),
        (0.8, 4.4, 3.7, 5.4, mlp, False),
        (6.0, 1.0, 9.5, 1.8, embedding, False),
        (6.3, 2.8, 9.2, 3.9, _("masked self-attention"), False),
        (6.3, 4.4, 9.2, 5.5, "<b>" + _("cross-attention") + "</b>", True),
        (6.3, 6.0, 9.2, 7.0, mlp, False),
        (6.0, 8.0, 9.5, 8.8, _("linear + softmax"), False),
    ]
    frames = [(0.6, 2.5, 3.9, 5.8, _("encoder block × N")), (6.1, 2.5, 9.4, 7.4, _("decoder block × N"))]
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
        for x0, y0, x1, y1, _text, lit in boxes
    ] + [
        dict(type="rect", x0=x0, y0=y0, x1=x1, y1=y1, line=dict(color=theme.MUTED, dash="dash", width=1.5))
        for x0, y0, x1, y1, _text in frames
    ]
    notes = [dict(x=(x0 + x1) / 2, y=(y0 + y1) / 2, text=text, showarrow=False) for x0, y0, x1, y1, text, _lit in boxes]
    notes += [
        dict(x=x0 + 0.05, y=y1 + 0.05, text=text, showarrow=False, xanchor="left", yanchor="bottom", font_size=13)
        for x0, y0, x1, y1, text in frames
    ]
    notes += [
        dict(x=2.25, y=0.45, text=_("source sentence"), showarrow=False),
        dict(x=7.75, y=0.45, text=_("target, written so far"), showarrow=False),
        dict(x=7.75, y=9.45, text=_("next target token"), showarrow=False),
        dict(x=2.25, y=6.75, text=_("the source's vectors<br>(last encoder layer)"), showarrow=False),
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
        dict(
            x=4.9,
            y=6.25,
            text=_("keys and values"),
            showarrow=False,
            font=dict(color=darkened(cross), size=14),
            textangle=19,
        ),
        dict(x=8.75, y=4.15, text=_("queries ↑"), showarrow=False, font=dict(color=darkened(cross), size=13)),
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
