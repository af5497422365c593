"""Figure builders: plain arrays and token labels in, a plotly Figure out. No Streamlit here.

Axes run over token positions and show the token's text as tick labels, so a repeated word
("bank" … "bank") keeps two rows. Every piece of user text goes through `plain()` first:
plotly reads a few HTML tags in its strings, and user text must never be read as HTML.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from . import theme

NUMBERS_UP_TO = 16  # print the value in every cell while the matrix is at most this many tokens wide
HALF_WIDTH_NUMBERS = 8  # the same for a heatmap in half the page's width
GRID = dict(showgrid=True, gridcolor="#eeeeee")  # light grid lines, for charts whose coordinates are read


def plain(text: str) -> str:
    """Text that plotly shows literally: its HTML-like tags and entities are escaped."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def token_labels(texts: Sequence[str], positions: Sequence[int] | None = None) -> list[str]:
    """Axis labels: the token's text, escaped, with its position when a text repeats."""
    positions = list(range(len(texts))) if positions is None else list(positions)
    counts: dict[str, int] = {}
    for t in texts:
        counts[t] = counts.get(t, 0) + 1
    return [plain(t) + (f" ({p})" if counts[t] > 1 else "") for t, p in zip(texts, positions)]


def label_px(labels: Sequence[str], font_px: int = 15) -> int:
    """About how wide the longest label is drawn, in pixels. Margins are set from this rather than by
    plotly's automargin, which redraws a figure again to measure it and made every update slower."""
    longest = max((len(html.unescape(lbl)) for lbl in labels), default=1)
    return int(0.62 * font_px * longest) + 8


def _figure(traces: Sequence[dict], title: str | dict, height: int, **layout) -> go.Figure:
    """The figure in one step, with our template. Plotly checks a figure given whole several times faster
    than one updated property by property, and every chart is rebuilt on every change of the view.

    title: its text, or plotly's title settings with the text among them."""
    title = dict(text=title) if isinstance(title, str) else title
    return go.Figure(data=list(traces), layout=dict(template=theme.TEMPLATE, title=title, height=height, **layout))


# --- tokens ------------------------------------------------------------------------------------


def token_chips(texts: Sequence[str], special: Sequence[bool], continuation: Sequence[bool], width: float = 64.0) -> go.Figure:
    """The tokens as chips in reading order, each with its position; word pieces and special tokens marked.

    Drawn with a handful of traces (not a shape per token), so hundreds of tokens draw quickly.
    """
    x, row, gap = 0.0, 0, 0.6
    xs, rows, widths = [], [], []
    for t in texts:
        w = max(2.2, 0.62 * len(t) + 1.2)
        if x + w > width and x > 0:
            x, row = 0.0, row + 1
        xs.append(x)
        rows.append(row)
        widths.append(w)
        x += w + gap
    n_rows = row + 1
    kinds = {
        "word": ("starts a word", "#dcebf7", theme.OKABE_ITO[0]),
        "piece": ("word piece (##)", "#fde9c8", theme.OKABE_ITO[1]),
        "special": ("special token", "#e6e6e6", theme.MUTED),
    }
    kind_of = ["special" if special[i] else "piece" if continuation[i] else "word" for i in range(len(texts))]
    traces = []
    for kind, (name, fill, line) in kinds.items():
        px, py = [], []
        for i, k in enumerate(kind_of):
            if k == kind:
                x0, x1, y = xs[i], xs[i] + widths[i], -rows[i] * 1.6
                px += [x0, x1, x1, x0, x0, None]
                py += [y - 0.5, y - 0.5, y + 0.5, y + 0.5, y - 0.5, None]
        traces.append(dict(type="scatter", x=px or [None], y=py or [None], mode="lines", fill="toself", fillcolor=fill,
                           name=name, line=dict(color=line, width=1.5), hoverinfo="skip"))
    centres = [xs[i] + widths[i] / 2 for i in range(len(texts))]
    ys = [-r * 1.6 for r in rows]
    traces.append(dict(type="scatter", x=centres, y=ys, mode="text", text=[plain(t) for t in texts],
                       textfont=dict(size=16, color=theme.INK), showlegend=False,
                       hovertext=[f"position {i}" for i in range(len(texts))], hoverinfo="text"))
    traces.append(dict(type="scatter", x=centres, y=[y + 0.75 for y in ys], mode="text", text=[str(i) for i in range(len(texts))],
                       textfont=dict(size=11, color=theme.MUTED), showlegend=False, hoverinfo="skip"))
    return _figure(traces, f"{len(texts)} tokens", 90 + 62 * n_rows,
                   xaxis=dict(visible=False, range=[-0.5, width + 0.5]),
                   yaxis=dict(visible=False, range=[-(n_rows - 1) * 1.6 - 0.8, 1.3]),
                   legend=dict(orientation="h", y=-0.02, yanchor="top", x=0), margin=dict(l=10, r=10, t=40, b=10))


