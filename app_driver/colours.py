"""Colour as students see it, measured: a colour under each colour-vision deficiency (colorspacious: Machado,
Oliveira and Fernandes 2009, at full severity), the difference of two colours as ΔE' in CAM02-UCS, WCAG 2's
contrast ratio, and what colours a figure prints and writes. tests/test_colours.py says why each threshold is
what it is; benchmarks/colours.py prints the margins."""

from __future__ import annotations

import re

import numpy as np
import plotly.colors
from colorspacious import cspace_convert, deltaE

from app_driver.apptest import array, figures
from ui.figures import theme
from ui.words import chapters

DEFICIENCIES = ("protanomaly", "deuteranomaly", "tritanomaly")  # at severity 100: protanopia, deuteranopia, tritanopia


VISIONS = (None, *DEFICIENCIES)  # None: typical colour vision


THRESHOLD = 10.0  # ΔE' between colours told apart as categories


STEP = 4.0  # ΔE' between neighbouring tenths of a sequential scale


TEXT = 4.5  # WCAG's least contrast for text (AA)


def rgb(colour: str) -> np.ndarray:
    """sRGB from 0 to 1, as plotly writes a colour ("#0072b2", "rgb(8, 48, 107)")."""
    if colour.startswith("#"):
        return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)]) / 255
    return np.array([float(v) for v in re.findall(r"[\d.]+", colour)[:3]]) / 255


def seen(colour: np.ndarray, vision: str | None) -> np.ndarray:
    """The colour as someone with this deficiency sees it, as an sRGB colour."""
    if vision is None:
        return colour
    cvd = {"name": "sRGB1+CVD", "cvd_type": vision, "severity": 100}
    return np.clip(cspace_convert(colour, cvd, "sRGB1"), 0, 1)


def apart(a: str | np.ndarray, b: str | np.ndarray, vision: str | None) -> float:
    a, b = (rgb(c) if isinstance(c, str) else c for c in (a, b))
    return float(deltaE(seen(a, vision), seen(b, vision), input_space="sRGB1"))


def on_scale(scale: str, t: float) -> np.ndarray:
    return rgb(plotly.colors.sample_colorscale(plotly.colors.get_colorscale(scale), [t], colortype="rgb")[0])


def luminance(c: np.ndarray) -> np.ndarray:
    """WCAG 2's relative luminance of sRGB colours from 0 to 1."""
    linear = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def contrast(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    la, lb = luminance(a), luminance(b)
    return (np.maximum(la, lb) + 0.05) / (np.minimum(la, lb) + 0.05)


WHITE_SPAN = re.compile(r"^<span style='color:#ffffff'>(.*)</span>$")


def printed_cells(trace: dict) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(text, its colour, its cell's colour) of every value a heatmap prints, the cell's colour as plotly.colors
    finds it from the value (on a scale from zmin to zmax, by default the values' least and greatest); a cell
    without a value shows the masked grey under it."""
    z = array(trace["z"]).astype(float)
    named = trace["colorscale"]
    scale = plotly.colors.get_colorscale(named) if isinstance(named, str) else [[t, c] for t, c in named]
    low = trace["zmin"] if trace.get("zmin") is not None else np.nanmin(z)
    high = trace["zmax"] if trace.get("zmax") is not None else np.nanmax(z)
    base = rgb(trace.get("textfont", {}).get("color", "#444444"))
    out = []
    for (r, c), text in np.ndenumerate(np.array(trace["text"], dtype=object)):
        if not text:
            continue
        if np.isnan(z[r, c]):
            cell = rgb(theme.MASKED)
        else:
            t = float(np.clip((z[r, c] - low) / (high - low), 0, 1))
            cell = rgb(plotly.colors.sample_colorscale(scale, [t], colortype="rgb")[0])
        white = WHITE_SPAN.match(text)
        out.append((white.group(1) if white else text, rgb("#ffffff") if white else base, cell))
    return out


def steps_figure(at) -> dict:
    return next(s for s in figures(at).values() if (s["layout"].get("meta") or {}).get("first"))


def font_colours(spec: dict) -> list[tuple[str, str]]:
    """(where, colour) of every word a figure writes on its page: title, subtitle, notes, text marks."""
    layout = spec["layout"]
    found = []
    title = layout.get("title") or {}
    for where, font in (("title", title.get("font")), ("subtitle", (title.get("subtitle") or {}).get("font"))):
        if font and font.get("color"):
            found.append((where, font["color"]))
    for note in layout.get("annotations", []):
        colour = (note.get("font") or {}).get("color")
        if colour:
            found.append((f"note {note.get('text', '')[:30]!r}", colour))
    for trace in spec["data"]:
        colour = (trace.get("textfont") or {}).get("color")
        if trace.get("type") == "scatter" and isinstance(colour, str):
            found.append((f"{trace.get('mode')} {str(trace.get('text', ''))[:30]}", colour))
    return found


PAGES = [("app.py", {}), ("app.py", {"mask": "causal", "model": "smollm2"})]
PAGES += [(f"pages/{c.file}", {}) for c in chapters.CHAPTERS]
