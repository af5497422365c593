"""Plain charts: lines, histograms and bars."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.figures import theme
from ui.figures.base import GRID, Canvas, colour, figure, plain, title_room
from ui.figures.text import label_px, wrap
from ui.words import locales
from ui.words.locales import Words

LOG_FLOOR = 1e-12  # a logarithmic axis cannot draw 0: values that are zero up to rounding are drawn here


def lines(
    x: np.ndarray,
    series: dict[str, np.ndarray],
    title: str,
    x_title: str,
    y_title: str,
    marker_x: float | None = None,
    log_y: bool = False,
    log_x: bool = False,
    styles: dict[str, dict] | None = None,
    y_range: Sequence[float] | None = None,
    *,
    words: Words,
) -> go.Figure:
    """One line per series. A logarithmic axis is labelled at its data's own x values (log_x) or at whole
    powers of ten written 10⁻⁴ (log_y), never with plotly's in-between "2, 5" ticks or SI prefixes (µ, n, p).

    styles: a series' line settings (its colour, its dash), where the palette's next colour would say the wrong
    thing (an orange line for a word that is not "orange"). y_range: the y axis's, where the data's padded one
    would run past what the measure can reach (a cosine above 1)."""
    styles = styles or {}
    traces = [
        dict(
            type="scatter",
            x=x,
            y=np.maximum(y, LOG_FLOOR) if log_y else y,
            mode="lines+markers" if len(x) <= 12 else "lines",
            name=name,
            line=dict(width=3, color=colour(i)) | styles.get(name, {}),
        )
        for i, (name, y) in enumerate(series.items())
    ]
    marker = []
    if marker_x is not None:
        marker.append(
            dict(
                type="line",
                x0=marker_x,
                x1=marker_x,
                xref="x",
                y0=0,
                y1=1,
                yref="y domain",
                line=dict(color=theme.MUTED, dash="dash"),
            )
        )
    # long names wrap one to a line, as do names that would not share a line in half the page (a legend of two
    # rows ran over the x axis's title); a single line needs no legend, its axis says what it is
    in_a_row = sum(label_px([name]) + LEGEND_ITEM_PX for name in series)
    legend_rows = 0 if len(series) < 2 else len(series) if max(map(len, series)) > 28 or in_a_row > HALF_PX else 1
    height = 400 + 26 * legend_rows
    # an axis title longer than the plot is tall ran into the figure's title: over two lines, the margin wider
    plot_px = height - title_top(title) - 74 - 26 * legend_rows
    y_lines = wrap(y_title, plot_px - 10, theme.TEMPLATE.layout.font.size) if label_px([y_title]) > plot_px else []
    if len(y_lines) > 1:
        y_title = "<br>".join(y_lines)
    left = theme.TEMPLATE.layout.margin.l + LABEL_LINE_PX * max(0, len(y_lines) - 1)
    return figure(
        traces,
        title,
        height,
        shapes=marker,
        xaxis=dict(title=dict(text=x_title, standoff=10), **(_log_x(x, words=words) if log_x else {}), **GRID),
        yaxis=dict(
            title=dict(text=y_title),
            range=list(y_range) if y_range is not None else _padded_range(list(series.values()), log_y),
            **(_log_y(list(series.values())) if log_y else {}),
            **GRID,
        ),
        # at the figure's foot, under the x axis's title, in the room the bottom margin keeps for it
        legend=dict(orientation="h", yref="container", y=0.01, yanchor="bottom"),
        margin=dict(b=74 + 26 * legend_rows, l=left, t=title_top(title)),
        showlegend=legend_rows > 0,
    )


HALF_PX = (Canvas.width - 16) // 2  # a figure in half the page's width (st.columns(2) at 1280×720)
LEGEND_ITEM_PX = 50  # a legend item's line sample and the gap after its name


PAD = 0.06  # the share of a y axis's span left free above and below its lines, so that none runs along an edge


def _padded_range(values: list[np.ndarray], log_y: bool) -> list[float]:
    """The y axis's range: every line's lowest and highest point, with PAD of the span free on each side (on a
    logarithmic axis, in powers of ten, as plotly reads its range)."""
    flat = np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in values])
    flat = flat[np.isfinite(flat)]
    if log_y:
        flat = np.log10(np.maximum(flat, LOG_FLOOR))
    low, high = (float(flat.min()), float(flat.max())) if flat.size else (0.0, 1.0)
    pad = PAD * (high - low) if high > low else 0.5
    return [low - pad, high + pad]


LOG_Y = dict(type="log", dtick=1, exponentformat="power", minor=dict(showgrid=False, ticks=""))
LOG_TICKS = 7  # at most this many labelled powers of ten on a logarithmic axis


def _log_y(values: list[np.ndarray]) -> dict:
    """A logarithmic y axis labelled at every power of ten, or every second, third… so at most LOG_TICKS."""
    flat = np.concatenate([np.maximum(np.ravel(v), LOG_FLOOR) for v in values])
    decades = np.log10(flat.max()) - np.log10(flat.min())
    return LOG_Y | dict(dtick=max(1, int(np.ceil(decades / LOG_TICKS))))


def _log_x(x: np.ndarray, *, words: Words) -> dict:
    values = [float(v) for v in np.asarray(x).ravel()]
    return dict(type="log", tickvals=values, ticktext=[words.fmt(v, "g") for v in values], minor=dict(ticks=""))


LINE_PX = round(1.3 * theme.TEMPLATE.layout.title.font.size)  # a title line's height


def title_top(title: str) -> int:
    """The top margin for a title of one or more lines (<br>): the template's, and a line more for each line
    after the first, so that the title's last line stays clear of the plot."""
    return theme.TEMPLATE.layout.margin.t + LINE_PX * title.count("<br>")