# --- matrices ----------------------------------------------------------------------------------


def attention_heatmap(
    matrix: np.ndarray,
    labels: Sequence[str],
    title: str,
    kind: str = "weights",
    layout: str = "paper",
    numbers: bool | None = None,
    key_labels: Sequence[str] | None = None,
) -> go.Figure:
    """One (n_queries, n_keys) matrix from the trace, drawn in `layout` (paper: rows are queries;
    notes: columns are queries). −∞ cells are drawn grey and labelled −∞, never as 0.

    kind: "scores" (diverging scale around 0) or "weights" (0 to 1).
    key_labels: when keys are other tokens than queries (cross-attention); `labels` then names the queries.
    """
    query_labels = list(labels)
    key_labels = query_labels if key_labels is None else list(key_labels)
    m = np.asarray(matrix, dtype=np.float64)
    if layout == "notes":
        m = m.T
        row_name, col_name = "key", "query"
        row_labels, col_labels = key_labels, query_labels
    else:
        row_name, col_name = "query", "key"
        row_labels, col_labels = query_labels, key_labels
    n_rows, n_cols = m.shape
    masked = np.isneginf(m)
    z = np.where(masked, np.nan, m)
    numbers = (max(n_rows, n_cols) <= NUMBERS_UP_TO) if numbers is None else numbers
    fmt = ".2f" if kind == "weights" else ".1f"
    if kind == "weights":
        colorscale, zmin, zmax, zmid = theme.WEIGHTS_SCALE, 0.0, 1.0, None
    else:
        finite = np.abs(z[np.isfinite(z)])
        top = float(finite.max()) if finite.size else 1.0
        colorscale, zmin, zmax, zmid = theme.SCORES_SCALE, -top, top, 0.0
    cells = {}
    if numbers:  # the printed numbers; −∞ where masked
        cells = dict(text=[["−∞" if np.isneginf(v) else format(v, fmt) for v in row] for row in m], texttemplate="%{text}",
                     textfont=dict(size=13 if n_cols <= 10 else 11))
    heatmap = dict(
        type="heatmap",
        z=z.astype(np.float32),
        x=col_labels,  # unique labels (a repeated word carries its position), so the axes are by position
        y=row_labels,
        colorscale=colorscale,
        zmin=zmin,
        zmax=zmax,
        zmid=zmid,
        hoverongaps=False,
        hovertemplate=f"{row_name}: %{{y}}<br>{col_name}: %{{x}}<br>value: %{{z:{'.3f' if kind == 'weights' else '.2f'}}}<extra></extra>",
        colorbar=dict(thickness=14, len=0.9),
        xgap=1 if n_cols <= 40 else 0,
        ygap=1 if n_rows <= 40 else 0,
        **cells,
    )
    plural = {"query": "queries", "key": "keys"}
    top = 80 + (int(label_px(col_labels) * 0.87) if n_cols > 6 else 22)  # title, axis title, slanted labels
    return _figure(
        [heatmap], dict(text=title, y=0.995, yanchor="top", yref="container"), max(340, min(860, top + 60 + 34 * n_rows)),
        xaxis=dict(title=dict(text=plural[col_name]), side="top", type="category", tickangle=-60 if n_cols > 6 else 0),
        yaxis=dict(title=dict(text=plural[row_name]), type="category", autorange="reversed"),
        plot_bgcolor=theme.MASKED if masked.any() else "white",
        margin=dict(t=top, l=label_px(row_labels) + 45, r=20, b=20),
    )


def vectors_heatmap(vectors: np.ndarray, labels: Sequence[str], title: str) -> go.Figure:
    """(n_tokens, d_head) vectors as a heatmap: one row per token, one column per coordinate."""
    v = np.asarray(vectors, dtype=np.float64)
    top = float(np.abs(v).max()) or 1.0
    n, d = v.shape
    heatmap = dict(type="heatmap", z=v.astype(np.float32), x=list(range(d)), y=list(labels), colorscale=theme.VECTORS_SCALE,
                   zmin=-top, zmax=top, zmid=0, hovertemplate="token: %{y}<br>coordinate %{x}<br>value: %{z:.3f}<extra></extra>",
                   colorbar=dict(thickness=12, len=0.9))
    return _figure([heatmap], title, max(300, min(700, 120 + 24 * n)),
                   xaxis=dict(title=dict(text="coordinate")), yaxis=dict(type="category", autorange="reversed"),
                   margin=dict(l=label_px(labels) + 15, r=10, t=50, b=55))


