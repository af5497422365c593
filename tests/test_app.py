"""The explorer run headless with AppTest: its figures hold the engine's numbers, bad input is handled."""

from __future__ import annotations

import base64
import html
import json
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import plotly.io
import pytest

import attention
from app_driver.apptest import array, figure, figures, messages, run_page
from pages.explorer import heads
from tests.sentences import FLUFFY
from ui.components import plot
from ui.figures import cells, head_meta, theme
from ui.figures.base import SUBTITLE_PX, token_labels
from ui.words import i18n

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")  # the figures' font, shipped with Chromium


def steps(at) -> dict:
    """The four steps' figure: the one the head switch updates first."""
    found = [s for s in figures(at).values() if (s["layout"].get("meta") or {}).get("first")]
    assert len(found) == 1
    return found[0]


def step(spec: dict, k: int) -> dict:
    """The k-th step's trace (0 raw, 1 scaled, 2 masked, 3 weights)."""
    return spec["data"][spec["layout"]["meta"]["traces"][k]]


def values(trace: dict) -> np.ndarray:
    """What a step's cells hold: the weights (customdata; their colour may be scaled per query) or the scores."""
    return array(trace["customdata"] if "customdata" in trace else trace["z"])


def decoded(spec: dict) -> np.ndarray:
    """A typed-array spec {dtype, bdata, shape}, decoded here with numpy."""
    shape = [int(s) for s in spec["shape"].split(",")]
    return np.frombuffer(base64.b64decode(spec["bdata"]), dtype=np.dtype(spec["dtype"])).reshape(shape)


def annotations(spec: dict) -> list[str]:
    return [a.get("text", "") for a in spec["layout"].get("annotations", [])]


@pytest.fixture(scope="module")
def default_page():
    at = run_page()
    assert not at.exception
    return at


def test_every_step_is_drawn(default_page):
    titles = list(figures(default_page))
    expected = [
        "13 tokens",
        "Layer 1 · head 1: queries, keys and values",
        "Layer 1 · head 1: from scores to weights",
        "All 12 heads of layer 1",
        "Every token, before",
    ]
    for start in expected:
        assert any(t.startswith(start) for t in titles), (start, titles)
    names = annotations(steps(default_page))
    for name in ("1. Raw scores", "2. Scaled", "3. Masked", "4. Softmax weights"):
        assert any(a.startswith(name) for a in names), (name, names)
    assert len(default_page.get("latex")) >= 7  # an equation for each step


def test_the_steps_hold_the_engines_numbers(default_page, model):
    tr = attention.trace(model, FLUFFY)
    spec = steps(default_page)
    raw, scaled, masked, weights = (values(step(spec, k)) for k in range(4))
    lt = tr.layers[0]
    assert np.allclose(weights, lt.weights[0], atol=1e-7)
    assert np.allclose(raw, lt.scores[0], rtol=1e-6, atol=1e-5)
    assert np.allclose(scaled, lt.scores[0] / np.sqrt(lt.d_head), rtol=1e-6, atol=1e-6)
    assert np.allclose(masked, scaled)  # mask none: step 3 is step 2
    assert any("no mask" in a and "same as 2" in a for a in annotations(spec))


def test_q_k_and_v_share_one_figure(default_page, model):
    lt = attention.trace(model, FLUFFY).layers[0]
    spec = figure(default_page, "Layer 1 · head 1: queries, keys and values")
    q, k, v = (array(spec["data"][i]["z"]) for i in spec["layout"]["meta"]["traces"])
    assert np.allclose(q, lt.q[0], atol=1e-6) and np.allclose(k, lt.k[0], atol=1e-6)
    assert np.allclose(v, lt.v[0], atol=1e-6)


