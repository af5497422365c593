"""The chapters on each model: what a page states about the model on screen comes from that model's own fields
(Gemma 3's windows and QK-norm, SmolLM2's grouped keys, rotary bases), and user text and odd tokens stay text in
every title. The chapters' own numbers are tests/test_chapters.py's."""

from __future__ import annotations

import json

import numpy as np
import pytest

import attention
from app_driver import apptest
from app_driver.apptest import array, figure, figures, metric, number, run_page
from attention.lessons import position
from tests.sentences import FLUFFY
from tests.test_chapters import markdown, metric_exactly, page, z
from ui.components import plot
from ui.words import i18n


def test_user_text_in_a_chapters_titles_is_escaped_never_read_as_html():
    at = run_page(page("values"), text="<i>bold</i> move", token="1")  # token 1: "<"
    chain = figure(at, "“")
    assert "&lt;" in chain["layout"]["title"]["text"] and "<i>" not in chain["layout"]["title"]["text"]


def test_11_rotary_positions_score_by_distance_and_learned_ones_do_not(model):
    """Shift the whole sentence 100 places along: SmolLM2's rotary positions leave the first layer's scores as
    they were (q at m and k at n score q·R_{n−m}k), BERT's learned position vectors change them."""
    at = run_page(page("position"), model="smollm2")
    assert "Rotary positions (the loaded model)" in [h.value for h in at.header]
    assert number(metric(at, "largest change of one layer-1 score")) < 1e-3  # rounding, on scores of size ~10
    turn = figure(at, "SmolLM2-135M: cos(position × θᵢ)")
    angles = z(turn)
    assert angles.shape == (64, 32) and np.allclose(angles[0], 1.0)  # position 0 does not turn
    assert angles[1, 0] == pytest.approx(np.cos(1.0), abs=1e-6)  # pair 0 turns 1 radian a position (θ₀ = 1)
    at = run_page(page("position"), model="all-MiniLM-L6-v2")
    change = number(metric(at, "largest change of one layer-1 score q·k, shifted by 100"))
    assert change > 1.0
    # the number is one score's change, in the head the caption names, read against that head's own scores
    moved = position.shift_experiment(model, FLUFFY, 100)
    before, after = (tr.layers[0].scores for tr in (moved.original, moved.shifted))  # raw q·k, (heads, n, n)
    by_head = np.abs(after - before).max(axis=(1, 2))
    head = int(np.argmax(by_head))
    caption = next(c.value for c in at.caption if "|Δ(q·k)|" in c.value)
    assert f"all 12 heads of layer 1, found in head {head + 1}." in caption and "no unit" in caption
    assert change == pytest.approx(by_head[head], rel=0.05)
    assert f"{np.abs(before[head]).max():.1f}" in caption


def test_10_and_13_grouped_query_attention_on_smollm2():
    """SmolLM2: 9 query heads share 3 key/value heads; a token's cache is 2 × 30 layers × 3 × 64 = 11,520 numbers,
    where a key and a value per query head would be 2 × 30 × 9 × 64 = 34,560."""
    tr = attention.trace(attention.load_model("smollm2"), FLUFFY)
    cached = sum(layer.k_shared.size + layer.v_shared.size for layer in tr.layers) // tr.n_tokens  # what it keeps
    one_per_head = sum(layer.k.size + layer.v.size for layer in tr.layers) // tr.n_tokens  # a key per query head
    assert (cached, one_per_head) == (11_520, 34_560)
    at = run_page(page("heads"), model="smollm2", head="5")
    text = markdown(at)
    assert "key/value head 2 → query heads 4, 5, 6" in text and "11,520" in text and "34,560" in text
    assert [f.replace("<br>", " ") for f in figures(at) if f.startswith("Query head")] == [  # wrapped to a third
        f"Query head {h}, keys of head 2 layer 1" for h in (4, 5, 6)
    ]
    assert "checked: identical" in "\n".join(c.value for c in at.caption)
    at = run_page(page("kv_cache"), model="smollm2")
    assert "= **11,520** numbers per token instead of 34,560" in " ".join(markdown(at).split())


def test_13_gemma_s_window_saving_at_this_length_and_at_chapter_8_s_length():
    from attention.lessons import window

    cfg = attention.load_model("gemma3").config
    at = run_page(page("kv_cache"), model="gemma3")
    text = " ".join(markdown(at).split())
    kinds = window.windows(cfg)
    here, longest = kinds.cache_per_token_saved(cfg, 1024), kinds.cache_per_token_saved(cfg, cfg.max_tokens)
    assert f"at 1,024 tokens its cache is {i18n.percent('en', here, 0)} smaller" in text
    assert f"{cfg.max_tokens:,} tokens, where it is {i18n.percent('en', longest, 0)}" in text and here < longest


