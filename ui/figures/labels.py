"""Labels placed beside their points in a picture of vectors, in pixels: where each overlaps no label placed
before it, no arrow, and stays in the plot, with a leader line where it has to stand further out.

A page's figure asks for its labels (`later`) and the browser places them as it draws the figure
(ui/components/labels.js, this placer step for step); `placed` places them here, for a file and for Streamlit's
chart."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ui import caches
from ui.figures import theme
from ui.figures.base import axis_titles
from ui.figures.contrast import darkened
from ui.figures.text import label_box
from ui.words.locales import Words

ARROW_SIZE = 1.2  # base.arrow's arrowsize


LABEL_GAP = 3  # pixels kept clear around every label


RING = 16  # places tried around a point at each distance: every 22.5°


MAX_LABELS = 40  # a longer sentence names the rest of its points on hover only


LEADER_FROM = 12  # a label this many pixels or more from its point gets a leader line
MARKER_CLEAR = 7  # pixels a leader line keeps from another point's marker: through one, it seems to name that point
LEADER_BATCH = 8  # leader lines checked against the labels at once


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

    def axes(self, explained: np.ndarray, names: tuple[str, str] | None = None, *, words: Words) -> dict:
        """Both axes with these ranges, titled with the variance each principal direction keeps, or with names."""
        half = np.array([self.width, self.height]) / (2 * self.scale)
        titles = axis_titles(explained, words=words)
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


TURNS = np.array([0, *[s * k for k in range(1, 9) for s in (1, -1)]][:RING]) * np.pi / 8  # nearest turn first


DISTANCES = (0, 10, 24, 44, 70)  # pixels further out than beside the point, one ring each


FAR = (100, 140, 190, 250)  # further still, on a leader line, for a label with no room nearer: every token named


def _candidates(
    toward: np.ndarray, size: tuple[float, float], gap: float, distances: Sequence[int] = DISTANCES
) -> tuple[np.ndarray, np.ndarray]:
    """Offsets of a label's centre from its point, (n, 2), and whether a leader line must join each, (n,): beside
    the point in the preferred direction first, then turning away from it, then a little further out; last,
    further still on a leader line."""
    angle = math.atan2(toward[1], toward[0]) if np.any(toward) else math.pi / 2
    u = np.column_stack([np.cos(angle + TURNS), np.sin(angle + TURNS)])  # (RING, 2)
    beside = gap + np.abs(u) @ (np.array(size) / 2)  # from the point to the centre of a box just clear of it
    extra = np.repeat(np.asarray(distances, dtype=float), len(u))  # ring by ring, nearest first
    return np.tile(u, (len(distances), 1)) * (np.tile(beside, len(distances)) + extra)[:, None], extra > LEADER_FROM


def _sampled(segments: Sequence[Segment], frame: Frame, k: float) -> tuple[np.ndarray, np.ndarray]:
    """Points every 2 pixels along each segment at k times the frame's scale, and each point's half width: all
    segments at once (one by one, they were a sixth of the placer's time)."""
    if not segments:
        return np.zeros((0, 2)), np.zeros(0)
    a = frame.px([seg.start for seg in segments]) * k
    b = frame.px([seg.end for seg in segments]) * k
    half_width = np.array([seg.half_width for seg in segments])
    spanned = np.array([seg.span is not None for seg in segments])
    if spanned.any():  # from span[0] behind the end to span[1] ahead of it; a segment with no length has none
        span = np.array([seg.span or (0.0, 0.0) for seg in segments])
        length = np.sqrt(((b - a) ** 2).sum(axis=1))
        keep = ~spanned | (length > 0)
        head = spanned & keep
        u = (b - a)[head] / length[head, None]
        tip = b[head]
        a[head], b[head] = tip - u * span[head, :1], tip + u * span[head, 1:]
        a, b, half_width = a[keep], b[keep], half_width[keep]
    points, n = _lines(a, b)
    return points, np.repeat(half_width, n)


def _lines(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points every 2 pixels from each a to each b, (m, 2) both, all lines at once: their points one line after
    the other, and how many each line has."""
    n = np.maximum(2, (np.sqrt(((b - a) ** 2).sum(axis=1)) / 2).astype(int) + 1)
    line = np.repeat(np.arange(len(n)), n)
    step = np.arange(len(line)) - np.repeat(np.cumsum(n) - n, n)  # 0 … n - 1 along each line
    t = step * np.repeat(1.0 / (n - 1), n)
    t[np.cumsum(n) - 1] = 1.0  # as np.linspace: each line ends on its end
    return a[line] + t[:, None] * (b - a)[line], n


def _overlap(centres: np.ndarray, half: np.ndarray, at: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """(n,) bool: which of n boxes (centres, the same half size) overlap any of m others (at, their half sizes
    `reach`, (m, 2) or (m, 1)). Each axis is compared on its own: a ring of places is checked against thousands of
    sampled arrow points, and one (n, m) array per axis is several times quicker than an (n, m, 2) one."""
    near_x = np.abs(centres[:, None, 0] - at[None, :, 0]) < half[0] + reach[:, 0]
    near_y = np.abs(centres[:, None, 1] - at[None, :, 1]) < half[1] + reach[:, -1]
    return (near_x & near_y).any(axis=1)


def _by_x(points: np.ndarray, reach: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Points and their half widths in the order of their x."""
    order = np.argsort(points[:, 0], kind="stable")
    return points[order], reach[order]


@dataclass
class _Sheet:
    """What is drawn at one scale so far: obstacles' sampled points, sorted by x, and the labels' boxes."""

    k: float
    points: np.ndarray
    reach: np.ndarray
    boxes: list[tuple[np.ndarray, np.ndarray]]
    markers: np.ndarray  # (m, 2) the points' markers, which a leader line must not run through

    @classmethod
    def of(cls, k: float, points: np.ndarray, reach: np.ndarray, markers: np.ndarray) -> _Sheet:
        """A sheet of these obstacle points, in any order, and no label yet."""
        return cls(k, *_by_x(points, reach), [], markers)

    def add(self, points: np.ndarray, reach: float) -> None:
        """More obstacle points (a leader line), kept in order."""
        self.points, self.reach = _by_x(
            np.concatenate([self.points, points]), np.concatenate([self.reach, np.full(len(points), reach)])
        )

    def free(self, centres: np.ndarray, half: np.ndarray, frame: Frame) -> np.ndarray:
        """(n,) bool: which of n places for a label's centre keep it in the plot, off every obstacle and label."""
        bounds = np.array([self.k * frame.width, frame.height]) / 2  # a narrower plot keeps its height
        ok = (np.abs(centres) + half <= bounds).all(axis=1)
        if self.boxes:  # a few labels first, then the many arrow points, each only where still free
            where = np.flatnonzero(ok)
            centre, halves = self._boxes()
            ok[where] = ~_overlap(centres[where], half, centre, halves)
        if len(self.points):
            where = np.flatnonzero(ok)
            ok[where] = ~_overlap(centres[where], half, self.points, self.reach[:, None])
        return ok

    def _boxes(self) -> tuple[np.ndarray, np.ndarray]:
        return np.array([c for c, _ in self.boxes]), np.array([h for _, h in self.boxes])

    def crossed(self, start: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """(n,) bool: which of n leader lines, from `start` to start + each offset, cross a label or run through
        another point's marker (they may cross an arrow). Each line is its points every 2 pixels; a line is
        checked only against the labels and markers that its own box, grown by their reach, holds (of a long
        sentence's hundreds of markers, a few)."""
        if not self.boxes and not len(self.markers):
            return np.zeros(len(offsets), dtype=bool)
        ends = start + offsets
        low, high = np.minimum(start, ends), np.maximum(start, ends)  # each line's box, (n, 2) both
        points, n = _lines(np.broadcast_to(start, offsets.shape), ends)
        lines = np.split(points, np.cumsum(n)[:-1])  # each line's own points
        hit = np.zeros(len(offsets), dtype=bool)
        if self.boxes:
            centre, halves = self._boxes()
            near = ((centre[None] + halves[None] > low[:, None]) & (centre[None] - halves[None] < high[:, None])).all(
                axis=2
            )  # (lines, labels)
            for line in np.flatnonzero(near.any(axis=1)):
                on = lines[line]
                c, h = centre[near[line]], halves[near[line]]
                hit[line] = (np.abs(on[None, :, :] - c[:, None, :]) < h[:, None, :]).all(axis=2).any()
        others = self.markers[np.hypot(*(self.markers - start).T) > MARKER_CLEAR]  # not the label's own point
        if len(others):
            near = ((others[None] > low[:, None] - MARKER_CLEAR) & (others[None] < high[:, None] + MARKER_CLEAR)).all(
                axis=2
            )  # (lines, markers)
            for line in np.flatnonzero(near.any(axis=1) & ~hit):
                on = lines[line]
                on = on[np.hypot(*(on - start).T) > MARKER_CLEAR]  # the line's start sits on its own marker
                m = others[near[line]]
                hit[line] = (np.hypot(*(on[:, None, :] - m[None, :, :]).transpose(2, 0, 1)) < MARKER_CLEAR).any()
        return hit

    def labels_only(self) -> _Sheet:
        """This sheet's labels alone: a place on it only has to stay in the plot and off them, a line off them."""
        return _Sheet(self.k, np.zeros((0, 2)), np.zeros(0), self.boxes, np.zeros((0, 2)))

    def around(self, at: np.ndarray, radius: float) -> _Sheet:
        """This sheet cut to what lies within `radius` pixels of a point, all a label near it can touch: each
        label is then checked against a few dozen points rather than every arrow of a long sentence. The points
        within reach in x are found by bisection, then checked one by one."""
        widest = radius + float(self.reach.max(initial=0.0))
        xs = self.points[:, 0]
        lo, hi = np.searchsorted(xs, at[0] - widest, side="left"), np.searchsorted(xs, at[0] + widest, side="right")
        points, reach = self.points[lo:hi], self.reach[lo:hi]
        near = (np.abs(points - at) < radius + reach[:, None]).all(axis=1)
        boxes = []
        if self.boxes:
            centre, halves = self._boxes()
            inside = (np.abs(centre - at) < radius + halves).all(axis=1)
            boxes = [box for box, keep in zip(self.boxes, inside, strict=True) if keep]
        markers = self.markers[(np.abs(self.markers - at) < radius).all(axis=1)]
        return _Sheet(self.k, points[near], reach[near], boxes, markers)


# placements kept, the most recently used, shared by every session (a long sentence's holds hundreds of labels)
PLACED = caches.bounded("placements", 4 * caches.MB)


def place_labels(
    labels: Sequence[Label], frame: Frame, obstacles: Sequence[Segment], scales: Sequence[float] = (1.0,)
) -> list[dict]:
    """Plotly annotations for the labels, each beside its point, in order of importance, where it overlaps
    no label placed before it, no obstacle, and stays in the plot, at each of `scales` × the frame's scale
    (a narrower plot shows the same ranges smaller), the page's own first: a label with no such place at
    all of them gets one that holds at as many of the first as can be. A label that finds no room beside
    its point is put further out with a thin leader line to it; one with no room at all is left out, and
    its point still names itself on hover.

    Placed once per set of labels, frame, obstacles and scales, which decide it: the same picture built again
    (in another language with the same names, for another column's width, or after the figure cache let it go)
    takes the placement made before (a long sentence's takes the placer longest). Each caller gets its own dicts."""
    key = (
        tuple(labels),
        frame.centre.dtype.str,
        frame.centre.tobytes(),
        frame.scale,
        frame.width,
        frame.height,
        tuple(obstacles),
        tuple(scales),
    )
    placed = PLACED.get(key, lambda: tuple(_place(labels, frame, obstacles, scales)))
    return [p | dict(font=dict(p["font"])) for p in placed]


def _place(labels: Sequence[Label], frame: Frame, obstacles: Sequence[Segment], scales: Sequence[float]) -> list[dict]:
    """place_labels, made."""
    markers = [seg.start for seg in obstacles if seg.start == seg.end and seg.span is None]
    sheets = [
        _Sheet.of(
            k, *_sampled(obstacles, frame, k), frame.px(markers).reshape(-1, 2) * k if markers else np.zeros((0, 2))
        )
        for k in scales
    ]
    out = []
    for label in labels[:MAX_LABELS]:
        size = label_box(label.text, label.size)
        half = np.array(size) / 2 + LABEL_GAP / 2
        anchor = frame.px(label.at)
        chosen = None
        for distances in (DISTANCES, FAR):  # near the point first; far out only where nothing near is free
            candidates = _candidates(np.asarray(label.toward, dtype=float), size, label.gap, distances)
            reach = float(np.abs(candidates[0]).max()) + float(half.max()) + 1
            local = [s.around(anchor * s.k, reach) for s in sheets]
            chosen = _first_free(candidates, anchor, half, frame, local)
            if chosen:
                break
        if chosen is None:  # last, where no place is clear of every arrow: one that covers arrows, but no label
            bare = [_Sheet(s.k, np.zeros((0, 2)), np.zeros(0), s.boxes, s.markers) for s in local[:1]]
            near = _candidates(np.asarray(label.toward, dtype=float), size, label.gap)
            both = [np.concatenate(pair) for pair in zip(near, candidates, strict=True)]
            chosen = _first_free(both, anchor, half, frame, bare)
        if chosen is None:
            continue
        offset, leader = chosen
        for s in sheets:
            s.boxes.append((anchor * s.k + offset, half))
            if leader:  # later labels keep off it
                s.add(_lines(anchor[None] * s.k, (anchor * s.k + offset)[None])[0], 1.0)
        placement = dict(
            x=float(label.at[0]),
            y=float(label.at[1]),
            xref="x",
            yref="y",
            text=label.text,
            xanchor="center",
            yanchor="middle",
            font=dict(size=label.size, color=darkened(label.color)),  # its arrow's colour, as text: 4.5:1 on white
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
    candidates: tuple[np.ndarray, np.ndarray], anchor: np.ndarray, half: np.ndarray, frame: Frame, sheets: list[_Sheet]
) -> tuple[np.ndarray, bool] | None:
    """The first candidate place where a label is free on every sheet, and whether it needs a leader line; else
    the first free on as many of the first sheets as can be and, on the rest, still in the plot and off every label
    and its line across none (a label held at the page's scale alone was put on another's box at a phone's); else
    the first free on as many of the first sheets as can be; None if there is none on the first. Each sheet checks
    every place once, at once."""
    offsets, leaders = candidates
    free = []  # place by place: free on this sheet and every one before it
    for s in sheets:
        where = np.flatnonzero(free[-1]) if free else np.arange(len(offsets))
        mask = np.zeros(len(offsets), dtype=bool)
        mask[where] = s.free(anchor * s.k + offsets[where], half, frame)
        free.append(mask)
    labels = [s.labels_only() for s in sheets]
    apart = [np.ones(len(offsets), dtype=bool)]  # place by place: off every label on each sheet after this one
    for s in reversed(labels[1:]):
        apart.insert(0, apart[0] & s.free(anchor * s.k + offsets, half, frame))
    tiers = [(n, True) for n in range(len(sheets), 0, -1)] + [(n, False) for n in range(len(sheets) - 1, 0, -1)]
    for n, kept_apart in tiers:
        places = np.flatnonzero(free[n - 1] & apart[n - 1] if kept_apart else free[n - 1])
        checked = sheets[:n] + (labels[n:] if kept_apart else [])
        crossing: dict[int, bool] = {}  # for a place with a leader line: whether it crosses a label on a sheet
        for j, i in enumerate(places):
            offset, leader = offsets[i], bool(leaders[i])
            if not leader:
                return offset, leader
            if i not in crossing:  # a leader line runs from the point to the label's centre, and must cross no label
                batch = places[j : j + LEADER_BATCH]  # checked a few at once: most labels take one of the first
                lines = [s.crossed(anchor * s.k, offsets[batch]) for s in checked]
                crossing.update(zip(batch.tolist(), np.logical_or.reduce(lines).tolist(), strict=True))
            if not crossing[i]:
                return offset, leader
    return None


# --- placed where the figure is drawn ---------------------------------------------------------------------------


def later(
    labels: Sequence[Label], frame: Frame, obstacles: Sequence[Segment], scales: Sequence[float], at: int
) -> dict:
    """What place_labels needs, as JSON numbers, for layout.meta["labels"]: the browser places the labels where it
    draws the figure (ui/components/labels.js, this module's placer step for step), at the annotations' index `at`.
    A new sentence's pictures were a sixth of the server's CPU for it, placing their labels; the browser does it in
    a few milliseconds. `placed` makes the same annotations here, for a file and for Streamlit's chart."""
    shown = labels[:MAX_LABELS]  # the placer names no more
    return dict(
        frame=[
            float(frame.centre[0]),
            float(frame.centre[1]),
            float(frame.scale),
            float(frame.width),
            float(frame.height),
        ],
        scales=[float(k) for k in scales],
        at=at,
        muted=theme.MUTED,
        # each label as the browser reads it (its box measured here, its colour as text), then its colour as given
        labels=[
            [
                label.text,
                *map(float, label.at),
                *map(float, label.toward),
                *map(float, label_box(label.text, label.size)),
                label.size,
                darkened(label.color),
                float(label.gap),
                label.color,
            ]
            for label in shown
        ],
        obstacles=[
            [*map(float, seg.start), *map(float, seg.end), float(seg.half_width)]
            + (list(map(float, seg.span)) if seg.span is not None else [None, None])
            for seg in obstacles
        ],
    )


def placed(spec: dict) -> dict:
    """A figure's JSON ({"data", "layout"}) with the labels its layout.meta asks for placed among its annotations,
    as place_labels places them; the figure as it is where it asks for none."""
    layout = spec["layout"]
    meta = layout.get("meta")
    request = meta.get("labels") if isinstance(meta, dict) else None
    if request is None:
        return spec
    cx, cy, scale, width, height = request["frame"]
    frame = Frame(centre=np.array([cx, cy]), scale=scale, width=width, height=height)
    labels = [
        Label(text=text, at=(x, y), toward=(tx, ty), size=size, color=color, gap=gap)
        for text, x, y, tx, ty, _w, _h, size, _ink, gap, color in request["labels"]
    ]
    obstacles = [
        Segment((x0, y0), (x1, y1), half_width, None if behind is None else (behind, ahead))
        for x0, y0, x1, y1, half_width, behind, ahead in request["obstacles"]
    ]
    notes = list(layout.get("annotations", ()))
    notes[request["at"] : request["at"]] = place_labels(labels, frame, obstacles, request["scales"])
    layout = {**layout, "annotations": notes}
    rest = {key: value for key, value in meta.items() if key != "labels"}
    if rest:
        layout["meta"] = rest
    else:
        del layout["meta"]
    return {**spec, "layout": layout}