def test_every_head_rides_along_for_the_browser(default_page, model):
    """The other heads' matrices, which the head buttons swap in without the server, are those heads' own."""
    lt = attention.trace(model, FLUFFY).layers[0]
    restyle = steps(default_page)["layout"]["meta"]["restyle"]
    assert sorted(restyle, key=int) == [str(h) for h in range(1, 13)]
    for h in (3, 7, 12):
        weights = decoded(restyle[str(h)]["customdata"][3])
        assert np.allclose(weights, lt.weights[h - 1], atol=1e-7)
        assert np.allclose(decoded(restyle[str(h)]["z"][0]), lt.scores[h - 1], rtol=1e-6, atol=1e-5)
        assert f"head {h}<" in restyle[str(h)]["hovertemplate"][3]
    qkv = figure(default_page, "Layer 1 · head 1: queries")["layout"]["meta"]["restyle"]
    assert np.allclose(decoded(qkv["7"]["z"][2]), lt.v[6], atol=1e-6)


def test_the_explorers_figures_are_valid_plotly(default_page):
    """They are built as plain dicts, without plotly's checks (to be fast): plotly checks them here, each as the
    page sends it, and writes each the same again (a setting plotly would have read otherwise, "marker_color" for
    "marker": {"color"}, would reach plotly.js as it is, unknown). The head view's are laid out in pixels for the
    top margin chart() gives a figure with a subtitle."""
    specs = figures(default_page).values()
    assert len(specs) == 9
    for spec in specs:
        checked = go.Figure(spec)  # raises on any property plotly does not know
        assert json.loads(plotly.io.to_json(checked, validate=False)) == spec
        if "heads" in (spec["layout"].get("meta") or {}):
            assert spec["layout"]["margin"]["t"] == SUBTITLE_PX


def test_chosen_layer_and_head_are_drawn(model):
    at = run_page()
    at.sidebar.selectbox(key="w:layer").set_value(3).run()
    drawn = steps(at)
    at.sidebar.selectbox(key="w:head").set_value(5).run()
    tr = attention.trace(model, FLUFFY)
    # another head: the page keeps the figures that hold every head, unchanged (nothing for the browser to draw
    # again), and the head switch shows head 5 in them (ui/components/head_switch.js: what head_meta.showing does here)
    assert steps(at) == drawn and drawn["layout"]["meta"]["shown"] == 1
    assert head_switch_heads(at) == {5}
    shown = head_meta.showing(drawn, 4)
    assert np.allclose(values(step(shown, 3)), tr.layers[2].weights[4], atol=1e-7)
    assert shown["layout"]["title"]["text"].startswith("Layer 3 · head 5:")
    assert at.query_params["layer"] == "3" and at.query_params["head"] == "5"
    # the same view opened afresh, from its link, is drawn with head 5
    at = run_page(layer="3", head="5")
    spec = steps(at)
    assert np.allclose(values(step(spec, 3)), tr.layers[2].weights[4], atol=1e-7)
    assert spec["layout"]["title"]["text"].startswith("Layer 3 · head 5:")
    grid = figure(at, "All 12 heads")
    assert grid["layout"]["title"]["text"].startswith("All 12 heads of layer 3")
    heatmaps = [t for t in grid["data"] if t["type"] == "heatmap"]
    assert len(heatmaps) == 12
    # coloured from 0 to 1 by default: one scale for every row, which a class can compare
    colour, w = array(heatmaps[4]["z"]), tr.layers[2].weights[4]
    assert np.allclose(colour, w, atol=1e-6)
    frame = grid["layout"]["shapes"][0]
    x5 = grid["layout"]["xaxis5"]["domain"]
    assert frame["x0"] < x5[0] < x5[1] < frame["x1"]  # the chosen head is framed


def head_switch_heads(at) -> set[int]:
    """The head every head switch on the page shows."""
    switches = [e for e in at.get("bidi_component") if e.proto.component_name.endswith("attention_head_switch")]
    return {json.loads(e.proto.json)["head"] for e in switches}


