"""The explorer's head view: one head's four steps in one figure, its q, k and v in another, and every head of the
layer in a grid to pick from.

The step and q/k/v figures draw the chosen head; while the sentence is short they also carry every other head's
matrices in `layout.meta`, so that a head switch in the browser (ui/components/head_switch.js) swaps them in with one
restyle of a few traces, with no round trip (head_meta.py). Every size is computed in pixels from the Canvas (pixels.py), so that the four
steps share one screen and a number is printed in a cell only where it fits.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import numpy as np
import plotly.colors
import plotly.graph_objects as go

from ui.figures import contrast, theme
from ui.figures.base import Canvas, pair_hover, plain
from ui.figures.cells import cell_format, masked_marks, needed_cell_px
from ui.figures.head_meta import layout_meta, nested
from ui.figures.layout import in_layout
from ui.figures.pixels import (
    BAR_TITLES,
    MAX_WORDS,
    Panels,
    colourbar,
    colourbar_px,
    panel_layout,
    panel_name,
    paper_height,
    paper_y,
    pixel_figure,
)
from ui.figures.text import LINE, text_px, wrap
from ui.words.locales import N_, Words

# The theme's colour scales as plotly.js reads them (unchecked figures are not resolved by plotly's checks).
SCORES = plotly.colors.get_colorscale(theme.SCORES_SCALE)
WEIGHTS = plotly.colors.get_colorscale(theme.WEIGHTS_SCALE)
STEP_KINDS = ("scores", "scores", "scores", "weights")  # what each step's matrix holds
STEP_TITLES = (N_("1. Raw scores q · k"), N_("2. Scaled: ÷ √dₖ"), N_("3. Masked"), N_("4. Softmax weights"))
STEP_VALUES = (
    N_("raw score: {value}"),
    N_("scaled score: {value}"),
    N_("masked score: {value}"),
    N_("weight: {value}"),
)
# what the columns and the rows of a matrix are, in the corner of the first step, in each layout
CORNER = {"paper": N_("keys →<br>queries ↓"), "notes": N_("queries →<br>keys ↓")}
CORNER_SHIFT = 6  # px between the corner's text and the first step

TICK_CHARS = 12  # a longer token is cut on the axes (its whole text shows on hover)


def tick_labels(labels: Sequence[str]) -> list[str]:
    """Axis labels cut to TICK_CHARS characters (cut before escaping, so that no entity is split)."""
    out = []
    for label in labels:
        text = html.unescape(label)
        out.append(plain(text[: TICK_CHARS - 1] + "…") if len(text) > TICK_CHARS else label)
    return out


def _weights_colour(w: np.ndarray, colours: str) -> np.ndarray:
    """What a weight's colour shows: the weight itself (unit), or its share of its query's largest weight (row)."""
    if colours == "unit":
        return w
    return w / np.maximum(w.max(axis=-1, keepdims=True), np.finfo(np.float64).tiny)  # rows are queries here


def _weights_bar(colours: str, size: int, *, words: Words) -> dict:
    """The weights' colour bar: its ticks, and a title that says which scale the colours are on (each query's own
    scale is not the one a class compares across rows)."""
    ticks = ["0", words.num(0.5, 1), "1"] if colours == "unit" else ["0", *(words._(said) for said in MAX_WORDS)]
    title = dict(text=words._(BAR_TITLES[colours]), side="right", font=dict(size=size))
    return dict(tickvals=[0, 0.5, 1], ticktext=ticks, title=title)


def _side_label(head_name: str, h: int) -> str:
    """The hover box's side label, naming head h (0-based) with head_name, "head {n}" in the page's language."""
    return f"<extra>{head_name.format(n=h + 1)}</extra>"


# --- the four steps -------------------------------------------------------------------------------------------


def steps_figure(
    steps: Sequence[np.ndarray],
    labels: Sequence[str],
    head: int,
    heads: Sequence[int],
    title: str,
    notes: Sequence[str] = ("", "", "", ""),
    layout: str = "paper",
    weight_colours: str = "unit",
    numbers: bool = False,
    canvas: Canvas | None = None,
    shown: Sequence[int] = (0, 1, 2, 3),
    *,
    words: Words,
) -> go.Figure:
    """Raw scores, scaled, masked and softmax weights of one head as four square panels on shared token axes.

    steps: the four (len(heads), n_tokens, n_tokens) matrices, rows are queries, for the heads listed in `heads`
        (0-based); `head` is the one shown.
    title: names the head as `words._("head {n}")` writes it (a head switch in the browser rewrites that).
    notes: a few words under each step's title (what the mask does here).
    weight_colours: "unit" colours weights from 0 to 1, "row" each by its share of its query's largest weight.
    numbers: print the values even where the cells are too small: the panels then grow to hold them.
    shown: the steps drawn (0 raw … 3 weights): all four, or one alone as large as the canvas holds.
    Scores are coloured on a scale centred at 0, one per step (the scaled scores are √dₖ times smaller than the
    raw ones: one shared bar would wash them out); −∞ cells are grey and printed −∞ where they fit, else ×. A
    printed value is black, or white on a dark cell: at least 4.5:1 on any cell.
    """
    canvas = canvas or Canvas()
    ty = canvas.type
    labels = list(labels)
    ticks = tick_labels(labels)
    drawn = heads.index(head)
    shown = list(shown)
    min_cell = 0.0
    if numbers:
        min_cell = max(needed_cell_px(steps[k][drawn], STEP_KINDS[k], ty.numbers, words=words) for k in shown)
    corner = words._(CORNER[layout])  # what the columns and the rows are, left of the first step: as wide as it needs
    panels, name_lines, note_lines = _steps_panels(ticks, canvas, shown, notes, corner, min_cell, words=words)
    titles = _step_titles(name_lines, note_lines, ty.small)
    axes: dict[str, dict] = {}
    notes_on_figure: list[dict] = []
    for i in range(len(shown)):  # the i-th panel drawn
        axes |= _step_axes(i, labels, ticks, panels)
        notes_on_figure.append(_step_name(titles[i], i, panels, ty.base))
    notes_on_figure.append(_corner_note(corner, panels, ty.small))

    traces = _masked_grey(steps[2][drawn], labels, layout, shown)
    values = [in_layout(np.asarray(m, dtype=np.float64), layout) for m in steps]  # (len(heads), n, n) each
    hovers = _step_hovers(layout, words=words)
    head_name = words._("head {n}")
    cell = panels.side / len(labels)
    per_head: dict[int, list[dict]] = {}
    for j, h in enumerate(heads):
        named = _side_label(head_name, h)
        per_head[h] = [
            _step_props(values[k][j], STEP_KINDS[k], layout, weight_colours, cell, ty, hovers[k] + named, words=words)
            for k in shown
        ]
    first_step = len(traces)
    for i, k in enumerate(shown):
        traces.append(_step_trace(k, i, labels, panels, weight_colours, ty, per_head[head][i], words=words))
    others = {h: props for h, props in per_head.items()} if len(heads) > 1 else {}
    meta = layout_meta(head, heads, others, range(first_step, first_step + len(shown)), first=True, words=words)
    meta["canvas"] = {"width": canvas.width, "height": canvas.height}  # the size it was laid out for
    meta["corner"] = corner.replace("<br>", " ")  # what the rows and columns are, for its tables (described.py)
    meta["steps"] = ",".join(str(k + 1) for k in shown)  # which steps it draws: the step bar brings them into view
    return pixel_figure(traces, title, panels.height, ty, notes_on_figure, meta, axes)


def _step_titles(name_lines: Sequence[list[str]], note_lines: Sequence[list[str]], small: int) -> list[str]:
    """Each step's title: its name's lines, then its note's in the small type."""
    return [
        "<br>".join(names) + "".join(f"<br><span style='font-size:{small}px'>{line}</span>" for line in lines)
        for names, lines in zip(name_lines, note_lines, strict=True)
    ]


