"""Vectors in a 2D picture: two vectors and their angle, a chain of weighted values, tokens moved by a layer."""

from __future__ import annotations

import html
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from .. import theme
from .base import GRID, arrow, axis_titles, figure, plain, title_room


def two_vectors(a: np.ndarray, b: np.ndarray, names: tuple[str, str] = ("a", "b")) -> go.Figure:
    """Two 2D vectors drawn from the origin, with the projection of a onto b."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    top = float(max(np.abs(a).max(), np.abs(b).max(), 1.0)) * 1.2
    arrows = [arrow((0, 0), a, theme.OKABE_ITO[0], 4), arrow((0, 0), b, theme.OKABE_ITO[3], 4)]
    traces = []
    nb = float(b @ b)
    if nb > 0:
        proj = (a @ b) / nb * b
        traces.append(
            dict(
                type="scatter",
                x=[a[0], proj[0]],
                y=[a[1], proj[1]],
                mode="lines",
                line=dict(dash="dot", color=theme.MUTED),
                name="projection of a onto b",
            )
        )
    traces.append(
        dict(
            type="scatter",
            x=[a[0], b[0]],
            y=[a[1], b[1]],
            mode="markers+text",
            text=list(names),
            textposition="top center",
            marker=dict(size=10, color=[theme.OKABE_ITO[0], theme.OKABE_ITO[3]]),
            showlegend=False,
            textfont=dict(size=18),
        )
    )
    axis = dict(range=[-top, top], zeroline=True, zerolinecolor="#bbbbbb", **GRID)
    return figure(
        traces,
        "Two vectors",
        520,
        annotations=arrows,
        xaxis=axis,
        yaxis=dict(axis, scaleanchor="x", scaleratio=1),
        legend=dict(orientation="h", y=-0.1),
    )


# --- pictures whose labels never collide ------------------------------------------------------------------
# Plotly does not keep text apart by itself. These pictures draw their points on one scale in both axes,
# with ranges fitted to a plot area of known size, so a label's size in pixels is known in data units
# too: each label goes beside its point where it touches no other label, arrow or marker.

ARROW_SIZE = 1.2  # base.arrow's arrowsize
LABEL_GAP = 3  # pixels kept clear around every label
# Plot areas in pixels, where the page is narrowest on a desktop (1280 px with the sidebar open): wider, the
# same ranges are drawn at the same scale with room to spare; on a phone they are drawn smaller.
HALF_PLOT = (322, 300)  # in half the page's width
AFTER_PLOT = (322, 220)
BEFORE_AFTER_PLOT = (740, 380)
CHAIN_PLOT = BEFORE_AFTER_PLOT  # the whole page's width too
# The same plots on a 390 px phone, where each takes the page's whole width: how much smaller they are drawn.
PHONE_SCALE = 0.87
WIDE_PHONE_SCALE = 0.38
# Margins around those plot areas, in pixels: tick labels and axis title at the left and bottom, and a line
# for a note or the legend under the axis title. The top is base.title_room: the title's lines and chart()'s
# subtitle, which each figure adds to its height so that its plot keeps the size above.
PLOT_LEFT, PLOT_RIGHT = 62, 16
AXIS_BOTTOM = 52
NOTE_LINE = 22
LEGEND_LINE = 40
NOTE_SIZE = 14
RING = 16  # places tried around a point at each distance: every 22.5°
MAX_LABELS = 40  # a longer sentence names the rest of its points on hover only
LEADER_FROM = 12  # a label this many pixels or more from its point gets a leader line
CHOSEN_TEXT = "#a86b00"  # the chosen head's orange, dark enough to read as text on white


@dataclass(frozen=True)
class Frame:
    """One scale in both axes, with ranges that fit the points, and a margin for their labels, into a plot
    area of width × height pixels. A wider plot shows more of the x range at the same scale (plotly widens
    a range to keep the axes' ratio), so labels placed for this one still fit there."""

    centre: np.ndarray  # (2,): the data point at the middle of the plot
    scale: float  # pixels per unit of the data, in both axes
    width: float
    height: float

    @classmethod
    def around(cls, points: np.ndarray, width: float, height: float, margin: float) -> Frame:
        points = np.asarray(points, dtype=float).reshape(-1, 2)
        low, high = points.min(axis=0), points.max(axis=0)
        span = high - low
        span = np.where(span > 0, span, max(float(span.max()), 1e-6))  # a flat set of points still gets a scale
        scale = min((width - 2 * margin) / span[0], (height - 2 * margin) / span[1])
        return cls(centre=(low + high) / 2, scale=float(scale), width=width, height=height)

    def px(self, points: np.ndarray) -> np.ndarray:
        """Data → pixels from the plot's centre, y up."""
        return (np.asarray(points, dtype=float) - self.centre) * self.scale

    def axes(self, explained: np.ndarray, names: tuple[str, str] | None = None) -> dict:
        """Both axes with these ranges, titled with the variance each principal direction keeps, or with names."""
        half = np.array([self.width, self.height]) / (2 * self.scale)
        titles = axis_titles(explained)
        if names is not None:
            titles = {axis: t | dict(title=dict(text=n)) for (axis, t), n in zip(titles.items(), names, strict=True)}
        return dict(
            xaxis=dict(titles["xaxis"], range=[self.centre[0] - half[0], self.centre[0] + half[0]]),
            yaxis=dict(titles["yaxis"], range=[self.centre[1] - half[1], self.centre[1] + half[1]]),
        )


@dataclass(frozen=True)
class Label:
    text: str  # as plotly shows it (user text already through plain())
    at: tuple[float, float]  # the data point it names
    toward: tuple[float, float]  # the direction it would rather sit in, from its point (data units)
    size: int = 15  # font size in pixels
    color: str = theme.INK
    gap: float = 4.0  # pixels between the point and the label's nearest edge


@dataclass(frozen=True)
class Segment:
    """Something a label must not cover: a line (an arrow's shaft; a marker when start == end), in data units,
    grown by half_width pixels each side; or, with a span, pixels back and forward from `end` along the line."""

    start: tuple[float, float]
    end: tuple[float, float]
    half_width: float  # pixels
    span: tuple[float, float] | None = None  # pixels behind and ahead of `end`, along start → end

    @classmethod
    def arrow(cls, start, end, width: float) -> list[Segment]:
        """An arrow of base.arrow: its shaft, and its head. Plotly draws arrowhead 3 from 4.45 units behind the
        tip to 1.55 ahead of it and 3 to each side, a unit being the arrow's width × its arrowsize."""
        unit = width * ARROW_SIZE
        start, end = tuple(map(float, start)), tuple(map(float, end))
        return [cls(start, end, width / 2 + 1), cls(start, end, 3 * unit + 1, span=(4.45 * unit, 1.55 * unit))]


def text_px(text: str, size: int) -> tuple[float, float]:
    """About how wide and tall a one-line label is drawn: wide (CJK) characters take a whole font size."""
    chars = html.unescape(text)
    width = sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.62 for c in chars)
    return width * size + 4, 1.25 * size


