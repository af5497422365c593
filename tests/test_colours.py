"""Colour that every student sees: the figures' palettes stay apart under protanopia, deuteranopia and tritanopia,
every value printed in a cell stands out from its cell, and every word of a figure from the page.

Colour vision: colorspacious simulates each deficiency at full severity (dichromacy) with Machado, Oliveira and
Fernandes's 2009 model, and measures the difference of two colours as ΔE' in CAM02-UCS (Luo, Cui and Li 2006),
a space built so that a distance reads the same everywhere: about 1 is the smallest difference seen between two
large patches side by side. The thresholds, for the colours a figure sets side by side to be told apart:

- THRESHOLD, 10, between categories (a line, an arrow or a panel's kind; the sign of a score; a masked cell and
  any score): ten times that smallest difference, since the marks are small (2 px arrows, 10 px markers, 15 px
  cells), seen apart rather than touching, and a projector washes colours out; what it takes to tell two colours
  apart grows as the marks shrink (Stone, Szafir and Setlur, "An engineering model for color difference as a
  function of size", 2014).
- STEP, 4, between tenths of the weights' sequential scale: neighbouring cells of a heatmap are large and touching,
  where a difference of 1–2 is seen; 4 keeps ten tenths apart with a margin.

Contrast: WCAG 2's relative luminance and contrast ratio, written out here from its definition, against the cell
colour plotly.colors finds for each value.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import plotly.colors
import pytest
from colorspacious import cspace_convert, deltaE

from tests.apptest import array, figures, run_page
from ui.figures import head_meta, roles, theme, token_chips
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


# --- colour vision ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("vision", VISIONS)
def test_the_categorical_palette_stays_apart(vision):
    """Okabe and Ito's palette: lines, arrows, bars and the chosen head, any two of them in one figure."""
    for a, b in itertools.combinations(theme.OKABE_ITO, 2):
        assert apart(a, b, vision) >= THRESHOLD, (a, b, vision, apart(a, b, vision))


@pytest.mark.parametrize("vision", VISIONS)
def test_head_roles_stay_apart(vision):
    """The role map's colours, "mixed" grey among them: a class reads a head's role from its square's colour."""
    for (ra, a), (rb, b) in itertools.combinations(roles.ROLE_COLOURS.items(), 2):
        assert apart(a, b, vision) >= THRESHOLD, (ra, rb, vision, apart(a, b, vision))


@pytest.mark.parametrize("vision", VISIONS)
def test_token_kinds_stay_apart(vision):
    """A word, a piece of one and a special token: the chips' outlines, as the tokens figure draws them."""
    chips = token_chips(["[CLS]", "verd", "##ant", "[SEP]"], [True, False, False, True], [False, False, True, False])
    outlines = [t.line.color for t in chips.data if t.fill == "toself"]
    assert len(outlines) == 3
    for a, b in itertools.combinations(outlines, 2):
        assert apart(a, b, vision) >= THRESHOLD, (a, b, vision, apart(a, b, vision))


@pytest.mark.parametrize("scale", [theme.SCORES_SCALE, theme.VECTORS_SCALE])
@pytest.mark.parametrize("vision", VISIONS)
def test_a_diverging_scale_keeps_its_sign(scale, vision):
    """A score of +s and one of −s (a quarter of the scale's reach or more: nearer 0 both are near white by design)
    stay apart: the sign is read from the colour's side."""
    for t in np.linspace(0.25, 1.0, 16):
        plus, minus = on_scale(scale, 0.5 + t / 2), on_scale(scale, 0.5 - t / 2)
        assert apart(plus, minus, vision) >= THRESHOLD, (scale, vision, t, apart(plus, minus, vision))


@pytest.mark.parametrize("vision", VISIONS)
def test_the_weights_scale_keeps_its_tenths_apart_and_in_order(vision):
    """Weights 0, 0.1, … 1: each tenth apart from the next, and each darker than the one before (a sequential
    scale is read by its lightness, which the deficiencies keep)."""
    colours = [seen(on_scale(theme.WEIGHTS_SCALE, t), vision) for t in np.linspace(0, 1, 11)]
    lightness = [cspace_convert(c, "sRGB1", "CAM02-UCS")[0] for c in colours]
    assert all(a > b for a, b in itertools.pairwise(lightness)), (vision, lightness)
    for a, b in itertools.pairwise(colours):
        assert deltaE(a, b, input_space="sRGB1") >= STEP, (vision, a, b)


@pytest.mark.parametrize("vision", VISIONS)
def test_a_masked_cell_is_apart_from_every_score(vision):
    """The masked step's grey, against every colour of the scores' scale: a −∞ is never read as a score near 0."""
    for t in np.linspace(0, 1, 201):
        assert apart(theme.MASKED, on_scale(theme.SCORES_SCALE, t), vision) >= THRESHOLD, (vision, t)


# --- contrast ------------------------------------------------------------------------------------------------

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


@pytest.mark.parametrize(
    "params",
    [
        {"numbers": "1", "colours": "row", "mask": "causal"},
        {"numbers": "1", "text": "the bank by the river bank"},
        {"presenter": "1", "step": "4", "colours": "row"},
        {"presenter": "1", "step": "3", "mask": "causal", "text": "an apple and an orange"},
    ],
    ids=["numbers-row-causal", "numbers-unit", "presenter-weights-row", "presenter-masked"],
)
def test_every_printed_value_stands_out_from_its_cell(params):
    """Every head's values, as the head switch shows them: black on a light cell, white on a dark one, at least
    4.5:1; on a dark cell some are white (the check saw both)."""
    spec = steps_figure(run_page(**params))
    colours = set()
    for head in spec["layout"]["meta"]["heads"]:
        shown = head_meta.showing(spec, head - 1)
        for trace in (shown["data"][i] for i in shown["layout"]["meta"]["traces"]):
            if not trace.get("text"):
                continue
            for text, colour, cell in printed_cells(trace):
                assert contrast(colour, cell) >= TEXT, (head, text, colour, cell)
                colours.add(tuple(colour))
    assert len(colours) == 2


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


@pytest.mark.parametrize(("path", "params"), PAGES, ids=[p + str(q) for p, q in PAGES])
def test_every_word_of_a_figure_stands_out_from_the_page(path, params):
    """Titles, notes, labels and marks written in a colour of their own, on the figures' white page; the values a
    heatmap prints, on their cells."""
    at = run_page(path, **params)
    assert not at.exception
    white = rgb("#ffffff")
    for title, spec in figures(at).items():
        for where, colour in font_colours(spec):
            assert contrast(rgb(colour), white) >= TEXT, (path, title[:40], where, colour)
        for trace in spec["data"]:
            if trace.get("type") == "heatmap" and trace.get("text") and trace.get("texttemplate"):
                for text, colour, cell in printed_cells(trace):
                    assert contrast(colour, cell) >= TEXT, (path, title[:40], text, colour, cell)
