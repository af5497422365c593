"""What every figure builder shares: escaped labels, margins measured from them, the figure in one step.

Axes run over token positions and show the token's text as tick labels, so a repeated word
("bank" … "bank") keeps two rows. Every piece of user text goes through `plain()` first:
plotly reads a few HTML tags in its strings, and user text must never be read as HTML.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import plotly.graph_objects as go

from ui import internals
from ui.figures import theme
from ui.figures.text import shown, text_px, wrap
from ui.words.locales import N_, Words

NUMBERS_UP_TO = 16  # print the value in every cell while the matrix is at most this many cells wide
HALF_WIDTH_NUMBERS = 8  # the same for a heatmap in half the page's width
GRID = dict(showgrid=True, gridcolor="#eeeeee")  # light grid lines, for charts whose coordinates are read


@dataclass(frozen=True)
class Canvas:
    """Where a figure will be drawn, in CSS pixels: the page column's width, the height of a screen left for one
    figure, and the type sizes. Figures that fill a screen size themselves from it; the defaults are a 1280×720
    projector with the sidebar open."""

    width: int = 820
    height: int = 600
    type: theme.FigureType = field(default_factory=theme.figure_type)


RIGHT_TO_LEFT = ("R", "AL")  # bidirectional classes of Arabic and Hebrew letters
LEFT_TO_RIGHT_ISOLATE, POP_ISOLATE = "\u2066", "\u2069"


def isolated(text: str) -> str:
    """The text as one left-to-right unit where it holds right-to-left letters: the browser then keeps a piece's
    "##" before its letters and a label's "(14)" after them, while the letters keep their own order. Other text
    is returned as it is."""
    if any(unicodedata.bidirectional(c) in RIGHT_TO_LEFT for c in text):
        return LEFT_TO_RIGHT_ISOLATE + text + POP_ISOLATE
    return text


def plain(text: str) -> str:
    """Text that plotly shows literally: its HTML-like tags and entities are escaped."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def token_labels(texts: Sequence[str], positions: Sequence[int] | None = None, escaped: bool = True) -> list[str]:
    """Axis labels: the token's text, escaped (unless a builder escapes it, as table_heatmap does), with its
    position when a text repeats."""
    positions = list(range(len(texts))) if positions is None else list(positions)
    counts: dict[str, int] = {}
    for t in texts:
        counts[t] = counts.get(t, 0) + 1
    shown = plain if escaped else str
    return [isolated(shown(t)) + (f" ({p})" if counts[t] > 1 else "") for t, p in zip(texts, positions, strict=True)]


def numbers_fit(n_cells: int, half_width: bool = False) -> bool:
    """Whether a matrix n_cells wide has room to print its values in its cells."""
    return n_cells <= (HALF_WIDTH_NUMBERS if half_width else NUMBERS_UP_TO)


TICK_PX = 15  # token labels on an axis: the template's type, when each has the room
SMALLEST_TICK_PX = 8  # smaller labels cannot be read: below it every k-th token is labelled instead
TICK_ROOM = 0.8  # a label's size per pixel of its cell: a line of text is about 1.1 times its size tall, and a
# label slanted at 60° (or a row's label) is given sin 60° ≈ 0.87 of the cell's width across its line


def tick_px(cell_px: float, largest: int = TICK_PX) -> int:
    """The largest label size, up to `largest`, at which one label fits each cell of an axis."""
    return max(SMALLEST_TICK_PX, min(largest, int(cell_px * TICK_ROOM)))


def token_ticks(labels: Sequence[str], cell_px: float, size: int) -> dict:
    """Axis settings that label every token at `size` px, with explicit ticks: plotly's own would skip every
    other label on a short axis. Only where even the smallest type overlaps is every k-th token labelled."""
    step = max(1, int(np.ceil(size / (cell_px * TICK_ROOM)))) if size <= SMALLEST_TICK_PX else 1
    shown = list(labels)[::step]
    return dict(tickmode="array", tickvals=shown, ticktext=shown, tickfont=dict(size=size))


def figure(traces: Sequence[dict], title: str | dict, height: int, checked: bool = True, **layout) -> go.Figure | Spec:
    """The figure in one step, with our template. Plotly checks a figure given whole several times faster
    than one updated property by property, and every chart is rebuilt on every change of the view.

    title: its text, or plotly's title settings with the text among them.
    checked: False for the explorer's figures, redrawn for every sentence: a Spec, without plotly's objects and
    their checks, and tests/test_app.py checks each of them instead. Only for settings plotly.py sends as they are
    given (no named colour scale, which it would write out in its own colours)."""
    title = dict(text=title) if isinstance(title, str) else title
    layout = dict(template=theme.TEMPLATE, title=title, height=height, **layout)
    return go.Figure(data=list(traces), layout=layout) if checked else Spec.of(traces, layout)


