"""A figure in words and numbers, for a student who cannot see it: what it shows, said from its own data in the
page's language, and its values as tables a screen reader walks cell by cell.

Read from the figure as plotly JSON (what the browser draws), so every figure gets a description without its
builder writing one: a heatmap says, for each row (or each column, where the columns are a query's weights), where
its largest value is; bars name their largest and smallest; a line its start, end and peak; points are listed. A
builder that knows more (which head moves a token most) adds its own sentences in layout.meta["alt"]."""

from __future__ import annotations

import base64
import functools
import html
import re
from dataclasses import dataclass

import numpy as np

from ui.words import locales
from ui.words.locales import N_, Words

QUOTED = N_("“{token}”")
MAX_SENTENCES = 24  # one per row: past that, the rest is in the table
MAX_CELLS = 20_000  # a figure's tables past that list their first rows (every head of a long text's layer)


@dataclass(frozen=True)
class Table:
    """Numbers are written by the browser, in the page's language, to `digits` decimals (thousands of cells
    written on the server cost more than the figure); None is a masked cell (−∞)."""

    caption: str
    header: tuple[str, ...]  # the corner first, then each column's name
    rows: tuple[tuple[str | float | None, ...], ...]  # each row's name first, then its cells
    digits: int


@dataclass(frozen=True)
class Alt:
    name: str  # the figure's title, as one line of plain text
    sentences: tuple[str, ...]
    tables: tuple[Table, ...]


def plain_text(text: object) -> str:
    """A plotly label as a screen reader should hear it: no tags, entities read, lines joined."""
    if text is None:
        return ""
    return _plain(str(text))


@functools.lru_cache(maxsize=4096)
def _plain(text: str) -> str:
    """plain_text, once per label: a figure's tokens are read again for each of its heatmaps' rows and columns."""
    text = re.sub(r"<br\s*/?>", " ", text)
    text = re.sub(r"<[^>]+>", "", text)
    return re.sub(r"\s+", " ", html.unescape(text).replace("\u2066", "").replace("\u2069", "")).strip()


def values(v: object) -> np.ndarray | None:
    """A trace's data array: a list, nested lists, or plotly's typed-array spec ({dtype, bdata, shape})."""
    if v is None:
        return None
    if isinstance(v, dict) and "bdata" in v:
        a = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]).newbyteorder("<"))
        shape = v.get("shape")
        if shape:
            a = a.reshape([int(s) for s in str(shape).split(",")])
        return a.astype(np.float64)
    try:
        return np.asarray(v, dtype=np.float64)
    except (TypeError, ValueError):
        return None


def labels(v: object, n: int) -> list[str]:
    """Category names (tokens), or positions 1…n where the trace gives none."""
    if isinstance(v, list | tuple) and len(v) == n:
        return [plain_text(x) for x in v]
    return [str(i + 1) for i in range(n)]


def axis_names(layout: dict, trace: dict, axis: str, n: int) -> list[str]:
    """The names a trace's categories are shown with: the axis's tick texts where it sets them by position."""
    ref = trace.get(f"{axis}axis", axis)
    settings = layout.get(f"{axis}axis{ref[1:]}", {}) or {}
    own = trace.get(axis)
    ticktext, tickvals = settings.get("ticktext"), settings.get("tickvals")
    if isinstance(own, list | tuple) and len(own) == n:
        if ticktext and tickvals and len(ticktext) == len(tickvals):
            by_value = {str(v): plain_text(t) for v, t in zip(tickvals, ticktext, strict=True)}
            return [by_value.get(str(x), plain_text(x)) for x in own]
        return labels(own, n)
    if ticktext and len(ticktext) == n:
        return [plain_text(t) for t in ticktext]
    return labels(own, n)


def capital(sentence: str) -> str:
    """A message's sentence starting with a capital ("head 3 moves…" -> "Head 3 moves…"); each message starts in
    lower case, so that it can follow a trace's name."""
    return sentence[:1].upper() + sentence[1:]


def tr(message: str, *, words: Words) -> str:
    """A message in the figure's language."""
    return words._(message)


def quoted(token: str, *, words: Words) -> str:
    return tr(QUOTED, words=words).format(token=token)


def number(v: float, digits: int = 3, *, words: Words) -> str:
    """A value as the page's language writes it."""
    return numbers([v], digits, words=words)[0]


