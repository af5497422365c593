"""Heatmaps of real sentences label every token: plotly's own ticks skipped every other one on a short axis."""

import numpy as np
import pytest

from ui import figures
from ui.figures import head_view
from ui.figures.base import NUMBERS_UP_TO, SMALLEST_TICK_PX, TICK_ROOM, Canvas

SENTENCE = ["a", "fluffy", "blue", "creature", "roamed", "the", "verdant", "forest"]


def words(n: int) -> list[str]:
    return figures.token_labels([SENTENCE[i % len(SENTENCE)] for i in range(n)])


@pytest.mark.parametrize("half_width", [True, False])
@pytest.mark.parametrize("n", [4, 7, 13, NUMBERS_UP_TO])
def test_every_token_is_labelled_up_to_the_numbers_limit(n: int, half_width: bool) -> None:
    labels = words(n)
    fig = figures.attention_heatmap(np.full((n, n), 1 / n), labels, "weights", half_width=half_width)
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        assert axis.tickmode == "array"
        assert list(axis.tickvals) == labels and list(axis.ticktext) == labels
        assert axis.tickfont.size >= SMALLEST_TICK_PX


def test_labels_shrink_to_fit_their_cells_before_any_is_skipped() -> None:
    small, large = (figures.attention_heatmap(np.eye(n), words(n), "t", half_width=True) for n in (16, 6))
    assert small.layout.xaxis.tickfont.size < large.layout.xaxis.tickfont.size
    # a half-width figure on a 1280 px screen: about 400 px, less the labels, the margins and the colour bar
    plot_px = (820 - 16) / 2 - small.layout.margin.l - small.layout.margin.r - 70
    assert small.layout.xaxis.tickfont.size <= TICK_ROOM * plot_px / 16 + 1


def test_a_long_sentence_labels_every_kth_token_at_the_smallest_size() -> None:
    n = 120
    fig = figures.attention_heatmap(np.eye(n), words(n), "t", half_width=True)
    ticks = list(fig.layout.xaxis.tickvals)
    assert fig.layout.xaxis.tickfont.size == SMALLEST_TICK_PX
    assert 1 < len(ticks) < n and ticks[0] == words(n)[0]


@pytest.mark.parametrize(("layout", "corner"), [("paper", "keys →<br>queries ↓"), ("notes", "queries →<br>keys ↓")])
def test_the_steps_corner_names_what_the_rows_and_columns_are(layout: str, corner: str) -> None:
    n = 5
    steps = [np.zeros((1, n, n))] * 4
    fig = head_view.steps_figure(steps, words(n), 0, [0], "Layer 1 · head 1", layout=layout)
    assert corner in [a.text for a in fig.layout.annotations]


@pytest.mark.parametrize("width", [820, 390])
def test_the_queries_keys_and_values_of_a_long_text_stay_one_screen_tall(width: int) -> None:
    """A pasted page of text (256 tokens): a compact map of thin rows, every k-th named, no taller than a screen."""
    n, d = 256, 32
    canvas = Canvas(width=width, height=600)
    q = np.random.default_rng(0).normal(size=(1, n, d))
    fig = head_view.qkv_figure(q, q, q, words(n), 0, [0], "Layer 1 · head 1", canvas)
    assert fig.layout.height <= canvas.height
    assert 1 < len(fig.layout.yaxis.tickvals) < n
