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

import numpy as np
import plotly.graph_objects as go
import pytest
from colorspacious import cspace_convert, deltaE

from app_driver.apptest import figures, run_page
from app_driver.colours import (
    PAGES,
    STEP,
    TEXT,
    THRESHOLD,
    VISIONS,
    apart,
    contrast,
    font_colours,
    on_scale,
    printed_cells,
    rgb,
    seen,
    steps_figure,
)
from ui.figures import head_meta, roles, theme, token_chips
from ui.words import i18n

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
    chips = go.Figure(  # as plotly reads the figure
        token_chips(
            ["[CLS]", "verd", "##ant", "[SEP]"],
            [True, False, False, True],
            [False, False, True, False],
            words=i18n.words(),
        )
    )
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
