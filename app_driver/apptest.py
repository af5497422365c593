"""Helpers to run the app without a browser (Streamlit's AppTest) and read its figures' data."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from ui.components import plot

ROOT = Path(__file__).resolve().parents[1]
# The first run loads the model in a child process (several seconds): far past AppTest's 3 s default.
TIMEOUT = 180


def run_page(path: str = "app.py", **params: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / path), default_timeout=TIMEOUT)
    for name, value in params.items():
        at.query_params[name] = value
    at.run()
    return at


def figures(at: AppTest) -> dict[str, dict]:
    """{figure title: plotly spec} for every chart on the page."""
    out = {}
    for spec, _config in plot.drawn(at):
        title = spec["layout"].get("title", {}).get("text", "")
        out[title] = spec
    return out


def figure(at: AppTest, title_start: str) -> dict:
    """The one chart whose title starts so, read as one line (a long title is wrapped to its column)."""
    matches = [
        spec
        for title, spec in figures(at).items()
        if (title.startswith(title_start) or title.replace("<br>", " ").startswith(title_start))
    ]
    assert len(matches) == 1, f"{title_start!r} among {list(figures(at))}"
    return matches[0]


def table(at: AppTest, key: str) -> dict[str, list]:
    """{column: values} of the table (ui/components/table.py) drawn with this key."""
    for element in at.get("bidi_component"):
        if element.proto.component_name == "attention_table" and element.proto.id.endswith(f"-{key}"):
            data = json.loads(element.proto.json)
            return {name: [row[c] for row in data["rows"]] for c, name in enumerate(data["columns"])}
    raise AssertionError(f"no table {key!r} on the page")


def messages(at: AppTest) -> str:
    """Every warning, info and error text on the page, joined."""
    return "\n".join(e.value for kind in ("warning", "info", "error") for e in at.get(kind))


def array(value) -> np.ndarray:
    """A data array from a plotly spec: a plain list, or plotly's typed-array form {dtype, bdata, shape}."""
    if isinstance(value, dict) and "bdata" in value:
        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if isinstance(shape, str):
            shape = [int(s) for s in shape.split(",")]
        return data.reshape(shape) if shape else data
    if value and not isinstance(value[0], list):
        return np.array([np.nan if v is None else v for v in value], dtype=float)
    return np.array([[np.nan if v is None else v for v in row] for row in value], dtype=float)


SUPERSCRIPT_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def number(text: str) -> float:
    """A number as an English page writes it, read back: "0.573", "1,024", or "1.3 × 10⁻⁵" (i18n.sci)."""
    mantissa, _times, power = text.replace(",", "").replace("\u2212", "-").partition(" × 10")
    return float(mantissa) * (10 ** int(power.translate(SUPERSCRIPT_DIGITS)) if power else 1)


def metric(at: AppTest, label_start: str) -> str:
    """The shown value of the st.metric whose label starts with `label_start`."""
    found = [m.value for m in at.metric if m.label.startswith(label_start)]
    assert len(found) == 1, f"{label_start!r} among {[m.label for m in at.metric]}"
    return found[0]


TYPED_SUBSCRIPT = re.compile(r"[A-Za-z]_[A-Za-z(]|\^\(")  # q_i, b_O, W_O^(h): plotly prints them as typed


def typed_markup(at) -> list[str]:
    """Every figure text (title, note, axis title, legend name) that writes a subscript or superscript the way TeX
    is typed, which a figure shows as typed: they are drawn with <sub>, <sup> or Unicode (qᵢ, dₖ) instead."""
    found = []
    for spec, _config in plot.drawn(at):
        layout = spec["layout"]
        texts = [layout.get("title", {}).get("text", ""), *(a.get("text", "") for a in layout.get("annotations", []))]
        texts += [v.get("title", {}).get("text", "") for k, v in layout.items() if k.startswith(("xaxis", "yaxis"))]
        texts += [trace.get("name", "") for trace in spec["data"]]
        found += [t for t in texts if TYPED_SUBSCRIPT.search(re.sub(r"<[^>]*>", "", t or ""))]
    return found
