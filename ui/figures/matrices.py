"""Matrices as heatmaps: attention scores and weights, q/k/v vectors, every head at once, small tables."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from ui.figures import contrast, theme
from ui.figures.base import (
    ALL_TOKENS,
    SMALLEST_TICK_PX,
    SUBTITLE_PX,
    TICK_PX,
    Canvas,
    figure,
    numbers_fit,
    pair_hover,
    plain,
    tick_px,
    token_ticks,
)
from ui.figures.layout import in_layout
from ui.figures.text import MINUS_INFINITY, label_px
from ui.words import locales
from ui.words.locales import Words

COLUMN_GAP = 16  # px between st.columns(2), Streamlit's default gap
COLOURBAR_PX = 70  # the colour bar beside a heatmap, its numbers and its padding


def _masked_as_gaps(m: np.ndarray) -> tuple[np.ndarray, str]:
    """The values with −∞ cells left empty, and the background that shows through them: grey, never a colour
    of the scale, so a masked cell cannot be read as 0."""
    masked = np.isneginf(m)
    return np.where(masked, np.nan, m), theme.MASKED if masked.any() else "white"


def _printed_values(m: np.ndarray, fmt: str, font_size: int, *, words: Words) -> dict:
    """Heatmap settings that print every cell's value, −∞ where masked, as the page's language writes it."""
    code = words.code
    text = [
        [MINUS_INFINITY if np.isneginf(v) else locales.formatted(code, v, fmt, minus=False) for v in row] for row in m
    ]
    return dict(text=text, texttemplate="%{text}", textfont=dict(size=font_size, color=contrast.BLACK))


def _legible(cells: dict, z: np.ndarray, scale: str, zmin: float | None, zmax: float | None) -> dict:
    """The printed values black, or white on a dark cell (ui/figures/contrast.py): at least 4.5:1 on any cell. Without
    zmin or zmax, the scale runs over the values, as plotly's does."""
    if not cells:
        return cells
    finite = z[np.isfinite(z)]
    low = zmin if zmin is not None else float(finite.min()) if finite.size else 0.0
    high = zmax if zmax is not None else float(finite.max()) if finite.size else 1.0
    dark = contrast.dark(plotly.colors.get_colorscale(scale), z, low, high)
    return cells | {"text": contrast.legible(cells["text"], dark)}


# what the page adds to a heatmap's top margin, out of its height: the subtitle (the sentence and the model) and
# a title line naming the layer and head (ui/chapter.half_chart); rows counted without it were drawn 12 px apart
ADDED_PX = SUBTITLE_PX + 22
TALLEST_PX = 860  # a heatmap on a page that scrolls; on a projector (a canvas given) the canvas's height
LEAST_TOKEN_PX = 12  # a token's name on a heatmap's axis, read from the back of a room at 1280×720


def heatmap_width(half_width: bool = False, canvas: Canvas | None = None) -> int:
    """The px an attention heatmap is laid out in: the page column's width, or half of it."""
    width = (canvas or Canvas()).width
    return (width - COLUMN_GAP) // 2 if half_width else width


def _room(
    row_labels: Sequence[str], col_labels: Sequence[str], width: int, size: int, tallest: int = TALLEST_PX
) -> tuple[int, int, int, float, float, bool]:
    """An attention heatmap's left and top margins, height (`tallest` at most), a cell's width and height, with the
    token labels at `size` px, and whether the column labels are slanted (many columns, or a label wider than its
    column)."""
    n_rows, n_cols = len(row_labels), len(col_labels)
    left = label_px(row_labels, size) + 45
    cell_w = (width - left - 20 - COLOURBAR_PX) / n_cols
    slanted = n_cols > 6 or label_px(col_labels, size) > cell_w - 2
    top = 80 + (int(label_px(col_labels, size) * 0.87) if slanted else 22)  # title, axis title, labels
    height = max(340, min(tallest, top + 60 + 34 * n_rows))
    return left, top, height, cell_w, (height - top - 20 - ADDED_PX) / n_rows, slanted


def tokens_named(labels: Sequence[str], half_width: bool = False, canvas: Canvas | None = None) -> int:
    """The most tokens an attention heatmap of these labels draws at a time, each named at LEAST_TOKEN_PX or more:
    all of them, or fewer, a window of them (the widest label counted in every window)."""
    widest = max(labels, key=lambda t: label_px([t], TICK_PX), default="")
    width, tallest = heatmap_width(half_width, canvas), canvas.height if canvas else TALLEST_PX
    for n in range(len(labels), 1, -1):
        row = [widest] * n
        if tick_px(min(_room(row, row, width, LEAST_TOKEN_PX, tallest)[3:5])) >= LEAST_TOKEN_PX:
            return n
    return 1