class Spec(dict):
    """A figure as its JSON holds it, {"data": [traces], "layout": {...}}, taken as its builder gives it: plain
    dicts, lists and numpy arrays, no plotly object. Plotly's Figure, even unchecked, made an object for every
    setting (every axis of a figure of 48 panels) and copied its layout, an eighth of a new sentence's CPU; and its
    objects point back to their figure, which only a collection of cycles frees. A Spec goes where a Figure goes
    (the chart element, its JSON, its description, its file: plotly and kaleido take a figure's dict); a dict of
    its own type only so that the figure's JSON and words, made once per figure, can be kept beside it by a weak
    reference (ui/components/plot.py, ui/components/chart_text.py)."""

    __slots__ = ("__weakref__",)

    @classmethod
    def of(cls, traces: Sequence[dict], layout: dict) -> Spec:
        """The figure of these traces (each a dict with its type) and this layout, our template given as the
        object plotly names it by (written out as its dict, as plotly's Figure holds it)."""
        template = layout.get("template")
        if isinstance(template, go.layout.Template):
            own = theme.template_json() if template is theme.TEMPLATE else template.to_plotly_json()
            layout = {**layout, "template": own}
        return cls(data=list(traces), layout=layout)


SUBTITLE_CHARS = 30  # the sentence in a subtitle is cut at a word: one line, even in a half-width figure
SUBTITLE_PX = 24  # the room a subtitle line takes at the top of a figure


def shortened(text: str, limit: int = SUBTITLE_CHARS) -> str:
    """The text on one line, cut after a word before `limit` characters; "…" marks the cut."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:") + "…"


_TOP, _TITLE_SIZE = theme.TEMPLATE.layout.margin.t, theme.TEMPLATE.layout.title.font.size  # the template's


def title_room(title: str) -> int:
    """The top margin stand_alone gives a figure with this title (one or more lines, <br>) and a subtitle.
    A figure that should keep its plot's height counts it in its own height."""
    return _TOP + SUBTITLE_PX + round(1.3 * _TITLE_SIZE) * title.count("<br>")


TITLE_INSET = 20  # px of a figure's width its title leaves free: the template's pad at its left, and some air


def wrapped_title(text: str, width_px: float, size: int, *, words: Words) -> str:
    """The title with each of its lines wrapped to `width_px` at `size` px (a line holding a tag with a space in it,
    a link or a styled span, is left whole; <sub> and <sup> are measured as drawn).
    A head's name ("head 3", "3번 헤드") stays on one line, where the head switch finds it (head_meta.renamed)."""
    return _wrapped_title(text, width_px, size, words._("head {n}"))


@lru_cache(maxsize=4096)  # the same titles, wrapped again for every figure rebuilt on a new sentence
def _wrapped_title(text: str, width_px: float, size: int, head_name: str) -> str:
    """wrapped_title, with the page's language's name of a head ("head {n}") as a plain argument."""
    before, after = (re.escape(part) for part in head_name.split("{n}"))
    head = re.compile(rf"(?<!\w){before}\d+{after}")
    joined = "\ue000"  # a space inside a head's name while the line is cut into words
    lines = []
    for line in text.split("<br>"):
        if re.search(r"<[^>]* ", line) or text_px(shown(line), size) <= width_px:  # a tag with a space: whole
            lines.append(line)
            continue
        kept = head.sub(lambda m: m.group(0).replace(" ", joined), line)
        lines += [part.replace(joined, " ") for part in wrap(kept, width_px, size)]
    return "<br>".join(lines)


