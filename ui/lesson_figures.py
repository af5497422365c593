"""Figure builders for the lesson's chapters: arrays in, a plotly Figure out. No Streamlit here."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from . import theme
from .figures import _arrow, _base, label_px, plain


def table_heatmap(m: np.ndarray, rows: Sequence[str], cols: Sequence[str], title: str, fmt: str = ".2f",
                  scale: str = theme.WEIGHTS_SCALE, zmin: float | None = None, zmax: float | None = None,
                  row_title: str = "", col_title: str = "", numbers: bool = True) -> go.Figure:
    """A small labelled matrix with its values printed; −∞ cells grey and labelled −∞."""
    m = np.asarray(m, dtype=float)
    rows, cols = [plain(r) for r in rows], [plain(c) for c in cols]
    masked = np.isneginf(m)
    cells = {}
    if numbers:
        cells = dict(text=[["−∞" if np.isneginf(v) else format(v, fmt) for v in row] for row in m], texttemplate="%{text}",
                     textfont=dict(size=14))
    fig = go.Figure(go.Heatmap(z=np.where(masked, np.nan, m), x=cols, y=rows, colorscale=scale, zmin=zmin, zmax=zmax,
                               hoverongaps=False, xgap=1, ygap=1, colorbar=dict(thickness=12),
                               hovertemplate="%{y} · %{x}: %{z:.4f}<extra></extra>", **cells))
    fig.update_xaxes(type="category", side="top", title=col_title)
    fig.update_yaxes(type="category", autorange="reversed", title=row_title)
    fig.update_layout(plot_bgcolor=theme.MASKED if masked.any() else "white",
                      margin=dict(l=label_px(rows) + (40 if row_title else 15), t=60 + label_px(cols) // 3 + (30 if col_title else 0),
                                  r=20, b=20))
    fig = _base(fig, title, max(300, 170 + 40 * len(rows)))
    fig.update_layout(title=dict(y=0.99, yanchor="top", yref="container"))
    return fig


def two_vectors(a: np.ndarray, b: np.ndarray, names: tuple[str, str] = ("a", "b")) -> go.Figure:
    """Two 2D vectors drawn from the origin, with the projection of a onto b."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    top = float(max(np.abs(a).max(), np.abs(b).max(), 1.0)) * 1.2
    arrows = [_arrow((0, 0), a, theme.OKABE_ITO[0], 4), _arrow((0, 0), b, theme.OKABE_ITO[3], 4)]
    fig = go.Figure(layout=dict(annotations=arrows))
    nb = float(b @ b)
    if nb > 0:
        proj = (a @ b) / nb * b
        fig.add_trace(go.Scatter(x=[a[0], proj[0]], y=[a[1], proj[1]], mode="lines", line=dict(dash="dot", color=theme.MUTED),
                                 name="projection of a onto b"))
    fig.add_trace(go.Scatter(x=[a[0], b[0]], y=[a[1], b[1]], mode="markers+text", text=list(names), textposition="top center",
                             marker=dict(size=10, color=[theme.OKABE_ITO[0], theme.OKABE_ITO[3]]), showlegend=False,
                             textfont=dict(size=18)))
    fig.update_xaxes(range=[-top, top], zeroline=True, zerolinecolor="#bbbbbb", showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(range=[-top, top], zeroline=True, zerolinecolor="#bbbbbb", showgrid=True, gridcolor="#eeeeee",
                     scaleanchor="x", scaleratio=1)
    fig.update_layout(legend=dict(orientation="h", y=-0.1))
    return _base(fig, "Two vectors", 520)


def lines(x: np.ndarray, series: dict[str, np.ndarray], title: str, x_title: str, y_title: str,
          marker_x: float | None = None, log_y: bool = False) -> go.Figure:
    fig = go.Figure()
    for i, (name, y) in enumerate(series.items()):
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines+markers" if len(x) <= 12 else "lines", name=name,
                                 line=dict(width=3, color=theme.OKABE_ITO[i % len(theme.OKABE_ITO)])))
    if marker_x is not None:
        fig.add_vline(x=marker_x, line=dict(color=theme.MUTED, dash="dash"))
    fig.update_xaxes(title=x_title, showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(title=y_title, showgrid=True, gridcolor="#eeeeee", type="log" if log_y else "linear")
    fig.update_layout(legend=dict(orientation="h", y=-0.2))
    return _base(fig, title, 420)


def histograms(samples: dict[str, np.ndarray], title: str, x_title: str) -> go.Figure:
    fig = go.Figure()
    for i, (name, values) in enumerate(samples.items()):
        fig.add_trace(go.Histogram(x=np.ravel(values), name=name, opacity=0.65, nbinsx=60,
                                   marker_color=theme.OKABE_ITO[i % len(theme.OKABE_ITO)]))
    fig.update_layout(barmode="overlay", legend=dict(orientation="h", y=-0.2))
    fig.update_xaxes(title=x_title)
    fig.update_yaxes(title="count")
    return _base(fig, title, 420)


def bars(labels: Sequence[str], values: Sequence[float], title: str, y_title: str, highlight: int | None = None,
         text_fmt: str | None = None, horizontal: bool = False) -> go.Figure:
    colors = [theme.OKABE_ITO[1] if i == highlight else theme.OKABE_ITO[0] for i in range(len(values))]
    labels = [plain(str(x)) for x in labels]
    text = [format(v, text_fmt) for v in values] if text_fmt else None
    if horizontal:
        bar = go.Bar(y=labels, x=list(values), orientation="h", marker_color=colors, text=text, textposition="auto")
    else:
        bar = go.Bar(x=labels, y=list(values), marker_color=colors, text=text, textposition="auto")
    fig = go.Figure(bar)
    if horizontal:
        fig.update_yaxes(type="category", autorange="reversed")
        fig.update_xaxes(title=y_title)
        fig.update_layout(margin=dict(l=label_px(labels) + 15))
    else:
        fig.update_xaxes(type="category")
        fig.update_yaxes(title=y_title)
    return _base(fig, title, max(380, 60 + 34 * len(labels)) if horizontal else 400)


def grouped_bars(categories: Sequence[str], groups: dict[str, Sequence[float]], title: str, y_title: str) -> go.Figure:
    fig = go.Figure([go.Bar(x=[plain(c) for c in categories], y=list(v), name=name,
                            marker_color=theme.OKABE_ITO[i % len(theme.OKABE_ITO)])
                     for i, (name, v) in enumerate(groups.items())])
    fig.update_layout(barmode="group", legend=dict(orientation="h", y=-0.2))
    fig.update_xaxes(type="category")
    fig.update_yaxes(title=y_title)
    return _base(fig, title, 420)


def arrow_chain(start: np.ndarray, steps: np.ndarray, step_labels: Sequence[str], explained: np.ndarray, title: str,
                total_label: str = "Δe") -> go.Figure:
    """Arrows laid tip to tail from `start` (2D), one per step, and the total from start to the end."""
    points = np.vstack([start, start + np.cumsum(steps, axis=0)])
    arrows = [_arrow(points[i], points[i + 1], theme.OKABE_ITO[5], 2) for i in range(len(steps))]
    arrows.append(_arrow(points[0], points[-1], theme.OKABE_ITO[2], 4))
    fig = go.Figure(layout=dict(annotations=arrows))
    fig.add_trace(go.Scatter(x=points[1:, 0], y=points[1:, 1], mode="markers+text", text=[plain(s) for s in step_labels],
                             textposition="top right", marker=dict(size=6, color=theme.OKABE_ITO[5]), name="after each weighted value",
                             textfont=dict(size=12, color=theme.MUTED)))
    fig.add_trace(go.Scatter(x=[points[0, 0]], y=[points[0, 1]], mode="markers+text", text=["e"], textposition="bottom center",
                             marker=dict(size=13, color=theme.INK), name="e (start)"))
    fig.add_trace(go.Scatter(x=[points[-1, 0]], y=[points[-1, 1]], mode="markers+text", text=[f"e + {total_label}"],
                             textposition="bottom center", marker=dict(size=13, color=theme.OKABE_ITO[2]), name=f"e + {total_label}"))
    fig.update_xaxes(title=f"PC1 ({explained[0]:.0%} of variance)", showgrid=True, gridcolor="#eeeeee")
    fig.update_yaxes(title=f"PC2 ({explained[1]:.0%} of variance)", showgrid=True, gridcolor="#eeeeee", scaleanchor="x", scaleratio=1)
    fig.update_layout(legend=dict(orientation="h", y=-0.18))
    return _base(fig, title, 560)


def big_heatmap(m: np.ndarray, title: str, x_title: str, y_title: str, scale: str = theme.SCORES_SCALE,
                symmetric: bool = True) -> go.Figure:
    """A large matrix with no printed numbers (positions × dimensions and the like)."""
    m = np.asarray(m, dtype=np.float32)
    top = float(np.percentile(np.abs(m), 99)) or 1.0  # a few outlying entries would wash out the rest
    fig = go.Figure(go.Heatmap(z=m, colorscale=scale, zmin=-top if symmetric else None, zmax=top if symmetric else None,
                               zmid=0 if symmetric else None, colorbar=dict(thickness=12),
                               hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>%{{z:.3f}}<extra></extra>"))
    fig.update_xaxes(title=x_title)
    fig.update_yaxes(title=y_title, autorange="reversed")
    return _base(fig, title, 460)
