"""Every head of a layer at once, each its attention weights in a small panel, the chosen head framed: a click on\na panel picks that head (ui/components/head_switch.js)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import plotly.graph_objects as go

from ui.figures import theme
from ui.figures.base import Canvas, pair_hover
from ui.figures.head_meta import layout_meta
from ui.figures.head_view import STEP_VALUES, WEIGHTS, _side_label, _weights_bar, _weights_colour
from ui.figures.layout import in_layout
from ui.figures.pixels import (
    colourbar,
    colourbar_px,
    panel_name,
    paper_height,
    paper_y,
    pixel_figure,
    title_band,
    weights_bar_extra,
)
from ui.figures.text import LINE
from ui.words.locales import Words

CHOSEN = theme.OKABE_ITO[1]  # the chosen head's colour, as in the displacement picture


class _Grid(NamedTuple):
    """Where the panels go, in pixels from the figure's top left corner."""

    cols: int
    side: int  # each panel is a side × side square
    gap: int  # between two panels side by side
    name_band: int  # a head's name, above its panel
    top_band: int  # the figure's title
    width: int
    height: int

    def corner(self, h: int) -> tuple[int, int]:
        """Head h's panel's top left corner."""
        r, c = divmod(h, self.cols)
        return 4 + c * (self.side + self.gap), self.top_band + r * (self.name_band + self.side) + self.name_band


def heads_grid(
    weights: np.ndarray,
    labels: Sequence[str],
    head: int,
    title: str,
    layout: str = "paper",
    weight_colours: str = "unit",
    canvas: Canvas | None = None,
    roles: Sequence[str] | None = None,
    *,
    words: Words,
) -> go.Figure:
    """Every head's weights (n_heads, n_tokens, n_tokens), rows are queries, as small multiples; the chosen head
    (0-based) framed; roles: a word per head naming what it does ("" for none), after its name. Each panel's heatmap names its head in its trace's meta, which the head switch reads from a
    click on it (ui/components/head_switch.js); hover names the two tokens and the weight."""
    canvas = canvas or Canvas()
    ty = canvas.type
    n_heads, n = weights.shape[:2]
    labels = list(labels)
    grid = _grid(n_heads, canvas, weight_colours, words=words)
    row_name, col_name = ("key", "query") if layout == "notes" else ("query", "key")
    hover = pair_hover(row_name, col_name, words._(STEP_VALUES[3]).format(value="%{customdata:.3f}"), words=words)
    head_name = words._("head {n}")
    traces: list[dict] = []
    axes: dict[str, dict] = {}
    annotations = []
    frames: dict[int, dict] = {}
    for h in range(n_heads):
        x0, y0 = grid.corner(h)
        axes |= _panel_axes(h, x0, y0, n, grid)
        name = head_name.format(n=h + 1) + (f" · {roles[h]}" if roles and roles[h] and grid.side >= 110 else "")
        annotations.append(
            panel_name(name, (x0 + grid.side / 2) / grid.width, paper_y(y0, grid.height), ty.base, xanchor="center")
        )
        frames[h] = _frame_patch(x0, y0, grid)
        w = np.asarray(weights[h], dtype=np.float64)
        traces.append(_head_trace(h, w, labels, layout, weight_colours, name, hover + _side_label(head_name, h)))
    return pixel_figure(
        traces,
        title,
        grid.height,
        ty,
        annotations,
        layout_meta(head, range(n_heads), patches=frames, words=words) | {"pick": True},
        axes,
        shapes=[_chosen_frame(frames[head])],
        hovermode="closest",
        coloraxis=_weights_axis(grid, weight_colours, ty.small, words=words),
    )


