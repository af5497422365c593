"""One look for every figure, on screen and in exported files: light, large type, colour-blind-safe."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import plotly.graph_objects as go
import plotly.io as pio

TEMPLATE_NAME = "attention"

# Okabe & Ito's palette: told apart with every common kind of colour blindness.
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
INK = "#1f2430"
MUTED = "#72767e"  # quiet lines and small notes: 4.5:1 on white, as WCAG asks of text
SUBTLE = "#4d5360"  # secondary text (a figure's subtitle): quieter than INK, still legible when projected
# cells hidden by the mask: neither end of any colour scale, and grey enough to stay apart from every colour of the
# scores' scale with any colour vision (tests/test_colours.py); each also carries a mark, −∞ or ×
MASKED = "#bdbdbd"
SCORES_SCALE = "RdBu_r"  # diverging, zero in white: blue negative, red positive
WEIGHTS_SCALE = "Blues"  # sequential from 0 (white) to 1 (dark blue)
VECTORS_SCALE = "PuOr_r"  # diverging, for q, k and v entries

# DejaVu ships with Debian's Chromium, so exports match the screen. A character DejaVu lacks (Hangul, kana) is
# drawn in the next family that has it: Noto CJK here (fonts-noto-cjk), and in an SVG opened on a slide machine
# without DejaVu, Arial and the CJK fonts macOS and Windows ship.
FONT = "DejaVu Sans, Arial, Noto Sans CJK KR, Apple SD Gothic Neo, Malgun Gothic, sans-serif"


@dataclass(frozen=True)
class FigureType:
    """Type sizes inside a figure, in CSS pixels."""

    base: int  # tick labels, legends, hover labels
    title: int
    small: int  # colour-bar ticks, panel notes: the smallest text a figure draws
    numbers: int  # the smallest size for a value printed in a cell; below it the values are left out
    labels: int = 0  # the smallest token label, where smaller than `small` (0: small): on a projector every token
    # of a window is named at 12 px rather than every other one at 14

    @property
    def least_label(self) -> int:
        return self.labels or self.small


def figure_type(presenter: bool = False, wide: bool = False) -> FigureType:
    """Screen type (11 px at the smallest), or projector type (presenter: 14 px at the smallest, read from the
    back of a room); a little larger where the page is wide (1920 px screens)."""
    if presenter:
        return FigureType(base=18, title=22, small=15, numbers=14) if wide else FigureType(16, 20, 14, 14, labels=12)
    return FigureType(base=15, title=18, small=13, numbers=12) if wide else FigureType(13, 16, 11, 11)


def _template() -> go.layout.Template:
    return go.layout.Template(
        layout=go.Layout(
            font=dict(family=FONT, size=15, color=INK),
            # pad: the title keeps clear of the figure's left edge (on a slide, in a file); its subtitle,
            # where a figure has one, says which sentence and model it shows
            title=dict(
                font=dict(size=18),
                x=0.0,
                xanchor="left",
                pad=dict(l=14),
                subtitle=dict(font=dict(size=14, color=SUBTLE)),
            ),
            paper_bgcolor="white",
            plot_bgcolor="white",
            colorway=OKABE_ITO,
            margin=dict(l=85, r=20, t=50, b=60),  # room for tick labels and the axis title beside them
            xaxis=dict(
                showgrid=False,
                zeroline=False,
                linecolor="#cccccc",
                ticks="outside",
                automargin=False,
                title=dict(standoff=10),
            ),
            yaxis=dict(
                showgrid=False,
                zeroline=False,
                linecolor="#cccccc",
                ticks="outside",
                automargin=False,
                title=dict(standoff=10),
            ),
            hoverlabel=dict(font=dict(family=FONT, size=14)),
            legend=dict(bgcolor="rgba(255,255,255,0.8)"),
        )
    )


pio.templates[TEMPLATE_NAME] = _template()
TEMPLATE = pio.templates[TEMPLATE_NAME]


@functools.cache
def template_json() -> dict:
    """The template as a figure's JSON writes it, made once and shared by every figure that holds it (read only)."""
    return TEMPLATE.to_plotly_json()


@dataclass(frozen=True)
class ExportFormat:
    label: str  # as the sidebar offers it
    scale: int  # pixels per figure pixel: 3× keeps a PNG sharp on a projector


# The camera button's file formats, by the name the URL keeps; the first is the default.
EXPORT_FORMATS = {"png": ExportFormat("PNG (3×)", 3), "svg": ExportFormat("SVG", 1)}
DEFAULT_EXPORT = next(iter(EXPORT_FORMATS))


# Exported files are laid out for a 16:9 slide, 960 × 540 CSS pixels (13.33 × 7.5 inches at 72 per inch), and drawn
# at 3× (2880 px wide). "auto" keeps the figure's own height at the slide's width; the others fit a figure into that
# space, its own height at most: a whole 16:9 slide, a 4:3 one, or half a 16:9 slide beside text (8:9). A figure is
# never stretched taller than it is drawn (a row of token chips would turn into columns).
SLIDE_WIDTH = 960
EXPORT_SIZES: dict[str, tuple[int, int] | None] = {
    "auto": None,
    "16:9": (960, 540),
    "4:3": (720, 540),
    "8:9": (480, 540),
}
MIN_PNG_WIDTH = 1600  # pixels: sharp across a projector's full width


def image_options(export: str, size: str, height: int | None) -> dict:
    """Kaleido's options for one figure: format, layout size in CSS pixels and scale (a PNG at least 1600 px wide).

    height: the figure's own, if it sets one."""
    width, most = EXPORT_SIZES[size] or (SLIDE_WIDTH, None)
    own = height or 540
    tall = own if most is None else min(own, most)
    scale = max(EXPORT_FORMATS[export].scale, -(-MIN_PNG_WIDTH // width)) if export == "png" else 1
    return {"format": export, "width": width, "height": tall, "scale": scale}


def chart_config(filename: str, export: str = DEFAULT_EXPORT) -> dict:
    """Plotly's config: the camera button saves the figure as a slide-ready file."""
    fmt = export if export in EXPORT_FORMATS else DEFAULT_EXPORT
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": fmt, "scale": EXPORT_FORMATS[fmt].scale, "filename": filename},
        "modeBarButtonsToRemove": ["select2d", "lasso2d", "sendChartToCloud"],  # no request leaves the app
    }
