"""What each head does, for the whole model: a map of layers × heads, each head a square coloured by its role."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from ui.figures import theme
from ui.figures.base import figure, plain
from ui.figures.text import label_px
from ui.words import locales
from ui.words.locales import N_, Words

# one colour per role, from the palette every figure uses; "mixed" in grey: no single behaviour to name
ROLE_COLOURS = {
    "first token": theme.OKABE_ITO[0],
    "previous token": theme.OKABE_ITO[1],
    "[SEP]": theme.OKABE_ITO[2],
    "self": theme.OKABE_ITO[3],
    "induction": theme.OKABE_ITO[4],
    "broad": theme.OKABE_ITO[5],
    "mixed": theme.MASKED,
}
# each role as the map names it; "[SEP]" is the model's own token
ROLE_NAMES = {
    "first token": N_("first token"),
    "previous token": N_("previous token"),
    "self": N_("self"),
    "induction": N_("induction"),
    "broad": N_("broad"),
    "mixed": N_("mixed"),
}


def role_name(role: str, *, words: Words) -> str:
    """A head's role (attention.lessons.head_roles.ROLES) in the page's language; "[SEP]", a token, keeps its own."""
    return words._(ROLE_NAMES[role]) if role in ROLE_NAMES else role


def _role_hovers(
    layers: np.ndarray, heads: np.ndarray, name: str, measures: dict[str, np.ndarray], *, words: Words
) -> list[str]:
    """Each head's hover: which head, its role, and every measure it has (a measure that is nan is left out)."""
    code = words.code
    which = words._("layer {layer}, head {head}: {role}")
    return [
        which.format(layer=li + 1, head=h + 1, role=name)
        + "<br>"
        + "<br>".join(
            f"{plain(n)} {locales.formatted(code, v[li, h], '.2f')}"
            for n, v in measures.items()
            if np.isfinite(v[li, h])
        )
        for li, h in zip(layers, heads, strict=True)
    ]


def _role_traces(roles: np.ndarray, measures: dict[str, np.ndarray], *, words: Words) -> list[dict]:
    """One trace of squares per role the model's heads have, in ROLE_COLOURS's order: its legend entry counts them."""
    n_layers, n_heads = roles.shape
    traces = []
    for role, colour in ROLE_COLOURS.items():
        layers, heads = np.nonzero(roles == role)
        if not len(layers):
            continue
        name = role_name(role, words=words)
        traces.append(
            dict(
                type="scatter",
                x=heads + 1,
                y=layers + 1,
                mode="markers",
                name=f"{name} ({len(layers)})",
                marker=dict(symbol="square", size=_square(n_layers, n_heads), color=colour, line=dict(width=0)),
                customdata=np.stack([layers, heads], axis=1),
                hovertext=_role_hovers(layers, heads, name, measures, words=words),
                hoverinfo="text",
            )
        )
    return traces


def _chosen_outline(chosen: tuple[int, int], n_layers: int, n_heads: int) -> dict:
    """An open square around the head the page shows, larger than its square; no legend entry, no hover."""
    return dict(
        type="scatter",
        x=[chosen[1] + 1],
        y=[chosen[0] + 1],
        mode="markers",
        name="shown",
        marker=dict(symbol="square-open", size=_square(n_layers, n_heads) + 6, color=theme.INK, line=dict(width=3)),
        hoverinfo="skip",
        showlegend=False,
    )


def _role_axes(n_layers: int, n_heads: int, *, words: Words) -> dict:
    """Heads across, every one numbered; layers down from 1 at the top, every other one numbered past 12."""
    return dict(
        xaxis=dict(
            title=dict(text=words._("head")),
            tickmode="array",
            tickvals=list(range(1, n_heads + 1)),
            range=[0.3, n_heads + 0.7],
        ),
        yaxis=dict(
            title=dict(text=words._("layer")),
            tickmode="array",
            tickvals=list(range(1, n_layers + 1)) if n_layers <= 12 else list(range(1, n_layers + 1, 2)),
            range=[n_layers + 0.7, 0.3],
        ),
    )


def role_map(
    roles: np.ndarray,
    measures: dict[str, np.ndarray],
    title: str,
    chosen: tuple[int, int] | None = None,
    *,
    words: Words,
) -> go.Figure:
    """(n_layers, n_heads) roles as squares, layer 1 at the top, one trace per role (its legend entry, and a click
    on a square selects that head: customdata holds its 0-based layer and head). measures: name → (n_layers,
    n_heads), shown on hover. chosen: the (layer, head) the page shows, outlined."""
    n_layers, n_heads = roles.shape
    traces = _role_traces(roles, measures, words=words)
    if chosen is not None:
        traces.append(_chosen_outline(chosen, n_layers, n_heads))
    gap = 4 if n_layers > 12 else 18  # room between rows, so that each head is a square of its own
    height = min(760, 140 + n_layers * (_square(n_layers, n_heads) + gap))
    legend_title = words._("role (heads)")
    # the legend right of the map, in the page's type like every figure: its widest entry after its swatch
    legend_px = max(label_px([t["name"] for t in traces if t.get("showlegend", True)]) + 40, label_px([legend_title]))
    return figure(
        traces,
        title,
        height,
        **_role_axes(n_layers, n_heads, words=words),
        legend=dict(orientation="v", x=1.02, xanchor="left", y=1, title=dict(text=legend_title)),
        margin=dict(r=legend_px + 20),
        clickmode="event+select",
        dragmode=False,
    )


UPRIGHT_FROM = 12  # layers: more than this, and the bars' values are written upright
BAR_VALUE_PX = 13


def _square(n_layers: int, n_heads: int) -> int:
    """Marker size in pixels, so that a map of 30 layers still fits a 1280×720 screen."""
    return 26 if n_layers <= 12 else 17


def share_by_layer(shares: np.ndarray, title: str, y_title: str, *, words: Words) -> go.Figure:
    """Each layer's mean share (over its heads), as bars, on a 0–1 axis; a layer with no share measured (a decoder
    given one token has no query past the first) has no bar and no value written."""
    measured = (~np.isnan(shares)).sum(axis=1)
    means = np.where(measured > 0, np.nansum(shares, axis=1) / np.maximum(measured, 1), np.nan)
    # a model of many layers has narrow bars: its values stand upright above them, at the size of the figures'
    # other small type, where plotly would shrink them to a bar's width (8 px on SmolLM2's 30 layers)
    upright = len(means) > UPRIGHT_FROM
    bar = dict(
        type="bar",
        x=np.arange(1, len(means) + 1),
        y=means,
        text=["" if np.isnan(m) else words.fmt(m, ".2f") for m in means],
        textposition="outside",
        textfont=dict(size=BAR_VALUE_PX),
        textangle=-90 if upright else 0,
        constraintext="none",
        cliponaxis=False,
        marker_color=theme.OKABE_ITO[0],
    )
    return figure(
        [bar],
        title,
        360 if upright else 330,
        xaxis=dict(title=dict(text=words._("layer")), tickmode="array", tickvals=list(range(1, len(means) + 1))),
        yaxis=dict(  # a share: ticks up to 1, the room above it for the values
            title=dict(text=y_title), range=[0, 1.2 if upright else 1.1], tickvals=[0, 0.2, 0.4, 0.6, 0.8, 1]
        ),
        showlegend=False,
    )
