"""The colour checks' figures: `python benchmarks/colours.py`.

Colour vision, as tests/test_colours.py checks it (colorspacious: Machado, Oliveira and Fernandes 2009 at full
severity, ΔE' in CAM02-UCS): for each palette and each vision (typical, protanopia, deuteranopia, tritanopia) the
smallest distance between two of its colours a figure sets side by side (the test's floor: 10 between categories, 4
between neighbouring tenths of the weights' scale). Contrast (WCAG 2's ratio): the colours the app writes text in,
on white, and the least ratio of every word of every figure on its page and of every value printed in a cell, each
page run headless (the explorer on MiniLM, and on SmolLM2 with the causal mask, its masked cells; every chapter).
Figures, not a test: the test fails under its floors.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app_driver.apptest import figures, run_page
from app_driver.colours import (
    PAGES,
    VISIONS,
    apart,
    contrast,
    font_colours,
    on_scale,
    printed_cells,
    rgb,
    steps_figure,
)
from ui.components import access
from ui.figures import roles, theme, token_chips
from ui.words import i18n


def palettes() -> dict[str, list[tuple]]:
    """Each palette as the pairs of colours a figure sets side by side."""
    chips = token_chips(
        ["[CLS]", "verd", "##ant", "[SEP]"], [True, False, False, True], [False, False, True, False], words=i18n.words()
    )
    outlines = [t["line"]["color"] for t in chips["data"] if t.get("fill") == "toself"]  # a Spec: plain dicts
    ticks = np.linspace(0.25, 1.0, 16)
    return {
        "Okabe–Ito (lines, arrows, bars)": list(itertools.combinations(theme.OKABE_ITO, 2)),
        "head roles (chapter 10)": list(itertools.combinations(roles.ROLE_COLOURS.values(), 2)),
        "token kinds (section 1)": list(itertools.combinations(outlines, 2)),
        "scores ±, RdBu": [
            (on_scale(theme.SCORES_SCALE, 0.5 + t / 2), on_scale(theme.SCORES_SCALE, 0.5 - t / 2)) for t in ticks
        ],
        "q/k/v ±, PuOr": [
            (on_scale(theme.VECTORS_SCALE, 0.5 + t / 2), on_scale(theme.VECTORS_SCALE, 0.5 - t / 2)) for t in ticks
        ],
        "masked grey vs every score": [(theme.MASKED, on_scale(theme.SCORES_SCALE, t)) for t in np.linspace(0, 1, 201)],
        "weights, neighbouring tenths": list(
            itertools.pairwise(on_scale(theme.WEIGHTS_SCALE, t) for t in np.linspace(0, 1, 11))
        ),
    }


def colour_vision() -> None:
    names = {None: "typical", "protanomaly": "protanopia", "deuteranomaly": "deuteranopia", "tritanomaly": "tritanopia"}
    print("| palette | " + " | ".join(names[v] for v in VISIONS) + " |")
    print("|---|" + "---|" * len(VISIONS))
    for name, pairs in palettes().items():
        least = [min(apart(a, b, v) for a, b in pairs) for v in VISIONS]
        print(f"| {name} | " + " | ".join(f"{d:.1f}" for d in least) + " |")


def text_contrast() -> None:
    white = rgb("#ffffff")
    named = {
        "figure ink": theme.INK,
        "figure subtitle and notes": theme.SUBTLE,
        "focus ring": access.FOCUS,
    }
    print("\n| text colour | on white |\n|---|---|")
    for name, colour in named.items():
        print(f"| {name} ({colour}) | {float(contrast(rgb(colour), white)):.1f}:1 |")
    caption = 0.8 * rgb("#2f2d2b") + 0.2 * white  # access.CAPTION, rgba(47, 45, 43, 0.8), on white
    print(f"| captions ({access.CAPTION}) | {float(contrast(caption, white)):.1f}:1 |")
    words, cells = [], []
    runs = [*PAGES, ("app.py", {"numbers": "1", "colours": "row", "mask": "causal"})]
    for path, params in runs:
        at = run_page(path, **params)
        for spec in figures(at).values():
            words += [float(contrast(rgb(c), white)) for _where, c in font_colours(spec)]
            for trace in spec["data"]:
                if trace.get("type") == "heatmap" and trace.get("text") and trace.get("texttemplate"):
                    cells += [float(contrast(c, cell)) for _t, c, cell in printed_cells(trace)]
        if path == "app.py" and params.get("numbers"):
            for trace in steps_figure(at)["data"]:
                if trace.get("type") == "heatmap" and trace.get("text"):
                    cells += [float(contrast(c, cell)) for _t, c, cell in printed_cells(trace)]
    print(f"| every word of a figure in its own colour ({len(words)}, {len(runs)} pages) | least {min(words):.1f}:1 |")
    print(f"| every value printed in a cell ({len(cells)}) | least {min(cells):.1f}:1 |")


if __name__ == "__main__":
    print("ΔE' in CAM02-UCS, the least between colours set side by side (colorspacious, Machado 2009, severity 100)\n")
    colour_vision()
    text_contrast()