def stand_alone(
    fig: go.Figure,
    names: Sequence[str],
    subtitle: str | None = None,
    width: int = Canvas.width,
    *,
    words: Words,
) -> go.Figure:
    """The figure titled to be read away from its page (on a slide, in a file), changed in place.

    names: what it shows ("layer 2", "head 3", "causal mask"), added to its title unless the title says them.
    subtitle: user text (the sentence, the model), escaped here, on a line under the title; the top margin
    grows by the line it takes. words: its language, whose separators write its numbers (plotly's: the decimal
    mark, then the thousands separator). width: the px of the column it is drawn in (the
    title's lines are wrapped to it: a French or Korean title, or any title on a phone, runs longer than the
    width its figure was laid out for; the figure and its margin grow by the lines that adds)."""
    # Read and set in plotly's own dict of the layout, which its property objects read from: through them, these
    # few settings cost each figure a validation per property, on every new sentence.
    layout = internals.figure_dicts(fig)[1]
    layout["separators"] = words.separators
    title = title_settings(layout)
    text = title.get("text") or ""
    missing = [n for n in names if not re.search(rf"\b{re.escape(n)}\b", text, flags=re.IGNORECASE)]
    title["text"] = " · ".join([text, *missing]) if text else " · ".join(missing)
    size = title.get("font", {}).get("size") or _TITLE_SIZE
    wrapped = wrapped_title(title["text"], width - TITLE_INSET, size, words=words)
    added = wrapped.count("<br>") - title["text"].count("<br>")
    title["text"] = wrapped
    if added:  # the figure grows by the lines wrapping added, so that its plot keeps the size it was laid out for
        layout["height"] = (layout.get("height") or 450) + round(1.3 * size) * added
    if added:  # as chapter.half_chart does for the line it adds: the margin makes room for each line wrapping added
        margin = layout.setdefault("margin", {})
        margin["t"] = margin.get("t", _TOP) + round(1.3 * size) * added
    if subtitle:
        # Both lines from the top of the figure down, clear of what the top margin holds under them. Plotly
        # draws a title of several lines anchored at its top one line too high per extra line: the padding
        # makes up for it, and the margin grows by the subtitle and that padding.
        margin = layout.setdefault("margin", {})
        top = margin.get("t", _TOP)
        shift = round(1.3 * size) * title["text"].count("<br>")
        title["subtitle"] = dict(title.get("subtitle", {}), text=plain(subtitle))
        title.update(y=1, yref="container", yanchor="top", pad=dict(title.get("pad", {}), t=10 + shift))
        margin["t"] = top + SUBTITLE_PX + shift
    elif title.get("yanchor") == "top" and "<br>" in title["text"]:  # the same padding, for a title alone
        shift = round(1.3 * size) * title["text"].count("<br>")
        title.update(y=1, yref="container", pad=dict(title.get("pad", {}), t=10 + shift))
    return fig


def title_settings(layout: dict) -> dict:
    """A layout's title as plotly's settings dict, in the layout (a title given as its text alone made one), to be
    changed in place."""
    title = layout.get("title")
    title = layout["title"] = dict(text=title) if isinstance(title, str) else (title or {})
    return title


def colour(i: int) -> str:
    """The i-th colour of the palette, round again after the last."""
    return theme.OKABE_ITO[i % len(theme.OKABE_ITO)]


def arrow(start, end, color: str, width: float, dash: bool = False) -> dict:
    """An arrow from start to end in data coordinates, as a layout annotation (set all at once: adding
    annotations one by one costs time that grows with their number)."""
    return dict(
        x=float(end[0]),
        y=float(end[1]),
        ax=float(start[0]),
        ay=float(start[1]),
        xref="x",
        yref="y",
        axref="x",
        ayref="y",
        showarrow=True,
        arrowhead=2 if dash else 3,
        arrowsize=1.2,
        arrowwidth=width,
        arrowcolor=color,
        opacity=0.9,
        text="",
    )


def axis_titles(explained: np.ndarray, *, words: Words) -> dict:
    """The two principal axes, titled with the variance each explains, on one scale."""
    grid = dict(zeroline=False, **GRID)
    pc1 = words._("PC1 ({share} of variance)").format(share=words.share(float(explained[0])))
    pc2 = words._("PC2 ({share} of variance)").format(share=words.share(float(explained[1])))
    return dict(
        xaxis=dict(title=dict(text=pc1), **grid),
        yaxis=dict(title=dict(text=pc2), scaleanchor="x", scaleratio=1, **grid),
    )


# A token's role in an attention matrix: as a hover line names one, and as an axis title names them all. Keyed
# by the role's name in the code ("query", "key"), translated where shown.
ONE_TOKEN = {"query": N_("query: {token}"), "key": N_("key: {token}")}
ALL_TOKENS = {"query": N_("queries"), "key": N_("keys")}


def pair_hover(row_name: str, col_name: str, value: str, *, words: Words) -> str:
    """A matrix cell's hover text: its row's and its column's tokens ("query: %{y}", "key: %{x}"), then its value
    line, as plotly fills them in."""
    return "<br>".join(
        (words._(ONE_TOKEN[row_name]).format(token="%{y}"), words._(ONE_TOKEN[col_name]).format(token="%{x}"), value)
    )
