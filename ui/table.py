"""A small table drawn in the browser from plain columns, for the explorer's few rows.

st.dataframe and st.table go through pandas on the server (a quarter of a second to import on the first page a
server shows) and st.dataframe through a data grid in the browser; a dozen rows need neither. The cells are set as
text (table.js), so a token such as "<b>" is shown as typed; a click on a column's name sorts by it. On a phone
the rows keep one line each and the table scrolls sideways in its own box.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import streamlit as st

from . import i18n
from .i18n import _

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


def table(columns: dict[str, Sequence[str | float]], key: str, label: str, digits: int = 3) -> None:
    """One row per position of the columns ({name: values}, all as long); numbers printed with `digits`
    decimals. label: what the table holds, for screen readers."""
    names = list(columns)
    lengths = {len(values) for values in columns.values()}
    if len(lengths) > 1:
        raise ValueError(f"columns of different lengths: {sorted(lengths)}")
    # Tuples, not lists: Streamlit looks for dataframes among the values of the data it is given, and for a
    # list that means importing pandas; tuples it passes over (they are sent as JSON arrays all the same).
    rows = tuple(tuple(row) for row in zip(*columns.values(), strict=True))
    data = {"columns": tuple(names), "rows": rows, "digits": (digits,) * len(names), "label": label}
    data |= {"lang": i18n.language(), "sortBy": _("Sort by {column}")}
    _component(key=key, data=data)
