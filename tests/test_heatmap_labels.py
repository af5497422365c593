"""Heatmaps of real sentences label every token: plotly's own ticks skipped every other one on a short axis."""

import numpy as np
import plotly.graph_objects as go
import pytest

from ui import figures
from ui.components import plot
from ui.figures import head_meta, head_view, heads_grid, qkv
from ui.figures.base import NUMBERS_UP_TO, SMALLEST_TICK_PX, TICK_ROOM, Canvas
from ui.words import i18n

SENTENCE = ["a", "fluffy", "blue", "creature", "roamed", "the", "verdant", "forest"]


def words(n: int) -> list[str]:
    return figures.token_labels([SENTENCE[i % len(SENTENCE)] for i in range(n)])


@pytest.mark.parametrize("half_width", [True, False])
@pytest.mark.parametrize("n", [4, 7, 13, NUMBERS_UP_TO])
def test_every_token_is_labelled_up_to_the_numbers_limit(n: int, half_width: bool) -> None:
    labels = words(n)
    fig = figures.attention_heatmap(
        np.full((n, n), 1 / n), labels, "weights", half_width=half_width, words=i18n.words()
    )
    for axis in (fig.layout.xaxis, fig.layout.yaxis):
        assert axis.tickmode == "array"
        assert list(axis.tickvals) == labels and list(axis.ticktext) == labels
        assert axis.tickfont.size >= SMALLEST_TICK_PX


def test_labels_shrink_to_fit_their_cells_before_any_is_skipped() -> None:
    small, large = (
        figures.attention_heatmap(np.eye(n), words(n), "t", half_width=True, words=i18n.words()) for n in (16, 6)
    )
    assert small.layout.xaxis.tickfont.size < large.layout.xaxis.tickfont.size
    # a half-width figure on a 1280 px screen: about 400 px, less the labels, the margins and the colour bar
    plot_px = (820 - 16) / 2 - small.layout.margin.l - small.layout.margin.r - 70
    assert small.layout.xaxis.tickfont.size <= TICK_ROOM * plot_px / 16 + 1


def test_a_long_sentence_labels_every_kth_token_at_the_smallest_size() -> None:
    n = 120
    fig = figures.attention_heatmap(np.eye(n), words(n), "t", half_width=True, words=i18n.words())
    ticks = list(fig.layout.xaxis.tickvals)
    assert fig.layout.xaxis.tickfont.size == SMALLEST_TICK_PX
    assert 1 < len(ticks) < n and ticks[0] == words(n)[0]


@pytest.mark.parametrize(("layout", "corner"), [("paper", "keys →<br>queries ↓"), ("notes", "queries →<br>keys ↓")])
def test_the_steps_corner_names_what_the_rows_and_columns_are(layout: str, corner: str) -> None:
    n = 5
    steps = [np.zeros((1, n, n))] * 4
    fig = go.Figure(  # as plotly reads it
        head_view.steps_figure(steps, words(n), 0, [0], "Layer 1 · head 1", layout=layout, words=i18n.words())
    )
    assert corner in [a.text for a in fig.layout.annotations]


@pytest.mark.parametrize("width", [820, 390])
def test_the_queries_keys_and_values_of_a_long_text_stay_one_screen_tall(width: int) -> None:
    """A pasted page of text (256 tokens): a compact map of thin rows, every k-th named, no taller than a screen."""
    n, d = 256, 32
    canvas = Canvas(width=width, height=600)
    q = np.random.default_rng(0).normal(size=(1, n, d))
    fig = go.Figure(qkv.qkv_figure(q, q, q, words(n), 0, [0], "Layer 1 · head 1", canvas, words=i18n.words()))
    assert fig.layout.height <= canvas.height
    assert 1 < len(fig.layout.yaxis.tickvals) < n


