"""What one layer's heads do to a token, in 2D: each head's move (displacement_figure), their sum (heads_summed_figure)\nand the step after them (after_heads_figure)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.figures import theme
from ui.figures.base import arrow, figure, title_room
from ui.figures.labels import Frame, Label, Segment, later
from ui.figures.text import wrap
from ui.figures.vectors import (
    AFTER_PLOT,
    AXIS_BOTTOM,
    CHOSEN_TEXT,
    HALF_PLOT,
    NOTE_LINE,
    NOTE_SIZE,
    PHONE_SCALE,
    PLOT_LEFT,
    PLOT_RIGHT,
    _note,
)
from ui.words.locales import Words


def displacement_figure(
    e: np.ndarray,
    e_plus_head: np.ndarray,
    explained: np.ndarray,
    head_norms: np.ndarray,
    token_label: str,
    selected_head: int,
    title: str,
    *,
    words: Words,
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
        tip(selected_head, words._("head {n}").format(n=selected_head + 1), 15, CHOSEN_TEXT),
    ]
    far_first = sorted(others, key=lambda h: -np.linalg.norm(e_plus_head[h] - e))  # far tips are easier to name
    labels += [tip(h, str(h + 1), 14, theme.OKABE_ITO[0]) for h in far_first]
    tips = dict(
        type="scatter",
        x=e_plus_head[:, 0],
        y=e_plus_head[:, 1],
        mode="markers",
        marker=dict(size=14, opacity=0),  # names every tip on hover, labelled or not
        text=[
            words._("head {n}: |Δe| = {length}").format(n=h + 1, length=words.num(head_norms[h], 2))
            for h in range(n_heads)
        ],
        hovertemplate="%{text}<extra></extra>",
    )
    start = dict(
        type="scatter",
        x=[e[0]],
        y=[e[1]],
        mode="markers",
        marker=dict(size=12, color=theme.INK),
        text=[words._("e: “{token}” entering the layer").format(token=token_label)],
        hovertemplate="%{text}<extra></extra>",
    )
    top, bottom = title_room(title), AXIS_BOTTOM
    most, least = int(np.argmax(head_norms)), int(np.argmin(head_norms))
    said = words._("{most} moves {token} the most (|Δe| = {length}), {least} the least ({least_length}).").format(
        most=words._("head {n}").format(n=most + 1),
        token=words._("“{token}”").format(token=token_label),
        length=words.num(head_norms[most], 2),
        least=words._("head {n}").format(n=least + 1),
        least_length=words.num(head_norms[least], 2),
    )
    return figure(
        [tips, start],
        title,
        top + height + bottom,
        checked=False,
        # what a screen reader hears first (ui/figures/described.py), and the labels the browser places
        meta=dict(alt=[said], labels=later(labels, frame, obstacles, (1.0, PHONE_SCALE), at=len(arrows))),
        annotations=[arrow(*a) for a in arrows],
        margin=dict(l=PLOT_LEFT, r=PLOT_RIGHT, b=bottom),
        showlegend=False,
        **frame.axes(explained, words=words),
    )


def heads_summed_figure(
    tip_to_tail: np.ndarray,
    explained: np.ndarray,
    selected_head: int,
    title: str,
    then: str,
    tip: tuple[str, str] = ("e + ΣΔe", "e + ΣΔe"),
    *,
    words: Words,
) -> go.Figure:
    """The same arrows laid tip to tail, in the same projection: they end where the green sum ΣΔe from e does.

    tip_to_tail: (n_heads + 1, 2): e, e + Δe^(1), …, e + ΣΔe. then: a note under the picture, what becomes of
    the sum in this model (ui/architecture.after_heads_note); tip: the end's label and hover text
    (ui/architecture.heads_sum_tip: e + ΣΔe is no point of a model that normalises the sum before adding it)."""
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
        Label(tip[0], tuple(end), tuple(end - e), 15, theme.OKABE_ITO[2]),
        Label(
            words._("head {n}").format(n=selected_head + 1),
            tuple(middle),
            (-shaft[1], shaft[0]),
            15,
            CHOSEN_TEXT,
            gap=6,
        ),
    ]
    joints = dict(
        type="scatter",
        x=tip_to_tail[:, 0],
        y=tip_to_tail[:, 1],
        mode="markers",
        marker=dict(size=[12] + [10] * n_heads, color=theme.INK, opacity=[1] + [0] * n_heads),
        text=["e"] + [words._("after head {n}").format(n=h + 1) for h in range(n_heads - 1)] + [tip[1]],
        hovertemplate="%{text}<extra></extra>",
    )
    note = wrap(then, PLOT_LEFT + width + PLOT_RIGHT - 20, NOTE_SIZE)  # the figure's width, less the note's inset
    top, bottom = title_room(title), AXIS_BOTTOM + NOTE_LINE * len(note)
    return figure(
        [joints],
        title,
        top + height + bottom,
        checked=False,
        meta=dict(labels=later(labels, frame, obstacles, (1.0, PHONE_SCALE), at=len(arrows))),
        annotations=[*(arrow(*a) for a in arrows), _note("<br>".join(note), AXIS_BOTTOM)],
        margin=dict(l=PLOT_LEFT, r=PLOT_RIGHT, b=bottom),
        showlegend=False,
        **frame.axes(explained, words=words),
    )


def after_heads_figure(
    points: np.ndarray,
    explained: np.ndarray,
    steps: Sequence[tuple[str, str, str, str]],
    title: str,
    unadded: np.ndarray | None = None,
    unadded_label: str = "",
    *,
    words: Words,
) -> go.Figure:
    """The step after the heads, for one token, as the model takes it, in 2D: e → e + ΣΔe → (+ b_O) → (a norm) →
    e′, or e → e′ in one step where the norm acts on the heads' sum before it is added.

    points: (len(steps), 2); steps: each point's name, the label of the step that reaches it, its caption and its
    kind ("sum", "bias", "norm"), from ui/architecture.after_heads_steps. The heads' sum is drawn green, a bias thin
    and grey, a norm orange. unadded: (2,), the heads' sum drawn from e where the model never adds it as it is, thin
    and grey beside the step it takes, named unadded_label.
    title: may run over lines (<br>); the top margin follows."""
    points = np.asarray(points, dtype=float)
    width, height = AFTER_PLOT
    extra = [] if unadded is None else [np.asarray(unadded, dtype=float)]
    frame = Frame.around(np.vstack([points, *extra]), width, height, margin=30)
    look = {
        "sum": (theme.OKABE_ITO[2], 3.0, theme.OKABE_ITO[2]),
        "bias": (theme.MUTED, 2.0, theme.SUBTLE),
        "norm": (theme.OKABE_ITO[3], 3.0, theme.OKABE_ITO[3]),
    }
    styles = [look[step[3]] for step in steps[1:]]
    arrows = [(a, b, colour, px) for a, b, (colour, px, _text) in zip(points[:-1], points[1:], styles, strict=True)]
    away = points[1] if unadded is None else (points[1] + unadded) / 2  # e's name on the side no arrow leaves by
    labels = [Label("e", tuple(points[0]), tuple(points[0] - away), 15, gap=7)]
    labels += [
        Label(step[1], tuple(b), tuple(b - a), 14, text)
        for a, b, step, (_colour, _px, text) in zip(points[:-1], points[1:], steps[1:], styles, strict=True)
    ]
    if unadded is not None:
        arrows.insert(0, (points[0], extra[0], theme.MUTED, 1.5))
        shaft = extra[0] - points[0]  # named beside its middle, on the side away from the step taken
        side = np.array([-shaft[1], shaft[0]])
        side = side if side @ (points[-1] - points[0]) < 0 else -side
        middle = (points[0] + extra[0]) / 2
        labels.append(Label(unadded_label, tuple(middle), tuple(side), 14, theme.SUBTLE, gap=6))
    obstacles = [s for a in arrows for s in Segment.arrow(a[0], a[1], a[3])]
    obstacles.append(Segment(tuple(points[0]), tuple(points[0]), 7))
    names = [step[0] for step in steps] + ([unadded_label] if unadded is not None else [])
    marked = np.vstack([points, *extra])
    marks = dict(
        type="scatter",
        x=marked[:, 0],
        y=marked[:, 1],
        mode="markers",
        marker=dict(size=[11] + [12] * (len(marked) - 1), color=theme.INK, opacity=[1] + [0] * (len(marked) - 1)),
        text=names,
        hovertemplate="%{text}<extra></extra>",
    )
    top, bottom = title_room(title), AXIS_BOTTOM
    return figure(
        [marks],
        title,
        top + height + bottom,
        checked=False,
        meta=dict(labels=later(labels, frame, obstacles, (1.0, PHONE_SCALE), at=len(arrows))),
        annotations=[arrow(*a) for a in arrows],
        margin=dict(l=PLOT_LEFT, r=PLOT_RIGHT, b=bottom),
        showlegend=False,
        **frame.axes(explained, words=words),
    )