def test_10_head_roles_and_a_removed_head_on_both_models():
    at = run_page(page("heads"), model="smollm2", text="The capital of France is", layer="18", head="7")
    counts = next(c.value for c in at.caption if "(of 270 heads)" in c.value)
    assert "first token:" in counts and "induction:" in counts  # the sink, and the heads the repeat probe finds
    roles = figure(at, "The role of every head")
    assert sum(len(array(t["x"])) for t in roles["data"] if t.get("showlegend") is not False) == 270
    assert "KL =" in markdown(at)
    table = apptest.table(at, "heads_removed")
    assert table["next token, with every head"][0] == "␣Paris"
    assert table["probability"][0] == pytest.approx(0.773, abs=2e-3)  # transformers gives 0.773 (of every token)
    at = run_page(page("heads"), model="gemma3")  # its likeliest token after the sentence is <start_of_image>
    model = attention.load_model("gemma3")
    offered = apptest.table(at, "heads_removed")["next token, with every head"]
    kinds = {model.tokenizer.decode([i]): k for i, k in enumerate(model.token_kinds) if k}
    assert offered and not any(t in kinds for t in offered), offered  # text tokens only
    assert "`<start_of_image>` takes" in "\n".join(c.value for c in at.caption)  # named, with what it is
    at = run_page(page("heads"), model="all-MiniLM-L6-v2")
    turns = array(figure(at, "How far each token's final vector turns")["data"][0]["y"])  # 1 − cosine
    assert (turns >= -1e-6).all() and (turns <= 2).all() and turns.max() > 0  # something moved, within a cosine's range


def test_5_a_model_with_heads_wider_than_its_width_is_not_said_to_split_it():
    """Gemma 3's four heads of 256 make 1,024 numbers of queries from a width of 640: the page says so, and never
    640 / 4 = 256. MiniLM's twelve heads of 32 do split its 384."""
    text = markdown(run_page(page("queries_keys"), model="gemma3"))
    assert "640 / 4 = 256" not in text and "$W_Q$ is 640 × 1,024 here" in text  # row vectors: e W_Q
    assert "384 / 12 = 32" in markdown(run_page(page("queries_keys")))


@pytest.mark.parametrize("name", ["heads", "kv_cache", "queries_keys", "masking"])
def test_a_token_like_bos_is_escaped_once_in_every_figure(name):
    """Gemma's "<bos>" reaches plotly as "&lt;bos&gt;", which it draws as <bos>; escaped twice ("&amp;lt;bos&amp;gt;")
    it would show the entity's letters."""
    at = run_page(page(name), model="gemma3")
    drawn = [json.dumps(spec) for spec, _config in plot.drawn(at)]
    assert drawn and all("&amp;lt;" not in spec for spec in drawn)
    assert any("&lt;bos&gt;" in spec for spec in drawn)


def test_a_slider_of_decimals_writes_them_as_the_page_s_language_does():
    """Chapter 3's coordinates in French: 3,0, never printf's 3.0; the value itself is the same number."""
    at = run_page(page("similarity"), lang="fr")
    box = at.select_slider(key="w:sim_a1")
    assert "3,0" in box.options and "3.0" not in box.options and box.value == 3.0
    assert "3.0" in run_page(page("similarity")).select_slider(key="w:sim_a1").options


def test_2_the_distance_to_kill_is_the_counted_one_and_gemma_s_window_is_said():
    at = run_page(page("why_attention"), model="smollm2")
    apart = metric_exactly(at, "tokens from “Don't” to “kill”")
    text = " ".join(markdown(at).split())
    assert (
        f"“kill”, {apart} tokens later" in text.replace('"', "“", 1).replace('"', "”", 1)
        or f'"kill", {apart} tokens later' in text
    )
    assert "dozen" not in text and "sliding window hides it" not in text  # SmolLM2 has no window
    text = " ".join(markdown(run_page(page("why_attention"), model="gemma3")).split())
    assert (
        "except on its 15 local layers of 18, where a key more than 511 tokens back gets a weight of exactly 0" in text
    )


def test_5_the_stored_projections_have_their_own_sizes_and_the_heatmap_s_steps_are_said():
    text = " ".join(markdown(run_page(page("queries_keys"), model="smollm2")).split())
    assert "$W_Q$ is 576 × 576 here, cut into 9 blocks of 64 columns, and $W_K$ is 576 × 192, 3 blocks" in text
    assert "each shared by 3 query heads" in text
    text = " ".join(markdown(run_page(page("queries_keys"), model="gemma3")).split())
    assert "(QK-norm)" in text and "rotated by their positions" in text and "$\\hat e$" in text
    text = " ".join(markdown(run_page(page("queries_keys"))).split())
    assert "for $W_Q$ and $W_K$ alike" in text and "QK-norm" not in text


def test_8_an_encoder_is_said_to_read_every_token_before_and_after():
    text = markdown(run_page(page("masking"), model="all-MiniLM-L6-v2"))
    assert "reads every token of the text, before it and after it in every layer" in " ".join(text.split())
    assert "reads every earlier token in every layer" in " ".join(
        markdown(run_page(page("masking"), model="smollm2")).split()
    )


