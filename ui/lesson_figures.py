"""Figure builders for the lesson's chapters: arrays in, a plotly Figure out. No Streamlit here."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from . import theme
from .figures import GRID, _arrow, _axis_titles, _figure, label_px, plain


def _colour(i: int) -> str:
    return theme.OKABE_ITO[i % len(theme.OKABE_ITO)]


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
    heatmap = dict(type="heatmap", z=np.where(masked, np.nan, m), x=cols, y=rows, colorscale=scale, zmin=zmin, zmax=zmax,
                   hoverongaps=False, xgap=1, ygap=1, colorbar=dict(thickness=12),
                   hovertemplate="%{y} · %{x}: %{z:.4f}<extra></extra>", **cells)
    return _figure(
        [heatmap], dict(text=title, y=0.99, yanchor="top", yref="container"), max(300, 170 + 40 * len(rows)),
        xaxis=dict(type="category", side="top", title=dict(text=col_title)),
        yaxis=dict(type="category", autorange="reversed", title=dict(text=row_title)),
        plot_bgcolor=theme.MASKED if masked.any() else "white",
        margin=dict(l=label_px(rows) + (40 if row_title else 15), t=60 + label_px(cols) // 3 + (30 if col_title else 0), r=20, b=20),
    )


def two_vectors(a: np.ndarray, b: np.ndarray, names: tuple[str, str] = ("a", "b")) -> go.Figure:
    """Two 2D vectors drawn from the origin, with the projection of a onto b."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    top = float(max(np.abs(a).max(), np.abs(b).max(), 1.0)) * 1.2
    arrows = [_arrow((0, 0), a, theme.OKABE_ITO[0], 4), _arrow((0, 0), b, theme.OKABE_ITO[3], 4)]
    traces = []
    nb = float(b @ b)
    if nb > 0:
        proj = (a @ b) / nb * b
        traces.append(dict(type="scatter", x=[a[0], proj[0]], y=[a[1], proj[1]], mode="lines",
                           line=dict(dash="dot", color=theme.MUTED), name="projection of a onto b"))
    traces.append(dict(type="scatter", x=[a[0], b[0]], y=[a[1], b[1]], mode="markers+text", text=list(names),
                       textposition="top center", marker=dict(size=10, color=[theme.OKABE_ITO[0], theme.OKABE_ITO[3]]),
                       showlegend=False, textfont=dict(size=18)))
    axis = dict(range=[-top, top], zeroline=True, zerolinecolor="#bbbbbb", **GRID)
    return _figure(traces, "Two vectors", 520, annotations=arrows, xaxis=axis, yaxis=dict(axis, scaleanchor="x", scaleratio=1),
                   legend=dict(orientation="h", y=-0.1))


def lines(x: np.ndarray, series: dict[str, np.ndarray], title: str, x_title: str, y_title: str,
          marker_x: float | None = None, log_y: bool = False) -> go.Figure:
    traces = [dict(type="scatter", x=x, y=y, mode="lines+markers" if len(x) <= 12 else "lines", name=name,
                   line=dict(width=3, color=_colour(i)))
              for i, (name, y) in enumerate(series.items())]
    marker = []
    if marker_x is not None:
        marker.append(dict(type="line", x0=marker_x, x1=marker_x, xref="x", y0=0, y1=1, yref="y domain",
                           line=dict(color=theme.MUTED, dash="dash")))
    return _figure(traces, title, 420, shapes=marker, xaxis=dict(title=dict(text=x_title), **GRID),
                   yaxis=dict(title=dict(text=y_title), type="log" if log_y else "linear", **GRID),
                   legend=dict(orientation="h", y=-0.2))


def histograms(samples: dict[str, np.ndarray], title: str, x_title: str) -> go.Figure:
    traces = [dict(type="histogram", x=np.ravel(values), name=name, opacity=0.65, nbinsx=60, marker_color=_colour(i))
              for i, (name, values) in enumerate(samples.items())]
    return _figure(traces, title, 420, barmode="overlay", legend=dict(orientation="h", y=-0.2),
                   xaxis=dict(title=dict(text=x_title)), yaxis=dict(title=dict(text="count")))