def test_each_grid_panel_names_its_head_and_its_tokens(default_page, model):
    """A click on a panel reaches the head switch as the panel's trace meta; hover names both tokens and the weight."""
    grid = figure(default_page, "All 12 heads")
    assert [t["type"] for t in grid["data"]] == ["heatmap"] * 12  # nothing drawn over the panels
    tr = attention.trace(model, FLUFFY)
    labels = token_labels([t.display for t in tr.tokens])
    for h, trace in enumerate(grid["data"], start=1):
        assert trace["meta"] == h
        assert trace["xaxis"] == ("x" if h == 1 else f"x{h}")
        assert list(trace["x"]) == labels and list(trace["y"]) == labels
        assert np.allclose(array(trace["customdata"]), tr.layers[0].weights[h - 1], atol=1e-6)
        assert trace["hovertemplate"].startswith("query: %{y}<br>key: %{x}<br>weight: %{customdata:.3f}")
    assert grid["layout"]["meta"]["pick"]
    # the figure's title names what it shows, nothing for the page to do: an exported slide has no head to click
    title = grid["layout"]["title"]["text"]
    assert title.startswith("All 12 heads of layer 1") and "click" not in title.lower()
    assert any(c.value.startswith("Click a head to pick it") for c in default_page.caption)


def test_the_tokens_legend_names_only_the_kinds_drawn():
    """SmolLM2 adds no token of its own: no “special token” in its legend; MiniLM's [CLS] and [SEP] keep theirs."""
    from ui.figures import token_chips

    def named(fig) -> list[str]:
        return [t.name for t in go.Figure(fig).data if t.fill == "toself"]  # as plotly reads it

    assert named(token_chips(["the", "▁cat", "s"], [False] * 3, [False, False, True], words=i18n.words())) == [
        "starts a word",
        "continues a word",
    ]
    assert "special token" in named(
        token_chips(["[CLS]", "cat", "[SEP]"], [True, False, True], [False] * 3, words=i18n.words())
    )
    chips = next(spec for title, spec in figures(run_page(model="smollm2")).items() if title.endswith(" tokens"))
    drawn = [t.get("name") for t in chips["data"] if t.get("fill") == "toself"]
    assert drawn and "special token" not in drawn


@pytest.mark.parametrize(("colours", "row_max"), [("row", True), ("unit", False)])
def test_weight_colours_are_a_choice(colours, row_max, model):
    at = run_page(colours=colours)
    w = attention.trace(model, FLUFFY).layers[0].weights[0]
    colour = array(step(steps(at), 3)["z"])
    assert np.allclose(colour, w / w.max(axis=1, keepdims=True) if row_max else w, atol=1e-6)
    assert np.allclose(values(step(steps(at), 3)), w, atol=1e-7)  # hover and numbers: the weights themselves


def test_scores_are_coloured_on_a_scale_centred_at_zero(default_page):
    for k in range(3):
        trace = step(steps(default_page), k)
        assert trace["zmin"] == -trace["zmax"] and trace["zmid"] == 0


def test_causal_mask_shows_minus_infinity_above_the_diagonal(model):
    at = run_page(mask="causal", text="an apple and an orange")
    spec = steps(at)
    n = 7
    above = np.triu(np.ones((n, n), dtype=bool), k=1)
    masked = step(spec, 2)
    assert np.isnan(array(masked["z"])[above]).all()  # drawn as masked cells, not as 0
    text = np.array(masked["text"])
    assert (text[above] == "−∞").all() and not (text[~above] == "−∞").any()
    weights = values(step(spec, 3))
    assert (weights[above] == 0).all()
    assert np.allclose(weights.sum(axis=1), 1.0, atol=1e-6)
    expected = attention.trace(model, "an apple and an orange", mask="causal").layers[0].weights[0]
    assert np.allclose(weights, expected, atol=1e-7)
    assert any("causal: an illustration" in a for a in annotations(spec))  # this encoder never used it


def test_lesson_notes_layout_is_the_transpose(model):
    at = run_page(layout="notes", mask="causal", colours="row")
    weights = values(step(steps(at), 3))
    assert np.allclose(weights, attention.trace(model, FLUFFY, mask="causal").layers[0].weights[0].T, atol=1e-7)
    assert np.allclose(weights.sum(axis=0), 1.0, atol=1e-6)  # columns are queries
    colour = array(step(steps(at), 3)["z"])
    assert np.allclose(colour.max(axis=0), 1.0)  # each query's (column's) largest weight is the darkest