def _grid(n_heads: int, canvas: Canvas, weight_colours: str, *, words: Words) -> _Grid:
    """The panels as large as the canvas holds them (at most 260 px, at least 60), in as many columns as its
    width suits, with room on the right for the colour bar."""
    ty = canvas.type
    cols = min(n_heads, 6 if canvas.width >= 700 else 4 if canvas.width >= 460 else 3)
    rows = -(-n_heads // cols)
    bar = colourbar_px(ty.small)
    gap = 14
    name_band = int(ty.base * LINE) + 6
    top_band = title_band(ty)
    extra = weights_bar_extra(ty.small, max_words=weight_colours == "row", words=words)
    side = (canvas.width - 8 - bar - extra - (cols - 1) * gap) // cols
    side = int(min(side, (canvas.height - top_band - rows * name_band - 8) / rows, 260))
    side = max(side, 60)
    H = top_band + rows * (name_band + side) + 8
    return _Grid(cols, side, gap, name_band, top_band, canvas.width, H)


def _panel_axes(h: int, x0: int, y0: int, n: int, grid: _Grid) -> dict[str, dict]:
    """Head h's hidden axes, fixed on its n tokens: a click picks the head, it does not zoom."""
    suffix = "" if h == 0 else str(h + 1)
    W, H, side = grid.width, grid.height, grid.side
    return {
        f"xaxis{suffix}": dict(
            domain=[x0 / W, (x0 + side) / W],
            anchor=f"y{suffix}",
            visible=False,
            type="category",
            range=[-0.5, n - 0.5],
            fixedrange=True,
        ),
        f"yaxis{suffix}": dict(
            domain=[paper_y(y0 + side, H), paper_y(y0, H)],
            anchor=f"x{suffix}",
            visible=False,
            type="category",
            range=[n - 0.5, -0.5],
            fixedrange=True,
        ),
    }


def _frame_patch(x0: int, y0: int, grid: _Grid) -> dict:
    """The chosen head's frame around the panel at (x0, y0) and its name, as a relayout of the figure's one shape
    (a head switch in the browser moves it there)."""
    W, H = grid.width, grid.height
    return {
        "shapes[0].x0": (x0 - 4) / W,
        "shapes[0].x1": (x0 + grid.side + 4) / W,
        "shapes[0].y0": paper_y(y0 + grid.side + 4, H),
        "shapes[0].y1": paper_y(y0 - grid.name_band, H),
    }


def _head_trace(
    h: int, w: np.ndarray, labels: list[str], layout: str, weight_colours: str, name: str, hover: str
) -> dict:
    """Head h's weights w (rows are queries) as its panel's heatmap, on the figure's one colour axis; its meta is
    the head's number, which a click hands to the head switch."""
    colour = in_layout(_weights_colour(w, weight_colours), layout)
    values = in_layout(w, layout)
    suffix = "" if h == 0 else str(h + 1)
    return dict(
        type="heatmap",
        x=labels,
        y=labels,
        z=colour.astype(np.float32),
        customdata=values.astype(np.float32),
        xaxis=f"x{suffix}",
        yaxis=f"y{suffix}",
        coloraxis="coloraxis",
        name=name,
        meta=h + 1,
        hovertemplate=hover,
    )


def _chosen_frame(frame: dict) -> dict:
    """The frame around the chosen head, where its patch puts it."""
    return dict(
        type="rect",
        xref="paper",
        yref="paper",
        x0=frame["shapes[0].x0"],
        x1=frame["shapes[0].x1"],
        y0=frame["shapes[0].y0"],
        y1=frame["shapes[0].y1"],
        line=dict(color=CHOSEN, width=3),
    )


def _weights_axis(grid: _Grid, weight_colours: str, small: int, *, words: Words) -> dict:
    """The colour axis every panel shares, from 0 to 1, its bar right of the last column, as tall as the rows."""
    W, H, top_band = grid.width, grid.height, grid.top_band
    return dict(
        colorscale=WEIGHTS,
        cmin=0,
        cmax=1,
        colorbar=colourbar(
            x=(4 + grid.cols * (grid.side + grid.gap) - grid.gap + 6) / W,
            y=paper_y(top_band + (H - top_band) / 2, H),
            length=paper_height(H - top_band - grid.name_band, H),
            size=small,
            **_weights_bar(weight_colours, small, words=words),
        ),
    )
