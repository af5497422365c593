"""One head's queries, keys and values as the explorer draws them: three matrices side by side, each head's in its\nlayout.meta for the head switch."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from ui.figures import theme
from ui.figures.base import Canvas
from ui.figures.head_meta import layout_meta
from ui.figures.head_view import _side_label, _ticks, tick_labels
from ui.figures.pixels import (
    PANEL_GAP,
    colourbar,
    colourbar_px,
    panel_name,
    paper_height,
    paper_y,
    pixel_figure,
    tick_size,
    title_band,
)
from ui.figures.text import LINE, label_px
from ui.words.locales import N_, Words

VECTORS = plotly.colors.get_colorscale(theme.VECTORS_SCALE)


QKV_NAMES = (N_("Q: queries"), N_("K: keys"), N_("V: values"))


def _coordinate_step(d: int, panel_px: float, size: int) -> int:
    """Every how many coordinates a q/k/v panel's axis is numbered: 4 or 8 as the lesson counts them, more where
    the numbers would touch (Gemma's 256 coordinates in a third of a column: they were 32 numbers on 230 px)."""
    apart = 0.65 * size * len(str(d - 1)) + 6  # the widest number's digits and 6 px between two
    return next(s for s in (4, 8, 16, 32, 64, 128, 256, 512) if (s >= 8 or d <= 16) and panel_px / d * s >= apart)


def _panels(canvas: Canvas, n: int, y_labels: int) -> tuple[list[tuple[int, int]], int, int, int, bool]:
    """Each panel's top left corner in px, a panel's width and height, the figure's height, and whether the panels
    stand side by side (or one above the other, where a third of the column leaves a panel under 96 px)."""
    ty = canvas.type
    bar = colourbar_px(ty.small)
    cols = 3 if (canvas.width - y_labels - 3 * bar - 2 * PANEL_GAP) / 3 >= 96 else 1
    panel_w = (canvas.width - y_labels - cols * bar - (cols - 1) * PANEL_GAP - 4) // cols
    top_band = title_band(ty)
    name_band = int(ty.base * LINE) + 6
    x_band = int(ty.small * LINE) + 10
    per_row = 1 if cols == 3 else 3
    room = (canvas.height - top_band - per_row * (name_band + x_band) - 8) / (n * per_row)
    row = float(np.clip(room, 0.25, 26))  # one screen tall: a long text's rows are a pixel or less, a compact map
    panel_h = int(row * n)
    H = top_band + per_row * (name_band + panel_h + x_band) + 8
    corners = []
    for i in range(3):
        c, r = (i, 0) if cols == 3 else (0, i)
        x0 = y_labels + c * (panel_w + bar + PANEL_GAP)
        y0 = top_band + r * (name_band + panel_h + x_band) + name_band
        corners.append((x0, y0))
    return corners, panel_w, panel_h, H, cols == 3


def _panel_axes(
    corners: list[tuple[int, int]],
    panel: tuple[int, int],
    W: int,
    H: int,
    shape: tuple[int, int],
    side_by_side: bool,
    labels: list[str],
    ty: theme.FigureType,
) -> dict[str, dict]:
    """Each panel's x axis (its d coordinates) and y axis (the tokens, named on the first panel only where the
    panels share their rows side by side); the later panels follow the first one's zoom. panel: its px width and
    height; shape: the tokens and the coordinates, (n, d)."""
    n, d = shape
    panel_w, panel_h = panel
    ticks = tick_labels(labels)
    axes: dict[str, dict] = {}
    for i, (x0, y0) in enumerate(corners):
        suffix = "" if i == 0 else str(i + 1)
        axes[f"xaxis{suffix}"] = dict(
            domain=[x0 / W, (x0 + panel_w) / W],
            anchor=f"y{suffix}",
            tickfont=dict(size=ty.small),
            title=None,
            range=[-0.5, d - 0.5],
            dtick=_coordinate_step(d, panel_w, ty.small),
            matches=None if i == 0 else "x",
        )
        axes[f"yaxis{suffix}"] = dict(
            domain=[paper_y(y0 + panel_h, H), paper_y(y0, H)],
            anchor=f"x{suffix}",
            type="category",
            autorange="reversed",
            showticklabels=not side_by_side or i == 0,
            matches=None if i == 0 else "y",
            **_ticks(labels, ticks, panel_h, tick_size(n, panel_h, ty)),
        )
    return axes


def _panel_names(corners: list[tuple[int, int]], W: int, H: int, ty: theme.FigureType, *, words: Words) -> list[dict]:
    """The panels' names ("Q: queries"…) on their top edges, in the page's language."""
    return [
        panel_name(words._(name), x0 / W, paper_y(y0, H), ty.base)
        for name, (x0, y0) in zip(QKV_NAMES, corners, strict=True)
    ]


def _per_head(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, heads: Sequence[int], *, words: Words
) -> dict[int, list[dict]]:
    """Each head's q, k and v settings (values, scale, hover), for the head switch to swap into the three traces:
    each matrix on its own scale centred at 0."""
    token = words._("token: {token}").format(token="%{y}")
    coordinate = words._("{vector}, coordinate {i}: {value}")
    hovers = [f"{token}<br>{coordinate.format(vector=name, i='%{x}', value='%{z:.3f}')}" for name in "qkv"]
    head_name = words._("head {n}")
    per_head: dict[int, list[dict]] = {}
    for j, h in enumerate(heads):
        per_head[h] = []
        for hover, vectors in zip(hovers, (q, k, v), strict=True):
            m = np.asarray(vectors[j], dtype=np.float32)
            top = float(np.abs(m).max()) or 1.0
            per_head[h].append(
                dict(
                    z=m,
                    zmin=-top,
                    zmax=top,
                    hovertemplate=hover + _side_label(head_name, h),
                )
            )
    return per_head


def _qkv_traces(
    shown: list[dict],
    corners: list[tuple[int, int]],
    panel: tuple[int, int],
    W: int,
    H: int,
    d: int,
    labels: list[str],
    ty: theme.FigureType,
    *,
    words: Words,
) -> list[dict]:
    """The three heatmaps of the head shown (its settings from _per_head), each with its colour bar right of its
    panel."""
    panel_w, panel_h = panel
    traces = []
    for i, (x0, y0) in enumerate(corners):
        suffix = "" if i == 0 else str(i + 1)
        traces.append(
            dict(
                type="heatmap",
                name=words._(QKV_NAMES[i]),
                x=list(range(d)),
                y=labels,
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                colorscale=VECTORS,
                zmid=0.0,
                colorbar=colourbar(
                    x=(x0 + panel_w + 6) / W,
                    y=paper_y(y0 + panel_h / 2, H),
                    length=paper_height(panel_h, H),
                    size=ty.small,
                ),
                **shown[i],
            )
        )
    return traces


def qkv_figure(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    labels: Sequence[str],
    head: int,
    heads: Sequence[int],
    title: str,
    canvas: Canvas | None = None,
    *,
    words: Words,
) -> go.Figure:
    """One head's queries, keys and values side by side on shared token rows, each (len(heads), n_tokens, d_head)
    for the heads listed in `heads` (0-based), `head` shown; each on its own scale centred at 0."""
    canvas = canvas or Canvas()
    ty = canvas.type
    labels = list(labels)
    n, d = q.shape[1], q.shape[2]
    y_labels = label_px(tick_labels(labels), ty.base)
    corners, panel_w, panel_h, H, side_by_side = _panels(canvas, n, y_labels)
    W = canvas.width
    panel = (panel_w, panel_h)
    axes = _panel_axes(corners, panel, W, H, (n, d), side_by_side, labels, ty)
    annotations = _panel_names(corners, W, H, ty, words=words)
    per_head = _per_head(q, k, v, heads, words=words)
    traces = _qkv_traces(per_head[head], corners, panel, W, H, d, labels, ty, words=words)
    meta = layout_meta(head, heads, per_head if len(heads) > 1 else {}, range(3), words=words)
    return pixel_figure(traces, title, H, ty, annotations, meta, axes)