def histograms(samples: dict[str, np.ndarray], title: str, x_title: str, *, words: Words) -> go.Figure:
    """Overlaid histograms, one per sample. title: may run over lines (<br>); the top margin follows."""
    traces = [
        dict(type="histogram", x=np.ravel(values), name=name, opacity=0.65, nbinsx=60, marker_color=colour(i))
        for i, (name, values) in enumerate(samples.items())
    ]
    return figure(
        traces,
        title,
        420,
        barmode="overlay",
        legend=dict(orientation="h", y=-0.2),
        margin=dict(t=title_top(title)),
        xaxis=dict(title=dict(text=x_title)),
        yaxis=dict(title=dict(text=words._("count"))),
    )


def bars(
    labels: Sequence[str],
    values: Sequence[float],
    title: str,
    y_title: str,
    highlight: int | None = None,
    text_fmt: str | None = None,
    horizontal: bool = False,
    compact: bool = False,
    label_title: str | None = None,
    *,
    words: Words,
) -> go.Figure:
    """Bars of values, one per label. compact: a count axis in the page's language's short words ("20 Md" in
    French, where plotly would write its own "20B"). label_title: the title of the labels' axis ("key", "token").

    Labels that are all whole numbers (1, 2, 3…) go on a number axis, written upright at a few round steps,
    never turned on their side. Each bar's value (text_fmt) is written beyond its end, all alike: inside some
    bars and above others, they read as two kinds of number."""
    colors = [theme.OKABE_ITO[1] if i == highlight else theme.OKABE_ITO[0] for i in range(len(values))]
    labels = [plain(str(x)) for x in labels]
    top = max((float(v) for v in values), default=1.0) or 1.0
    bar = dict(
        type="bar",
        marker_color=colors,
        text=[words.fmt(v, text_fmt) for v in values] if text_fmt else None,
        textposition="outside",
        textangle=0,  # upright, every one: plotly would turn those wider than their bar
        cliponaxis=False,
    )
    label_axis = dict(title=dict(text=label_title)) if label_title else {}
    if horizontal:  # values printed beyond the bar's end, so that a short bar's number stays readable
        # a long label ("QK-norm: the gains of the queries' and keys' RMSNorm", longer in French) over lines, so
        # that the labels take at most LABELS_SHARE of the figure's width and leave the bars the rest
        labels = [_wrapped_label(x, LABELS_SHARE * Canvas.width) for x in labels]
        lines = sum(x.count("<br>") + 1 for x in labels)
        return figure(
            [dict(bar, y=labels, x=list(values), orientation="h")],
            title,
            max(380, 60 + 34 * len(labels) + LABEL_LINE_PX * (lines - len(labels))),
            yaxis=dict(type="category", autorange="reversed", **label_axis),
            xaxis=dict(
                title=dict(text=y_title),
                range=[0, top * 1.18],
                tickangle=0,  # upright: turned, the counts ran into the axis title
                **(_compact_ticks(top, words=words) if compact else {}),
            ),
            margin=dict(
                l=max(label_px(x.split("<br>")) for x in labels) + 15 + (28 if label_title else 0) if labels else 85,
                t=title_top(title),
            ),
        )
    value_axis = dict(title=dict(text=y_title), range=[0, top * 1.15]) if text_fmt else dict(title=dict(text=y_title))
    if labels and all(x.isdigit() for x in labels):
        return figure(
            [dict(bar, x=[int(x) for x in labels], y=list(values))],
            title,
            400,
            xaxis=dict(type="linear", tickangle=0, tickformat="d", nticks=10, **label_axis),
            yaxis=value_axis,
            margin=dict(t=title_top(title)),
        )
    # plotly turns the labels 30° when they crowd, and the last one then runs right of its bar, past the plot:
    # the right margin holds it turned (or, upright, the half of it past its bar)
    last = label_px(labels[-1:]) if labels else 0
    return figure(
        [dict(bar, x=labels, y=list(values))],
        title,
        400,
        xaxis=dict(type="category", **label_axis),
        yaxis=value_axis,
        margin=dict(r=max(theme.TEMPLATE.layout.margin.r, round(last * np.cos(np.radians(30)))), t=title_top(title)),
    )


LABELS_SHARE = 0.4  # of a figure's width, at most, for the labels beside horizontal bars
LABEL_LINE_PX = round(1.2 * theme.TEMPLATE.layout.font.size)  # a label's next line, at the template's type