def test_a_figure_of_every_head_saved_for_another_head_is_the_one_drawn_for_it() -> None:
    """What the head switch does in the browser, done on the server for a saved file (head_meta.showing)."""
    rng = np.random.default_rng(0)
    n, heads = 5, list(range(4))
    steps = [rng.normal(size=(4, n, n)) for _ in range(4)]
    q = rng.normal(size=(4, n, 8))
    for build in (
        lambda h: head_view.steps_figure(
            steps, words(n), h, heads, f"Layer 1 · head {h + 1}: steps", words=i18n.words()
        ),
        lambda h: qkv.qkv_figure(
            q, q, q, words(n), h, heads, f"Layer 1 · head {h + 1}: q, k, v", Canvas(), words=i18n.words()
        ),
        lambda h: heads_grid.heads_grid(steps[3], words(n), h, "All 4 heads", words=i18n.words()),
    ):
        switched, drawn = head_meta.showing(build(0), 2), build(2)  # a Spec: the figure's JSON as a dict
        assert switched["layout"]["meta"]["shown"] == 3 == drawn["layout"]["meta"]["shown"]
        assert switched["layout"]["title"]["text"] == drawn["layout"]["title"]["text"]
        assert switched["layout"].get("shapes") == drawn["layout"].get("shapes")
        for a, b in zip(switched["data"], drawn["data"], strict=True):
            for prop in ("z", "customdata", "zmin", "zmax", "hovertemplate"):
                if prop in b and isinstance(b[prop], str):
                    assert a[prop] == b[prop]
                elif prop in b:
                    np.testing.assert_allclose(_values(a[prop]), _values(b[prop]), err_msg=prop)
        assert plot.to_json(head_meta.showing(build(1), 1)) == plot.to_json(build(1))  # the head it shows: unchanged


def _values(x):
    """A plotly value as plain numbers or text: a typed-array spec decoded, arrays as nested lists."""
    if isinstance(x, dict) and "bdata" in x:
        import base64

        flat = np.frombuffer(base64.b64decode(x["bdata"]), dtype=np.dtype(x["dtype"]))
        return flat.reshape([int(s) for s in str(x["shape"]).split(",")]).tolist() if "shape" in x else flat.tolist()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return x


def test_column_labels_wider_than_their_columns_are_slanted() -> None:
    """Six tokens of a decoder in half the page: "␣bank (5)" is wider than its column, so the labels slant
    rather than run into each other; six short words stay level."""
    long = figures.token_labels(["the", "␣bank", "␣by", "␣the", "␣river", "␣bank"])
    short = ["a", "b", "c", "d", "e", "f"]
    slanted, level = (
        figures.attention_heatmap(
            np.eye(6), labels, "weights", half_width=True, words=i18n.words()
        ).layout.xaxis.tickangle
        for labels in (long, short)
    )
    assert slanted == -60 and level == 0


LONG = [
    "The",
    "old",
    "river",
    "bank",
    "by",
    "the",
    "town",
    "was",
    "flooded",
    "after",
    "the",
    "storm",
    ",",
    "so",
    "the",
    "bank",
    "manager",
    "moved",
    "the",
    "money",
]


@pytest.mark.parametrize("canvas", [None, Canvas(height=560)])
@pytest.mark.parametrize("half_width", [True, False])
def test_a_window_of_a_long_sentence_names_every_token_at_12_px(half_width: bool, canvas: Canvas | None) -> None:
    """As many tokens as a heatmap names at 12 px (a chapter's window), and no more: every one named at 12 px,
    whichever tokens the window holds; one more would not all be."""
    from ui.figures.matrices import LEAST_TOKEN_PX, tokens_named

    labels = figures.token_labels(LONG * 2, list(range(2 * len(LONG))))
    n = tokens_named(labels, half_width, canvas)
    assert 2 <= n < len(labels)
    for first in range(len(labels) - n + 1):
        shown = labels[first : first + n]
        fig = figures.attention_heatmap(np.eye(n), shown, "t", half_width=half_width, canvas=canvas, words=i18n.words())
        for axis in (fig.layout.xaxis, fig.layout.yaxis):
            assert list(axis.ticktext) == shown and axis.tickfont.size >= LEAST_TOKEN_PX
    wider = figures.attention_heatmap(
        np.eye(n + 1), [max(labels, key=len)] * (n + 1), "t", half_width=half_width, words=i18n.words()
    )
    assert canvas is not None or wider.layout.xaxis.tickfont.size < LEAST_TOKEN_PX


def test_long_labels_beside_horizontal_bars_go_over_lines_and_leave_the_bars_their_room() -> None:
    long = "QK-norm : les gains de la RMSNorm des requêtes et des clés"
    fig = figures.bars(
        ["clé W_K", long], [1e6, 2e8], "t", "paramètres", horizontal=True, compact=True, words=i18n.words()
    )
    assert fig.layout.margin.l <= 0.4 * Canvas.width + 20
    assert "<br>" in fig.data[0].y[1] and fig.data[0].y[0] == "clé W_K"
    assert fig.layout.xaxis.tickangle == 0 and len(fig.layout.xaxis.tickvals) <= 6