def _rows_and_columns(
    query_labels: list[str], key_labels: list[str], layout: str
) -> tuple[str, str, list[str], list[str]]:
    """What the rows and the columns name, and their labels: queries down the rows on paper, across in notes."""
    if layout == "notes":
        return "key", "query", key_labels, query_labels
    return "query", "key", query_labels, key_labels


def _attention_scale(z: np.ndarray, kind: str, scale_top: float | None) -> tuple[str, float, float, float | None]:
    """The colour scale and its zmin, zmax and zmid: weights from 0 to 1; scores diverging around 0, as far as the
    largest |score| (or scale_top, shared by matrices side by side) either way."""
    if kind == "weights":
        return theme.WEIGHTS_SCALE, 0.0, 1.0, None
    finite = np.abs(z[np.isfinite(z)])
    top = scale_top or (float(finite.max()) if finite.size else 1.0)
    return theme.SCORES_SCALE, -top, top, 0.0


def _attention_cells(m: np.ndarray, z: np.ndarray, kind: str, half_width: bool, scale: tuple, *, words: Words) -> dict:
    """The values printed in the cells, legible on their colours, where a matrix this size leaves room for them."""
    n_rows, n_cols = m.shape
    colorscale, zmin, zmax = scale[:3]
    fmt = ".2f" if kind == "weights" else ".1f"
    cells = (
        _printed_values(m, fmt, 13 if n_cols <= 10 else 11, words=words)
        if numbers_fit(max(n_rows, n_cols), half_width)
        else {}
    )
    return _legible(cells, z, colorscale, zmin, zmax)


def _attention_trace(
    z: np.ndarray,
    names: tuple[str, str],
    row_labels: list[str],
    col_labels: list[str],
    kind: str,
    scale: tuple,
    cells: dict,
    *,
    words: Words,
) -> dict:
    """The heatmap trace: names are the rows' and the columns' ("query", "key"), for the hover."""
    n_rows, n_cols = z.shape
    row_name, col_name = names
    colorscale, zmin, zmax, zmid = scale
    return dict(
        type="heatmap",
        z=z.astype(np.float32),
        x=col_labels,  # unique labels (a repeated word carries its position), so the axes are by position
        y=row_labels,
        colorscale=colorscale,
        zmin=zmin,
        zmax=zmax,
        zmid=zmid,
        hoverongaps=False,
        hovertemplate=pair_hover(
            row_name,
            col_name,
            words._("value: {value}").format(value="%{z:.3f}" if kind == "weights" else "%{z:.2f}"),
            words=words,
        )
        + "<extra></extra>",
        colorbar=dict(thickness=14, len=0.9),
        xgap=1 if n_cols <= 40 else 0,
        ygap=1 if n_rows <= 40 else 0,
        **cells,
    )


def _label_size(row_labels: list[str], col_labels: list[str], width: int, tallest: int, largest: int) -> int:
    """The token labels' px: their size sets the margins, which set the cells the labels must fit, so the largest
    size that fits the cells it leaves."""
    return next(
        (
            s
            for s in range(largest, SMALLEST_TICK_PX, -1)
            if tick_px(min(_room(row_labels, col_labels, width, s, tallest)[3:5]), largest) >= s
        ),
        SMALLEST_TICK_PX,
    )


def _attention_axes(
    names: tuple[str, str],
    row_labels: list[str],
    col_labels: list[str],
    cells: tuple[float, float],
    size: int,
    slanted: bool,
    *,
    words: Words,
) -> dict:
    """The layout's xaxis (the columns, named at the top) and yaxis (the rows, the first at the top); cells: a
    cell's width and height in px."""
    row_name, col_name = names
    cell_w, cell_h = cells
    return dict(
        xaxis=dict(
            title=dict(text=words._(ALL_TOKENS[col_name])),
            side="top",
            type="category",
            tickangle=-60 if slanted else 0,
            **token_ticks(col_labels, cell_w, size),
        ),
        yaxis=dict(
            title=dict(text=words._(ALL_TOKENS[row_name])),
            type="category",
            autorange="reversed",
            **token_ticks(row_labels, cell_h, size),
        ),
    )