def _wrapped_label(label: str, width_px: float) -> str:
    """An (escaped) label over as many lines as keep it within width_px at the template's type."""
    size = theme.TEMPLATE.layout.font.size
    target = width_px
    lines = [label]
    while max(label_px([line], size) for line in lines) > width_px and target > width_px / 2:  # as margins measure
        lines = wrap(label, target, size)
        target -= size
    return "<br>".join(lines)


def _compact_ticks(top: float, *, words: Words) -> dict:
    """Ticks at round steps from 0 to `top` (1, 2 or 5 times a power of ten, five of them at most), each written
    in the page's language's short words for large counts."""
    raw = top / 5  # at most five steps: "120 M" and "140 M" ran together beside long labels
    step = min(s for s in (m * 10 ** np.floor(np.log10(raw)) for m in (1, 2, 5, 10)) if s >= raw)
    ticks = np.arange(0, top * 1.18, step)
    return dict(tickvals=ticks.tolist(), ticktext=[words.compact(float(t), 1) for t in ticks])


def head_norm_bars(
    norms: np.ndarray, selected: int, sum_norm: float, token_label: str, title: str | None = None, *, words: Words
) -> go.Figure:
    """|Δe^(h)| of one token for every head, the selected head highlighted, and |ΣΔe| for comparison.

    title: by default how far each head pushes the token; it may run over lines (<br>), and the figure grows by
    them so that its plot keeps its height."""
    title = title or words._("How far each head pushes “{token}”").format(token=token_label)
    n = len(norms)
    colors = [theme.OKABE_ITO[1] if h == selected else theme.OKABE_ITO[5] for h in range(n)]
    per_head = dict(
        type="bar",
        x=[f"{h + 1}" for h in range(n)],
        y=norms,
        marker=dict(color=colors),
        hovertemplate=words._("head {n}").format(n="%{x}") + "<br>|Δe| = %{y:.3f}<extra></extra>",
        name=words._("|Δe| of a head"),
    )
    sum_line = dict(
        type="line",
        x0=0,
        x1=1,
        xref="x domain",
        y0=sum_norm,
        y1=sum_norm,
        yref="y",
        line=dict(color=theme.OKABE_ITO[2], dash="dash", width=2),
    )
    sum_label = dict(  # at the line's right end, away from the axis's numbers ("4 |ΣΔe| = 3.79" read as 4 − …)
        text=f"|ΣΔe| = {words.num(sum_norm, 2)}",
        x=1,
        xanchor="right",
        bgcolor="rgba(255,255,255,0.85)",
        xref="x domain",
        y=sum_norm,
        yanchor="bottom",
        yref="y",
        showarrow=False,
    )
    return figure(
        [per_head],
        title,
        306 + title_room(title),  # stand_alone's title room, and 306 px for the plot and its axis
        checked=False,
        shapes=[sum_line],
        annotations=[sum_label],
        xaxis=dict(title=dict(text=words._("head")), type="category"),
        # room above the sum's line for its label, inside the plot rather than over the title
        yaxis=dict(
            title=dict(text=words._("|Δe| in model space")), range=[0, 1.15 * max(sum_norm, float(np.max(norms)))]
        ),
    )


PERCENT_STEPS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5)


def percent_ticks(code: str, end: float, most: int = 6) -> dict:
    """An axis of shares from 0 to `end` labelled as percentages the language's way ("10%", French "10 %"): plotly's
    own "%" format writes no space before the sign."""
    step = next((s for s in PERCENT_STEPS if end / s <= most), 1.0)
    values = [round(i * step, 6) for i in range(int(end / step + 1e-9) + 1)]
    digits = 1 if step < 0.01 else 0
    return dict(
        tickmode="array", tickvals=values, ticktext=[locales.percent(code, v, digits if v else 0) for v in values]
    )


def next_token_bars(tokens: Sequence[str], probabilities: Sequence[float], title: str, *, words: Words) -> go.Figure:
    """The most likely next tokens as horizontal bars, the likeliest on top, each with its probability.

    tokens: as a person reads them (spaces marked); rows by position, so two tokens that read alike stay two.
    title: may run over lines (<br>)."""
    names = [plain(t) for t in tokens]
    code = words.code
    rows = list(range(len(names)))
    top = max(probabilities, default=1.0)
    bar = dict(
        type="bar",
        orientation="h",
        y=rows,
        x=list(probabilities),
        marker=dict(color=theme.OKABE_ITO[0]),
        text=[locales.percent(code, p, 1) for p in probabilities],
        textposition="outside",
        cliponaxis=False,
        customdata=[
            words._("{name}: {said}").format(name=n, said=locales.percent(code, p, 2))
            for n, p in zip(names, probabilities, strict=True)
        ],
        hovertemplate="%{customdata}<extra></extra>",
    )
    return figure(
        [bar],
        title,
        title_room(title) + 55 + 36 * len(names),
        checked=False,
        yaxis=dict(tickmode="array", tickvals=rows, ticktext=names, autorange="reversed"),
        xaxis=dict(
            title=dict(text=words._("probability")), range=[0, top * 1.25], **percent_ticks(code, top * 1.25), **GRID
        ),
        margin=dict(l=label_px(names) + 15, r=20, b=55),
    )