def _step_axes(i: int, labels: Sequence[str], ticks: Sequence[str], panels: Panels) -> dict[str, dict]:
    """The i-th panel's x and y axes, on the first panel's tokens: its labels on top, and on the left of a row."""
    suffix = "" if i == 0 else str(i + 1)
    W, H, side = panels.width, panels.height, panels.side
    x0, y0 = panels.left[i], panels.top[i]
    return {
        f"xaxis{suffix}": dict(
            domain=[x0 / W, (x0 + side) / W],
            anchor=f"y{suffix}",
            type="category",
            side="top",
            showticklabels=panels.x_labels[i],
            tickangle=panels.angle,
            **_ticks(labels, ticks, side, panels.tick),
            matches=None if i == 0 else "x",
        ),
        f"yaxis{suffix}": dict(
            domain=[paper_y(y0 + side, H), paper_y(y0, H)],
            anchor=f"x{suffix}",
            type="category",
            autorange="reversed",
            showticklabels=panels.cols == 1 or i % panels.cols == 0,
            **_ticks(labels, ticks, side, panels.tick),
            matches=None if i == 0 else "y",
        ),
    }


def _step_name(text: str, i: int, panels: Panels, size: int) -> dict:
    """The i-th panel's title, above its token labels when it has them."""
    title_top = panels.top[i] - (panels.x_band if panels.x_labels[i] else 0)
    return panel_name(text, panels.left[i] / panels.width, paper_y(title_top, panels.height), size, align="left")