TURNS = np.array([0, *[s * k for k in range(1, 9) for s in (1, -1)]][:RING]) * np.pi / 8  # nearest turn first
DISTANCES = (0, 10, 24, 44, 70)  # pixels further out than beside the point, one ring each
FAR = (100, 140, 190, 250)  # further still, on a leader line, for a label with no room nearer: every token named


def _candidates(
    toward: np.ndarray, size: tuple[float, float], gap: float, distances: Sequence[int] = DISTANCES
) -> list[tuple[np.ndarray, bool]]:
    """Offsets of a label's centre from its point, and whether a leader line must join them: beside the point
    in the preferred direction first, then turning away from it, then a little further out; last, further
    still on a leader line."""
    angle = math.atan2(toward[1], toward[0]) if np.any(toward) else math.pi / 2
    u = np.column_stack([np.cos(angle + TURNS), np.sin(angle + TURNS)])  # (RING, 2)
    beside = gap + np.abs(u) @ (np.array(size) / 2)  # from the point to the centre of a box just clear of it
    return [(u[i] * (beside[i] + extra), extra > LEADER_FROM) for extra in distances for i in range(len(u))]


def _hits(centre: np.ndarray, half: np.ndarray, points: np.ndarray, reach: np.ndarray) -> bool:
    """Whether any of the points, each grown by its reach, falls on the box."""
    if not len(points):
        return False
    inside = (np.abs(points - centre) < half + reach[:, None]).all(axis=1)
    return bool(inside.any())


