"""Diagrams: the model's architecture box by box, the encoder beside the decoder, and the value chain."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from ui.figures import theme
from ui.figures.base import Canvas, figure, plain
from ui.figures.contrast import darkened
from ui.figures.text import LINE, shown, text_px, wrap
from ui.figures.vectors import arrow_chain
from ui.words.locales import Words

NAME_PX, DETAIL_PX = 15, 13  # the boxes' names (bold) and the sizes beside them
BOLD = 1.1  # bold type is about this much wider than text_px measures the regular
BOX_MIN, BOX_MOST = 250, 0.42  # a box's width: at least this, at most this share of the plot (its name wraps)
FRAME_LEFT, BOX_LEFT, GAP = 78, 95, 14  # px from the plot's left: the repeated block's frame, the boxes; box to sizes


@dataclass(frozen=True)
class Box:
    name: str
    detail: str  # sizes, on the right of the box; the app's words, which may hold plotly's <sub> and <sup>
    params: str  # its parameter count as shown, under the detail ("" for none)
    link: str  # a relative address the name opens, in the same tab ("" for none)
    in_block: bool  # part of the block repeated in every layer
    highlight: bool = False
    key: str = ""  # what part it is (budget.Part's key): a residual connection runs into "add_attention", "add_mlp"


def _bold_px(text: str, size: int) -> float:
    return BOLD * text_px(shown(text), size)


def architecture_diagram(boxes: Sequence[Box], n_layers: int, title: str, width: int = Canvas.width) -> go.Figure:
    """The model as boxes from input (top) to output (bottom), the repeated block framed "× n_layers", laid out in
    pixels for a column `width` wide: each box as wide as its longest name needs (a longer name wraps inside it),
    the sizes beside it wrapped to the room left, and every row as tall as its most lines."""
    plot_w = width - 20  # the margins' 10 px each side; one unit of the axes is one pixel
    arrow_mark = " ↗"
    widest = max(_bold_px(b.name + (arrow_mark if b.link else ""), NAME_PX) for b in boxes)
    box_w = int(min(max(BOX_MIN, widest + 24), BOX_MOST * plot_w))
    detail_x = BOX_LEFT + box_w + GAP
    detail_w = plot_w - detail_x - 16  # inside the block's frame, which ends 6 px from the edge
    names = [_lines(b.name + (arrow_mark if b.link else ""), box_w - 16, NAME_PX, bold=True) for b in boxes]
    details = [_lines(b.detail, detail_w, DETAIL_PX) + _lines(b.params, detail_w, DETAIL_PX) for b in boxes]
    heights = [
        max(42, round(LINE * NAME_PX * len(n)) + 18, round(LINE * DETAIL_PX * len(d)) + 10)
        for n, d in zip(names, details, strict=True)
    ]
    gap = 16  # between boxes, where the arrows run
    tops = np.concatenate([[8], 8 + np.cumsum([h + gap for h in heights])])[:-1]
    plot_h = int(tops[-1] + heights[-1] + 8)
    shapes, notes = [], []
    block = [i for i, b in enumerate(boxes) if b.in_block]
    for i, box in enumerate(boxes):
        top, bottom = plot_h - tops[i], plot_h - tops[i] - heights[i]  # y runs up
        middle = (top + bottom) / 2
        shapes.append(_box_shape(box, box_w, top, bottom))
        notes.append(_box_name(box, names[i], box_w, middle))
        n_detail = len(_lines(box.detail, detail_w, DETAIL_PX))
        notes.append(_box_detail(details[i], n_detail, detail_x, middle))
        if i + 1 < len(boxes):
            notes.append(_down_arrow(BOX_LEFT + box_w / 2, bottom, plot_h - tops[i + 1]))
    shapes += _residual_paths(boxes, [plot_h - t for t in tops], heights, gap, box_w)
    if block:
        top = plot_h - tops[block[0]] + gap / 2
        bottom = plot_h - tops[block[-1]] - heights[block[-1]] - gap / 2
        frame, repeats = _block_frame(top, bottom, plot_w, n_layers)
        shapes.append(frame)
        notes.append(repeats)
    return figure(
        [dict(type="scatter", x=[0, plot_w], y=[0, plot_h], mode="markers", marker=dict(opacity=0), hoverinfo="skip")],
        title,
        50 + plot_h + 10,
        shapes=shapes,
        annotations=notes,
        showlegend=False,
        xaxis=dict(visible=False, range=[0, plot_w], fixedrange=True),
        yaxis=dict(visible=False, range=[0, plot_h], fixedrange=True),
        margin=dict(l=10, r=10, t=50, b=10),
    )


def _box_shape(box: Box, box_w: int, top: float, bottom: float) -> dict:
    """The box itself, below its words: the highlighted one lit, the repeated block's tinted blue."""
    fill = theme.OKABE_ITO[5] if box.highlight else ("#e8f1f8" if box.in_block else "#f2f2f2")
    return dict(
        type="rect",
        x0=BOX_LEFT,
        x1=BOX_LEFT + box_w,
        y0=bottom,
        y1=top,
        line=dict(color=theme.INK, width=1.5),
        fillcolor=fill,
        layer="below",
    )