def attention_heatmap(
    matrix: np.ndarray,
    labels: Sequence[str],
    title: str,
    kind: str = "weights",
    layout: str = "paper",
    half_width: bool = False,
    key_labels: Sequence[str] | None = None,
    canvas: Canvas | None = None,
    scale_top: float | None = None,
    *,
    words: Words,
) -> go.Figure:
    """One (n_queries, n_keys) matrix from the trace, drawn in `layout` (paper: rows are queries;
    notes: columns are queries). −∞ cells are drawn grey and labelled −∞, never as 0.

    kind: "scores" (diverging scale around 0) or "weights" (0 to 1).
    half_width: the figure gets half the page, so values are printed only in a smaller matrix.
    key_labels: when keys are other tokens than queries (cross-attention); `labels` then names the queries.
    canvas: the page column it is drawn in (by default a 1280×720 screen's), and the height it fits (by default
    it grows with the tokens, as a scrolled page allows); every token is labelled, the labels as large as the
    cells leave room for.
    scale_top: scores coloured from −scale_top to scale_top instead of the matrix's own largest |score|, so that
    matrices drawn side by side share one scale.
    """
    query_labels = list(labels)
    key_labels = query_labels if key_labels is None else list(key_labels)
    m = in_layout(np.asarray(matrix, dtype=np.float64), layout)
    row_name, col_name, row_labels, col_labels = _rows_and_columns(query_labels, key_labels, layout)
    names = (row_name, col_name)
    z, background = _masked_as_gaps(m)
    scale = _attention_scale(z, kind, scale_top)
    cells = _attention_cells(m, z, kind, half_width, scale, words=words)
    heatmap = _attention_trace(z, names, row_labels, col_labels, kind, scale, cells, words=words)
    width, tallest = heatmap_width(half_width, canvas), canvas.height if canvas else TALLEST_PX
    largest = max(TICK_PX, canvas.type.base) if canvas else TICK_PX  # a projector's canvas: its larger type
    size = _label_size(row_labels, col_labels, width, tallest, largest)
    left, top, height, cell_w, cell_h, slanted = _room(row_labels, col_labels, width, size, tallest)
    return figure(
        [heatmap],
        dict(text=title, y=0.995, yanchor="top", yref="container"),
        height,
        **_attention_axes(names, row_labels, col_labels, (cell_w, cell_h), size, slanted, words=words),
        plot_bgcolor=background,
        margin=dict(t=top, l=left, r=20, b=20),
    )


def table_heatmap(
    m: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    title: str,
    fmt: str = ".2f",
    scale: str = theme.WEIGHTS_SCALE,
    zmin: float | None = None,
    zmax: float | None = None,
    row_title: str = "",
    col_title: str = "",
    numbers: bool = True,
    width: int = Canvas.width,
    *,
    words: Words,
) -> go.Figure:
    """A small labelled matrix with its values printed; −∞ cells grey and labelled −∞. width: the px of the
    column it is drawn in (the page's, or half of it)."""
    m = np.asarray(m, dtype=float)
    rows, cols = [plain(r) for r in rows], [plain(c) for c in cols]
    z, background = _masked_as_gaps(m)
    cells = _legible(_printed_values(m, fmt, 14, words=words) if numbers else {}, z, scale, zmin, zmax)
    heatmap = dict(
        type="heatmap",
        z=z,
        x=cols,
        y=rows,
        colorscale=scale,
        zmin=zmin,
        zmax=zmax,
        hoverongaps=False,
        xgap=1,
        ygap=1,
        colorbar=dict(thickness=12),
        hovertemplate=words._("{row} · {column}: {value}").format(row="%{y}", column="%{x}", value="%{z:.4f}")
        + "<extra></extra>",
        **cells,
    )
    # column labels that do not fit their columns in `width` slanted at a set angle and counted in the top margin:
    # turned by plotly on its own (90° where they crowd), 19 Korean tokens ran over the figure's subtitle
    left = label_px(rows) + (40 if row_title else 15)
    cell = (width - left - 20 - COLOURBAR_PX) / max(len(cols), 1)
    size = tick_px(cell)  # every column named (plotly's own ticks named every other one of 36 tokens)
    slanted = label_px(cols, size) > cell - 4
    return figure(
        [heatmap],
        dict(text=title, y=0.99, yanchor="top", yref="container"),
        max(300, 170 + 40 * len(rows)),
        xaxis=dict(
            type="category",
            side="top",
            title=dict(text=col_title),
            tickangle=-60 if slanted else None,
            **token_ticks(cols, cell, size),
        ),
        yaxis=dict(type="category", autorange="reversed", title=dict(text=row_title)),
        plot_bgcolor=background,
        margin=dict(
            l=left,
            t=60 + (int(label_px(cols, size) * 0.87) if slanted else label_px(cols) // 3) + (30 if col_title else 0),
            r=20,
            b=20,
        ),
    )


def big_heatmap(
    m: np.ndarray, title: str, x_title: str, y_title: str, scale: str = theme.SCORES_SCALE, symmetric: bool = True
) -> go.Figure:
    """A large matrix with no printed numbers (positions × dimensions and the like)."""
    m = np.asarray(m, dtype=np.float32)
    top = float(np.percentile(np.abs(m), 99)) or 1.0  # a few outlying entries would wash out the rest
    heatmap = dict(
        type="heatmap",
        z=m,
        colorscale=scale,
        zmin=-top if symmetric else None,
        zmax=top if symmetric else None,
        zmid=0 if symmetric else None,
        colorbar=dict(thickness=12),
        hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>%{{z:.3f}}<extra></extra>",
    )
    return figure(
        [heatmap],
        title,
        460,
        xaxis=dict(title=dict(text=x_title)),
        yaxis=dict(title=dict(text=y_title), autorange="reversed"),
    )