def _line(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Points every 2 pixels from a to b."""
    n = max(2, int(np.linalg.norm(b - a) / 2) + 1)
    return a + np.linspace(0, 1, n)[:, None] * (b - a)


def _sampled(segments: Sequence[Segment], frame: Frame, k: float) -> tuple[np.ndarray, np.ndarray]:
    """Points every 2 pixels along each segment at k times the frame's scale, and each point's half width."""
    points, reach = [np.zeros((0, 2))], [np.zeros(0)]
    for seg in segments:
        a, b = frame.px(seg.start) * k, frame.px(seg.end) * k
        if seg.span is not None:
            length = np.linalg.norm(b - a)
            if length == 0:
                continue
            u = (b - a) / length
            a, b = b - u * seg.span[0], b + u * seg.span[1]
        points.append(_line(a, b))
        reach.append(np.full(len(points[-1]), seg.half_width))
    return np.concatenate(points), np.concatenate(reach)


def _overlap(centres: np.ndarray, half: np.ndarray, at: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """(n,) bool: which of n boxes (centres, the same half size) overlap any of m others (at, their half sizes
    `reach`, (m, 2) or (m, 1)). Each axis is compared on its own: a ring of places is checked against thousands of
    sampled arrow points, and one (n, m) array per axis is several times quicker than an (n, m, 2) one."""
    near_x = np.abs(centres[:, None, 0] - at[None, :, 0]) < half[0] + reach[:, 0]
    near_y = np.abs(centres[:, None, 1] - at[None, :, 1]) < half[1] + reach[:, -1]
    return (near_x & near_y).any(axis=1)


@dataclass
class _Sheet:
    """What is drawn at one scale so far: obstacles' sampled points, and the labels' boxes."""

    k: float
    points: np.ndarray
    reach: np.ndarray
    boxes: list[tuple[np.ndarray, np.ndarray]]

    def free(self, centres: np.ndarray, half: np.ndarray, frame: Frame) -> np.ndarray:
        """(n,) bool: which of n places for a label's centre keep it in the plot, off every obstacle and label."""
        bounds = np.array([self.k * frame.width, frame.height]) / 2  # a narrower plot keeps its height
        ok = (np.abs(centres) + half <= bounds).all(axis=1)
        if len(self.points):
            ok &= ~_overlap(centres, half, self.points, self.reach[:, None])
        if self.boxes:
            ok &= ~_overlap(centres, half, np.array([c for c, _ in self.boxes]), np.array([h for _, h in self.boxes]))
        return ok

    def clear_line(self, line: np.ndarray) -> bool:
        """Whether a leader line crosses no label (it may cross an arrow)."""
        return not any(_hits(c, h, line, np.zeros(len(line))) for c, h in self.boxes)

    def around(self, at: np.ndarray, radius: float) -> _Sheet:
        """This sheet cut to what lies within `radius` pixels of a point, all a label near it can touch: each
        label is then checked against a few dozen points rather than every arrow of a long sentence."""
        near = (np.abs(self.points - at) < radius + self.reach[:, None]).all(axis=1)
        boxes = [(c, h) for c, h in self.boxes if np.all(np.abs(c - at) < radius + h)]
        return _Sheet(self.k, self.points[near], self.reach[near], boxes)


def place_labels(
    labels: Sequence[Label], frame: Frame, obstacles: Sequence[Segment], scales: Sequence[float] = (1.0,)
) -> list[dict]:
    """Plotly annotations for the labels, each beside its point, in order of importance, where it overlaps
    no label placed before it, no obstacle, and stays in the plot, at each of `scales` × the frame's scale
    (a narrower plot shows the same ranges smaller), the page's own first: a label with no such place at
    all of them gets one that holds at as many of the first as can be. A label that finds no room beside
    its point is put further out with a thin leader line to it; one with no room at all is left out, and
    its point still names itself on hover."""
    sheets = [_Sheet(k, *_sampled(obstacles, frame, k), []) for k in scales]
    out = []
    for label in labels[:MAX_LABELS]:
        size = text_px(label.text, label.size)
        half = np.array(size) / 2 + LABEL_GAP / 2
        anchor = frame.px(label.at)
        chosen = None
        for distances in (DISTANCES, FAR):  # near the point first; far out only where nothing near is free
            candidates = _candidates(np.asarray(label.toward, dtype=float), size, label.gap, distances)
            reach = max(float(np.abs(o).max()) for o, _ in candidates) + float(half.max()) + 1
            local = [s.around(anchor * s.k, reach) for s in sheets]
            for n in range(len(local), 0, -1):
                chosen = _first_free(candidates, anchor, half, frame, sorted(local[:n], key=lambda s: s.k))
                if chosen:
                    break
            if chosen:
                break
        if chosen is None:  # last, where no place is clear of every arrow: one that covers arrows, but no label
            bare = [_Sheet(s.k, np.zeros((0, 2)), np.zeros(0), s.boxes) for s in local[:1]]
            near = _candidates(np.asarray(label.toward, dtype=float), size, label.gap)
            chosen = _first_free(near + candidates, anchor, half, frame, bare)
        if chosen is None:
            continue
        offset, leader = chosen
        for s in sheets:
            line = _line(anchor * s.k, anchor * s.k + offset)
            s.boxes.append((anchor * s.k + offset, half))
            if leader:  # later labels keep off it
                s.points = np.concatenate([s.points, line])
                s.reach = np.concatenate([s.reach, np.full(len(line), 1.0)])
        placement = dict(
            x=float(label.at[0]),
            y=float(label.at[1]),
            xref="x",
            yref="y",
            text=label.text,
            xanchor="center",
            yanchor="middle",
            font=dict(size=label.size, color=label.color),
        )
        if leader:  # plotly draws the line from the label's edge to the point; ay counts down
            placement |= dict(
                showarrow=True,
                ax=float(offset[0]),
                ay=float(-offset[1]),
                arrowhead=0,
                arrowwidth=1,
                arrowcolor=theme.MUTED,
                standoff=2,
            )
        else:
            placement |= dict(showarrow=False, xshift=float(offset[0]), yshift=float(offset[1]))
        out.append(placement)
    return out


def _first_free(
    candidates: list[tuple[np.ndarray, bool]], anchor: np.ndarray, half: np.ndarray, frame: Frame, sheets: list[_Sheet]
) -> tuple[np.ndarray, bool] | None:
    """The first candidate place where a label is free on every sheet (the smallest scale, which rules out the
    most, checked first), and whether it needs a leader line; None if there is none."""
    for ring in range(0, len(candidates), RING):  # the nearest ring first: most labels find room there
        offsets = np.array([o for o, _ in candidates[ring : ring + RING]])
        free = np.ones(len(offsets), dtype=bool)
        for s in sheets:
            where = np.flatnonzero(free)
            free[where] = s.free(anchor * s.k + offsets[where], half, frame) if len(where) else False
        for i in ring + np.flatnonzero(free):
            offset, leader = candidates[i]
            # a leader line runs from the point to the label's centre, and must cross no label
            if not leader or all(s.clear_line(_line(anchor * s.k, anchor * s.k + offset)) for s in sheets):
                return offset, leader
    return None


def _note(text: str, below: int) -> dict:
    """A line of small type under the plot, `below` pixels under its bottom edge, from the figure's left."""
    return dict(
        text=text,
        xref="paper",
        yref="paper",
        x=0,
        y=0,
        xanchor="left",
        yanchor="top",
        xshift=14 - PLOT_LEFT,
        yshift=-below,
        showarrow=False,
        font=dict(size=NOTE_SIZE, color=theme.SUBTLE),
    )


def arrow_chain(
    start: np.ndarray,
    steps: np.ndarray,
    step_labels: Sequence[str],
    explained: np.ndarray,
    title: str,
    total_label: str = "Δe",
    named: Sequence[int] | None = None,
) -> go.Figure:
    """Arrows laid tip to tail from `start` (2D), one per step, and the total from start to the end. Each point
    names itself on hover; "e", "e + Δe" and the steps in `named` (all by default, the first the most
    important) are named beside their points where the name touches no other name, arrow or marker, in the
    page's width and on a phone (place_labels).

    step_labels: already escaped (base.token_labels)."""
    points = np.vstack([start, start + np.cumsum(steps, axis=0)])
    n = len(steps)
    named = range(n) if named is None else named
    width, height = CHAIN_PLOT
    frame = Frame.around(points, width, height, margin=30)
    arrows = [(points[i], points[i + 1], theme.OKABE_ITO[5], 2.0) for i in range(n)]
    arrows.append((points[0], points[-1], theme.OKABE_ITO[2], 4.0))
    obstacles = [s for a in arrows for s in Segment.arrow(a[0], a[1], a[3])]
    obstacles += [Segment(tuple(p), tuple(p), 4) for p in points[1:-1]]
    obstacles += [Segment(tuple(p), tuple(p), 8) for p in (points[0], points[-1])]
    total = points[-1] - points[0]
    labels = [
        Label("e", tuple(points[0]), tuple(-total), 15),
        Label(f"e + {total_label}", tuple(points[-1]), tuple(total), 15, theme.OKABE_ITO[2]),
    ]
    for i in named:
        here = points[i + 1]
        way_in, way_out = _unit(points[i] - here), _unit(points[min(i + 2, n)] - here)
        labels.append(Label(step_labels[i], tuple(here), tuple(-(way_in + way_out)), 15))
    traces = [
        dict(
            type="scatter",
            x=points[1:, 0],
            y=points[1:, 1],
            mode="markers",
            marker=dict(size=6, color=theme.OKABE_ITO[5]),
            name="after each weighted value",
            hovertext=list(step_labels),
            hovertemplate="%{hovertext}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=[points[0, 0]],
            y=[points[0, 1]],
            mode="markers",
            marker=dict(size=13, color=theme.INK),
            name="e (start)",
        ),
        dict(
            type="scatter",
            x=[points[-1, 0]],
            y=[points[-1, 1]],
            mode="markers",
            marker=dict(size=13, color=theme.OKABE_ITO[2]),
            name=f"e + {total_label}",
        ),
    ]
    top, bottom = title_room(title), AXIS_BOTTOM + LEGEND_LINE
    return figure(
        traces,
        title,
        top + height + bottom,
        annotations=[arrow(*a) for a in arrows]
        + place_labels(labels, frame, obstacles, scales=(1.0, 0.7, WIDE_PHONE_SCALE)),
        legend=dict(orientation="h", x=0, xanchor="left", y=-(AXIS_BOTTOM + 6) / height, yanchor="top"),
        margin=dict(l=PLOT_LEFT, r=PLOT_RIGHT, b=bottom, autoexpand=False),  # the plot keeps its size
        **frame.axes(explained),
    )


def _unit(v: np.ndarray) -> np.ndarray:
    """v at length 1 (zero stays zero)."""
    length = float(np.linalg.norm(v))
    return v / length if length > 0 else np.zeros_like(v)


def displacement_figure(
    e: np.ndarray,
    e_plus_head: np.ndarray,
    explained: np.ndarray,
    head_norms: np.ndarray,
    token_label: str,
    selected_head: int,
    title: str,
) -> go.Figure:
    """One token j, in 2D: e_j and an arrow per head to e_j + Δe_j^(h), at the scale of the heads' arrows
    (their sum, often several times longer, is heads_summed_figure's), each head numbered at its tip.

    e: (2,); e_plus_head: (n_heads, 2); head_norms: (n_heads,) true lengths, for hover.
    title: may run over lines (<br>); the top margin follows."""
    n_heads = len(e_plus_head)
    others = [h for h in range(n_heads) if h != selected_head]
    width, height = HALF_PLOT
    frame = Frame.around(np.vstack([e, e_plus_head]), width, height, margin=34)
    arrows = [(e, e_plus_head[h], theme.OKABE_ITO[0], 2.0) for h in others]
    arrows.append((e, e_plus_head[selected_head], theme.OKABE_ITO[1], 3.5))
    obstacles = [s for a in arrows for s in Segment.arrow(a[0], a[1], a[3])]
    obstacles.append(Segment(tuple(e), tuple(e), 8))  # the marker of e

    def tip(h: int, text: str, size: int, color: str) -> Label:
        return Label(text, tuple(e_plus_head[h]), tuple(e_plus_head[h] - e), size, color)  # past the arrowhead

    mean_tip = e_plus_head.mean(axis=0)
    labels = [
        Label("e", tuple(e), tuple(e - mean_tip), 16, gap=8),
        tip(selected_head, f"head {selected_head + 1}", 15, CHOSEN_TEXT),
    ]
    far_first = sorted(others, key=lambda h: -np.linalg.norm(e_plus_head[h] - e))  # far tips are easier to name
    labels += [tip(h, str(h + 1), 14, theme.OKABE_ITO[0]) for h in far_first]
    tips = dict(
        type="scatter",
        x=e_plus_head[:, 0],
        y=e_plus_head[:, 1],
        mode="markers",
        marker=dict(size=14, opacity=0),  # names every tip on hover, labelled or not
        text=[f"head {h + 1}: |Δe| = {head_norms[h]:.2f}" for h in range(n_heads)],
        hovertemplate="%{text}<extra></extra>",
    )
    start = dict(
        type="scatter",
        x=[e[0]],
        y=[e[1]],
        mode="markers",
        marker=dict(size=12, color=theme.INK),
        text=[f"e: “{token_label}” entering the layer"],
        hovertemplate="%{text}<extra></extra>",
    )
    top, bottom = title_room(title), AXIS_BOTTOM
    return figure(
        [tips, start],
        title,
        top + height + bottom,
        checked=False,
        annotations=[arrow(*a) for a in arrows] + place_labels(labels, frame, obstacles, scales=(1.0, PHONE_SCALE)),
        margin=dict(l=PLOT_LEFT, r=PLOT_RIGHT, b=bottom),
        showlegend=False,
        **frame.axes(explained),
    )


def heads_summed_figure(
    tip_to_tail: np.ndarray, explained: np.ndarray, selected_head: int, title: str, layer_norm: bool = True
) -> go.Figure:
    """The same arrows laid tip to tail, in the same projection: they end where the green sum e + ΣΔe does.

    tip_to_tail: (n_heads + 1, 2): e, e + Δe^(1), …, e + ΣΔe. layer_norm: whether e′ is then
    LayerNorm(e + ΣΔe + b_O) (BERT) or e + ΣΔe + b_O itself (GPT-2); a note under the picture says which."""
    e, end = tip_to_tail[0], tip_to_tail[-1]
    n_heads = len(tip_to_tail) - 1
    width, height = HALF_PLOT
    frame = Frame.around(tip_to_tail, width, height, margin=34)
    arrows = [(e, end, theme.OKABE_ITO[2], 4.0)]
    arrows += [
        (tip_to_tail[h], tip_to_tail[h + 1], theme.OKABE_ITO[1] if h == selected_head else theme.OKABE_ITO[0], 2.0)
        for h in range(n_heads)
    ]
    obstacles = [s for a in arrows for s in Segment.arrow(a[0], a[1], a[3])]
    obstacles.append(Segment(tuple(e), tuple(e), 8))
    middle = (tip_to_tail[selected_head] + tip_to_tail[selected_head + 1]) / 2
    shaft = tip_to_tail[selected_head + 1] - tip_to_tail[selected_head]
    labels = [
        Label("e", tuple(e), tuple(e - end), 16, gap=8),
        Label("e + ΣΔe", tuple(end), tuple(end - e), 15, theme.OKABE_ITO[2]),
        Label(f"head {selected_head + 1}", tuple(middle), (-shaft[1], shaft[0]), 15, CHOSEN_TEXT, gap=6),
    ]
    joints = dict(
        type="scatter",
        x=tip_to_tail[:, 0],
        y=tip_to_tail[:, 1],
        mode="markers",
        marker=dict(size=[12] + [10] * n_heads, color=theme.INK, opacity=[1] + [0] * n_heads),
        text=["e"] + [f"after head {h + 1}" for h in range(n_heads - 1)] + ["e + ΣΔe: every head added"],
        hovertemplate="%{text}<extra></extra>",
    )
    then = "Then e′ = LayerNorm(e + ΣΔe + b_O)." if layer_norm else "GPT-2: e′ = e + ΣΔe + b_O (no LayerNorm)."
    top, bottom = title_room(title), AXIS_BOTTOM + NOTE_LINE
    return figure(
        [joints],
        title,
        top + height + bottom,
        checked=False,
        annotations=[arrow(*a) for a in arrows]
        + place_labels(labels, frame, obstacles, scales=(1.0, PHONE_SCALE))
        + [_note(then, AXIS_BOTTOM)],
        margin=dict(l=PLOT_LEFT, r=PLOT_RIGHT, b=bottom),
        showlegend=False,
        **frame.axes(explained),
    )


def after_heads_figure(points: np.ndarray, explained: np.ndarray, layer_norm: bool, title: str) -> go.Figure:
    """The step after the heads, for one token: e → e + ΣΔe → + b_O → (BERT) LayerNorm → e′, in 2D.

    points: (4, 2): e, e + ΣΔe, e + ΣΔe + b_O, e′ (for GPT-2 the last two are one point).
    title: may run over lines (<br>); the top margin follows."""
    points = np.asarray(points, dtype=float)
    e, summed, biased, updated = points
    width, height = AFTER_PLOT
    frame = Frame.around(points, width, height, margin=30)
    arrows = [(e, summed, theme.OKABE_ITO[2], 3.0), (summed, biased, theme.MUTED, 2.0)]
    if layer_norm:
        arrows.append((biased, updated, theme.OKABE_ITO[3], 3.0))
    obstacles = [s for a in arrows for s in Segment.arrow(a[0], a[1], a[3])]
    obstacles.append(Segment(tuple(e), tuple(e), 7))
    labels = [
        Label("e", tuple(e), tuple(e - summed), 15, gap=7),
        Label("+ ΣΔe", tuple(summed), tuple(summed - e), 14, theme.OKABE_ITO[2]),
    ]
    if layer_norm:
        labels += [
            Label("LayerNorm → e′", tuple(updated), tuple(updated - biased), 14, theme.OKABE_ITO[3]),
            Label("+ b_O", tuple(biased), tuple(biased - summed), 14, theme.SUBTLE),
        ]
    else:
        labels.append(Label("+ b_O = e′", tuple(biased), tuple(biased - summed), 14, theme.INK))
    names = ["e", "e + ΣΔe", "e + ΣΔe + b_O", "e′ = LayerNorm(e + ΣΔe + b_O)" if layer_norm else "e′"]
    marks = dict(
        type="scatter",
        x=points[:, 0],
        y=points[:, 1],
        mode="markers",
        marker=dict(size=[11, 12, 12, 12], color=theme.INK, opacity=[1, 0, 0, 0]),  # e; the others end arrows
        text=names,
        hovertemplate="%{text}<extra></extra>",
    )
    top, bottom = title_room(title), AXIS_BOTTOM
    return figure(
        [marks],
        title,
        top + height + bottom,
        checked=False,
        annotations=[arrow(*a) for a in arrows] + place_labels(labels, frame, obstacles, scales=(1.0, PHONE_SCALE)),
        margin=dict(l=PLOT_LEFT, r=PLOT_RIGHT, b=bottom),
        showlegend=False,
        **frame.axes(explained),
    )


def before_after_figure(
    before: np.ndarray,
    after: np.ndarray,
    explained: np.ndarray,
    labels: Sequence[str],
    after_name: str = "after",
    title: str = "Every token, before → after",
    before_name: str = "before",
    axis_names: tuple[str, str] | None = None,
) -> go.Figure:
    """Every token before → after a step, in one 2D projection, with an arrow each; each token named at its
    after point where the name touches no other name or arrow (else on hover), in the page's width and on a
    phone. The legend sits under the plot, clear of a subtitle. title: may run over lines (<br>).
    axis_names: the axes' titles, where they are not the principal directions of the points drawn."""
    labels = list(labels)
    width, height = BEFORE_AFTER_PLOT
    frame = Frame.around(np.vstack([before, after]), width, height, margin=30)
    obstacles = [s for i in range(len(labels)) for s in Segment.arrow(before[i], after[i], 1.5)]
    obstacles += [Segment(tuple(p), tuple(p), 6) for p in np.vstack([before, after])]
    names = [Label(lbl, tuple(after[i]), tuple(after[i] - before[i]), 14) for i, lbl in enumerate(labels)]
    traces = [
        dict(
            type="scatter",
            x=before[:, 0],
            y=before[:, 1],
            mode="markers",
            name=before_name,
            marker=dict(size=10, color="white", line=dict(color=theme.OKABE_ITO[0], width=2)),
            text=labels,
            hovertemplate="%{text}<extra>" + before_name + "</extra>",
        ),
        dict(
            type="scatter",
            x=after[:, 0],
            y=after[:, 1],
            mode="markers",
            name=plain(after_name),
            marker=dict(size=10, color=theme.OKABE_ITO[3]),
            text=labels,
            hovertemplate="%{text}<extra>" + plain(after_name) + "</extra>",
        ),
    ]
    top, bottom = title_room(title), AXIS_BOTTOM + LEGEND_LINE
    return figure(
        traces,
        title,
        top + height + bottom,
        checked=False,
        annotations=[arrow(before[i], after[i], "#9aa3ad", 1.5) for i in range(len(labels))]
        + place_labels(names, frame, obstacles, scales=(1.0, 0.7, WIDE_PHONE_SCALE)),
        legend=dict(orientation="h", x=0, xanchor="left", y=-(AXIS_BOTTOM + 6) / height, yanchor="top"),
        margin=dict(l=PLOT_LEFT, r=PLOT_RIGHT, b=bottom, autoexpand=False),  # the plot keeps its size
        **frame.axes(explained, axis_names),
    )


def moves_figure(
    moves: np.ndarray, explained: np.ndarray, labels: Sequence[str], moved_by: str, title: str
) -> go.Figure:
    """Every token's displacement Δe as an arrow from one common start, so that their lengths and directions
    compare, in a projection fitted to the Δe (geometry.displacement_directions): each axis titled with its
    share of Σ|Δe|². A token's after point is its before point plus its arrow.

    moves: (n_tokens, 2); moved_by: what moved them, for the arrows' tips ("ΣΔe", "Δe⁽³⁾")."""
    moves = np.asarray(moves, dtype=float)
    return before_after_figure(
        np.zeros_like(moves),
        moves,
        explained,
        labels,
        after_name=f"e + {moved_by}",
        title=title,
        before_name="each token's e, drawn at one start",
        axis_names=(
            f"direction 1 of the moves ({explained[0]:.0%} of Σ|Δe|²)",
            f"direction 2 ({explained[1]:.0%} of Σ|Δe|²)",
        ),
    )
