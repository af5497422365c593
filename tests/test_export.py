"""Figures export for slides: PNG at 3× and SVG through kaleido and Debian's Chromium, same template as on screen."""

from __future__ import annotations

import html
import io
import re

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


def test_user_text_stays_text_in_an_exported_svg():
    # A tokenizer can return any characters as a token (GPT-2's keeps "<b>" whole): each chip must show them
    # exactly, never read them as plotly's tags (<b> bold, <br> a line break) or entities (&amp; an ampersand).
    texts = ["[CLS]", "<b>bold</b>", "x&amp;y", "<br>", "<script>x</script>", "[SEP]"]
    fig = figures.token_chips(texts, [True, False, False, False, False, True], [False] * len(texts))
    svg = fig.to_image(format="svg").decode("utf-8")
    drawn = [html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg)]
    assert drawn[: len(texts)] == texts
    assert "<script>" not in svg and "font-weight:bold" not in svg
