"""The tokens themselves, as chips in reading order."""

from __future__ import annotations

from collections.abc import Sequence

import plotly.graph_objects as go

from ui.figures import theme
from ui.figures.base import SUBTITLE_PX, Canvas, figure, isolated, plain
from ui.words.locales import Words

CHIP_TEXT = 16  # px: a chip's text on screen; one unit of the chips' x axis is this many pixels
MARGIN = 10  # px, left and right


def _chip_sizes(width: float, canvas: Canvas | None) -> tuple[int, int, int, float]:
    """The chips' text, their positions' and the legend's px, and how many chip text heights a row holds: with a
    canvas, its type and as many as its width holds, so that chips wrap to the screen (a phone's too)."""
    if canvas is None:
        return CHIP_TEXT, 11, 15, width
    chip_px = max(CHIP_TEXT, canvas.type.base + 2)
    return chip_px, canvas.type.small, canvas.type.base, (canvas.width - 2 * MARGIN) / chip_px - 1


def _chip_places(texts: Sequence[str], width: float) -> tuple[list[float], list[int], list[float]]:
    """Each chip's left edge, row and width, in chip text heights: in reading order, a chip that would run past
    `width` starting the next row."""
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
    return xs, rows, widths


def _chip_outlines(
    kind_of: list[str], xs: list[float], rows: list[int], widths: list[float], *, words: Words
) -> list[dict]:
    """The chips' outlines, one filled trace per kind (its legend entry) joining its chips' rectangles, apart
    where None breaks the line."""
    kinds = {
        "word": (words._("starts a word"), "#dcebf7", theme.OKABE_ITO[0]),
        "piece": (words._("continues a word"), "#fde9c8", theme.OKABE_ITO[1]),
        "special": (words._("special token"), "#e6e6e6", theme.MUTED),
    }
    traces = []
    for kind, (name, fill, line) in kinds.items():
        px, py = [], []
        for i, k in enumerate(kind_of):
            if k == kind:
                x0, x1, y = xs[i], xs[i] + widths[i], -rows[i] * 1.6
                px += [x0, x1, x1, x0, x0, None]
                py += [y - 0.5, y - 0.5, y + 0.5, y + 0.5, y - 0.5, None]
        if not px:  # a legend entry only for what is drawn (SmolLM2 adds no special token)
            continue
        traces.append(
            dict(
                type="scatter",
                x=px,
                y=py,
                mode="lines",
                fill="toself",
                fillcolor=fill,
                name=name,
                line=dict(color=line, width=1.5),
                hoverinfo="skip",
            )
        )
    return traces


def _chip_texts(
    texts: Sequence[str], centres: list[float], ys: list[float], chip_px: int, small: int, *, words: Words
) -> list[dict]:
    """The tokens written on their chips (their position on hover), and each one's position above its chip."""
    position = words._("position {i}")
    return [
        dict(
            type="scatter",
            x=centres,
            y=ys,
            mode="text",
            text=[isolated(plain(t)) for t in texts],
            textfont=dict(size=chip_px, color=theme.INK),
            showlegend=False,
            hovertext=[position.format(i=i) for i in range(len(texts))],
            hoverinfo="text",
        ),
        dict(
            type="scatter",
            x=centres,
            y=[y + 0.75 for y in ys],
            mode="text",
            text=[str(i) for i in range(len(texts))],
            textfont=dict(size=small, color=theme.MUTED),
            showlegend=False,
            hoverinfo="skip",
        ),
    ]


def token_chips(
    texts: Sequence[str],
    special: Sequence[bool],
    continuation: Sequence[bool],
    width: float = 64.0,
    canvas: Canvas | None = None,
    *,
    words: Words,
) -> go.Figure:
    """The tokens as chips in reading order, each with its position; word pieces and special tokens marked.

    width: how many chip text heights a row holds; with a canvas, as many as its width holds, so that chips wrap
    to the screen (a phone's too) and their text keeps its size. Drawn with a handful of traces (not a shape per
    token), so hundreds of tokens draw quickly.
    """
    chip_px, small, legend, width = _chip_sizes(width, canvas)
    xs, rows, widths = _chip_places(texts, width)
    n_rows = (rows[-1] if rows else 0) + 1
    kind_of = ["special" if special[i] else "piece" if continuation[i] else "word" for i in range(len(texts))]
    traces = _chip_outlines(kind_of, xs, rows, widths, words=words)
    centres = [xs[i] + widths[i] / 2 for i in range(len(texts))]
    ys = [-r * 1.6 for r in rows]
    traces += _chip_texts(texts, centres, ys, chip_px, small, words=words)
    row_px = 62 * chip_px / CHIP_TEXT
    return figure(
        traces,
        words.n_("{n} token", "{n} tokens", len(texts)).format(n=words.whole(len(texts))),
        int(90 * chip_px / CHIP_TEXT + row_px * n_rows) + SUBTITLE_PX,  # and the line chart() adds: the sentence
        checked=False,
        xaxis=dict(visible=False, range=[-0.5, width + 0.5]),
        yaxis=dict(visible=False, range=[-(n_rows - 1) * 1.6 - 0.8, 1.3]),
        legend=dict(orientation="h", y=-0.02, yanchor="top", x=0, font=dict(size=legend)),
        margin=dict(l=MARGIN, r=MARGIN, t=40, b=10),
    )
