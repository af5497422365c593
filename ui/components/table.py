"""A small table drawn in the browser from plain columns, for the few rows of the explorer's and the chapters' tables.

st.dataframe and st.table go through pandas on the server (a quarter of a second to import on the first page a
server shows) and st.dataframe through a data grid in the browser; a dozen rows need neither. The cells are set as
text (table.js), so a token such as "<b>" is shown as typed, and numbers as the page's language writes them (where
st.dataframe writes them as the browser's language does: 0.269 on a French page in an English browser); a click on
a column's name sorts by it, numbers by their values. On a phone the rows keep one line each and the table scrolls
sideways in its own box.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from numbers import Integral, Real
from pathlib import Path

import streamlit as st

from ui.words import i18n
from ui.words.i18n import _

_JS = Path(__file__).with_name("table.js").read_text(encoding="utf-8")
_CSS = """
.table { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 1rem; font-variant-numeric: tabular-nums; }
th, td {
  padding: 0.3rem 0.75rem; text-align: left; white-space: nowrap; border-bottom: 1px solid var(--st-border-color);
}
@media (max-width: 640px) { table { font-size: 0.9rem; } th, td { padding: 0.25rem 0.5rem; } }
th.num, td.num { text-align: right; }
th button {
  font: inherit; font-weight: 600; color: inherit; background: none; border: none; padding: 0; cursor: pointer;
}
th button:hover { color: var(--st-primary-color); }
th[aria-sort="ascending"] button::after { content: " ▲"; }
th[aria-sort="descending"] button::after { content: " ▼"; }
"""
_component = st.components.v2.component("attention_table", js=_JS, css=_CSS)


Cell = str | float | tuple[str, float]  # a text, a number, or a number already written: (its text, its value)


def table(columns: dict[str, Sequence[Cell]], key: str, label: str, digits: int | Mapping[str, int] = 3) -> None:
    """One row per position of the columns ({name: values}, all as long). A number is written in the browser as
    the page's language writes it, with `digits` decimals (one count for every column, or {name: count}, 3 for a
    column not named), grouped where it has none (174 604 in French); a number the page wrote itself (a share,
    "< 0,01 %") is given as (text, value): shown as written, sorted by its value. label: what the table holds, for
    screen readers."""
    names = list(columns)
    lengths = {len(values) for values in columns.values()}
    if len(lengths) > 1:
        raise ValueError(f"columns of different lengths: {sorted(lengths)}")
    places = tuple(digits.get(n, 3) if isinstance(digits, Mapping) else digits for n in names)
    # Tuples, not lists: Streamlit looks for dataframes among the values of the data it is given, and for a
    # list that means importing pandas; tuples it passes over (they are sent as JSON arrays all the same).
    rows = tuple(tuple(_cell(v) for v in row) for row in zip(*columns.values(), strict=True))
    data = {"columns": tuple(names), "rows": rows, "digits": places, "label": label}
    data |= {"lang": i18n.language(), "sortBy": _("Sort by {column}")}
    _component(key=key, data=data)


def _cell(value: Cell) -> str | float | tuple[str, float]:
    """A cell as JSON carries it: numpy's numbers as Python's."""
    if isinstance(value, tuple):
        return (str(value[0]), float(value[1]))
    if isinstance(value, str):
        return value
    return float(value) if isinstance(value, Real) and not isinstance(value, bool | Integral) else int(value)