def _box_name(box: Box, lines: list[str], box_w: int, middle: float) -> dict:
    """The box's name in bold, its lines centred in it."""
    if box.link:  # each line its own link: the whole name opens the box's page
        style = f"color:{theme.INK}"
        lines = [f'<a href="{box.link}" target="_self" style="{style}"><b>{line}</b></a>' for line in lines]
    else:
        lines = [f"<b>{line}</b>" for line in lines]
    return dict(x=BOX_LEFT + box_w / 2, y=middle, text="<br>".join(lines), showarrow=False, font_size=NAME_PX)


def _box_detail(lines: list[str], n_detail: int, detail_x: float, middle: float) -> dict:
    """The sizes right of the box: its first n_detail lines, then the parameter count's in bold."""
    shown_lines = lines[:n_detail] + [f"<b>{line}</b>" for line in lines[n_detail:]]
    return dict(
        x=detail_x,
        y=middle,
        xanchor="left",
        align="left",
        text="<br>".join(shown_lines),
        showarrow=False,
        font=dict(size=DETAIL_PX, color=theme.SUBTLE),
    )


def _down_arrow(centre: float, y_from: float, y_to: float) -> dict:
    """The arrow from a box's bottom down to the next box's top."""
    return dict(
        x=centre,
        y=y_to,
        ax=centre,
        ay=y_from,
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


def _block_frame(top: float, bottom: float, plot_w: int, n_layers: int) -> tuple[dict, dict]:
    """The dashed frame around the block repeated in every layer, and its "× n_layers" on its left."""
    frame = dict(
        type="rect",
        x0=FRAME_LEFT,
        x1=plot_w - 6,
        y0=bottom,
        y1=top,
        line=dict(color=theme.OKABE_ITO[0], dash="dash"),
    )
    repeats = dict(
        x=FRAME_LEFT - 8,
        y=(top + bottom) / 2,
        text=f"<b>× {n_layers}</b>",
        showarrow=False,
        xanchor="right",
        font=dict(size=20, color=theme.OKABE_ITO[0]),
    )
    return frame, repeats


RESIDUAL = ("add_attention", "add_mlp")  # the boxes a residual connection runs into, by budget.Part's key
LANE = (FRAME_LEFT + BOX_LEFT) / 2  # the residual connections run down between the block's frame and the boxes


def _residual_paths(
    boxes: Sequence[Box], tops: Sequence[float], heights: Sequence[int], gap: int, box_w: int
) -> list[dict]:
    """Each residual connection as the paper draws it: from the stream just above a sub-layer, around it on the left,
    into the box that adds it back (an arrow into the box's left edge)."""
    paths, start = [], None
    for i, box in enumerate(boxes):
        if box.in_block and start is None:
            start = i  # a sub-layer's first box: the stream branches off in the gap above it
        if box.key in RESIDUAL and start is not None:
            y0 = tops[start] + gap / 2
            y1 = tops[i] - heights[i] / 2
            centre = BOX_LEFT + box_w / 2
            paths.append(
                dict(
                    type="path",
                    path=f"M {centre},{y0} L {LANE},{y0} L {LANE},{y1} L {BOX_LEFT - 1},{y1}",
                    line=dict(color=theme.MUTED, width=1.5),
                    layer="below",
                )
            )
            paths.append(  # the arrowhead: a small triangle against the box
                dict(
                    type="path",
                    path=f"M {BOX_LEFT - 7},{y1 - 4} L {BOX_LEFT},{y1} L {BOX_LEFT - 7},{y1 + 4} Z",
                    line=dict(color=theme.MUTED, width=1),
                    fillcolor=theme.MUTED,
                )
            )
            start = None
    return paths


def _lines(text: str, width_px: float, size: int, bold: bool = False) -> list[str]:
    """The text (the app's words, escaped here; <sub> and <sup> kept) in lines no wider than width_px."""
    if not text:
        return []
    escaped = plain(text).replace("&lt;sub&gt;", "<sub>").replace("&lt;/sub&gt;", "</sub>")
    escaped = escaped.replace("&lt;sup&gt;", "<sup>").replace("&lt;/sup&gt;", "</sup>")
    return wrap(escaped, width_px / (BOLD if bold else 1.0), size)


CHAIN_LABELS = 4  # the chain's longest steps that get their token's name; the rest say it on hover


def value_chain(
    start: np.ndarray,
    steps: np.ndarray,
    step_labels: Sequence[str],
    explained: np.ndarray,
    title: str,
    longest: Sequence[int],
    end_label: str | None = None,
    *,
    words: Words,
) -> go.Figure:
    """The weighted values laid tip to tail (vectors.arrow_chain), with only the longest few steps named, longest
    first: a dozen short steps near one point would otherwise leave no room for any name.

    longest: those steps, at most CHAIN_LABELS of them (the page's exercise names the first of them too)."""
    return arrow_chain(
        start,
        steps,
        step_labels,
        explained,
        title,
        named=list(longest)[:CHAIN_LABELS],
        end_label=end_label,
        words=words,
    )


NARROW_PX, NARROW_TYPE = 640, 12  # a diagram narrower than this (a phone's) writes its words this size


def encoder_decoder_diagram(title: str, width: int = Canvas.width, *, words: Words) -> go.Figure:
    """The original Transformer as the slides draw it: an encoder stack reading the source, a decoder stack
    writing the target, and the encoder's last vectors sent to the cross-attention of every decoder block
    as its keys and values (the decoder's own tokens give the queries). Add & Norm steps are left out.
    width: the px of the column it is drawn in; on a phone's, its words are smaller, and each wraps to its box."""
    size = NARROW_TYPE if width < NARROW_PX else theme.TEMPLATE.layout.font.size
    unit = (width - 20) / 10  # px per unit of the x axis (0 to 10), inside the margins
    boxes = _stack_boxes(words=words)
    frames = [(0.6, 2.5, 3.9, 5.8, words._("encoder block × N")), (6.1, 2.5, 9.4, 7.4, words._("decoder block × N"))]
    notes = _stack_texts(boxes, frames, unit, size, words=words) + _stack_arrows() + _cross_arrow(size, words=words)
    hidden = dict(visible=False, range=None, fixedrange=True)
    return figure(
        [],
        title,
        560,
        shapes=_stack_shapes(boxes, frames),
        annotations=notes,
        xaxis=hidden | dict(range=[0, 10]),
        yaxis=hidden | dict(range=[0, 9.8]),
        margin=dict(l=10, r=10, t=50, b=10),
        plot_bgcolor="white",
    )


def _fitted(text: str, units: float, unit: float, size: int) -> str:
    """The text's lines (<br>) each wrapped to `units` of the x axis (`unit` px each), less some air."""
    return "<br>".join("<br>".join(wrap(line, units * unit - 8, size)) for line in text.split("<br>"))


def _stack_boxes(*, words: Words) -> list[tuple[float, float, float, float, str, bool]]:
    """The two stacks' boxes, encoder then decoder, bottom up: (x0, y0, x1, y1, text, highlighted)."""
    embedding, mlp = words._("embedding + positions"), words._("MLP")
    return [
        (0.5, 1.0, 4.0, 1.8, embedding, False),
        (0.8, 2.8, 3.7, 3.9, words._("self-attention<br>(no mask)"), False),
        (0.8, 4.4, 3.7, 5.4, mlp, False),
        (6.0, 1.0, 9.5, 1.8, embedding, False),
        (6.3, 2.8, 9.2, 3.9, words._("masked self-attention"), False),
        (6.3, 4.4, 9.2, 5.5, "<b>" + words._("cross-attention") + "</b>", True),
        (6.3, 6.0, 9.2, 7.0, mlp, False),
        (6.0, 8.0, 9.5, 8.8, words._("linear + softmax"), False),
    ]


def _stack_shapes(boxes: Sequence[tuple], frames: Sequence[tuple]) -> list[dict]:
    """The boxes (the cross-attention lit), then the blocks' dashed frames."""
    return [
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


def _stack_texts(
    boxes: Sequence[tuple], frames: Sequence[tuple], unit: float, size: int, *, words: Words
) -> list[dict]:
    """The boxes' words, the frames' names above their top left corners, and what goes in and comes out."""
    notes = [
        dict(x=(x0 + x1) / 2, y=(y0 + y1) / 2, text=_fitted(text, x1 - x0, unit, size), showarrow=False, font_size=size)
        for x0, y0, x1, y1, text, _lit in boxes
    ]
    notes += [
        dict(
            x=x0 + 0.05,
            y=y1 + 0.05,
            text=text,
            showarrow=False,
            xanchor="left",
            yanchor="bottom",
            font_size=min(size, 13),
        )
        for x0, y0, x1, y1, text in frames
    ]
    notes += [
        dict(x=x, y=y, text=_fitted(text, 4.0, unit, size), showarrow=False, font_size=size)
        for x, y, text in (
            (2.25, 0.45, words._("source sentence")),
            (7.75, 0.45, words._("target, written so far")),
            (7.75, 9.45, words._("next target token")),
        )
    ]
    notes.append(  # from the frame's label up, however many lines it wraps to
        dict(
            x=2.25,
            y=6.4,
            yanchor="bottom",
            text=_fitted(words._("the source's vectors<br>(last encoder layer)"), 4.0, unit, size),
            showarrow=False,
            font_size=size,
        )
    )
    return notes


def _arrow(x0: float, y0: float, x1: float, y1: float, colour: str = theme.INK, width: float = 1.5) -> dict:
    return dict(
        x=x1, y=y1, ax=x0, ay=y0, xref="x", yref="y", axref="x", ayref="y", text="", showarrow=True,
        arrowhead=2, arrowsize=1.2, arrowwidth=width, arrowcolor=colour,
    )  # fmt: skip


def _stack_arrows() -> list[dict]:
    """Each stack's flow upwards, box to box, from the sentence in to the next token out."""
    notes = []
    for x in (2.25, 7.75):
        notes += [_arrow(x, 0.65, x, 1.0), _arrow(x, 1.8, x, 2.8), _arrow(x, 3.9, x, 4.4)]
    notes += [_arrow(2.25, 5.4, 2.25, 6.35), _arrow(7.75, 5.5, 7.75, 6.0), _arrow(7.75, 7.0, 7.75, 8.0)]
    notes += [_arrow(7.75, 8.8, 7.75, 9.25)]
    return notes


def _cross_arrow(size: int, *, words: Words) -> list[dict]:
    """The encoder's vectors into every decoder block's cross-attention as its keys and values, and where its
    queries come from."""
    cross = theme.OKABE_ITO[3]
    return [
        _arrow(3.6, 6.6, 6.3, 5.15, cross, 3),  # keys and values, into every decoder block's cross-attention
        dict(
            x=4.9,
            y=6.25,
            text=words._("keys and values"),
            showarrow=False,
            font=dict(color=darkened(cross), size=min(size + 1, 14)),
            textangle=19,
        ),
        dict(
            x=8.75,
            y=4.15,
            text=words._("queries ↑"),
            showarrow=False,
            font=dict(color=darkened(cross), size=min(size, 13)),
        ),
    ]
