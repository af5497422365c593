"""Chapters 8 to 14 run headless: masking, values, heads, position, cross-attention, the KV cache and the parameter
count, each number against an independent computation. Chapters 1 to 7 and what every chapter has are
tests/test_chapters.py's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import attention
from app_driver import apptest
from app_driver.apptest import array, figure, figures, metric, number, run_page
from attention.lessons import masking
from tests.gpt2_counts import gpt2_of_sizes, parameters_by_group
from tests.sentences import FLUFFY
from tests.test_chapters import captions, in_link, markdown, page, z
from ui.words import i18n


def test_8_masking_worked_softmax_keeps_minus_infinity_and_a_centred_scale(model):
    at = run_page(page("masking"), model="all-MiniLM-L6-v2")
    assert at.data_editor[0].value.iloc[1, 0] == "−∞"  # the notes' −∞, not 0
    scores = figure(at, "The notes' scores")
    assert scores["data"][0]["zmin"] == -scores["data"][0]["zmax"] == -4.4  # 0 in the middle: 0.80 is red
    assert scores["data"][0]["text"][1][0] == "−∞"
    w = z(figure(at, "Softmax down each column"))
    assert np.allclose(w.sum(axis=0), 1.0) and np.allclose(w[:, 0], [1, 0, 0, 0])
    e = np.exp
    assert np.allclose(w[:2, 1], [e(0.8), e(-0.3)] / (e(0.8) + e(-0.3)), atol=5e-4)  # 0.750, 0.250, as the notes say
    assert w[0, 2] == pytest.approx(e(1.9) / (e(1.9) + e(-0.2) + e(0.99)), abs=5e-4)  # 0.656; the notes print 0.69
    column_4 = e(4.4) / (e(4.4) + e(0.8) + e(0.67) + e(1.31))
    assert f"the notes write 0.92, exactly {column_4:.3f}" in captions(at) and f"{column_4:.3f}" == "0.912"
    assert "(0.0000454, 0.9999092, 0.0000454)" in markdown(at)  # softmax(10, 20, 10), not (0.33, 0.67, 0)
    causal = z(figure(at, "Illustration"))  # the encoder's counterfactual
    assert (causal[np.triu_indices(13, 1)] == 0).all()
    assert figure(at, "Real")
    at.toggle(key="w:mk_mask").set_value(False).run()
    w = z(figure(at, "Softmax down each column"))
    # the notes' −∞ stay in the table without the mask: the same weights, until a number is typed below the diagonal
    assert np.allclose(w, masking.column_softmax(masking.NOTES_SCORES))


def test_8_a_table_in_the_link_is_the_table_shown():
    typed = [0, 0.8, 1.9, 4.4, 2, -0.3, -0.2, 0.8, "-inf", "-inf", 0.99, 0.67, "-inf", "-inf", "-inf", 1.31]
    at = run_page(page("masking"), mk_scores=",".join(map(str, typed)), mk_mask="0")
    w = z(figure(at, "Softmax down each column"))
    assert w[:2, 0] == pytest.approx([1 / (1 + math.exp(2)), math.exp(2) / (1 + math.exp(2))], abs=5e-4)
    assert "exactly 0.912" not in markdown(at)  # not the notes' table any more: their slips are not listed


def test_8_a_number_typed_under_the_mask_is_said_to_be_masked():
    typed = [3.5, 0.8, 1.9, 4.4, 2, -0.3, -0.2, 0.8, "-inf", "-inf", 0.99, 0.67, "-inf", "-inf", "-inf", 1.31]
    at = run_page(page("masking"), mk_scores=",".join(map(str, typed)))
    assert at.data_editor[0].value.iloc[1, 0] == "2"  # the table keeps what was typed
    assert figure(at, "The notes' scores")["data"][0]["text"][1][0] == "−∞"  # the softmax reads −∞
    said = [m.value for m in at.info]
    assert any("the softmax reads −∞ where the table shows k2, q1: 2" in m for m in said), said
    at.toggle(key="w:mk_mask").set_value(False).run()
    assert not any("the softmax reads" in m.value for m in at.info)  # without the mask the 2 is read as typed
    assert z(figure(at, "The notes' scores"))[1, 0] == 2


def test_8_on_a_decoder_the_causal_mask_is_the_real_one(gpt2_in_cache):
    at = run_page(page("masking"), model="gpt2")
    real, illustration = figure(at, "Real"), figure(at, "Illustration")
    assert "causal mask" in real["layout"]["title"]["text"] and "no mask" in illustration["layout"]["title"]["text"]


def test_9_values_low_rank_and_displacement(model):
    at = run_page(page("values"))
    assert "32 of 384 are not zero" in figure(at, "Singular values")["layout"]["title"]["text"]
    assert metric(at, "rank of") == "32"
    assert metric(at, "all-MiniLM-L6-v2: low-rank share") == f"{2 * 384 * 32 / (384 * 384):.1%}"  # W_V and W_O's slices
    layer = attention.trace(model, FLUFFY).layers[0]
    assert float(metric(at, "|Δe|")) == pytest.approx(np.linalg.norm(layer.displacement[0, 4]), abs=1e-3)  # creature
    sv = figure(at, "Singular values")["layout"]["yaxis"]
    assert sv["exponentformat"] == "power" and sv["dtick"] >= 1  # 10⁻⁴, not "100µ"


@pytest.mark.parametrize("params", [{}, {"val_uniform": "1"}, {"layer": "3", "head": "7", "token": "2"}])
def test_9_every_token_the_exercise_names_is_named_in_the_picture(params):
    """The exercise names the tokens that send the longest arrows in the picture on screen, and the picture names
    them beside their arrows: no token the student is sent to find is left to the hover."""
    import re

    at = run_page(page("values"), **params)
    named = {a["text"] for a in figure(at, "“")["layout"]["annotations"] if a.get("text")}
    exercise = next(m.value for m in at.markdown if m.value.startswith("**Try this.**"))
    tokens = re.findall(r"`([^`]+)`", exercise)
    assert len(tokens) == 3  # the token followed, then the two that send the longest arrows
    assert set(tokens[1:]) <= named, (tokens, named)
    assert "rank of the value map" in [m.label for m in at.metric]  # words, not an equation in a narrow column


def test_9_every_name_on_the_chain_of_values_is_clear_of_the_others():
    """The chain's names are placed in pixels (labels.place_labels): measured back from the figure at the
    page's plot size, no two overlap, and "e", "e + Δe" and the longest steps are among them."""
    from ui.figures.text import label_box
    from ui.figures.vectors import CHAIN_PLOT

    at = run_page(page("values"))
    chain = figure(at, "“creature”")
    layout = chain["layout"]
    names = [a for a in layout["annotations"] if a.get("text")]
    assert {"e", "e + Δe"} <= {a["text"] for a in names} and len(names) >= 4
    assert all("text" not in trace.get("mode", "") for trace in chain["data"])  # no plotly-placed text
    (x0, x1), (y0, y1) = layout["xaxis"]["range"], layout["yaxis"]["range"]
    scale = CHAIN_PLOT[1] / (y1 - y0)
    assert scale == pytest.approx(CHAIN_PLOT[0] / (x1 - x0))  # one scale in both axes
    boxes = []
    for a in names:
        if a.get("showarrow"):  # on a leader line: ax, ay are the label's offset in pixels, ay counting down
            dx, dy = a["ax"], -a["ay"]
        else:
            dx, dy = a.get("xshift", 0), a.get("yshift", 0)
        centre = np.array([(a["x"] - x0) * scale + dx, (a["y"] - y0) * scale + dy])
        boxes.append((centre, np.array(label_box(a["text"], a["font"]["size"])) / 2))
    for i, (c, h) in enumerate(boxes):
        for c2, h2 in boxes[i + 1 :]:
            assert not np.all(np.abs(c - c2) < h + h2), "two names of the chain overlap"


