"""Every head of a layer at once, each its attention weights in a small panel, the chosen head framed: a click on\na panel picks that head (ui/components/head_switch.js)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.figures import theme
from ui.figures.base import Canvas, pair_hover
from ui.figures.head_meta import layout_meta
from ui.figures.head_view import STEP_VALUES, WEIGHTS, _side_label, _weights_bar, _weights_colour
from ui.figures.layout import in_layout
from ui.figures.pixels import (
    colourbar,
    colourbar_px,
    panel_name,
    paper_height,
    paper_y,
    pixel_figure,
    title_band,
    weights_bar_extra,
)
from ui.figures.text import LINE
from ui.words.locales import Words

CHOSEN = theme.OKABE_ITO[1]  # the chosen head's colour, as in the displacement picture


def heads_grid(
    weights: np.ndarray,
    labels: Sequence[str],
    head: int,
    title: str,
    layout: str = "paper",
    weight_colours: str = "unit",
    canvas: Canvas | None = None,
    roles: Sequence[str] | None = None,
    *,
    words: Words,
) -> go.Figure:
    """Every head's weights (n_heads, n_tokens, n_tokens), rows are queries, as small multiples; the chosen head
    (0-based) framed; roles: a word per head naming what it does ("" for none), after its name. Each panel's heatmap names its head in its trace's meta, which the head switch reads from a
    click on it (ui/components/head_switch.js); hover names the two tokens and the weight."""
    canvas = canvas or Canvas()
    ty = canvas.type
    n_heads, n = weights.shape[:2]
    labels = list(labels)
    cols = min(n_heads, 6 if canvas.width >= 700 else 4 if canvas.width >= 460 else 3)
    rows = -(-n_heads // cols)
    bar = colourbar_px(ty.small)
    gap = 14
    name_band = int(ty.base * LINE) + 6
    top_band = title_band(ty)
    extra = weights_bar_extra(ty.small, max_words=weight_colours == "row", words=words)
    side = (canvas.width - 8 - bar - extra - (cols - 1) * gap) // cols
    side = int(min(side, (canvas.height - top_band - rows * name_band - 8) / rows, 260))
    side = max(side, 60)
    W = canvas.width
    H = top_band + rows * (name_band + side) + 8
    row_name, col_name = ("key", "query") if layout == "notes" else ("query", "key")
    hover = pair_hover(row_name, col_name, words._(STEP_VALUES[3]).format(value="%{customdata:.3f}"), words=words)
    head_name = words._("head {n}")
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
            domain=[paper_y(y0 + side, H), paper_y(y0, H)],
            anchor=f"x{suffix}",
            visible=False,
            type="category",
            range=[n - 0.5, -0.5],
            fixedrange=True,
        )
        name = head_name.format(n=h + 1) + (f" · {roles[h]}" if roles and roles[h] and side >= 110 else "")
        annotations.append(panel_name(name, (x0 + side / 2) / W, paper_y(y0, H), ty.base, xanchor="center"))
        frames[h] = {
            "shapes[0].x0": (x0 - 4) / W,
            "shapes[0].x1": (x0 + side + 4) / W,
            "shapes[0].y0": paper_y(y0 + side + 4, H),
            "shapes[0].y1": paper_y(y0 - name_band, H),
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
                name=name,
                meta=h + 1,
                hovertemplate=hover + _side_label(head_name, h),
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
    return pixel_figure(
        traces,
        title,
        H,
        ty,
        annotations,
        layout_meta(head, range(n_heads), patches=frames, words=words) | {"pick": True},
        axes,
        shapes=[shape],
        hovermode="closest",
        coloraxis=dict(
            colorscale=WEIGHTS,
            cmin=0,
            cmax=1,
            colorbar=colourbar(
                x=(4 + cols * (side + gap) - gap + 6) / W,
                y=paper_y(top_band + (H - top_band) / 2, H),
                length=paper_height(H - top_band - name_band, H),
                size=ty.small,
                **_weights_bar(weight_colours, ty.small, words=words),
            ),
        ),
    )