def bars(labels: Sequence[str], values: Sequence[float], title: str, y_title: str, highlight: int | None = None,
         text_fmt: str | None = None, horizontal: bool = False) -> go.Figure:
    colors = [theme.OKABE_ITO[1] if i == highlight else theme.OKABE_ITO[0] for i in range(len(values))]
    labels = [plain(str(x)) for x in labels]
    bar = dict(type="bar", marker_color=colors, text=[format(v, text_fmt) for v in values] if text_fmt else None,
               textposition="auto")
    if horizontal:
        return _figure([dict(bar, y=labels, x=list(values), orientation="h")], title, max(380, 60 + 34 * len(labels)),
                       yaxis=dict(type="category", autorange="reversed"), xaxis=dict(title=dict(text=y_title)),
                       margin=dict(l=label_px(labels) + 15))
    return _figure([dict(bar, x=labels, y=list(values))], title, 400,
                   xaxis=dict(type="category"), yaxis=dict(title=dict(text=y_title)))


def grouped_bars(categories: Sequence[str], groups: dict[str, Sequence[float]], title: str, y_title: str) -> go.Figure:
    traces = [dict(type="bar", x=[plain(c) for c in categories], y=list(v), name=name, marker_color=_colour(i))
              for i, (name, v) in enumerate(groups.items())]
    return _figure(traces, title, 420, barmode="group", legend=dict(orientation="h", y=-0.2),
                   xaxis=dict(type="category"), yaxis=dict(title=dict(text=y_title)))


def arrow_chain(start: np.ndarray, steps: np.ndarray, step_labels: Sequence[str], explained: np.ndarray, title: str,
                total_label: str = "Δe") -> go.Figure:
    """Arrows laid tip to tail from `start` (2D), one per step, and the total from start to the end."""
    points = np.vstack([start, start + np.cumsum(steps, axis=0)])
    arrows = [_arrow(points[i], points[i + 1], theme.OKABE_ITO[5], 2) for i in range(len(steps))]
    arrows.append(_arrow(points[0], points[-1], theme.OKABE_ITO[2], 4))
    traces = [
        dict(type="scatter", x=points[1:, 0], y=points[1:, 1], mode="markers+text", text=[plain(s) for s in step_labels],
             textposition="top right", marker=dict(size=6, color=theme.OKABE_ITO[5]), name="after each weighted value",
             textfont=dict(size=12, color=theme.MUTED)),
        dict(type="scatter", x=[points[0, 0]], y=[points[0, 1]], mode="markers+text", text=["e"], textposition="bottom center",
             marker=dict(size=13, color=theme.INK), name="e (start)"),
        dict(type="scatter", x=[points[-1, 0]], y=[points[-1, 1]], mode="markers+text", text=[f"e + {total_label}"],
             textposition="bottom center", marker=dict(size=13, color=theme.OKABE_ITO[2]), name=f"e + {total_label}"),
    ]
    return _figure(traces, title, 560, annotations=arrows, legend=dict(orientation="h", y=-0.18), **_axis_titles(explained))


def big_heatmap(m: np.ndarray, title: str, x_title: str, y_title: str, scale: str = theme.SCORES_SCALE,
                symmetric: bool = True) -> go.Figure:
    """A large matrix with no printed numbers (positions × dimensions and the like)."""
    m = np.asarray(m, dtype=np.float32)
    top = float(np.percentile(np.abs(m), 99)) or 1.0  # a few outlying entries would wash out the rest
    heatmap = dict(type="heatmap", z=m, colorscale=scale, zmin=-top if symmetric else None, zmax=top if symmetric else None,
                   zmid=0 if symmetric else None, colorbar=dict(thickness=12),
                   hovertemplate=f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>%{{z:.3f}}<extra></extra>")
    return _figure([heatmap], title, 460, xaxis=dict(title=dict(text=x_title)),
                   yaxis=dict(title=dict(text=y_title), autorange="reversed"))