def _domains(n: int, spacing: float) -> list[tuple[float, float]]:
    """n equal intervals of [0, 1] with `spacing` between them, from the left (or the bottom)."""
    size = (1 - spacing * (n - 1)) / n
    return [(i * (size + spacing), i * (size + spacing) + size) for i in range(n)]


def head_grid(weights: np.ndarray, labels: Sequence[str], layout: str = "paper", title: str = "") -> go.Figure:
    """Every head's weights of one layer as small multiples on one shared 0-to-1 scale."""
    n_heads = weights.shape[0]
    cols = min(6, n_heads)
    rows = math.ceil(n_heads / cols)
    x_domains, y_domains = _domains(cols, 0.02), _domains(rows, 0.08)[::-1]  # the first row at the top
    labels = list(labels)
    row_name, col_name = ("key", "query") if layout == "notes" else ("query", "key")
    traces, axes, names = [], {}, []
    for h in range(n_heads):
        m = weights[h].T if layout == "notes" else weights[h]
        n = "" if h == 0 else str(h + 1)  # plotly names the axes x, x2, x3…
        x_domain, y_domain = x_domains[h % cols], y_domains[h // cols]
        traces.append(dict(type="heatmap", z=np.asarray(m, dtype=np.float32), x=labels, y=labels, coloraxis="coloraxis",
                           xaxis=f"x{n}", yaxis=f"y{n}",
                           hovertemplate=f"head {h + 1}<br>{row_name}: %{{y}}<br>{col_name}: %{{x}}<br>weight: %{{z:.3f}}<extra></extra>"))
        axes[f"xaxis{n}"] = dict(anchor=f"y{n}", domain=x_domain, showticklabels=False, ticks="", type="category")
        axes[f"yaxis{n}"] = dict(anchor=f"x{n}", domain=y_domain, showticklabels=False, ticks="", type="category",
                                 autorange="reversed")
        names.append(dict(text=f"head {h + 1}", x=sum(x_domain) / 2, y=y_domain[1], xref="paper", yref="paper",
                          xanchor="center", yanchor="bottom", showarrow=False, font=dict(size=13)))
    return _figure(traces, title or f"All {n_heads} heads", 170 * rows + 90, annotations=names, **axes,
                   coloraxis=dict(colorscale=theme.WEIGHTS_SCALE, cmin=0, cmax=1, colorbar=dict(thickness=12, title=dict(text="weight"))))


# --- vectors in a projection -------------------------------------------------------------------


def _axis_titles(explained: np.ndarray) -> dict:
    """The two principal axes, titled with the variance each explains, on one scale."""
    grid = dict(zeroline=False, **GRID)
    return dict(xaxis=dict(title=dict(text=f"PC1 ({explained[0]:.0%} of variance)"), **grid),
                yaxis=dict(title=dict(text=f"PC2 ({explained[1]:.0%} of variance)"), scaleanchor="x", scaleratio=1, **grid))


def _arrow(start, end, color: str, width: float, dash: bool = False) -> dict:
    """An arrow from start to end in data coordinates, as a layout annotation (set all at once: adding
    annotations one by one costs time that grows with their number)."""
    return dict(x=float(end[0]), y=float(end[1]), ax=float(start[0]), ay=float(start[1]), xref="x", yref="y", axref="x",
                ayref="y", showarrow=True, arrowhead=2 if dash else 3, arrowsize=1.2, arrowwidth=width,
                arrowcolor=color, opacity=0.9, text="")


def _point(x: float, y: float, name: str, label: str, position: str, **marker) -> dict:
    """One labelled point."""
    return dict(type="scatter", x=[x], y=[y], mode="markers+text", name=name, text=[label], textposition=position,
                marker=marker)


def displacement_figure(
    e: np.ndarray,
    e_plus_head: np.ndarray,
    e_plus_sum: np.ndarray,
    updated: np.ndarray,
    explained: np.ndarray,
    token: int,
    labels: Sequence[str],
    selected_head: int,
    context: Sequence[int] = (),
) -> go.Figure:
    """For one token j, in 2D: e_j, an arrow per head to e_j + Δe_j^(h), the summed arrow to e_j + ΣΔe_j,
    and the updated embedding after the LayerNorm. Tokens in `context` are drawn as faint points.

    e, e_plus_sum, updated: (n_tokens, 2); e_plus_head: (n_heads, n_tokens, 2).
    """
    labels = list(labels)
    traces = []
    others = [i for i in context if i != token]
    if others:
        traces.append(dict(type="scatter", x=e[others, 0], y=e[others, 1], mode="markers+text", name="other tokens' e",
                           text=[labels[i] for i in others], textposition="top center",
                           marker=dict(size=8, color="#c8ccd2"), textfont=dict(color=theme.MUTED, size=12),
                           hovertemplate="%{text}<extra>e</extra>"))
    start = e[token]
    n_heads = e_plus_head.shape[0]
    arrows = [_arrow(start, e_plus_head[h, token], theme.OKABE_ITO[5], 1.5) for h in range(n_heads) if h != selected_head]
    arrows.append(_arrow(start, e_plus_head[selected_head, token], theme.OKABE_ITO[1], 3.5))
    arrows.append(_arrow(start, e_plus_sum[token], theme.OKABE_ITO[2], 4))
    arrows.append(_arrow(e_plus_sum[token], updated[token], theme.OKABE_ITO[3], 2, dash=True))
    tips = e_plus_head[:, token]
    chosen = f"head {selected_head + 1}"
    traces += [
        dict(type="scatter", x=tips[:, 0], y=tips[:, 1], mode="markers", name="e + Δe of one head",
             marker=dict(size=7, color=theme.OKABE_ITO[5]), text=[f"head {h + 1}" for h in range(n_heads)],
             hovertemplate="%{text}<extra>e + Δe</extra>"),
        _point(tips[selected_head, 0], tips[selected_head, 1], f"e + Δe of {chosen}", chosen, "bottom center",
               size=11, color=theme.OKABE_ITO[1]),
        _point(e_plus_sum[token, 0], e_plus_sum[token, 1], "e + ΣΔe (all heads)", "e + ΣΔe", "top center",
               size=12, color=theme.OKABE_ITO[2]),
        _point(updated[token, 0], updated[token, 1], "after LayerNorm", "updated", "bottom center",
               size=13, symbol="diamond", color=theme.OKABE_ITO[3]),
        dict(_point(start[0], start[1], f"e of {labels[token]}", labels[token], "bottom center", size=14, color=theme.INK),
             textfont=dict(size=16)),
    ]
    return _figure(traces, f"How the heads move “{labels[token]}”", 620, annotations=arrows,
                   legend=dict(orientation="h", y=-0.18, x=0), **_axis_titles(explained))


def head_norm_bars(norms: np.ndarray, selected: int, sum_norm: float, token_label: str) -> go.Figure:
    """|Δe^(h)| of one token for every head, the selected head highlighted, and |ΣΔe| for comparison."""
    n = len(norms)
    colors = [theme.OKABE_ITO[1] if h == selected else theme.OKABE_ITO[5] for h in range(n)]
    bars = dict(type="bar", x=[f"{h + 1}" for h in range(n)], y=norms, marker_color=colors,
                hovertemplate="head %{x}<br>|Δe| = %{y:.3f}<extra></extra>", name="|Δe| of a head")
    sum_line = dict(type="line", x0=0, x1=1, xref="x domain", y0=sum_norm, y1=sum_norm, yref="y",
                    line=dict(color=theme.OKABE_ITO[2], dash="dash", width=2))
    sum_label = dict(text=f"|ΣΔe| = {sum_norm:.2f}", x=0, xanchor="left", xref="x domain", y=sum_norm, yanchor="bottom",
                     yref="y", showarrow=False)
    return _figure([bars], f"How far each head pushes “{token_label}”", 380, shapes=[sum_line], annotations=[sum_label],
                   xaxis=dict(title=dict(text="head"), type="category"),
                   yaxis=dict(title=dict(text="length of Δe in model space"), rangemode="tozero"))


def before_after_figure(before: np.ndarray, after: np.ndarray, explained: np.ndarray, labels: Sequence[str],
                        keep: Sequence[int] | None = None, after_name: str = "after") -> go.Figure:
    """Every token before → after a step, in one 2D projection, with an arrow each."""
    labels = list(labels)
    keep = list(range(len(labels))) if keep is None else list(keep)
    traces = [
        dict(type="scatter", x=before[keep, 0], y=before[keep, 1], mode="markers", name="before",
             marker=dict(size=10, color="white", line=dict(color=theme.OKABE_ITO[0], width=2)),
             text=[labels[i] for i in keep], hovertemplate="%{text}<extra>before</extra>"),
        dict(type="scatter", x=after[keep, 0], y=after[keep, 1], mode="markers+text", name=after_name,
             marker=dict(size=10, color=theme.OKABE_ITO[3]), text=[labels[i] for i in keep],
             textposition="top center", hovertemplate="%{text}<extra>after</extra>"),
    ]
    return _figure(traces, "Every token, before → after", 560,
                   annotations=[_arrow(before[i], after[i], "#9aa3ad", 1.5) for i in keep],
                   legend=dict(orientation="h", y=-0.15, x=0), **_axis_titles(explained))