def test_9_the_singular_values_fill_the_chart_with_the_rank_and_as_many_zeros():
    at = run_page(page("values"))
    sv = figure(at, "Singular values")
    assert len(array(sv["data"][0]["x"])) == 64 and array(sv["data"][0]["x"])[-1] == 64  # 2 × d_head of 384
    assert "64 of 384" in sv["layout"]["xaxis"]["title"]["text"]


def test_10_the_moves_are_what_the_picture_shows(model):
    """Each arrow is a token's ΣΔe projected onto the two directions that keep the most of the moves (an SVD of
    the Δe, computed here), drawn from one start: its length is that projected |ΣΔe|, and the longest spans over
    half the picture's shorter side."""
    at = run_page(page("heads"))
    moves = figure(at, "Where the heads move")
    layer = attention.trace(model, FLUFFY).layers[0]
    delta = layer.delta_sum.astype(np.float64)
    top_two = np.linalg.svd(delta, full_matrices=False)[2][:2]  # (2, d_model)
    expected = np.linalg.norm(delta @ top_two.T, axis=1)
    arrows = [a for a in moves["layout"]["annotations"] if a.get("showarrow") and a.get("axref") == "x"]
    assert len(arrows) == len(delta)
    assert {(a["ax"], a["ay"]) for a in arrows} == {(0.0, 0.0)}  # one common start
    lengths = np.array([math.hypot(a["x"] - a["ax"], a["y"] - a["ay"]) for a in arrows])
    assert np.allclose(lengths, expected, rtol=1e-4)
    (x0, x1), (y0, y1) = moves["layout"]["xaxis"]["range"], moves["layout"]["yaxis"]["range"]
    assert lengths.max() > 0.5 * min(x1 - x0, y1 - y0)  # fitted to the embeddings, it was 4% of the picture
    assert "fitted to the moves themselves" in " ".join(c.value for c in at.caption)


