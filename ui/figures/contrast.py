"""Text that stands out from what it is printed on: WCAG 2's relative luminance and contrast ratio, the colour a
plotly colour scale gives each value, and black or white text, whichever stands out more from a cell.

A plotly heatmap prints every cell's text in one colour (its textfont's), and the colour it picks by itself can
fall to about 3:1 on a mid-tone cell. Black or white, chosen cell by cell, is never under 4.58:1, above the 4.5:1
WCAG asks of text: the value printed on a dark cell is wrapped in a white span, which plotly reads in its text.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

BLACK, WHITE = "#000000", "#ffffff"
# The luminance at which black and white text stand out equally: (L + 0.05) / 0.05 = 1.05 / (L + 0.05)
WHITE_TEXT_BELOW = float(np.sqrt(1.05 * 0.05) - 0.05)  # 0.179
ON_DARK = "<span style='color:" + WHITE + "'>{}</span>"


def rgb(colour: str) -> np.ndarray:
    """A colour as plotly writes it ("#1f77b4", "rgb(31, 119, 180)") as red, green and blue from 0 to 1."""
    colour = colour.strip()
    if colour.startswith("#"):
        return np.array([int(colour[i : i + 2], 16) for i in (1, 3, 5)]) / 255
    inside = colour[colour.index("(") + 1 : colour.index(")")]
    return np.array([float(part) for part in inside.split(",")[:3]]) / 255


def luminance(colours: np.ndarray) -> np.ndarray:
    """WCAG 2's relative luminance of sRGB colours (..., 3), each channel from 0 to 1."""
    c = np.asarray(colours, dtype=np.float64)
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return linear @ np.array([0.2126, 0.7152, 0.0722])


def ratio(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """WCAG 2's contrast ratio of two luminances, from 1 to 21."""
    hi, lo = np.maximum(a, b), np.minimum(a, b)
    return (hi + 0.05) / (lo + 0.05)


@lru_cache(maxsize=256)  # a figure's few palette colours, asked for by each of its labels and arrows
def on_white(colour: str) -> float:
    """The contrast ratio of a colour against a white page."""
    return float(ratio(luminance(rgb(colour)), 1.0))


def scale_colours(scale: Sequence[Sequence], values: np.ndarray, zmin: float, zmax: float) -> np.ndarray:
    """The colour (..., 3) a plotly colour scale [[0, colour], …, [1, colour]] gives each value between zmin and
    zmax, as plotly.js finds it: the value's place on the scale, clamped, between the two stops around it, in
    straight lines through sRGB."""
    stops = np.array([float(s[0]) for s in scale])
    colours = np.array([rgb(s[1]) for s in scale])
    span = zmax - zmin if zmax > zmin else 1.0
    t = np.clip((np.asarray(values, dtype=np.float64) - zmin) / span, 0.0, 1.0)
    return np.stack([np.interp(t, stops, colours[:, c]) for c in range(3)], axis=-1)


def dark(scale: Sequence[Sequence], values: np.ndarray, zmin: float, zmax: float) -> np.ndarray:
    """Which cells white text stands out from more than black; a cell without a value (NaN) shows the page or a
    light grey under it, so never."""
    values = np.asarray(values, dtype=np.float64)
    lum = luminance(scale_colours(scale, np.nan_to_num(values, nan=zmin), zmin, zmax))
    return (lum < WHITE_TEXT_BELOW) & ~np.isnan(values)


def legible(texts: list[list[str]], is_dark: np.ndarray) -> list[list[str]]:
    """Each cell's text, white on a dark cell (the heatmap's own text colour, black, on the others)."""
    return [
        [ON_DARK.format(t) if t and d else t for t, d in zip(row, dark_row, strict=True)]
        for row, dark_row in zip(texts, is_dark, strict=True)
    ]


@lru_cache(maxsize=256)  # the same few colours, label after label: a search of 30 steps each time
def darkened(colour: str, least: float = 4.5) -> str:
    """The colour made darker, in the same hue, until it stands out from a white page by at least `least` (text
    drawn in a palette's colour: a label beside the arrow it names)."""
    c = rgb(colour)
    if on_white(colour) >= least:
        return colour
    low, high = 0.0, 1.0  # the share of the colour kept: 0 is black
    for _step in range(30):
        mid = (low + high) / 2
        if ratio(luminance(c * mid), 1.0) >= least:
            low = mid
        else:
            high = mid
    return "#" + "".join(f"{int(v * 255):02x}" for v in c * low)  # rounded down: never lighter