def _corner_note(corner: str, panels: Panels, size: int) -> dict:
    """What the columns and the rows are, just left of the first step's top left corner."""
    return dict(
        text=corner,
        x=panels.left[0] / panels.width,
        xshift=-CORNER_SHIFT,
        y=paper_y(panels.top[0], panels.height),
        yshift=4,
        xref="paper",
        yref="paper",
        xanchor="right",
        yanchor="bottom",
        align="right",
        showarrow=False,
        font=dict(size=size, color=theme.MUTED),
    )


def _masked_grey(masked_step: np.ndarray, labels: list[str], layout: str, shown: Sequence[int]) -> list[dict]:
    """Grey under the masked step's −∞ cells, the same for every head: one heatmap, or none when nothing is masked
    or that step is not drawn."""
    masked = np.isneginf(masked_step)
    if not (masked.any() and 2 in shown):
        return []
    grey = np.where(in_layout(masked, layout), 1.0, np.nan)
    suffix = str(shown.index(2) + 1) if shown.index(2) else ""
    n = len(labels)
    return [
        dict(
            type="heatmap",
            z=grey.astype(np.float32),
            x=labels,
            y=labels,
            xaxis=f"x{suffix}",
            yaxis=f"y{suffix}",
            colorscale=[[0, theme.MASKED], [1, theme.MASKED]],
            showscale=False,
            hoverinfo="skip",
            xgap=1 if n <= 40 else 0,
            ygap=1 if n <= 40 else 0,
        )
    ]


def _step_hovers(layout: str, *, words: Words) -> list[str]:
    """Each step's hover: the two tokens, and its value (a weight's from its customdata: its colour may be scaled)."""
    row_name, col_name = ("key", "query") if layout == "notes" else ("query", "key")
    return [
        pair_hover(
            row_name,
            col_name,
            words._(said).format(value="%{customdata:.3f}" if kind == "weights" else "%{z:.2f}"),
            words=words,
        )
        for said, kind in zip(STEP_VALUES, STEP_KINDS, strict=True)
    ]


def _step_props(
    v: np.ndarray,
    kind: str,
    layout: str,
    weight_colours: str,
    cell: float,
    ty: theme.FigureType,
    hover: str,
    *,
    words: Words,
) -> dict:
    """One head's matrix v for one step (in the figure's layout) as restyle settings: its colours, their range,
    the printed values and the hover. Scores span ± their own largest finite size; −∞ is a gap."""
    if kind == "weights":
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
    props |= _cell_texts(v, kind, props, cell, ty, words=words)
    props["hovertemplate"] = hover
    return props


def _step_scale(kind: str, bar_at: dict, weight_colours: str, small: int, *, words: Words) -> dict:
    """A step's colour scale and its bar: the weights' from 0 to 1, the scores' centred at 0."""
    if kind == "weights":
        return dict(
            colorscale=WEIGHTS, colorbar=colourbar(**bar_at, **_weights_bar(weight_colours, small, words=words))
        )
    return dict(colorscale=SCORES, zmid=0.0, colorbar=colourbar(**bar_at))