def numbers(vs, digits: int, *, words: Words) -> list[str]:
    """Values as the page's language writes them, all at format's speed (a table has thousands): a count, a
    position or a size whole (32, not 32.000), a tiny value as a power of ten, −∞ where a mask put it."""
    code = words.code
    out = []
    for v in vs:
        v = float(v)
        if v != v or v in (np.inf, -np.inf):
            out.append("−∞" if v < 0 else "∞" if v > 0 else "")
        elif v != 0 and abs(v) < 10**-digits and not (digits == 0 or v.is_integer()):
            out.append(words.sci(v, 1))
        else:
            whole = digits == 0 or (abs(v) > 1 and v.is_integer())
            text = f"{round(v):,d}" if whole else f"{v:,.{digits}f}"
            out.append(locales.separated(code, text).replace("-", "−"))
    return out


def cells(a: np.ndarray, digits: int) -> list:
    """A table's numbers, rounded, as JSON writes them (a row, or rows of a matrix); None where the mask put −∞."""
    a = np.asarray(a, dtype=np.float64)
    rounded = np.round(a, digits)
    if np.isfinite(a).all():
        return rounded.tolist()
    out = rounded.astype(object)
    out[~np.isfinite(a)] = None
    return out.tolist()


def digits_for(a: np.ndarray) -> int:
    """Decimals a table of these values needs: three for weights, fewer for large scores."""
    finite = np.abs(a[np.isfinite(a)])
    if finite.size and np.all(finite == np.round(finite)):
        return 0  # positions, counts
    top = float(finite.max()) if finite.size else 0.0
    return 3 if top < 10 else 2 if top < 100 else 1 if top < 1000 else 0


