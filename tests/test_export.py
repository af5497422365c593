"""Figures export for slides: PNG at 3× and SVG through kaleido and Debian's Chromium, same template as on screen."""

from __future__ import annotations

import io

import attention
from ui import figures, theme

FLUFFY = "a fluffy blue creature roamed the verdant forest"


def test_png_at_three_times_and_svg(model):
    from PIL import Image

    tr = attention.trace(model, FLUFFY, mask="causal")
    labels = figures.token_labels([t.text for t in tr.tokens])
    fig = figures.attention_heatmap(tr.layers[0].masked[0], labels, "3. Masked")
    assert fig.layout.template.layout.font.family == theme.FONT  # the one template, in the file too

    png = fig.to_image(format="png", scale=3, width=800)
    image = Image.open(io.BytesIO(png))
    assert image.size[0] == 2400 and image.size[1] == 3 * fig.layout.height

    svg = fig.to_image(format="svg", width=800).decode("utf-8")
    assert svg.lstrip().startswith("<svg") and "−∞" in svg and "fluffy" in svg


def test_user_text_stays_text_in_an_exported_svg(model):
    tr = attention.trace(model, "<b>bold</b> & <script>x</script>")
    labels = figures.token_labels([t.text for t in tr.tokens])
    svg = figures.token_chips([t.text for t in tr.tokens], [t.is_special for t in tr.tokens],
                              [t.is_continuation for t in tr.tokens]).to_image(format="svg").decode("utf-8")
    assert "<script>" not in svg and "<b>" not in svg
    assert ("&#60;" in svg or "&lt;" in svg) and labels  # "<" drawn as a character