def test_10_heads_sum_equals_concat():
    at = run_page(page("heads"))
    assert number(metric(at, r"$\max \big|\sum_h")) <= 1e-5


def test_10_the_width_is_split_into_one_slice_per_head():
    at = run_page(page("heads"))
    assert "384 = 12 \\times 32" in at.latex[1].value  # MiniLM: d_model = n_heads × d_head
    slices = apptest.table(at, "heads_columns")
    for part in ("its columns of Q", "its columns of K and V"):  # each head its own keys and values
        assert list(slices[part])[:2] == ["1–32", "33–64"] and list(slices[part])[-1] == "353–384"
    assert len(slices["head"]) == 12


def test_10_heads_wider_than_the_split_and_sharing_keys_are_said_so():
    """Gemma 3: 4 heads of 256 (1,024 > d_model 640), one key/value head for all four; SmolLM2: 9 heads of 64
    (576 = d_model), three key/value heads. Neither is drawn as the paper's split of the width."""
    at = run_page(page("heads"), model="gemma3")
    equation = at.latex[1].value
    assert "\\times 1024}" in equation and "\\times 256}" in equation and "640 = 4" not in equation
    slices = apptest.table(at, "heads_columns")
    assert list(slices["its columns of Q"]) == ["1–256", "257–512", "513–768", "769–1024"]
    assert list(slices["its columns of K and V"]) == ["1–256"] * 4
    at = run_page(page("heads"), model="smollm2")
    slices = apptest.table(at, "heads_columns")
    assert list(slices["its columns of K and V"]) == ["1–64"] * 3 + ["65–128"] * 3 + ["129–192"] * 3


def test_10_the_sentence_carries_into_the_chapters():
    at = run_page(page("heads"), text="the bank by the river bank")
    norms = figure(at, "|Δe⁽ʰ⁾|")
    assert "bank (6)" in list(norms["data"][0]["x"])


def test_11_position_blind_without_position_embeddings():
    at = run_page(page("position"))
    assert number(metric(at, "max difference")) < 1e-5
    assert np.allclose(z(figure(at, "Original order")), z(figure(at, "Shuffled, put back")), atol=1e-5)
    sinusoid = z(figure(at, "Sinusoidal encoding"))
    assert np.allclose(sinusoid[0, 0::2], 0) and np.allclose(sinusoid[0, 1::2], 1)
    assert figure(at, "Original order, position embeddings off")  # the counterfactual says so in its title
    at.toggle(key="w:pos_embeddings").set_value(True).run()
    assert number(metric(at, "max difference")) > 1e-3
    assert not any("position embeddings off" in t for t in figures(at))


def test_12_cross_attention_shape(model):
    at = run_page(page("cross_attention"), cr_source="the cat sat")
    w = z(figure(at, "Cross-attention weights"))
    assert w.shape == (13, attention.trace(model, "the cat sat").n_tokens)  # n_target × n_source
    assert np.allclose(w.sum(axis=1), 1.0, atol=1e-6)


