"""Names beside the points of a vector picture (ui/figures/labels.py), as the figure places them, in pixels."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go

import attention
from attention.lessons import geometry
from tests.sentences import FLUFFY
from ui import figures
from ui.components import plot
from ui.figures import labels
from ui.figures.labels import MARKER_CLEAR
from ui.figures.vectors import BEFORE_AFTER_PLOT
from ui.words import i18n


def leaders(fig) -> list[tuple[np.ndarray, np.ndarray, str]]:
    """Each name on a leader line: the point it names and the label's centre, in pixels of the plot (y up). The
    labels placed as the page's browser places them (ui/components/labels.js, the same as labels.placed)."""
    layout = labels.placed(json.loads(plot.spec(fig)))["layout"]
    (x0, x1), (y0, _y1) = layout["xaxis"]["range"], layout["yaxis"]["range"]
    scale = BEFORE_AFTER_PLOT[0] / (x1 - x0)
    out = []
    for a in layout["annotations"]:
        if a.get("text") and a.get("showarrow") and a.get("ax") is not None and a.get("arrowhead") == 0:
            point = np.array([(a["x"] - x0) * scale, (a["y"] - y0) * scale])
            out.append((point, point + np.array([a["ax"], -a["ay"]]), a["text"]))
    return out, scale, (x0, y0)


def test_a_leader_line_runs_through_no_other_point(model):
    """Chapter 10's moves on MiniLM's first layer: every token's arrow from one start, and "forest", named far out,
    had its leader line run through that common start, as if it named it."""
    trace = attention.trace(model, FLUFFY)
    moves = geometry.displacement_directions(trace.layers[0].displacement.sum(axis=0))
    labels = figures.token_labels([t.display for t in trace.tokens])
    fig = figures.moves_figure(moves.moves, moves.projection.explained, labels, "ΣΔe", "moves", words=i18n.words())
    lines, scale, (x0, y0) = leaders(fig)
    markers = np.vstack([np.zeros((1, 2)), moves.moves])  # the common start, and every token's after point
    markers_px = (markers - [x0, y0]) * scale
    assert lines, "no name on a leader line: the case this checks is gone"
    for point, label, text in lines:
        t = np.linspace(0, 1, 200)[:, None]
        line = point + t * (label - point)
        others = markers_px[np.hypot(*(markers_px - point).T) > MARKER_CLEAR]
        away = np.hypot(*(line - point).T) > MARKER_CLEAR
        nearest = np.hypot(*(line[away, None, :] - others[None]).transpose(2, 0, 1)).min()
        assert nearest >= MARKER_CLEAR - 1, f"{text}'s leader line runs {nearest:.1f} px from another point"


def test_a_vectors_coordinates_are_numbered_apart_however_many_they_are():
    """The q/k/v panels number their coordinates every 4 or 8 as the lesson counts them, and, for Gemma's 256 in a
    third of the page's column, far enough apart that no two numbers touch (they were 32 numbers on 230 px)."""
    from ui.figures.base import Canvas
    from ui.figures.qkv import qkv_figure
    from ui.figures.text import text_px

    rng = np.random.default_rng(0)
    for d, most in ((32, 8), (64, 8), (256, None)):
        q, k, v = (rng.normal(size=(1, 5, d)) for _ in range(3))
        fig = go.Figure(qkv_figure(q, k, v, ["a", "b", "c", "d", "e"], 0, [0], "t", words=i18n.words()))
        axis = fig.layout.xaxis
        width = (axis.domain[1] - axis.domain[0]) * Canvas().width  # the column the figure is laid out for
        step_px = width / d * axis.dtick
        widest = text_px(str(d - axis.dtick), axis.tickfont.size)
        assert step_px >= widest + 4, (d, axis.dtick, step_px, widest)
        if most:
            assert axis.dtick <= most  # as the lesson counts: 0, 8, 16, 24 for MiniLM's 32
