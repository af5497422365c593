"""One look for every figure, on screen and in exported files: light, large type, colour-blind-safe."""

from __future__ import annotations

from dataclasses import dataclass

import plotly.graph_objects as go
import plotly.io as pio

TEMPLATE_NAME = "attention"

# Okabe & Ito's palette: told apart with every common kind of colour blindness.
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
INK = "#1f2430"
MUTED = "#8a8f98"
MASKED = "#d9d9d9"  # cells hidden by the mask: neither end of any colour scale
SCORES_SCALE = "RdBu_r"  # diverging, zero in white: blue negative, red positive
WEIGHTS_SCALE = "Blues"  # sequential from 0 (white) to 1 (dark blue)
VECTORS_SCALE = "PuOr_r"  # diverging, for q, k and v entries

FONT = "DejaVu Sans, Arial, sans-serif"  # DejaVu ships with Debian's Chromium, so exports match the screen


def _template() -> go.layout.Template:
    return go.layout.Template(
        layout=go.Layout(
            font=dict(family=FONT, size=15, color=INK),
            title=dict(font=dict(size=18), x=0.0, xanchor="left"),
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


@dataclass(frozen=True)
class ExportFormat:
    label: str  # as the sidebar offers it
    scale: int  # pixels per figure pixel: 3× keeps a PNG sharp on a projector


# The camera button's file formats, by the name the URL keeps; the first is the default.
EXPORT_FORMATS = {"png": ExportFormat("PNG (3×)", 3), "svg": ExportFormat("SVG", 1)}
DEFAULT_EXPORT = next(iter(EXPORT_FORMATS))


def chart_config(filename: str, export: str = DEFAULT_EXPORT) -> dict:
    """Plotly's config: the camera button saves the figure as a slide-ready file."""
    fmt = export if export in EXPORT_FORMATS else DEFAULT_EXPORT
    return {
        "displaylogo": False,
        "toImageButtonOptions": {"format": fmt, "scale": EXPORT_FORMATS[fmt].scale, "filename": filename},
        "modeBarButtonsToRemove": ["select2d", "lasso2d"],
    }
