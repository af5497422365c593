"""Figure builders: plain arrays and token labels in, a plotly Figure out. No Streamlit here.

Axes run over token positions and show the token's text as tick labels, so a repeated word
("bank" … "bank") keeps two rows. Every piece of user text goes through `plain()` first:
plotly reads a few HTML tags in its strings, and user text must never be read as HTML.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from . import theme

NUMBERS_UP_TO = 16  # print the value in every cell while the matrix is at most this many tokens wide


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


def _base(fig: go.Figure, title: str, height: int) -> go.Figure:
    fig.update_layout(template=theme.TEMPLATE, title=title, height=height)
    return fig


# --- tokens ------------------------------------------------------------------------------------


def token_chips(texts: Sequence[str], special: Sequence[bool], continuation: Sequence[bool], width: float = 64.0) -> go.Figure:
    """The tokens as chips in reading order, each with its position; word pieces and special tokens marked."""
    fig = go.Figure()
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
    kinds = {"special": ("#e6e6e6", theme.MUTED), "piece": ("#fde9c8", theme.OKABE_ITO[1]), "word": ("#dcebf7", theme.OKABE_ITO[0])}
    for i, t in enumerate(texts):
        kind = "special" if special[i] else "piece" if continuation[i] else "word"
        fill, line = kinds[kind]
        y = -rows[i] * 1.6
        fig.add_shape(type="rect", x0=xs[i], x1=xs[i] + widths[i], y0=y - 0.5, y1=y + 0.5,
                      fillcolor=fill, line=dict(color=line, width=1.5), layer="below")
        fig.add_annotation(x=xs[i] + widths[i] / 2, y=y, text=plain(t), showarrow=False, font=dict(size=16, color=theme.INK))
        fig.add_annotation(x=xs[i] + widths[i] / 2, y=y + 0.72, text=str(i), showarrow=False, font=dict(size=11, color=theme.MUTED))
    # one invisible trace per kind, for a legend that says what the colours mean
    for kind, name in (("word", "starts a word"), ("piece", "word piece (##)"), ("special", "special token")):
        fill, line = kinds[kind]
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name=name,
                                 marker=dict(symbol="square", size=14, color=fill, line=dict(color=line, width=1.5))))
    fig.update_xaxes(visible=False, range=[-0.5, width + 0.5])
    fig.update_yaxes(visible=False, range=[-(n_rows - 1) * 1.6 - 0.8, 1.3])
    fig.update_layout(legend=dict(orientation="h", y=-0.02, yanchor="top", x=0), margin=dict(l=10, r=10, t=40, b=10))
    return _base(fig, f"{len(texts)} tokens", 90 + 62 * n_rows)


# --- matrices ----------------------------------------------------------------------------------


def _hover_grid(row_labels: list[str], col_labels: list[str]) -> np.ndarray:
    return np.dstack(np.meshgrid(col_labels, row_labels))  # (rows, cols, 2): [col label, row label]


def attention_heatmap(
    matrix: np.ndarray,
    labels: Sequence[str],
    title: str,
    kind: str = "weights",
    layout: str = "paper",
    numbers: bool | None = None,
) -> go.Figure:
    """One (n_queries, n_keys) matrix from the trace, drawn in `layout` (paper: rows are queries;
    notes: columns are queries). −∞ cells are drawn grey and labelled −∞, never as 0.

    kind: "scores" (diverging scale around 0) or "weights" (0 to 1).
    """
    labels = list(labels)
    m = np.asarray(matrix, dtype=np.float64)
    if layout == "notes":
        m = m.T
        row_name, col_name = "key", "query"
    else:
        row_name, col_name = "query", "key"
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
    text = np.where(masked, "−∞", np.vectorize(lambda v: format(v, fmt))(np.nan_to_num(z)))
    custom = _hover_grid(labels, labels)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(range(n_cols)),
            y=list(range(n_rows)),
            colorscale=colorscale,
            zmin=zmin,
            zmax=zmax,
            zmid=zmid,
            text=text,
            texttemplate="%{text}" if numbers else None,
            textfont=dict(size=13 if n_cols <= 10 else 11),
            customdata=custom,
            hovertemplate=f"{row_name}: %{{customdata[1]}}<br>{col_name}: %{{customdata[0]}}<br>value: %{{text}}<extra></extra>",
            colorbar=dict(thickness=14, len=0.9),
            xgap=1,
            ygap=1,
        )
    )
    tick = dict(tickmode="array", tickvals=list(range(n_cols)), ticktext=labels, tickangle=-60 if n_cols > 6 else 0)
    plural = {"query": "queries", "key": "keys"}
    fig.update_xaxes(title=plural[col_name], side="top", **tick)
    fig.update_yaxes(title=plural[row_name], tickmode="array", tickvals=list(range(n_rows)), ticktext=labels, autorange="reversed")
    longest = max((len(lbl) for lbl in labels), default=1)
    top = 70 + (min(longest, 14) * 7 if n_cols > 6 else 20)  # room above for the slanted key labels
    fig.update_layout(plot_bgcolor=theme.MASKED if masked.any() else "white", margin=dict(t=top + 30))
    size = max(340, min(860, top + 120 + 34 * n_rows))
    fig = _base(fig, title, size)
    fig.update_layout(title=dict(y=0.995, yanchor="top", yref="container"))
    return fig


def vectors_heatmap(vectors: np.ndarray, labels: Sequence[str], title: str) -> go.Figure:
    """(n_tokens, d_head) vectors as a heatmap: one row per token, one column per coordinate."""
    v = np.asarray(vectors, dtype=np.float64)
    top = float(np.abs(v).max()) or 1.0
    n, d = v.shape
    custom = np.array([[lbl] * d for lbl in labels])
    fig = go.Figure(
        go.Heatmap(
            z=v, x=list(range(d)), y=list(range(n)), colorscale=theme.VECTORS_SCALE, zmin=-top, zmax=top, zmid=0,
            customdata=custom, hovertemplate="token: %{customdata}<br>coordinate %{x}<br>value: %{z:.3f}<extra></extra>",
            colorbar=dict(thickness=12, len=0.9),
        )
    )
    fig.update_yaxes(tickmode="array", tickvals=list(range(n)), ticktext=list(labels), autorange="reversed")
    fig.update_xaxes(title="coordinate")
    return _base(fig, title, max(300, min(700, 120 + 24 * n)))


def head_grid(weights: np.ndarray, labels: Sequence[str], selected: int, layout: str = "paper") -> go.Figure:
    """Every head's weights of one layer as small multiples on one shared 0-to-1 scale; `selected` framed."""
    n_heads = weights.shape[0]
    cols = min(6, n_heads)
    rows = math.ceil(n_heads / cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[f"head {h + 1}" for h in range(n_heads)],
                        horizontal_spacing=0.02, vertical_spacing=0.08)
    labels = list(labels)
    row_name, col_name = ("key", "query") if layout == "notes" else ("query", "key")
    custom = _hover_grid(labels, labels)
    for h in range(n_heads):
        m = weights[h].T if layout == "notes" else weights[h]
        fig.add_trace(
            go.Heatmap(z=m, coloraxis="coloraxis", customdata=custom,
                       hovertemplate=f"head {h + 1}<br>{row_name}: %{{customdata[1]}}<br>{col_name}: %{{customdata[0]}}<br>weight: %{{z:.3f}}<extra></extra>"),
            row=h // cols + 1, col=h % cols + 1,
        )
    fig.update_xaxes(showticklabels=False, ticks="")
    fig.update_yaxes(showticklabels=False, ticks="", autorange="reversed")
    axis = "" if selected == 0 else str(selected + 1)
    fig.add_shape(type="rect", xref=f"x{axis} domain", yref=f"y{axis} domain", x0=-0.04, x1=1.04, y0=-0.04, y1=1.04,
                  line=dict(color=theme.OKABE_ITO[3], width=4))
    fig.update_layout(coloraxis=dict(colorscale=theme.WEIGHTS_SCALE, cmin=0, cmax=1, colorbar=dict(thickness=12, title="weight")))
    fig.update_annotations(font_size=13)
    return _base(fig, f"All {n_heads} heads of this layer (head {selected + 1} framed)", 170 * rows + 90)