@pytest.mark.parametrize("params", [{}, {"layer": "6", "head": "2", "cr_source": "the cat sat on the mat"}])
def test_12_the_exercise_names_the_source_in_the_box_and_the_strongest_pair_of_the_chart(params):
    """The exercise starts from the source already in the box (it asked to type it), and names the target and source
    tokens of the chart's largest weight between two words, whatever the sentences."""
    import re

    at = run_page(page("cross_attention"), **params)
    exercise = next(m.value for m in at.markdown if m.value.startswith("**Try this.**"))
    source, target_token, source_token, *added = re.findall(r"`([^`]+)`", exercise)
    assert source == at.text_input(key="w:cr_source").value
    chart = figure(at, "Cross-attention weights")
    w, rows, cols = z(chart), list(chart["data"][0]["y"]), list(chart["data"][0]["x"])
    special = ("[CLS]", "[SEP]")  # MiniLM's: many heads rest on them, and they are no word to name
    targets = [i for i, r in enumerate(rows) if r not in special]
    sources = [j for j, c in enumerate(cols) if c not in special]
    best = max(((i, j) for i in targets for j in sources), key=lambda p: w[p])
    assert (rows[best[0]], cols[best[1]]) == (target_token, source_token)
    assert f"{source_token}`: {w[best]:.2f}" in exercise
    # the token the tokenizer adds that the row rests on most is named with its weight, which the chart shows
    rest = max((j for j, c in enumerate(cols) if c in special), key=lambda j: w[best[0], j])
    assert added == [cols[rest]] and f"takes {w[best[0], rest]:.2f} of that row" in exercise


def test_12_the_encoder_decoder_picture_sends_the_sources_keys_and_values_to_cross_attention():
    at = run_page(page("cross_attention"))
    notes = figure(at, "Encoder and decoder")["layout"]["annotations"]
    texts = [a["text"] for a in notes]
    assert "<b>cross-attention</b>" in texts and "masked self-attention" in texts and "keys and values" in texts
    into_cross = [a for a in notes if a.get("showarrow") and a.get("arrowcolor") == "#D55E00"]
    assert len(into_cross) == 1 and into_cross[0]["ax"] < 5 < into_cross[0]["x"]  # from the encoder, to the decoder


def test_13_kv_cache_equals_full_masked_attention_and_says_it_is_an_illustration():
    at = run_page(page("kv_cache"), model="all-MiniLM-L6-v2")
    assert number(metric(at, "max difference, head")) < 1e-6
    assert number(metric(at, "max difference, whole model")) < 1e-4
    assert "illustration" in markdown(at)
    step = figure(at, "Step 5")
    assert float(np.sum(array(step["data"][0]["x"]))) == pytest.approx(1.0, abs=1e-5)
    # the tokens upright, one to a row, under an axis title; every weight written the same way, beyond its bar
    assert step["data"][0]["orientation"] == "h" and step["layout"]["yaxis"]["title"]["text"] == "key"
    assert step["data"][0]["textposition"] == "outside" and step["data"][0]["textangle"] == 0
    # GPT-3 at 2,048 tokens: 2 × 96 × 12,288 × 2,048 × 4 bytes = 19,327,352,832 bytes = 18,432 × 2²⁰ = 18 × 2³⁰
    assert "18,432 MiB = 18.00 GiB (19.3 GB) in float32" in markdown(at)
    assert "half that, 9.00 GiB (9.7 GB)" in markdown(at)  # as the fp16 metric writes it, not 9.66 GB beside 9.7 GB
    assert "why keys and values, and not queries" in markdown(at).lower()
    length = at.select_slider(key="w:kv_tokens")
    assert length.options[-1] == "512" and length.value == 512  # MiniLM reads 512 tokens: the link's 1,024 stops there
    at.radio(key="w:kv_model").set_value("gpt3").run()
    length = at.select_slider(key="w:kv_tokens")
    assert length.options[-1] == "2,048"  # GPT-3's context (not 4,096), grouped
    length.set_value(2048).run()
    assert metric(at, "cache at 2,048 tokens, float32") == "18.00 GiB (19.3 GB)"
    assert metric(at, "cache at 2,048 tokens, fp16") == "9.00 GiB (9.7 GB)"
    memory = figure(at, "Cache size")
    assert array(memory["data"][0]["y"])[-1] == pytest.approx(18.0) and memory["layout"]["yaxis"]["title"]["text"] == (
        "GiB (2³⁰ bytes)"
    )
    assert in_link(at, "kv_tokens") == "2048"
    work = figure(at, "Attention work for one new token")
    low, high = work["layout"]["yaxis"]["range"]  # powers of ten on the logarithmic axis
    ys = np.log10(np.concatenate([array(work["data"][i]["y"]) for i in (0, 1)]))
    assert low < ys.min() and ys.max() < high  # both curves inside the chart, none along its edge


