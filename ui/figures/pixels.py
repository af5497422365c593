"""Figures laid out in pixels by their builders: panels, colour bars and names placed from the Canvas, and
converted to plotly's paper coordinates, which run from 0 to 1 over the plot area."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ui.figures import theme
from ui.figures.base import SUBTITLE_PX, Canvas, Spec
from ui.figures.text import LINE, label_px, text_px
from ui.words.locales import N_, Words

COLOURBAR = 10  # px, a colour bar's thickness
PANEL_GAP = 12  # px between a colour bar's labels and the next panel
ROW_GAP = 10  # px between a row of panels and the next row's titles


def colourbar(x: float, y: float, length: float, size: int, **extra) -> dict:
    return dict(
        x=x,
        xanchor="left",
        y=y,
        yanchor="middle",
        len=length,
        thickness=COLOURBAR,
        outlinewidth=0,
        tickfont=dict(size=size),
        **extra,
    )


def colourbar_px(size: int) -> int:
    """The width a colour bar and its tick labels ("−150", "max") take beside a panel."""
    return 6 + COLOURBAR + 4 + int(text_px("−150", size)) + 4


# The weights' colour bar's labels at ½ and 1, where each weight is coloured by its share of its row's largest
MAX_WORDS = (N_("½ max"), N_("max"))
# The weights' colour bar's title, by the scale its colours are on: one for every weight, or each query's own
BAR_TITLES = {"unit": N_("weight"), "row": N_("per query")}


def weights_bar_extra(size: int, max_words: bool = True, *, words: Words) -> int:
    """How much wider the weights' colour bar is than colourbar_px: its labels (MAX_WORDS, as the page's language
    writes them, where `max_words`) can be wider than "−150", and its title stands beside them; plotly pushes the whole
    figure narrower for a bar that would pass its right edge."""
    widest = max(text_px(words._(said), size) for said in MAX_WORDS) if max_words else 0
    return max(0, int(widest - text_px("−150", size))) + 10 + int(size * LINE) + 4


def tick_band(labels: Sequence[str], cell: float, size: int) -> tuple[int, int]:
    """(tick angle, height) of the token labels above a panel: level while each fits its cell, else slanted."""
    widest = label_px(labels, size) - 8
    if widest <= cell - 2:
        return 0, int(size * 1.6)
    return -60, int(0.87 * widest + 0.5 * size) + 8


def _unchecked(traces: list[dict], layout: dict) -> Spec:
    """The figure as given, without plotly's objects and their checks, which took ten times as long as the figure
    for the four steps' 48 heatmaps. tests/test_app.py checks every such figure of the page instead."""
    return Spec.of([_set(t) for t in traces], _set(layout))


def pixel_figure(
    traces: list, title: str, height: int, ty, annotations: list, meta: dict, axes: dict, **layout
) -> Spec:
    """A figure laid out in pixels by its builder: the title at the top left, no margins of its own.
    layout: further settings (shapes, a colour axis…)."""
    return _unchecked(
        traces,
        dict(
            template=theme.TEMPLATE,
            title=dict(
                text=title,
                x=0,
                xanchor="left",
                y=1,
                yref="container",
                yanchor="top",
                pad=dict(t=10),
                font=dict(size=ty.title),
            ),
            height=height,
            margin=dict(l=0, r=0, t=0, b=0),
            annotations=annotations,
            hoverlabel=dict(font=dict(size=ty.base)),
            meta=meta,
            **axes,
            **layout,
        ),
    )


def _set(props: dict) -> dict:
    """The properties that are set: None (plotly's default) left out, in nested settings too."""
    return {k: _set(v) if isinstance(v, dict) else v for k, v in props.items() if v is not None}


def paper_y(px: float, height: int) -> float:
    """Paper y of a point `px` below the figure's top: a fraction of the plot area, which starts SUBTITLE_PX down: chart()
    grows the top margin by that much for its subtitle, and the layout here keeps the room for it."""
    return 1 - (px - SUBTITLE_PX) / (height - SUBTITLE_PX)


def paper_height(px: float, height: int) -> float:
    """Paper height of `px` pixels: a fraction of the plot area's height."""
    return px / (height - SUBTITLE_PX)


