"""Vectors in a 2D picture: two vectors and their angle, a chain of weighted values, tokens moved by a layer."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.figures import theme
from ui.figures.base import GRID, arrow, figure, plain, title_room
from ui.figures.labels import Frame, Label, Segment, later
from ui.words.locales import Words


def two_vectors(a: np.ndarray, b: np.ndarray, names: tuple[str, str] = ("a", "b"), *, words: Words) -> go.Figure:
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
                name=words._("projection of {a} onto {b}").format(a=names[0], b=names[1]),
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
        words._("Two vectors"),
        520,
        annotations=arrows,
        xaxis=axis,
        yaxis=dict(axis, scaleanchor="x", scaleratio=1),
        legend=dict(orientation="h", y=-0.1),
    )


# --- pictures whose labels never collide ------------------------------------------------------------------
# Plotly does not keep text apart by itself. These pictures draw their points on one scale in both axes,
# with ranges fitted to a plot area of known size, so a label's size in pixels is known in data units
# too: each label goes beside its point where it touches no other label, arrow or marker (labels.py).

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
PLOT_LEFT, PLOT_RIGHT = 78, 16  # the left: "−0.05" at 15 px, its tick and the axis title beside it
AXIS_BOTTOM = 52
NOTE_LINE = 22
LEGEND_LINE = 40
NOTE_SIZE = 14
CHOSEN_TEXT = "#a86b00"  # the chosen head's orange, dark enough to read as text on white


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
        align="left",  # its lines, where it wraps, under each other
        font=dict(size=NOTE_SIZE, color=theme.SUBTLE),
    )


def _unit(v: np.ndarray) -> np.ndarray:
    """v at length 1 (zero stays zero)."""
    length = float(np.linalg.norm(v))
    return v / length if length > 0 else np.zeros_like(v)


def arrow_chain(
    start: np.ndarray,
    steps: np.ndarray,
    step_labels: Sequence[str],
    explained: np.ndarray,
    title: str,
    total_label: str = "Δe",
    named: Sequence[int] | None = None,
    end_label: str | None = None,
    *,
    words: Words,
) -> go.Figure:
    """Arrows laid tip to tail from `start` (2D), one per step, and the total from start to the end. Each point
    names itself on hover; "e", "e + Δe" and the steps in `named` (all by default, the first the most
    important) are named beside their points where the name touches no other name, arrow or marker, in the
    page's width and on a phone (place_labels).

    step_labels: already escaped (base.token_labels).
    end_label: the end point's name, "e + {total_label}" unless the model never forms that point."""
    end_label = f"e + {total_label}" if end_label is None else end_label
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
        Label(end_label, tuple(points[-1]), tuple(total), 15, theme.OKABE_ITO[2]),
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
            name=words._("after each weighted value"),
            hovertext=list(step_labels),
            hovertemplate="%{hovertext}<extra></extra>",
        ),
        dict(
            type="scatter",
            x=[points[0, 0]],
            y=[points[0, 1]],
            mode="markers",
            marker=dict(size=13, color=theme.INK),
            name=words._("e (start)"),
        ),
        dict(
            type="scatter",
            x=[points[-1, 0]],
            y=[points[-1, 1]],
            mode="markers",
            marker=dict(size=13, color=theme.OKABE_ITO[2]),
            name=end_label,
        ),
    ]
    top, bottom = title_room(title), AXIS_BOTTOM + LEGEND_LINE
    return figure(
        traces,
        title,
        top + height + bottom,
        meta=dict(labels=later(labels, frame, obstacles, (1.0, 0.7, WIDE_PHONE_SCALE), at=len(arrows))),
        annotations=[arrow(*a) for a in arrows],
        legend=dict(orientation="h", x=0, xanchor="left", y=-(AXIS_BOTTOM + 6) / height, yanchor="top"),
        margin=dict(l=PLOT_LEFT, r=PLOT_RIGHT, b=bottom, autoexpand=False),  # the plot keeps its size
        **frame.axes(explained, words=words),
    )


def before_after_figure(
    before: np.ndarray,
    after: np.ndarray,
    explained: np.ndarray,
    labels: Sequence[str],
    after_name: str | None = None,
    title: str | None = None,
    before_name: str | None = None,
    axis_names: tuple[str, str] | None = None,
    *,
    words: Words,
) -> go.Figure:
    """Every token before → after a step, in one 2D projection, with an arrow each; each token named at its
    after point where the name touches no other name or arrow (else on hover), in the page's width and on a
    phone. The legend sits under the plot, clear of a subtitle. title: may run over lines (<br>).
    after_name, title and before_name: by default "after", "Every token, before → after" and "before", in the
    page's language. axis_names: the axes' titles, where they are not the principal directions of the points."""
    labels = list(labels)
    after_name = after_name or words._("after")
    title = title or words._("Every token, before → after")
    before_name = before_name or words._("before")
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
        meta=dict(labels=later(names, frame, obstacles, (1.0, 0.7, WIDE_PHONE_SCALE), at=len(labels))),
        annotations=[arrow(before[i], after[i], "#9aa3ad", 1.5) for i in range(len(labels))],
        legend=dict(orientation="h", x=0, xanchor="left", y=-(AXIS_BOTTOM + 6) / height, yanchor="top"),
        margin=dict(l=PLOT_LEFT, r=PLOT_RIGHT, b=bottom, autoexpand=False),  # the plot keeps its size
        **frame.axes(explained, axis_names, words=words),
    )


def moves_figure(
    moves: np.ndarray, explained: np.ndarray, labels: Sequence[str], moved_by: str, title: str, *, words: Words
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
        after_name=words._("the tip of its {moved}").format(moved=moved_by),
        title=title,
        before_name=words._("each token's e, drawn at one start"),
        axis_names=(
            words._("direction 1 of the moves ({share} of Σ|Δe|²)").format(share=words.share(float(explained[0]))),
            words._("direction 2 ({share} of Σ|Δe|²)").format(share=words.share(float(explained[1]))),
        ),
        words=words,
    )