def _step_trace(
    k: int,
    i: int,
    labels: list[str],
    panels: Panels,
    weight_colours: str,
    ty: theme.FigureType,
    props: dict,
    *,
    words: Words,
) -> dict:
    """Step k drawn as the i-th panel: its heatmap with the shown head's settings, its colour bar at its right."""
    suffix = "" if i == 0 else str(i + 1)
    W, H, side = panels.width, panels.height, panels.side
    x0, y0 = panels.left[i], panels.top[i]
    bar_at = dict(x=(x0 + side + 6) / W, y=paper_y(y0 + side / 2, H), length=paper_height(side, H), size=ty.small)
    n = len(labels)
    return dict(
        type="heatmap",
        name=words._(STEP_TITLES[k]),  # what a screen reader's table of it is called (ui/figures/described.py)
        x=labels,
        y=labels,
        xaxis=f"x{suffix}",
        yaxis=f"y{suffix}",
        hoverongaps=False,
        xgap=1 if n <= 40 else 0,
        ygap=1 if n <= 40 else 0,
        **_step_scale(STEP_KINDS[k], bar_at, weight_colours, ty.small, words=words),
        **nested(props),
    )


def _steps_panels(
    ticks: Sequence[str],
    canvas: Canvas,
    shown: Sequence[int],
    notes: Sequence[str],
    corner: str,
    min_cell: float = 0,
    *,
    words: Words,
) -> tuple[Panels, list[list[str]], list[list[str]]]:
    """The steps' panels for these token labels, and each step's title and note, wrapped to the panel's width (the
    layout depends on the width, the titles' height on the layout)."""
    ty = canvas.type
    corner_px = int(max(text_px(line, ty.small) for line in corner.split("<br>"))) + CORNER_SHIFT + 4
    panels = panel_layout(len(ticks), len(shown), ticks, canvas, [0] * len(shown), min_cell, corner_px, words=words)
    room = panels.side + colourbar_px(ty.small) - 4
    name_lines = [wrap(words._(STEP_TITLES[k]), room, ty.base) for k in shown]
    note_lines = [wrap(notes[k], room, ty.small) for k in shown]
    title_px = [
        int(len(names) * ty.base * LINE + len(lines) * ty.small * LINE) + 6
        for names, lines in zip(name_lines, note_lines, strict=True)
    ]
    return (
        panel_layout(len(ticks), len(shown), ticks, canvas, title_px, min_cell, corner_px, words=words),
        name_lines,
        note_lines,
    )


def steps_naming_all(
    labels: Sequence[str],
    canvas: Canvas,
    notes: Sequence[str] = ("", "", "", ""),
    layout: str = "paper",
    *,
    words: Words,
) -> int:
    """How many tokens the four steps can draw on this canvas with every one named (a cell at least as tall as the
    smallest token label): at most len(labels), at least 4. labels: the longest a window may hold, which set the
    room their names take."""
    ticks = sorted(tick_labels(list(labels)), key=len, reverse=True)
    corner = words._(CORNER[layout])
    for n in range(len(ticks), 4, -1):
        panels, _names, _notes = _steps_panels(ticks[:n], canvas, range(4), notes, corner, words=words)
        if panels.side / n >= canvas.type.least_label:
            return n
    return min(4, len(ticks))


def _cell_texts(v: np.ndarray, kind: str, props: dict, cell: float, ty: theme.FigureType, *, words: Words) -> dict:
    """What a step's cells print, as restyle settings: each value in the most decimals that fit (one head's raw
    scores may reach 170, another's 15), else only a mark in each −∞ cell; black, or white on a dark cell."""
    printed = cell_format(v, kind, cell, ty.numbers, ty.base, words=words)
    marks = None if printed else masked_marks(v, cell, ty.base)
    if printed is None and marks is None:
        return {"text": None, "texttemplate": "", "textfont.size": ty.numbers, "textfont.color": contrast.BLACK}
    text, size = (printed.write(v, kind, words=words), printed.size) if printed else marks
    scale = WEIGHTS if kind == "weights" else SCORES
    dark = contrast.dark(scale, props["z"], props["zmin"], props["zmax"])
    return {
        "text": contrast.legible(text, dark),
        "texttemplate": "%{text}",
        "textfont.size": size,
        "textfont.color": contrast.BLACK,
    }


# --- queries, keys and values ------------------------------------------------------------------------------


def _ticks(labels: Sequence[str], ticks: Sequence[str], length_px: float, size: int) -> dict:
    """Token labels along an axis `length_px` long: every one while they fit (one per `size` px), else every k-th."""
    step = max(1, int(np.ceil(len(labels) * size / max(length_px, 1.0))))
    return dict(tickvals=list(labels)[::step], ticktext=list(ticks)[::step], tickfont=dict(size=size), ticks="")


# --- every head of the layer --------------------------------------------------------------------------------