def test_13_on_a_decoder_the_cached_generation_equals_transformers(gpt2_in_cache):
    at = run_page(page("kv_cache"), model="gpt2", kv_step="3")
    assert number(metric(at, "max difference, whole model")) < 1e-4
    assert "how it really generates text" in markdown(at)
    assert at.slider(key="w:kv_step").value == 3


def test_14_presets_give_the_published_counts_and_the_try_this_comes_out():
    at = run_page(page("parameters"))
    assert metric(at, "attention share") == "33.2%" and metric(at, "d_model") == "12,288"
    assert "174,604,259,328 parameters, 175B" in "\n".join(c.value for c in at.caption)  # GPT-3: 175B
    at.selectbox(key="w:bp_preset").set_value("gpt2").run()
    assert [at.text_input(key=f"w:{n}").value for n in ("bp_layers", "bp_heads", "bp_vocab")] == ["12", "12", "50,257"]
    assert "124,439,808 parameters, 124M" in "\n".join(c.value for c in at.caption)  # Hugging Face's gpt2
    assert in_link(at, "bp_preset") == "gpt2"
    # the Try this: GPT-2 small's embedding outweighs all its attention layers, as the question's answer says
    gpt2 = gpt2_of_sizes(n_layers=12, n_heads=12, d_head=64, vocab=50257, context=1024)  # transformers' own, counted
    embedding, attention_ = gpt2.transformer.wte.weight.numel(), parameters_by_group(gpt2)["attention"]
    assert embedding > attention_
    question = next(r for r in at.radio if r.label.startswith("**Question 1 of "))
    question.set_value(
        next(i for i in range(len(question.options)) if question.format_func(i) == "the token embedding")
    )
    at.run()
    assert at.success and f"{embedding:,} parameters against {attention_:,}" in at.success[0].value
    at.text_input(key="w:bp_heads").input("24").run()
    assert metric(at, "d_model") == "1,536" and at.selectbox(key="w:bp_preset").value == "custom"


def test_14_the_calculator_reads_and_writes_counts_as_the_language_does_and_says_what_it_cannot_read(monkeypatch):
    """French: 50 257 in the box, typed back with or without its spaces; a decimal or a count out of range stays in
    the box with a message, and the size keeps its value (the link's too)."""
    # the menus' labels are written again by the test between runs, outside the page's session: in French too
    monkeypatch.setattr(i18n, "language", lambda: "fr")
    at = run_page(page("parameters"), lang="fr", bp_preset="gpt2")
    vocab = at.text_input(key="w:bp_vocab")
    assert vocab.value == "50\u202f257"  # CLDR's French grouping: a narrow no-break space
    vocab.input("32 000").run()
    assert at.text_input(key="w:bp_vocab").value == "32\u202f000" and in_link(at, "bp_vocab") == "32000"
    assert not at.error
    for bad in ("32,5", "deux", "0", "2 000 000"):
        at.text_input(key="w:bp_vocab").input(bad).run()
        assert at.text_input(key="w:bp_vocab").value == bad  # what the student typed is not lost
        assert len(at.error) == 1 and bad in at.error[0].value
        assert in_link(at, "bp_vocab") == "32000"
    at.text_input(key="w:bp_vocab").input("50257").run()
    assert not at.error and at.text_input(key="w:bp_vocab").value == "50\u202f257"


def test_14_the_calculator_counts_the_loaded_decoder_as_its_files_do(gpt2_in_cache, tiny_reference):
    at = run_page(page("parameters"), model="gpt2")
    count = f"{sum(p.numel() for p in tiny_reference.parameters()):,}"
    assert f"counts {count} parameters; its arrays add up to {count}" in markdown(at).replace("\n", " ")
