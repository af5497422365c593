"""The explorer's head view: one head's four steps in one figure, its q, k and v in another, and every head of the
layer in a grid to pick from.

The step and q/k/v figures draw the chosen head; while the sentence is short they also carry every other head's
matrices in `layout.meta`, so that a head switch in the browser (ui/head_switch.js) swaps them in with one
restyle of a few traces, with no round trip. Every size is computed in pixels from the Canvas, so that the four
steps share one screen and a number is printed in a cell only where it fits.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from attention.layout import in_layout

from .. import theme
from .base import SUBTITLE_PX, Canvas, label_px, plain

# The theme's colour scales as plotly.js reads them (unchecked figures are not resolved by plotly's checks).
SCORES = plotly.colors.get_colorscale(theme.SCORES_SCALE)
WEIGHTS = plotly.colors.get_colorscale(theme.WEIGHTS_SCALE)
VECTORS = plotly.colors.get_colorscale(theme.VECTORS_SCALE)
STEP_TITLES = ("1. Raw scores q · k", "2. Scaled: ÷ √dₖ", "3. Masked", "4. Softmax weights")
STEP_VALUES = ("raw score", "scaled score", "masked score", "weight")
MINUS_INFINITY = "−∞"

# Advance widths in em of DejaVu Sans, the figures' font (Arial's are narrower), for what a cell prints.
_EM = {**dict.fromkeys("0123456789", 0.636), ".": 0.318, "-": 0.361, "−": 0.838, "∞": 0.833}
CELL_AIR = 4  # px left free beside a printed number: the cell's gap and some air
LINE = 1.25  # a line of text is this many times its font size tall
TICK_CHARS = 12  # a longer token is cut on the axes (its whole text shows on hover)
COLOURBAR = 10  # px, a colour bar's thickness
PANEL_GAP = 12  # px between a colour bar's labels and the next panel
ROW_GAP = 10  # px between a row of panels and the next row's titles


def text_px(text: str, size: float) -> float:
    """How wide `text` is drawn at `size` px (its characters' advance widths; 0.64 em for any other)."""
    return size * sum(_EM.get(c, 0.64) for c in text)


# --- values printed in cells ----------------------------------------------------------------------------------


def _weight_text(fmt: str, w: float) -> str:
    """A weight (0 to 1) written in `fmt`: "0.26", or without its leading zero (".26"; 1 as "1") where cells are
    narrow, as tables of correlations do for values that cannot pass 1."""
    if fmt == "0.00":
        return f"{w:.2f}"
    text = f"{w:.2f}"
    return "1" if float(text) >= 1 else text.removeprefix("0")


# The most precise first. Fewer digits than these tell a class nothing (a row of ".0", scores of ±2 as "0"):
# the values are then left out. Whole scores only where the largest has two digits.
WEIGHT_FORMATS = ("0.00", ".00")
SCORE_FORMATS = (".1f", ".0f")
WHOLE_SCORES_FROM = 10.0


def _write(m: np.ndarray, kind: str, fmt: str) -> list[list[str]]:
    if kind == "weights":
        return [[_weight_text(fmt, float(v)) for v in row] for row in m]
    return [[MINUS_INFINITY if np.isneginf(v) else _score_text(fmt, float(v)) for v in row] for row in m]


def _score_text(fmt: str, s: float) -> str:
    text = format(s, fmt)
    return text.removeprefix("-") if float(text) == 0 else text  # a small negative rounds to 0, not to "-0.0"


@dataclass(frozen=True)
class CellFormat:
    """How values are printed in cells: a format, a font size, and whether a −∞ fits too."""

    fmt: str
    size: int
    infinity: bool

    def write(self, m: np.ndarray, kind: str) -> list[list[str]]:
        """One string per cell of the matrix m ("" for a −∞ that does not fit: its cell is grey)."""
        text = _write(m, kind, self.fmt)
        return text if self.infinity else [["" if t == MINUS_INFINITY else t for t in row] for row in text]


def _widest(m: np.ndarray, kind: str, fmt: str) -> float:
    """The width in em of the widest value of m written in `fmt` (−∞ aside): that of its largest or smallest."""
    finite = m[np.isfinite(m)]
    if finite.size == 0:
        return 0.0
    ends = [float(finite.min()), float(finite.max())]
    texts = _write(np.array([ends]), kind, fmt)[0]
    return max(text_px(t, 1) for t in texts)


def cell_format(m: np.ndarray, kind: str, cell_px: float, smallest: int, largest: int) -> CellFormat | None:
    """How to print the values of m (any shape) so that each fits inside its cell (cell_px square): the most
    decimals that fit at `smallest` px or more, in the largest font up to `largest` that holds them; None when
    nothing fits."""
    if cell_px < smallest * LINE + 2:
        return None
    finite = np.abs(m[np.isfinite(m)])
    for fmt in WEIGHT_FORMATS if kind == "weights" else SCORE_FORMATS:
        if fmt == ".0f" and (finite.size == 0 or finite.max() < WHOLE_SCORES_FROM):
            return None
        widest = _widest(m, kind, fmt)
        if widest == 0:
            return None
        size = min(largest, int((cell_px - CELL_AIR) / widest), int((cell_px - 2) / LINE))
        if size >= smallest:
            return CellFormat(fmt, size, text_px(MINUS_INFINITY, size) <= cell_px - CELL_AIR)
    return None


def needed_cell_px(m: np.ndarray, kind: str, smallest: int) -> float:
    """The smallest cell that holds every value of m at `smallest` px, in the most compact format it may take."""
    finite = np.abs(m[np.isfinite(m)])
    whole = finite.size > 0 and finite.max() >= WHOLE_SCORES_FROM
    fmt = WEIGHT_FORMATS[-1] if kind == "weights" else SCORE_FORMATS[-1 if whole else 0]
    widest = _widest(m, kind, fmt) * smallest
    return max(widest + CELL_AIR, smallest * LINE + 2)


# --- shared pieces ----------------------------------------------------------------------------------------------


def tick_labels(labels: Sequence[str]) -> list[str]:
    """Axis labels cut to TICK_CHARS characters (cut before escaping, so that no entity is split)."""
    out = []
    for label in labels:
        text = html.unescape(label)
        out.append(plain(text[: TICK_CHARS - 1] + "…") if len(text) > TICK_CHARS else label)
    return out


def _colourbar(x: float, y: float, length: float, size: int, **extra) -> dict:
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


def _colourbar_px(size: int) -> int:
    """The width a colour bar and its tick labels ("−150", "max") take beside a panel."""
    return 6 + COLOURBAR + 4 + int(text_px("−150", size)) + 4


def _weights_bar_extra(size: int) -> int:
    """How much wider the weights' colour bar is than _colourbar_px: its "½ max" (3.5 em in DejaVu Sans) is
    wider than "−150", and plotly pushes the whole figure narrower for a bar that would pass its right edge."""
    return int(size * 3.5 - text_px("−150", size)) + 10


def _x_band(labels: Sequence[str], cell: float, size: int) -> tuple[int, int]:
    """(tick angle, height) of the token labels above a panel: level while each fits its cell, else slanted."""
    widest = label_px(labels, size) - 8
    if widest <= cell - 2:
        return 0, int(size * 1.6)
    return -60, int(0.87 * widest + 0.5 * size) + 8


def typed(a: np.ndarray) -> dict:
    """A float32 array as plotly's typed-array spec (base64), the form plotly.py sends data arrays in."""
    a = np.ascontiguousarray(a, dtype="<f4")
    return {"dtype": "f4", "bdata": base64.b64encode(a.tobytes()).decode(), "shape": ", ".join(map(str, a.shape))}


def _nested(props: dict) -> dict:
    """Trace properties with restyle's dotted names ("textfont.size") as nested settings."""
    out: dict = {}
    for name, value in props.items():
        *path, last = name.split(".")
        node = out
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return out


def _unchecked(traces: list[dict], layout: dict) -> go.Figure:
    """The figure as given, without plotly's property checks: they take 50 ms for the 48 heatmaps of the four
    steps, the figure 5 ms without. tests/test_app.py checks every such figure of the page instead."""
    return go.Figure(data=[_set(t) for t in traces], layout=_set(layout), _validate=False)


def _pixel_figure(
    traces: list, title: str, height: int, ty, annotations: list, meta: dict, axes: dict, **layout
) -> go.Figure:
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


def _fy(px: float, height: int) -> float:
    """A point `px` below the figure's top as a fraction of the plot area, which starts SUBTITLE_PX down: chart()
    grows the top margin by that much for its subtitle, and the layout here keeps the room for it."""
    return 1 - (px - SUBTITLE_PX) / (height - SUBTITLE_PX)


def _fh(px: float, height: int) -> float:
    """A height in px as a fraction of the plot area."""
    return px / (height - SUBTITLE_PX)


def _panel_name(text: str, x: float, y: float, size: int, xanchor: str = "left", **more) -> dict:
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


def _layout_meta(
    heads: Sequence[int],
    per_head: dict[int, list[dict]] | None = None,
    traces: Sequence[int] = (),
    patches: dict[int, dict] | None = None,
    first: bool = False,
) -> dict:
    """What the head switch in the browser reads (ui/head_switch.js):

    heads: the heads it can show (1-based); restyle: per head, the values of the figure's traces `traces` (plotly
    restyle's form: each property, one value per trace; arrays as typed-array specs); patches: per head, layout
    changes; first: switched first."""
    restyle = {}
    for h, props in (per_head or {}).items():
        names = {name for p in props for name in p}
        restyle[str(h + 1)] = {
            name: [typed(p[name]) if isinstance(p.get(name), np.ndarray) else p.get(name) for p in props]
            for name in sorted(names)
        }
    return {
        "heads": [h + 1 for h in heads],
        "restyle": restyle,
        "traces": list(traces),
        "patches": {str(h + 1): p for h, p in (patches or {}).items()},
        "first": first,
    }


def _weights_colour(w: np.ndarray, colours: str) -> np.ndarray:
    """What a weight's colour shows: the weight itself (unit), or its share of its query's largest weight (row)."""
    if colours == "unit":
        return w
    return w / np.maximum(w.max(axis=-1, keepdims=True), np.finfo(np.float64).tiny)  # rows are queries here


def _weights_bar(colours: str) -> dict:
    if colours == "unit":
        return dict(tickvals=[0, 0.5, 1], ticktext=["0", "0.5", "1"])
    return dict(tickvals=[0, 0.5, 1], ticktext=["0", "½ max", "max"])


# --- the four steps -------------------------------------------------------------------------------------------


def wrap(text: str, width_px: float, size: int) -> list[str]:
    """Words in lines no wider than width_px at `size` px (a longer word keeps a line of its own)."""
    lines: list[str] = []
    for word in text.split():
        if lines and text_px(f"{lines[-1]} {word}", size) <= width_px:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines


def tick_size(n: int, length_px: float, ty: theme.FigureType) -> int:
    """Token labels as large as the type allows while one fits each cell's height, never under the smallest."""
    return int(np.clip(length_px / max(n, 1), ty.small, ty.base))


@dataclass(frozen=True)
class _Panels:
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


def _panel_layout(
    n: int,
    n_panels: int,
    labels: Sequence[str],
    canvas: Canvas,
    title_px: Sequence[int],
    min_cell: float = 0.0,
) -> _Panels:
    """Square panels in two columns (one on a narrow screen), each with its colour bar, as large as the screen's
    width and height allow; at least `min_cell` px per cell, even if the figure then outgrows a screen.

    title_px: the height of each panel's title."""
    ty = canvas.type
    bar = _colourbar_px(ty.small)
    two = (canvas.width - label_px(labels, ty.small) - 2 * bar - PANEL_GAP - 4) // 2  # each of two columns at most
    cols = 2 if canvas.width >= 560 and n_panels > 1 and two >= min_cell * n else 1  # numbers that need more: one
    rows = -(-n_panels // cols)
    top_band = title_band(ty)
    row_title = [max(title_px[r * cols : (r + 1) * cols]) for r in range(rows)]
    every_row = cols == 1  # stacked panels each carry their own labels; side by side, the top row's serve both
    side, tick = 0, ty.base
    for _ in range(3):  # label sizes follow the cells, which follow the room the labels leave
        y_labels = label_px(labels, tick)
        extra = _weights_bar_extra(ty.small)  # the last column's bar: the weights'
        from_width = (canvas.width - y_labels - cols * bar - extra - (cols - 1) * PANEL_GAP - 4) // cols
        angle, x_band = _x_band(labels, (side or from_width) / n, tick)
        bands = top_band + sum(row_title) + x_band * (rows if every_row else 1) + ROW_GAP * (rows - 1) + 8
        from_height = (canvas.height - bands) // rows
        side = from_width if every_row else min(from_width, from_height)
        side = min(max(side, int(np.ceil(min_cell * n)), 120), max(from_width, 120))
        tick = tick_size(n, side, ty)
    y_labels = label_px(labels, tick)
    angle, x_band = _x_band(labels, side / n, tick)
    left, top, shown = [], [], []
    y = top_band
    for r in range(rows):
        y += row_title[r] + (x_band if every_row or r == 0 else 0)
        for c in range(cols):
            left.append(y_labels + c * (side + bar + PANEL_GAP))
            top.append(y)
            shown.append(every_row or r == 0)
        y += side + ROW_GAP
    return _Panels(
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


def steps_figure(
    steps: Sequence[np.ndarray],
    labels: Sequence[str],
    head: int,
    heads: Sequence[int],
    title: str,
    notes: Sequence[str] = ("", "", "", ""),
    layout: str = "paper",
    weight_colours: str = "row",
    numbers: bool = False,
    canvas: Canvas | None = None,
) -> go.Figure:
    """Raw scores, scaled, masked and softmax weights of one head as four square panels on shared token axes.

    steps: the four (len(heads), n_tokens, n_tokens) matrices, rows are queries, for the heads listed in `heads`
        (0-based); `head` is the one shown.
    title: names the head as "head N" (a head switch in the browser rewrites that).
    notes: a few words under each step's title (what the mask does here).
    weight_colours: "row" colours each weight by its share of its query's largest weight, "unit" from 0 to 1.
    numbers: print the values even where the cells are too small: the panels then grow to hold them.
    Scores are coloured on a scale centred at 0, one per step (the scaled scores are √dₖ times smaller than the
    raw ones: one shared bar would wash them out); −∞ cells are grey and printed −∞ where they fit.
    """
    canvas = canvas or Canvas()
    ty = canvas.type
    labels = list(labels)
    n = len(labels)
    ticks = tick_labels(labels)
    kinds = ("scores", "scores", "scores", "weights")
    shown = heads.index(head)
    min_cell = 0.0
    if numbers:
        min_cell = max(needed_cell_px(s[shown], k, ty.numbers) for s, k in zip(steps, kinds, strict=True))
    # each step's title, and under it the note wrapped to the panel's width (the layout depends on the width)
    panels = _panel_layout(n, 4, ticks, canvas, [0] * 4, min_cell)
    room = panels.side + _colourbar_px(ty.small) - 4
    note_lines = [wrap(note, room, ty.small) for note in notes]
    title_px = [int(ty.base * LINE + len(lines) * ty.small * LINE) + 6 for lines in note_lines]
    panels = _panel_layout(n, 4, ticks, canvas, title_px, min_cell)
    titles = [
        name + "".join(f"<br><span style='font-size:{ty.small}px'>{line}</span>" for line in lines)
        for name, lines in zip(STEP_TITLES, note_lines, strict=True)
    ]
    W, H, side = panels.width, panels.height, panels.side
    cell = side / n
    row_name, col_name = ("key", "query") if layout == "notes" else ("query", "key")

    traces: list[dict] = []
    axes: dict[str, dict] = {}
    notes_on_figure: list[dict] = []
    for k in range(4):
        suffix = "" if k == 0 else str(k + 1)
        x0, y0 = panels.left[k], panels.top[k]
        axes[f"xaxis{suffix}"] = dict(
            domain=[x0 / W, (x0 + side) / W],
            anchor=f"y{suffix}",
            type="category",
            side="top",
            showticklabels=panels.x_labels[k],
            tickangle=panels.angle,
            **_ticks(labels, ticks, side, panels.tick),
            matches=None if k == 0 else "x",
        )
        axes[f"yaxis{suffix}"] = dict(
            domain=[_fy(y0 + side, H), _fy(y0, H)],
            anchor=f"x{suffix}",
            type="category",
            autorange="reversed",
            showticklabels=panels.cols == 1 or k % panels.cols == 0,
            **_ticks(labels, ticks, side, panels.tick),
            matches=None if k == 0 else "y",
        )
        title_top = y0 - (panels.x_band if panels.x_labels[k] else 0)
        notes_on_figure.append(_panel_name(titles[k], x0 / W, _fy(title_top, H), ty.base, align="left"))
    plural = {"query": "queries", "key": "keys"}
    corner = f"{plural[col_name]} →<br>{plural[row_name]} ↓"  # what the columns and the rows are
    notes_on_figure.append(
        dict(
            text=corner,
            x=panels.left[0] / W,
            xshift=-6,
            y=_fy(panels.top[0], H),
            yshift=4,
            xref="paper",
            yref="paper",
            xanchor="right",
            yanchor="bottom",
            align="right",
            showarrow=False,
            font=dict(size=ty.small, color=theme.MUTED),
        )
    )

    masked = np.isneginf(steps[2][shown])
    if masked.any():  # grey under the masked step's −∞ cells, the same for every head
        grey = np.where(in_layout(masked, layout), 1.0, np.nan)
        traces.append(
            dict(
                type="heatmap",
                z=grey.astype(np.float32),
                x=labels,
                y=labels,
                xaxis="x3",
                yaxis="y3",
                colorscale=[[0, theme.MASKED], [1, theme.MASKED]],
                showscale=False,
                hoverinfo="skip",
                xgap=1 if n <= 40 else 0,
                ygap=1 if n <= 40 else 0,
            )
        )
    values = [in_layout(np.asarray(m, dtype=np.float64), layout) for m in steps]  # (len(heads), n, n) each
    per_head: dict[int, list[dict]] = {}
    for i, h in enumerate(heads):
        per_head[h] = []
        for k in range(4):
            v = values[k][i]
            if kinds[k] == "weights":
                rows_are_queries = v if layout == "paper" else v.T
                colour = in_layout(_weights_colour(rows_are_queries, weight_colours), layout)
                props = dict(z=colour, customdata=v, zmin=0.0, zmax=1.0)
            else:
                finite = np.abs(v[np.isfinite(v)])
                top = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
                props = dict(z=np.where(np.isneginf(v), np.nan, v), zmin=-top, zmax=top)
            props["z"] = np.asarray(props["z"], dtype=np.float32)
            if "customdata" in props:
                props["customdata"] = np.asarray(props["customdata"], dtype=np.float32)
            # each head's values in the most decimals that fit (one head's raw scores may reach 170, another's 15)
            printed = cell_format(v, kinds[k], cell, ty.numbers, ty.base)
            props["text"] = printed.write(v, kinds[k]) if printed else None
            props["texttemplate"] = "%{text}" if printed else ""
            props["textfont.size"] = printed.size if printed else ty.numbers
            props["hovertemplate"] = (
                f"{row_name}: %{{y}}<br>{col_name}: %{{x}}<br>{STEP_VALUES[k]}: "
                f"{'%{customdata:.3f}' if kinds[k] == 'weights' else '%{z:.2f}'}<extra>head {h + 1}</extra>"
            )
            per_head[h].append(props)
    first_step = len(traces)
    for k in range(4):
        suffix = "" if k == 0 else str(k + 1)
        x0, y0 = panels.left[k], panels.top[k]
        bar_at = dict(x=(x0 + side + 6) / W, y=_fy(y0 + side / 2, H), length=_fh(side, H), size=ty.small)
        if kinds[k] == "weights":
            scale = dict(colorscale=WEIGHTS, colorbar=_colourbar(**bar_at, **_weights_bar(weight_colours)))
        else:
            scale = dict(colorscale=SCORES, zmid=0.0, colorbar=_colourbar(**bar_at))
        traces.append(
            dict(
                type="heatmap",
                x=labels,
                y=labels,
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                hoverongaps=False,
                xgap=1 if n <= 40 else 0,
                ygap=1 if n <= 40 else 0,
                **scale,
                **_nested(per_head[head][k]),
            )
        )
    others = {h: props for h, props in per_head.items()} if len(heads) > 1 else {}
    meta = _layout_meta(heads, others, range(first_step, first_step + 4), first=True)
    meta["canvas"] = {"width": canvas.width, "height": canvas.height}  # the size it was laid out for
    return _pixel_figure(traces, title, H, ty, notes_on_figure, meta, axes)


# --- queries, keys and values ------------------------------------------------------------------------------


def _ticks(labels: Sequence[str], ticks: Sequence[str], length_px: float, size: int) -> dict:
    """Token labels along an axis `length_px` long: every one while they fit (one per `size` px), else every k-th."""
    step = max(1, int(np.ceil(len(labels) * size / max(length_px, 1.0))))
    return dict(tickvals=list(labels)[::step], ticktext=list(ticks)[::step], tickfont=dict(size=size), ticks="")


def qkv_figure(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    labels: Sequence[str],
    head: int,
    heads: Sequence[int],
    title: str,
    canvas: Canvas | None = None,
) -> go.Figure:
    """One head's queries, keys and values side by side on shared token rows, each (len(heads), n_tokens, d_head)
    for the heads listed in `heads` (0-based), `head` shown; each on its own scale centred at 0."""
    canvas = canvas or Canvas()
    ty = canvas.type
    labels = list(labels)
    n, d = q.shape[1], q.shape[2]
    ticks = tick_labels(labels)
    y_labels = label_px(ticks, ty.base)
    bar = _colourbar_px(ty.small)
    cols = 3 if (canvas.width - y_labels - 3 * bar - 2 * PANEL_GAP) / 3 >= 96 else 1
    panel_w = (canvas.width - y_labels - cols * bar - (cols - 1) * PANEL_GAP - 4) // cols
    top_band = title_band(ty)
    name_band = int(ty.base * LINE) + 6
    x_band = int(ty.small * LINE) + 10
    per_row = 1 if cols == 3 else 3
    room = (canvas.height - top_band - per_row * (name_band + x_band) - 8) / (n * per_row)
    row = float(np.clip(room, 0.25, 26))  # one screen tall: a long text's rows are a pixel or less, a compact map
    panel_h = int(row * n)
    W = canvas.width
    H = top_band + per_row * (name_band + panel_h + x_band) + 8
    names = ("Q: queries", "K: keys", "V: values")
    axes: dict[str, dict] = {}
    annotations = []
    lefts, tops = [], []
    for i in range(3):
        c, r = (i, 0) if cols == 3 else (0, i)
        x0 = y_labels + c * (panel_w + bar + PANEL_GAP)
        y0 = top_band + r * (name_band + panel_h + x_band) + name_band
        lefts.append(x0)
        tops.append(y0)
        suffix = "" if i == 0 else str(i + 1)
        axes[f"xaxis{suffix}"] = dict(
            domain=[x0 / W, (x0 + panel_w) / W],
            anchor=f"y{suffix}",
            tickfont=dict(size=ty.small),
            title=None,
            range=[-0.5, d - 0.5],
            dtick=8 if d > 16 else 4,
            matches=None if i == 0 else "x",
        )
        axes[f"yaxis{suffix}"] = dict(
            domain=[_fy(y0 + panel_h, H), _fy(y0, H)],
            anchor=f"x{suffix}",
            type="category",
            autorange="reversed",
            showticklabels=cols == 1 or i == 0,
            matches=None if i == 0 else "y",
            **_ticks(labels, ticks, panel_h, tick_size(n, panel_h, ty)),
        )
        annotations.append(_panel_name(names[i], x0 / W, _fy(y0, H), ty.base))
    per_head: dict[int, list[dict]] = {}
    for j, h in enumerate(heads):
        per_head[h] = []
        for name, vectors in zip("qkv", (q, k, v), strict=True):
            m = np.asarray(vectors[j], dtype=np.float32)
            top = float(np.abs(m).max()) or 1.0
            per_head[h].append(
                dict(
                    z=m,
                    zmin=-top,
                    zmax=top,
                    hovertemplate=f"token: %{{y}}<br>{name}, coordinate %{{x}}: %{{z:.3f}}<extra>head {h + 1}</extra>",
                )
            )
    traces = []
    for i in range(3):
        suffix = "" if i == 0 else str(i + 1)
        traces.append(
            dict(
                type="heatmap",
                x=list(range(d)),
                y=labels,
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                colorscale=VECTORS,
                zmid=0.0,
                colorbar=_colourbar(
                    x=(lefts[i] + panel_w + 6) / W,
                    y=_fy(tops[i] + panel_h / 2, H),
                    length=_fh(panel_h, H),
                    size=ty.small,
                ),
                **per_head[head][i],
            )
        )
    meta = _layout_meta(heads, per_head if len(heads) > 1 else {}, range(3))
    return _pixel_figure(traces, title, H, ty, annotations, meta, axes)


# --- every head of the layer --------------------------------------------------------------------------------

CHOSEN = theme.OKABE_ITO[1]  # the chosen head's colour, as in the displacement picture


def heads_grid(
    weights: np.ndarray,
    labels: Sequence[str],
    head: int,
    title: str,
    layout: str = "paper",
    weight_colours: str = "row",
    canvas: Canvas | None = None,
    roles: Sequence[str] | None = None,
) -> go.Figure:
    """Every head's weights (n_heads, n_tokens, n_tokens), rows are queries, as small multiples; the chosen head
    (0-based) framed; roles: a word per head naming what it does ("" for none), after its name. Each panel's heatmap names its head in its trace's meta, which the head switch reads from a
    click on it (ui/head_switch.js); hover names the two tokens and the weight."""
    canvas = canvas or Canvas()
    ty = canvas.type
    n_heads, n, _ = weights.shape
    labels = list(labels)
    cols = min(n_heads, 6 if canvas.width >= 700 else 4 if canvas.width >= 460 else 3)
    rows = -(-n_heads // cols)
    bar = _colourbar_px(ty.small)
    gap = 14
    name_band = int(ty.base * LINE) + 6
    top_band = title_band(ty)
    side = (canvas.width - 8 - bar - (cols - 1) * gap) // cols
    side = int(min(side, (canvas.height - top_band - rows * name_band - 8) / rows, 260))
    side = max(side, 60)
    W = canvas.width
    H = top_band + rows * (name_band + side) + 8
    row_name, col_name = ("key", "query") if layout == "notes" else ("query", "key")
    traces: list[dict] = []
    axes: dict[str, dict] = {}
    annotations = []
    frames: dict[int, dict] = {}
    for h in range(n_heads):
        r, c = divmod(h, cols)
        x0 = 4 + c * (side + gap)
        y0 = top_band + r * (name_band + side) + name_band
        suffix = "" if h == 0 else str(h + 1)
        axes[f"xaxis{suffix}"] = dict(
            domain=[x0 / W, (x0 + side) / W],
            anchor=f"y{suffix}",
            visible=False,
            type="category",
            range=[-0.5, n - 0.5],
            fixedrange=True,
        )
        axes[f"yaxis{suffix}"] = dict(
            domain=[_fy(y0 + side, H), _fy(y0, H)],
            anchor=f"x{suffix}",
            visible=False,
            type="category",
            range=[n - 0.5, -0.5],
            fixedrange=True,
        )
        name = f"head {h + 1}" + (f" · {roles[h]}" if roles and roles[h] and side >= 110 else "")
        annotations.append(_panel_name(name, (x0 + side / 2) / W, _fy(y0, H), ty.base, xanchor="center"))
        frames[h] = {
            "shapes[0].x0": (x0 - 4) / W,
            "shapes[0].x1": (x0 + side + 4) / W,
            "shapes[0].y0": _fy(y0 + side + 4, H),
            "shapes[0].y1": _fy(y0 - name_band, H),
        }
        w = np.asarray(weights[h], dtype=np.float64)
        colour = in_layout(_weights_colour(w, weight_colours), layout)
        values = in_layout(w, layout)
        traces.append(
            dict(
                type="heatmap",
                x=labels,
                y=labels,
                z=colour.astype(np.float32),
                customdata=values.astype(np.float32),
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
                coloraxis="coloraxis",
                meta=h + 1,
                hovertemplate=f"{row_name}: %{{y}}<br>{col_name}: %{{x}}<br>weight: %{{customdata:.3f}}"
                f"<extra>head {h + 1}</extra>",
            )
        )
    frame = frames[head]
    shape = dict(
        type="rect",
        xref="paper",
        yref="paper",
        x0=frame["shapes[0].x0"],
        x1=frame["shapes[0].x1"],
        y0=frame["shapes[0].y0"],
        y1=frame["shapes[0].y1"],
        line=dict(color=CHOSEN, width=3),
    )
    return _pixel_figure(
        traces,
        title,
        H,
        ty,
        annotations,
        _layout_meta(range(n_heads), patches=frames) | {"pick": True},
        axes,
        shapes=[shape],
        hovermode="closest",
        coloraxis=dict(
            colorscale=WEIGHTS,
            cmin=0,
            cmax=1,
            colorbar=_colourbar(
                x=(4 + cols * (side + gap) - gap + 6) / W,
                y=_fy(top_band + (H - top_band) / 2, H),
                length=_fh(H - top_band - name_band, H),
                size=ty.small,
                **_weights_bar(weight_colours),
            ),
        ),
    )