# --- vectors in a projection -------------------------------------------------------------------


def _axis_titles(fig: go.Figure, explained: np.ndarray) -> None:
    fig.update_xaxes(title=f"PC1 ({explained[0]:.0%} of variance)", zeroline=False, showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(title=f"PC2 ({explained[1]:.0%} of variance)", zeroline=False, showgrid=True, gridcolor="#eeeeee",
                     scaleanchor="x", scaleratio=1)


def _arrow(fig: go.Figure, start, end, color: str, width: float, dash: bool = False) -> None:
    fig.add_annotation(x=end[0], y=end[1], ax=start[0], ay=start[1], xref="x", yref="y", axref="x", ayref="y",
                       showarrow=True, arrowhead=3 if not dash else 2, arrowsize=1.2, arrowwidth=width,
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
    for h in range(n_heads):
        if h != selected_head:
            _arrow(fig, start, e_plus_head[h, token], theme.OKABE_ITO[5], 1.5)
    _arrow(fig, start, e_plus_head[selected_head, token], theme.OKABE_ITO[1], 3.5)
    _arrow(fig, start, e_plus_sum[token], theme.OKABE_ITO[2], 4)
    _arrow(fig, e_plus_sum[token], updated[token], theme.OKABE_ITO[3], 2, dash=True)
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
    fig = go.Figure()
    for i in keep:
        _arrow(fig, before[i], after[i], "#9aa3ad", 1.5)
    fig.add_trace(go.Scatter(x=before[keep, 0], y=before[keep, 1], mode="markers", name="before",
                             marker=dict(size=10, color="white", line=dict(color=theme.OKABE_ITO[0], width=2)),
                             text=[labels[i] for i in keep], hovertemplate="%{text}<extra>before</extra>"))
    fig.add_trace(go.Scatter(x=after[keep, 0], y=after[keep, 1], mode="markers+text", name=after_name,
                             marker=dict(size=10, color=theme.OKABE_ITO[3]), text=[labels[i] for i in keep],
                             textposition="top center", hovertemplate="%{text}<extra>after</extra>"))
    _axis_titles(fig, explained)
    fig.update_layout(legend=dict(orientation="h", y=-0.15, x=0))
    return _base(fig, "Every token, before → after", 560)