def test_9_gemma_s_values_and_residual_step_are_its_own():
    at = run_page(page("values"), model="gemma3")
    equation = at.get("latex")[0].value
    assert r"\hat e_i W_V" in equation and r"e_j + \operatorname{RMSNorm}" in equation
    text = markdown(at)
    assert "is where the token would move" not in text and "$e_j + \\Delta e_j$" not in text
    assert any(
        t["name"] == "Δe, before RMSNorm" for t in figure(at, "“␣creature”: weighted values")["data"] if "name" in t
    )
    equation = run_page(page("values")).get("latex")[0].value  # MiniLM: post-norm, reads e itself
    assert r"e_i W_V" in equation and r"\operatorname{LayerNorm}\Big(e_j" in equation


def test_11_the_rotation_s_base_is_the_model_s_not_the_sinusoids():
    text = " ".join(markdown(run_page(page("position"), model="smollm2")).split())
    assert "the sinusoids' form with base 100,000" in text and "sinusoids' frequencies" not in text


def test_13_gemma_s_sharing_and_windows_are_counted_apart():
    """Gemma 3 at 1,024 tokens: 9,216 numbers per token × 1,024 × 4 B = 36.0 MiB with every layer keeping every token
    (144.0 MiB without sharing); its windows then bring it to 21.0 MiB, the metric labelled so."""
    at = run_page(page("kv_cache"), model="gemma3", kv_tokens="1024")
    text = " ".join(markdown(at).split())
    assert "that is 36.0 MiB (37.7 MB) instead of 144.0 MiB (151.0 MB)" in text
    assert "36.0 MiB (37.7 MB) becomes 21.0 MiB (22.0 MB) in float32" in text
    assert metric_exactly(at, "cache at 1,024 tokens, sliding windows included, float32 (4 bytes a number)") == (
        "21.0 MiB (22.0 MB)"
    )
    text = " ".join(markdown(run_page(page("kv_cache"), model="smollm2", kv_tokens="1024")).split())
    assert "that is 45.0 MiB" in text


def test_14_the_calculator_s_mlp_and_the_final_norm_s_part_are_said_right():
    at = run_page(page("parameters"), model="gemma3")
    text = " ".join(markdown(at).split())
    assert (
        "the calculator takes 3 × its own width, heads × d_head = 1,024: 3,072 (3 is 2,048 ÷ 640, rounded down)" in text
    )
    rows = apptest.table(at, "budget_table_loaded")
    parts = dict(zip(rows["component"], rows["part"], strict=True))
    assert parts["final RMSNorm"] == "output"


def test_6_gemma_s_qk_norm_slider_grows_the_normalised_input_and_says_the_model_s_cannot_grow():
    at = run_page(page("scaling"), model="gemma3")
    assert at.select_slider[-1].label.startswith("The heads' input ê, the vectors after the RMSNorm before attention")
    text = " ".join(markdown(at).split())
    assert "That norm already fixes their size" in text and "keeps it from growing at all" not in text


LONG = (
    "The old river bank by the town was flooded after the storm, so the bank manager moved the money to a safer "
    "branch across the valley"
)


def token_heatmaps(at) -> list[dict]:
    """The page's heatmaps whose axes name tokens one by one (attention_heatmap's)."""
    return [
        spec
        for spec in figures(at).values()
        if spec["data"][0]["type"] == "heatmap" and "ticktext" in spec["layout"].get("xaxis", {})
    ]


def test_a_chapter_in_presenter_mode_has_the_switch_and_draws_a_long_sentence_in_a_window_of_named_tokens():
    """The sidebar's switch is on a chapter, bound to the link's presenter; its heatmaps, alone across the page,
    each draw the window the slider moves, every token of it named at 12 px or more, and the window moves with
    the link's win."""
    at = run_page(page("masking"), model="all-MiniLM-L6-v2", presenter="1", text=LONG)
    assert not at.exception
    assert [t.value for t in at.sidebar.toggle if t.key == "w:presenter"] == [True]
    slider = next(s for s in at.select_slider if s.key == "w:win")
    heatmaps = [h for h in token_heatmaps(at) if len(h["data"][0]["x"]) > 4]  # the sentence's, not the notes' 4 words
    assert len(heatmaps) == 2
    for spec in heatmaps:
        shown = list(spec["data"][0]["x"])
        assert len(shown) + len(slider.options) - 1 > len(shown)  # a window: fewer tokens than the sentence's
        assert list(spec["layout"]["xaxis"]["ticktext"]) == shown == list(spec["layout"]["yaxis"]["ticktext"])
        assert spec["layout"]["xaxis"]["tickfont"]["size"] >= 12
    moved = [
        h
        for h in token_heatmaps(run_page(page("masking"), model="all-MiniLM-L6-v2", presenter="1", text=LONG, win="3"))
        if len(h["data"][0]["x"]) > 4
    ]
    assert moved[0]["data"][0]["x"][0] == heatmaps[0]["data"][0]["x"][2]