def test_hiding_special_tokens_drops_their_rows_and_columns():
    at = run_page(specials="0")
    weights = step(steps(at), 3)
    assert values(weights).shape == (11, 11)
    assert "[CLS]" not in weights["x"] and "[SEP]" not in weights["x"]


def test_repeated_words_keep_separate_rows():
    at = run_page(text="the bank by the river bank")
    weights = step(steps(at), 3)
    assert "bank (2)" in weights["y"] and "bank (6)" in weights["y"]
    assert values(weights).shape == (8, 8)


def test_numbers_only_where_they_fit():
    """At a projector's 1280 px (the default size), 13 tokens leave cells too small for numbers; 8 tokens do not;
    "numbers" forces them, the panels growing until they fit."""
    assert not any("text" in step(steps(run_page()), k) for k in range(4))
    short = steps(run_page(text="the bank by the river bank"))
    assert "text" in step(short, 3) and step(short, 3)["texttemplate"] == "%{text}"
    forced = steps(run_page(numbers="1"))
    assert all("text" in step(forced, k) for k in range(4))
    assert forced["layout"]["height"] > steps(run_page())["layout"]["height"]


@pytest.mark.skipif(not DEJAVU.exists(), reason="DejaVu Sans, the figures' font, is not installed")
@pytest.mark.parametrize("cell", [14.0, 19.0, 25.0, 31.0, 48.0])
@pytest.mark.parametrize("kind", ["weights", "scores"])
def test_a_printed_number_fits_its_cell_measured_with_the_font_itself(cell, kind):
    """Every string is measured with DejaVu Sans's own glyph widths (not the table the figures use)."""
    from PIL import ImageFont

    rng = np.random.default_rng(0)
    m = rng.dirichlet(np.ones(13), size=13) if kind == "weights" else rng.normal(0, 6, (13, 13))
    if kind == "scores":
        m[np.triu_indices(13, 1)] = -np.inf
    chosen = cells.cell_format(m, kind, cell, 11, 18, words=i18n.words())
    if chosen is None:
        return
    font = ImageFont.truetype(str(DEJAVU), chosen.size)
    assert chosen.size >= 11
    for row in chosen.write(m, kind, words=i18n.words()):
        for text in row:
            assert font.getlength(text) <= cell - 2, (text, chosen.size, cell)


def test_presenter_mode_hides_the_prose_keeps_the_equations_and_enlarges_the_type():
    normal, presenter = run_page(), run_page(presenter="1")
    assert len(presenter.get("latex")) == len(normal.get("latex"))
    assert len(presenter.markdown) < len(normal.markdown)
    spec = steps(presenter)
    sizes = [spec["layout"]["title"]["font"]["size"]]
    sizes += [a["font"]["size"] for a in spec["layout"]["annotations"]]
    sizes += [step(spec, k)["colorbar"]["tickfont"]["size"] for k in range(4)]
    assert min(sizes) >= theme.figure_type(presenter=True).small >= 14
    # the tokens' names may go down to 12 px, so that every token drawn is named (every other one was, at 14)
    n = len(step(spec, 0)["x"])
    for axis in ("xaxis", "yaxis"):
        ticks = spec["layout"][axis]
        assert ticks["tickfont"]["size"] >= 12 and len(ticks["tickvals"]) == n
    assert presenter.query_params["presenter"] == "1"


def test_export_config_is_png_3x_or_svg():
    at = run_page()
    config = plot.drawn(at)[0][1]
    assert config["toImageButtonOptions"]["format"] == "png" and config["toImageButtonOptions"]["scale"] == 3
    at = run_page(export="svg")
    config = plot.drawn(at)[0][1]
    assert config["toImageButtonOptions"]["format"] == "svg"


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_sentence_asks_for_one(text):
    at = run_page(text=text)
    assert not at.exception
    assert "Type a sentence" in messages(at)
    assert not plot.drawn(at)


