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
from plotly.subplots import make_subplots

from . import theme

NUMBERS_UP_TO = 16  # print the value in every cell while the matrix is at most this many tokens wide
HALF_WIDTH_NUMBERS = 8  # the same for a heatmap in half the page's width


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


def _base(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(template=theme.TEMPLATE, title=title, height=height)
    return fig


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
    fig = go.Figure()
    for kind, (name, fill, line) in kinds.items():
        px, py = [], []
        for i, k in enumerate(kind_of):
            if k == kind:
                x0, x1, y = xs[i], xs[i] + widths[i], -rows[i] * 1.6
                px += [x0, x1, x1, x0, x0, None]
                py += [y - 0.5, y - 0.5, y + 0.5, y + 0.5, y - 0.5, None]
        fig.add_trace(go.Scatter(x=px or [None], y=py or [None], mode="lines", fill="toself", fillcolor=fill, name=name,
                                 line=dict(color=line, width=1.5), hoverinfo="skip"))
    centres = [xs[i] + widths[i] / 2 for i in range(len(texts))]
    ys = [-r * 1.6 for r in rows]
    fig.add_trace(go.Scatter(x=centres, y=ys, mode="text", text=[plain(t) for t in texts], textfont=dict(size=16, color=theme.INK),
                             showlegend=False, hovertext=[f"position {i}" for i in range(len(texts))], hoverinfo="text"))
    fig.add_trace(go.Scatter(x=centres, y=[y + 0.75 for y in ys], mode="text", text=[str(i) for i in range(len(texts))],
                             textfont=dict(size=11, color=theme.MUTED), showlegend=False, hoverinfo="skip"))
    fig.update_xaxes(visible=False, range=[-0.5, width + 0.5])
    fig.update_yaxes(visible=False, range=[-(n_rows - 1) * 1.6 - 0.8, 1.3])
    fig.update_layout(legend=dict(orientation="h", y=-0.02, yanchor="top", x=0), margin=dict(l=10, r=10, t=40, b=10))
    return _base(fig, f"{len(texts)} tokens", 90 + 62 * n_rows)


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
    fig = go.Figure(
        go.Heatmap(
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
    )
    plural = {"query": "queries", "key": "keys"}
    fig.update_xaxes(title=plural[col_name], side="top", type="category", tickangle=-60 if n_cols > 6 else 0)
    fig.update_yaxes(title=plural[row_name], type="category", autorange="reversed")
    top = 80 + (int(label_px(col_labels) * 0.87) if n_cols > 6 else 22)  # title, axis title, slanted labels
    fig.update_layout(plot_bgcolor=theme.MASKED if masked.any() else "white",
                      margin=dict(t=top, l=label_px(row_labels) + 45, r=20, b=20))
    size = max(340, min(860, top + 60 + 34 * n_rows))
    fig = _base(fig, title, size)
    fig.update_layout(title=dict(y=0.995, yanchor="top", yref="container"))
    return fig


def vectors_heatmap(vectors: np.ndarray, labels: Sequence[str], title: str) -> go.Figure:
    """(n_tokens, d_head) vectors as a heatmap: one row per token, one column per coordinate."""
    v = np.asarray(vectors, dtype=np.float64)
    top = float(np.abs(v).max()) or 1.0
    n, d = v.shape
    fig = go.Figure(
        go.Heatmap(
            z=v.astype(np.float32), x=list(range(d)), y=list(labels), colorscale=theme.VECTORS_SCALE, zmin=-top, zmax=top, zmid=0,
            hovertemplate="token: %{y}<br>coordinate %{x}<br>value: %{z:.3f}<extra></extra>",
            colorbar=dict(thickness=12, len=0.9),
        )
    )
    fig.update_yaxes(type="category", autorange="reversed")
    fig.update_xaxes(title="coordinate")
    fig.update_layout(margin=dict(l=label_px(labels) + 15, r=10, t=50, b=55))
    return _base(fig, title, max(300, min(700, 120 + 24 * n)))


def head_grid(weights: np.ndarray, labels: Sequence[str], layout: str = "paper", title: str = "") -> go.Figure:
    """Every head's weights of one layer as small multiples on one shared 0-to-1 scale."""
    n_heads = weights.shape[0]
    cols = min(6, n_heads)
    rows = math.ceil(n_heads / cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[f"head {h + 1}" for h in range(n_heads)],
                        horizontal_spacing=0.02, vertical_spacing=0.08)
    labels = list(labels)
    row_name, col_name = ("key", "query") if layout == "notes" else ("query", "key")
    for h in range(n_heads):
        m = weights[h].T if layout == "notes" else weights[h]
        fig.add_trace(
            go.Heatmap(z=np.asarray(m, dtype=np.float32), x=labels, y=labels, coloraxis="coloraxis",
                       hovertemplate=f"head {h + 1}<br>{row_name}: %{{y}}<br>{col_name}: %{{x}}<br>weight: %{{z:.3f}}<extra></extra>"),
            row=h // cols + 1, col=h % cols + 1,
        )
    fig.update_xaxes(showticklabels=False, ticks="", type="category")
    fig.update_yaxes(showticklabels=False, ticks="", type="category", autorange="reversed")
    fig.update_layout(coloraxis=dict(colorscale=theme.WEIGHTS_SCALE, cmin=0, cmax=1, colorbar=dict(thickness=12, title="weight")))
    fig.update_annotations(font_size=13)
    return _base(fig, title or f"All {n_heads} heads", 170 * rows + 90)


# --- vectors in a projection -------------------------------------------------------------------


def _axis_titles(fig: go.Figure, explained: np.ndarray) -> None:
    fig.update_xaxes(title=f"PC1 ({explained[0]:.0%} of variance)", zeroline=False, showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(title=f"PC2 ({explained[1]:.0%} of variance)", zeroline=False, showgrid=True, gridcolor="#eeeeee",
                     scaleanchor="x", scaleratio=1)


def _arrow(start, end, color: str, width: float, dash: bool = False) -> dict:
    """An arrow from start to end in data coordinates, as a layout annotation (set all at once: adding
    annotations one by one costs time that grows with their number)."""
    return dict(x=float(end[0]), y=float(end[1]), ax=float(start[0]), ay=float(start[1]), xref="x", yref="y", axref="x",
                ayref="y", showarrow=True, arrowhead=2 if dash else 3, arrowsize=1.2, arrowwidth=width,
                arrowcolor=color, opacity=0.9, text="")


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
    fig = go.Figure()
    others = [i for i in context if i != token]
    if others:
        fig.add_trace(go.Scatter(x=e[others, 0], y=e[others, 1], mode="markers+text", name="other tokens' e",
                                 text=[labels[i] for i in others], textposition="top center",
                                 marker=dict(size=8, color="#c8ccd2"), textfont=dict(color=theme.MUTED, size=12),
                                 hovertemplate="%{text}<extra>e</extra>"))
    start = e[token]
    n_heads = e_plus_head.shape[0]
    arrows = [_arrow(start, e_plus_head[h, token], theme.OKABE_ITO[5], 1.5) for h in range(n_heads) if h != selected_head]
    arrows.append(_arrow(start, e_plus_head[selected_head, token], theme.OKABE_ITO[1], 3.5))
    arrows.append(_arrow(start, e_plus_sum[token], theme.OKABE_ITO[2], 4))
    arrows.append(_arrow(e_plus_sum[token], updated[token], theme.OKABE_ITO[3], 2, dash=True))
    fig.update_layout(annotations=arrows)
    tips = e_plus_head[:, token]
    fig.add_trace(go.Scatter(x=tips[:, 0], y=tips[:, 1], mode="markers", name="e + Δe of one head",
                             marker=dict(size=7, color=theme.OKABE_ITO[5]),
                             text=[f"head {h + 1}" for h in range(n_heads)], hovertemplate="%{text}<extra>e + Δe</extra>"))
    fig.add_trace(go.Scatter(x=[tips[selected_head, 0]], y=[tips[selected_head, 1]], mode="markers+text",
                             name=f"e + Δe of head {selected_head + 1}", text=[f"head {selected_head + 1}"],
                             textposition="bottom center", marker=dict(size=11, color=theme.OKABE_ITO[1])))
    fig.add_trace(go.Scatter(x=[e_plus_sum[token, 0]], y=[e_plus_sum[token, 1]], mode="markers+text", name="e + ΣΔe (all heads)",
                             text=["e + ΣΔe"], textposition="top center", marker=dict(size=12, color=theme.OKABE_ITO[2])))
    fig.add_trace(go.Scatter(x=[updated[token, 0]], y=[updated[token, 1]], mode="markers+text", name="after LayerNorm",
                             text=["updated"], textposition="bottom center",
                             marker=dict(size=13, symbol="diamond", color=theme.OKABE_ITO[3])))
    fig.add_trace(go.Scatter(x=[start[0]], y=[start[1]], mode="markers+text", name=f"e of {labels[token]}",
                             text=[labels[token]], textposition="bottom center", textfont=dict(size=16),
                             marker=dict(size=14, color=theme.INK)))
    _axis_titles(fig, explained)
    fig.update_layout(legend=dict(orientation="h", y=-0.18, x=0))
    return _base(fig, f"How the heads move “{labels[token]}”", 620)


def head_norm_bars(norms: np.ndarray, selected: int, sum_norm: float, token_label: str) -> go.Figure:
    """|Δe^(h)| of one token for every head, the selected head highlighted, and |ΣΔe| for comparison."""
    n = len(norms)
    colors = [theme.OKABE_ITO[1] if h == selected else theme.OKABE_ITO[5] for h in range(n)]
    fig = go.Figure(go.Bar(x=[f"{h + 1}" for h in range(n)], y=norms, marker_color=colors,
                           hovertemplate="head %{x}<br>|Δe| = %{y:.3f}<extra></extra>", name="|Δe| of a head"))
    fig.add_hline(y=sum_norm, line=dict(color=theme.OKABE_ITO[2], dash="dash", width=2),
                  annotation_text=f"|ΣΔe| = {sum_norm:.2f}", annotation_position="top left")
    fig.update_xaxes(title="head", type="category")
    fig.update_yaxes(title="length of Δe in model space", rangemode="tozero")
    return _base(fig, f"How far each head pushes “{token_label}”", 380)


def before_after_figure(before: np.ndarray, after: np.ndarray, explained: np.ndarray, labels: Sequence[str],
                        keep: Sequence[int] | None = None, after_name: str = "after") -> go.Figure:
    """Every token before → after a step, in one 2D projection, with an arrow each."""
    labels = list(labels)
    keep = list(range(len(labels))) if keep is None else list(keep)
    fig = go.Figure(layout=dict(annotations=[_arrow(before[i], after[i], "#9aa3ad", 1.5) for i in keep]))
    fig.add_trace(go.Scatter(x=before[keep, 0], y=before[keep, 1], mode="markers", name="before",
                             marker=dict(size=10, color="white", line=dict(color=theme.OKABE_ITO[0], width=2)),
                             text=[labels[i] for i in keep], hovertemplate="%{text}<extra>before</extra>"))
    fig.add_trace(go.Scatter(x=after[keep, 0], y=after[keep, 1], mode="markers+text", name=after_name,
                             marker=dict(size=10, color=theme.OKABE_ITO[3]), text=[labels[i] for i in keep],
                             textposition="top center", hovertemplate="%{text}<extra>after</extra>"))
    _axis_titles(fig, explained)
    fig.update_layout(legend=dict(orientation="h", y=-0.15, x=0))
    return _base(fig, "Every token, before → after", 560)