def panel_name(text: str, x: float, y: float, size: int, xanchor: str = "left", **more) -> dict:
    """A panel's name as an annotation standing on the panel's top edge, both in paper fractions."""
    return dict(
        text=text,
        x=x,
        y=y,
        xref="paper",
        yref="paper",
        xanchor=xanchor,
        yanchor="bottom",
        showarrow=False,
        font=dict(size=size),
        **more,
    )


def title_band(ty: theme.FigureType) -> int:
    """The px above the panels for the title and the subtitle line chart() adds (the sentence, the model)."""
    return 10 + int(ty.title * LINE) + int(SUBTITLE_SIZE * LINE) + 16


SUBTITLE_SIZE = 14  # the template's subtitle


def tick_size(n: int, length_px: float, ty: theme.FigureType) -> int:
    """Token labels as large as the type allows while one fits each cell's height, never under the smallest."""
    return int(np.clip(length_px / max(n, 1), ty.least_label, ty.base))


@dataclass(frozen=True)
class Panels:
    """Where the panels go, in pixels from the figure's top left corner."""

    cols: int
    side: int  # each panel is a side × side square
    left: list[int]  # each panel's left edge
    top: list[int]  # each panel's top edge
    x_labels: list[bool]  # each panel shows the token labels above it
    tick: int  # the labels' size
    angle: int
    x_band: int  # the labels' height above a panel
    width: int
    height: int


def panel_layout(
    n: int,
    n_panels: int,
    labels: Sequence[str],
    canvas: Canvas,
    title_px: Sequence[int],
    min_cell: float = 0.0,
    label_room: int = 0,
    *,
    words: Words,
) -> Panels:
    """Square panels in two columns (one on a narrow screen), each with its colour bar, as large as the screen's
    width and height allow; at least `min_cell` px per cell, even if the figure then outgrows a screen.

    title_px: the height of each panel's title. label_room: the least width of the band left of the panels, for
    what stands there besides the tokens' labels (the first step's corner: "keys →", "queries ↓")."""
    ty = canvas.type
    bar = colourbar_px(ty.small)
    two = (
        canvas.width - max(label_px(labels, ty.small), label_room) - 2 * bar - PANEL_GAP - 4
    ) // 2  # each of two columns at most
    cols = 2 if canvas.width >= 560 and n_panels > 1 and two >= min_cell * n else 1  # numbers that need more: one
    rows = -(-n_panels // cols)
    top_band = title_band(ty)
    row_title = [max(title_px[r * cols : (r + 1) * cols]) for r in range(rows)]
    every_row = cols == 1  # stacked panels each carry their own labels; side by side, the top row's serve both
    side, tick = 0, ty.base
    for _round in range(3):  # label sizes follow the cells, which follow the room the labels leave
        y_labels = max(label_px(labels, tick), label_room)
        extra = weights_bar_extra(ty.small, words=words)  # the last column's bar: the weights'
        from_width = (canvas.width - y_labels - cols * bar - extra - (cols - 1) * PANEL_GAP - 4) // cols
        angle, x_band = tick_band(labels, (side or from_width) / n, tick)
        bands = top_band + sum(row_title) + x_band * (rows if every_row else 1) + ROW_GAP * (rows - 1) + 8
        from_height = (canvas.height - bands) // rows
        side = from_width if every_row and rows > 1 else min(from_width, from_height)  # one panel: one screen
        side = min(max(side, int(np.ceil(min_cell * n)), 120), max(from_width, 120))
        tick = tick_size(n, side, ty)
    y_labels = max(label_px(labels, tick), label_room)
    angle, x_band = tick_band(labels, side / n, tick)
    left, top, shown = [], [], []
    y = top_band
    for r in range(rows):
        y += row_title[r] + (x_band if every_row or r == 0 else 0)
        for c in range(cols):
            left.append(y_labels + c * (side + bar + PANEL_GAP))
            top.append(y)
            shown.append(every_row or r == 0)
        y += side + ROW_GAP
    return Panels(
        cols,
        side,
        left[:n_panels],
        top[:n_panels],
        shown[:n_panels],
        tick,
        angle,
        x_band,
        canvas.width,
        y - ROW_GAP + 8,
    )