def test_a_huge_paste_is_cut_with_a_notice():
    at = run_page(text="the fluffy creature roamed " * 200)  # 5,400 characters
    assert not at.exception
    assert "left out" in messages(at) and "256" in messages(at)
    assert figure(at, "256 tokens")
    # a long text: sections 2 to 4 show a window of it, small enough that every head is sent for the head buttons
    assert steps(at)["layout"]["meta"]["heads"] == list(range(1, 13))
    assert array(step(steps(at), 3)["z"]).shape[-1] == heads.WINDOW


@pytest.mark.parametrize(
    "text", ["I ❤️ attention 🤖", "東京の森を歩く", "שלום עולם", "e\u0301te\u0301 cafe\u0301", "\x00\x07 bell"]
)
def test_any_script_is_traced_without_error(text):
    at = run_page(text=text)
    assert not at.exception
    assert figures(at)


def test_html_in_the_text_is_never_rendered_as_html(model):
    text = "<script>alert(1)</script> <b>bold</b> & more"
    at = run_page(text=text, win="8")  # its 23 tokens: the steps show 16, from the 8th (a "<") to "&" and beyond
    assert not at.exception
    tokens = [t.text for t in attention.trace(model, text).tokens]
    window = tokens[7 : 7 + heads.WINDOW]
    for labels, shown in (
        (step(steps(at), 3)["x"], window),
        (figure(at, f"{len(tokens)} tokens")["data"][-2]["text"], tokens),
    ):
        assert len(labels) == len(shown)
        for label, token in zip(labels, shown, strict=True):
            assert "<" not in label and ">" not in label  # nothing plotly could read as a tag…
            assert html.unescape(label).startswith(token)  # …and still the token's own characters
        assert any("&lt;" in label for label in labels) and any("&amp;" in label for label in labels)


@pytest.mark.parametrize(
    "params",
    [
        {"layer": "99"},
        {"head": "-1"},
        {"mask": "xyz"},
        {"layout": "sideways"},
        {"colours": "rainbow"},
        {"presenter": "yes"},
        {"layer": "abc", "head": "1e9", "token": "-5"},
    ],
)
def test_odd_url_parameters_fall_back_to_defaults(params, model):
    at = run_page(**params)
    assert not at.exception
    assert "could not be used" in messages(at)
    weights = values(step(steps(at), 3))
    assert np.allclose(weights, attention.trace(model, FLUFFY).layers[0].weights[0], atol=1e-7)


def test_example_picker_sets_the_sentence():
    at = run_page()
    at.sidebar.selectbox(key="w:example").set_value("an apple phone").run()
    assert not at.exception
    assert figure(at, "5 tokens")
    assert at.query_params["text"] == "an apple phone"
    assert any("“apple”" in title for title in figures(at))


def test_a_decoders_own_mask_is_named_as_its_own(gpt2_in_cache):
    at = run_page(model="gpt2", mask="causal")
    assert not at.exception
    assert any("causal: the model's own" in a for a in annotations(steps(at)))
    at = run_page(model="gpt2", mask="none")
    assert any("no mask: the same as 2" in a for a in annotations(steps(at)))
    assert any("counterfactual" in c.value for c in at.caption)


def test_the_prose_names_the_models_own_numbers(default_page, model):
    shown = "\n".join(m.value for m in default_page.markdown)
    assert model.config.name in shown and f"{model.config.vocab_size:,}" in shown
    assert "{model}" not in shown and "{vocab" not in shown


def test_the_followed_token_starts_the_last_word_not_its_last_piece():
    """« canapé » is two pieces on Gemma 3 (␣can, apé): the explorer follows the word from its first piece."""
    at = run_page(lang="fr", model="gemma3", text="Le petit chat noir dort sur le canapé")
    picked = at.selectbox(key="w:token_follow")
    shown = [o for o in picked.options if o.startswith(f"{picked.value} · ")]
    assert shown and "can" in shown[0] and "apé" not in shown[0], (picked.value, picked.options)