def describe(spec: dict, *, words: Words) -> Alt:
    """The figure (plotly JSON, as drawn) in words and numbers."""
    layout = spec.get("layout", {}) or {}
    title = layout.get("title", {})
    name = plain_text(title.get("text") if isinstance(title, dict) else title)
    meta = layout.get("meta") if isinstance(layout.get("meta"), dict) else {}
    sentences: list[str] = [capital(x) for x in meta.get("alt", ())]
    tables: list[Table] = []
    traces = [t for t in spec.get("data", []) if t.get("visible") not in (False, "legendonly")]
    traces = [t for t in traces if t.get("hoverinfo") != "skip"]  # drawn under the others (the mask's grey)
    n_heatmaps = sum(t.get("type") == "heatmap" for t in traces)
    per_heatmap = max(3, MAX_SENTENCES // max(1, n_heatmaps))  # every head of a layer: a few lines each
    budget = MAX_CELLS // max(1, n_heatmaps)
    for trace in traces:
        kind = trace.get("type", "scatter")
        if kind == "heatmap":
            said, table = _heatmap(layout, trace, name, per_heatmap, budget, words=words)
        elif kind == "bar":
            said, table = _bars(layout, trace, name, words=words)
        elif kind == "scatter":
            said, table = _points(layout, trace, name, words=words)
        elif kind == "histogram":
            said, table = _histogram(layout, trace, name, words=words)
        else:
            continue
        said = [capital(x) for x in said]
        own = plain_text(trace.get("name"))
        if own and said:  # the name as written ("λ = 0.9", "head 3"), and what is said of it after a colon
            own = capital(own) if re.match(r"[^\W\d_]{2}", own) else own  # a word, not a symbol (λ)
            said[0] = tr(NAMED, words=words).format(name=own, said=said[0][:1].lower() + said[0][1:])
        sentences += said
        if table is not None:
            tables.append(table)
    if not sentences:  # a diagram: its boxes' and notes' words, in the order they are drawn
        shown = [plain_text(a.get("text")) for a in layout.get("annotations", ()) if isinstance(a, dict)]
        shown = [w for w in shown if w]
        if shown:
            sentences.append(capital(tr(DIAGRAM, words=words).format(words=" · ".join(shown))))
    return Alt(name, tuple(sentences), tuple(tables))


# --- heatmaps --------------------------------------------------------------------------------------------------

# Each message starts in lower case (a trace's name may come before it: NAMED) and ends with a full stop.
BY_ROW = N_("row {row}: largest value at {column}, {value}.")
WEIGHT_OF = N_("{query} gives most of its weight to {key}: {value}.")
SIZE = N_("{rows} × {columns} values, from {low} to {high}.")


def _matrix(trace: dict) -> np.ndarray | None:
    """The values a heatmap shows: its customdata where the colours are something else (a weight's share of its
    row's largest), else its z."""
    z = values(trace.get("z"))
    custom = values(trace.get("customdata"))
    if custom is not None and z is not None and custom.shape == z.shape:
        return custom
    return z


def _heatmap(
    layout: dict, trace: dict, figure_name: str, most: int, cells_at_most: int, *, words: Words
) -> tuple[list[str], Table | None]:
    m = _matrix(trace)
    if m is None or m.ndim != 2 or m.size == 0:
        return [], None
    n_rows, n_cols = m.shape
    rows = axis_names(layout, trace, "y", n_rows)
    cols = axis_names(layout, trace, "x", n_cols)
    finite = m[np.isfinite(m)]
    if not finite.size:
        return [], None
    caption = plain_text(trace.get("name")) or figure_name
    said = [
        tr(SIZE, words=words).format(
            rows=n_rows, columns=n_cols, low=number(finite.min(), words=words), high=number(finite.max(), words=words)
        )
    ]
    masked = int((~np.isfinite(m)).sum())
    if masked:
        said.append(
            words.n_(
                "{n} cell is masked (−∞ before the softmax, 0 after it).",
                "{n} cells are masked (−∞ before the softmax, 0 after it).",
                masked,
            ).format(n=words.whole(masked))
        )
    filled = np.where(np.isfinite(m), m, -np.inf)
    # weights: each query's row (or column, in the lesson notes' layout) sums to 1
    along = None
    if finite.min() >= 0 and finite.max() <= 1 + 1e-6:
        sums = np.where(np.isfinite(m), m, 0.0)
        if np.allclose(sums.sum(axis=1), 1, atol=2e-3):
            along = "rows"
        elif np.allclose(sums.sum(axis=0), 1, atol=2e-3):
            along = "columns"
    # one sentence per row (or column) that has a value, the first `most` of them written: a long text's heads have
    # hundreds each, and the rest are in the table
    if along == "columns":  # each column is a query: where its weight goes
        best = filled.argmax(axis=0)
        lines = [
            tr(WEIGHT_OF, words=words).format(
                query=quoted(cols[j], words=words),
                key=quoted(rows[best[j]], words=words),
                value=number(m[best[j], j], words=words),
            )
            for j in range(min(n_cols, most))
        ]
        said_of = n_cols
    else:
        best = filled.argmax(axis=1)
        template = WEIGHT_OF if along == "rows" else BY_ROW
        valid = np.flatnonzero(np.isfinite(filled[np.arange(n_rows), best]))
        lines = [
            tr(template, words=words).format(
                query=quoted(rows[i], words=words),
                key=quoted(cols[best[i]], words=words),
                row=quoted(rows[i], words=words),
                column=quoted(cols[best[i]], words=words),
                value=number(m[i, best[i]], words=words),
            )
            for i in valid[:most]
        ]
        said_of = valid.size
    said += lines
    if said_of > most:
        more = said_of - most
        said.append(words.n_("{n} more row is in the table.", "{n} more rows are in the table.", more).format(n=more))
    digits = digits_for(m)
    shown_rows = max(1, min(n_rows, cells_at_most // max(n_cols, 1)))
    if shown_rows < n_rows:
        said.append(tr(FIRST_ROWS, words=words).format(shown=shown_rows, rows=n_rows))
    y_title, x_title = plain_text(_axis_title(layout, trace, "y")), plain_text(_axis_title(layout, trace, "x"))
    meta = layout.get("meta") if isinstance(layout.get("meta"), dict) else {}
    corner = f"{y_title} ↓ {x_title} →" if y_title or x_title else plain_text(meta.get("corner", ""))
    table = Table(
        caption,
        (corner.strip(), *cols),
        tuple((rows[i], *row) for i, row in enumerate(cells(m[:shown_rows], digits))),
        digits,
    )
    return said, table


def _axis_title(layout: dict, trace: dict, axis: str) -> str:
    ref = trace.get(f"{axis}axis", axis)
    title = (layout.get(f"{axis}axis{ref[1:]}", {}) or {}).get("title")
    return (title.get("text") if isinstance(title, dict) else title) or ""


# --- bars and points -------------------------------------------------------------------------------------------

BARS = N_("largest {top} ({top_value}), smallest {bottom} ({bottom_value}).")
LINE = N_("from {first} at {first_x} to {last} at {last_x}; highest {top} at {top_x}.")
NAMED = N_("{name}: {said}")  # a trace's own name, before what is said of it
VALUE = N_("value")
DIAGRAM = N_("a diagram, read from top to bottom: {words}.")
FIRST_ROWS = N_("the table lists the first {shown} of its {rows} rows.")
SAMPLES = N_("{n} samples from {low} to {high}: mean {mean}, standard deviation {spread}.")
COUNT = N_("count")


def _bars(layout: dict, trace: dict, figure_name: str, *, words: Words) -> tuple[list[str], Table | None]:
    across, along = ("y", "x") if trace.get("orientation") == "h" else ("x", "y")
    v = values(trace.get(along))
    if v is None or v.ndim != 1 or not v.size:
        return [], None
    names = axis_names(layout, trace, across, len(v))
    name = plain_text(trace.get("name")) or figure_name
    finite = np.where(np.isfinite(v), v, np.nan)
    if np.isnan(finite).all():  # no bar has a value (a share of a token the text does not have)
        return [], None
    top, bottom = int(np.nanargmax(finite)), int(np.nanargmin(finite))
    said = [
        tr(BARS, words=words).format(
            top=quoted(names[top], words=words),
            top_value=number(v[top], words=words),
            bottom=quoted(names[bottom], words=words),
            bottom_value=number(v[bottom], words=words),
        )
    ]
    digits = digits_for(v)
    head = plain_text(_axis_title(layout, trace, across))
    table = Table(
        name,
        (head, plain_text(_axis_title(layout, trace, along)) or tr(VALUE, words=words)),
        tuple(zip(names, cells(v, digits), strict=True)),
        digits,
    )
    return said, table


def _points(layout: dict, trace: dict, figure_name: str, *, words: Words) -> tuple[list[str], Table | None]:
    y = values(trace.get("y"))
    if y is None or y.ndim != 1 or not y.size:
        return [], None
    x = values(trace.get("x"))
    x_names = axis_names(layout, trace, "x", len(y)) if x is None or not np.isfinite(x).all() else None
    x = np.arange(1, len(y) + 1, dtype=np.float64) if x is None or x.shape != y.shape else x
    name = plain_text(trace.get("name")) or figure_name
    texts = _texts(trace, len(y))
    mode = trace.get("mode", "lines+markers" if len(y) < 20 else "lines")
    x_digits, y_digits = digits_for(x), digits_for(y)
    xs = x_names or [number(v, x_digits, words=words) for v in x]
    if "lines" in mode and len(y) > 2 and np.isfinite(y).all():
        top = int(np.argmax(y))
        said = [
            tr(LINE, words=words).format(
                first=number(y[0], y_digits, words=words),
                first_x=xs[0],
                last=number(y[-1], y_digits, words=words),
                last_x=xs[-1],
                top=number(y[top], y_digits, words=words),
                top_x=xs[top],
            )
        ]
    elif texts is None and len(y) <= 2:
        return [], None  # a line's two ends drawn as a shape: nothing to read
    else:
        said = [
            words.n_("{n} point, listed in the table.", "{n} points, listed in the table.", len(y)).format(n=len(y))
        ]
    header = (plain_text(_axis_title(layout, trace, "x")) or "x", plain_text(_axis_title(layout, trace, "y")) or "y")
    ys = cells(y, y_digits)
    if texts is not None:
        return said, Table(name, ("", *header), tuple(zip(texts, xs, ys, strict=True)), y_digits)
    return said, Table(name, header, tuple(zip(xs, ys, strict=True)), y_digits)


def _texts(trace: dict, n: int) -> list[str] | None:
    """What each point is (its hover text or label), where the trace names its points."""
    for field in ("hovertext", "text"):
        t = trace.get(field)
        if isinstance(t, list | tuple) and len(t) == n and any(t):
            return [plain_text(x) for x in t]
    return None


def _histogram(layout: dict, trace: dict, figure_name: str, *, words: Words) -> tuple[list[str], Table | None]:
    x = values(trace.get("x"))
    if x is None or x.ndim != 1 or not x.size:
        return [], None
    x = x[np.isfinite(x)]
    said = [
        tr(SAMPLES, words=words).format(
            n=words.whole(x.size),
            low=number(x.min(), words=words),
            high=number(x.max(), words=words),
            mean=number(x.mean(), words=words),
            spread=number(x.std(), words=words),
        )
    ]
    counts, edges = np.histogram(x, bins=min(20, max(1, x.size // 5)))
    digits = digits_for(edges)
    bins = [
        f"{a} – {b}"
        for a, b in zip(numbers(edges[:-1], digits, words=words), numbers(edges[1:], digits, words=words), strict=True)
    ]
    name = plain_text(trace.get("name")) or figure_name
    header = (plain_text(_axis_title(layout, trace, "x")) or "x", tr(COUNT, words=words))
    return said, Table(name, header, tuple(zip(bins, counts.tolist(), strict=True)), 0)
