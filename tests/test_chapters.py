"""Every chapter run headless: no exception, its controls in the link, its question answerable, and its key
numbers against an independent computation (a hand formula, the lesson notes, the reference library)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import attention
from app_driver import apptest
from app_driver.apptest import array, figure, figures, messages, metric, number, run_page, typed_markup
from attention.lessons import context, masking, position
from tests.gpt2_counts import gpt2_of_sizes, parameters_by_group
from tests.sentences import FLUFFY
from ui.components import plot
from ui.kit import chapter
from ui.words import i18n
from ui.words.chapters import CHAPTERS


def page(name: str) -> str:
    """The page file of the chapter whose address is `name` ("scaling")."""
    return "pages/" + next(c.file for c in CHAPTERS if chapter.url_path(c) == name)


def z(spec: dict, trace: int = 0) -> np.ndarray:
    return array(spec["data"][trace]["z"])


def markdown(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def captions(at) -> str:
    """The page's captions, where a chapter says how the lesson notes differ (chapter.notes_aside)."""
    return "\n".join(" ".join(c.value.split()) for c in at.caption)


def in_link(at, name: str) -> str | None:
    """A parameter of the page's link (AppTest gives a string, or a list of them)."""
    value = at.query_params.get(name)
    return value[-1] if isinstance(value, list) else value


def metric_exactly(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


@pytest.fixture(scope="module")
def tiny_reference(tiny_gpt2_folder):
    from transformers import GPT2LMHeadModel

    return GPT2LMHeadModel.from_pretrained(tiny_gpt2_folder, attn_implementation="eager").eval()


# --- what every chapter has ---------------------------------------------------------------------------


@pytest.mark.parametrize("chapter_", CHAPTERS, ids=lambda c: c.file)
def test_every_chapter_runs_with_an_equation_a_figure_a_question_and_its_neighbours(chapter_):
    at = run_page(f"pages/{chapter_.file}")
    assert not at.exception
    assert at.title[0].value == chapter_.title == f"{chapter_.number} · {chapter_.name}"
    assert at.get("latex") and plot.drawn(at)
    assert any("Try this." in m.value for m in at.markdown)
    question = [r for r in at.radio if r.label.startswith("**Question.**")]
    assert len(question) == 1 and question[0].value is None and len(question[0].options) >= 2
    links = markdown(at)  # a page run alone has no app navigation: its neighbours are plain links
    i = CHAPTERS.index(chapter_)
    if i > 0:
        assert f"← {CHAPTERS[i - 1].title}" in links
    if i + 1 < len(CHAPTERS):
        assert f"{CHAPTERS[i + 1].title} →" in links
    assert "{{" not in links  # every number placed in the prose
    assert typed_markup(at) == []


@pytest.mark.parametrize("chapter_", CHAPTERS, ids=lambda c: c.file)
def test_every_chapter_runs_on_a_decoder(chapter_, gpt2_in_cache):
    at = run_page(f"pages/{chapter_.file}", model="gpt2")
    assert not at.exception, chapter_.file
    assert "cannot be used here" not in messages(at)
    assert plot.drawn(at)


def test_the_question_is_checked_and_explained():
    at = run_page(page("similarity"))
    question = next(r for r in at.radio if r.label.startswith("**Question.**"))
    wrong = next(o for o in question.options if o.startswith("−1"))
    question.set_value(wrong).run()
    assert at.error and at.error[0].value.startswith("Not quite: it is “0”.")
    question = next(r for r in at.radio if r.label.startswith("**Question.**"))
    question.set_value("0").run()
    assert at.success and "right angle" in at.success[0].value


def test_the_options_come_in_an_order_drawn_from_the_question_and_the_right_one_moves():
    from ui.words import prose

    places = []
    for c in CHAPTERS:
        q = chapter.quiz(prose.sections(c.prose)["quiz"])
        shown = chapter.shuffled(q)
        assert sorted(shown) == sorted(q.options) and chapter.shuffled(q) == shown  # the same question, the same order
        places.append(shown.index(q.options[q.answer]))
    assert len(set(places)) >= 3, places  # not always first, not always second


def test_a_chapter_link_reopens_its_controls_and_a_change_goes_into_the_link():
    at = run_page(page("scaling"), sc_dk="512", sc_keys="8", sc_scaled="0")
    assert at.select_slider(key="w:sc_dk").value == 512
    assert at.slider(key="w:sc_keys").value == 8 and at.toggle(key="w:sc_scaled").value is False
    assert figure(at, "q·k, dₖ = 512")  # unscaled, as the link says
    at.toggle(key="w:sc_scaled").set_value(True).run()
    assert in_link(at, "sc_dk") == "512" and in_link(at, "sc_scaled") is None  # back to its default: not in the link


def test_a_links_impossible_value_is_refused_with_a_notice():
    at = run_page(page("scaling"), sc_dk="100", sc_keys="9999")
    assert "**sc_dk**" in messages(at) and "**sc_keys**" in messages(at)
    assert at.select_slider(key="w:sc_dk").value == 64 and not at.exception


def test_a_text_longer_than_the_model_reads_is_said_to_be_cut():
    at = run_page(page("heads"), text="the fluffy creature roamed " * 200)
    assert not at.exception
    assert "longer than the model reads" in messages(at)


# --- 1. the big picture -----------------------------------------------------------------------------------


def test_1_the_big_picture_reads_the_model(st_model):
    at = run_page(page("big_picture"))
    used = sum(p.numel() for name, p in st_model.named_parameters() if ".pooler." not in name)  # mean pooling
    assert metric(at, "parameters") == f"{used:,}"
    assert (
        metric(at, "layers") == "6"
        and metric(at, "heads per layer") == "12"
        and metric(at, "width per head d_head") == "32"
    )
    diagram = figure(at, "all-MiniLM-L6-v2, box by box")
    texts = [a["text"] for a in diagram["layout"]["annotations"]]
    assert any("Attention" in t and 'href="heads' in t for t in texts)  # a box opens its chapter: many heads
    assert any("× 6" in t for t in texts)
    assert any("591,360 parameters per layer" in t for t in texts)  # 4 × (384 × 384 + 384)


def test_1_the_big_picture_of_a_decoder_has_its_layernorms_first(gpt2_in_cache, tiny_reference):
    at = run_page(page("big_picture"), model="gpt2")
    assert metric(at, "parameters") == f"{sum(p.numel() for p in tiny_reference.parameters()):,}"
    texts = [a["text"] for a in figure(at, "gpt2, box by box")["layout"]["annotations"]]
    names = [t for t in texts if t.startswith(("<a", "<b>"))]  # the boxes' names, in order
    first_norm = next(i for i, t in enumerate(names) if "LayerNorm" in t)
    assert first_norm < next(i for i, t in enumerate(names) if "attention" in t)  # GPT-2 normalizes first


# --- 2. why attention ----------------------------------------------------------------------------------


def leaky_state(keep: float, n_words: int) -> np.ndarray:
    """Each word's share of a leaky recurrent state, h_t = λ h_{t−1} + (1 − λ) x_t, run step by step on n_words
    one-hot words: coordinate 0 is the first word's."""
    h = np.zeros(n_words)
    for t in range(n_words):
        h = keep * h + (1 - keep) * np.eye(n_words)[t]
    return h


def test_2_a_recurrent_state_keeps_a_fixed_share_of_dont_at_kill():
    at = run_page(page("why_attention"), why_keep="0.8")
    assert metric(at, "tokens from “Don't” to “kill”") == "13"  # [CLS] don ' t go insane , find … and kill
    assert metric(at, "share of “Don't” left") == f"{leaky_state(0.8, 14)[0]:.2%}"  # 14 words read, "Don't" first
    recurrent, attention = figure(at, "A recurrent state:"), figure(at, "One attention head:")
    assert array(recurrent["data"][0]["y"])[10] == pytest.approx(leaky_state(0.8, 11)[0])
    assert array(attention["data"][0]["y"]).min() > 0.3  # the head that looks back keeps looking, 165 tokens away
    # a share of the state and an attention weight are two measures: never one axis, each titled for its own
    assert len(recurrent["data"]) == len(attention["data"]) == 1
    assert recurrent["layout"]["yaxis"]["title"]["text"] == "share of the state (log scale)"
    assert recurrent["layout"]["yaxis"]["type"] == "log"
    assert attention["layout"]["yaxis"]["title"]["text"] == "attention weight (0 to 1)"
    assert attention["layout"]["yaxis"]["range"] == [0, 1.05]
    assert recurrent["layout"]["xaxis"]["range"] == attention["layout"]["xaxis"]["range"]  # the same distances
    text = markdown(at)
    # λ = 0.9 → 0.99 lowers "Don't"'s share, 2.54 % → 0.88 %, because it enters with 1 − λ (10 % → 1 %) though
    # it keeps far more of it (25.42 % → 87.75 %); of what the 14 words put in, it holds more at 0.99 than at 0.9
    for keep in (0.9, 0.99):
        state, entered = leaky_state(keep, 14), leaky_state(keep, 1)[0]
        for value in (state[0], state[0] / entered, state[0] / state.sum()):
            assert f"{value:.2%}" in text
    assert "for every } j \\text{ (an encoder" in at.latex[1].value  # MiniLM reads both ways


# --- 3. similarity --------------------------------------------------------------------------------------


def test_3_similarity_toy_cosines_and_measures():
    at = run_page(page("similarity"))
    spec = figure(at, "Cosine similarity of the toy words")
    assert z(spec)[0, 2] == pytest.approx(1 / np.sqrt(2), abs=1e-6)  # orange–apple, the notes' 0.71
    assert (spec["data"][0]["zmin"], spec["data"][0]["zmax"]) == (-1, 1)  # centred at 0
    assert metric(at, "dot product") == "24.00" and metric(at, "cosine") == "0.9600"
    at.toggle(key="w:sim_double").set_value(True).run()
    assert metric(at, "dot product") == "48.00" and metric(at, "cosine") == "0.9600"
    assert in_link(at, "sim_double") == "1"
    angles = apptest.table(at, "similarity_angles")
    # the slides' cos 14° = 0.97 and cos 76° = 0.24, exactly: 0.970296…, 0.241922…
    assert angles["cosine, exactly"] == pytest.approx([0.970296, 0.241922, 0.0], abs=1e-6)
    assert angles["the slides write"] == [["0.97", 0.97], ["0.24", 0.24], ["0", 0.0]]  # as written, sorted by value


# --- 4. context -------------------------------------------------------------------------------------------


def test_4_context_shows_which_weighting_gives_the_notes_057():
    at = run_page(page("context"))
    table = apptest.table(at, "context_orange_row")
    s = 1 / math.sqrt(2)
    row = dict(zip(table["weights"], table["orange → orange"], strict=True))
    assert f"{row['softmax over the related words']:.4f}" == f"{math.e / (math.e + math.exp(s)):.4f}" == "0.5727"
    assert f"{row['divided by the sum']:.4f}" == f"{1 / (1 + s):.4f}" == "0.5858"
    assert list(table["rounds to the notes' 0.57 / 0.43"]) == ["no", "yes", "no"]
    assert "0.57 and 0.43 are the softmax over the related words, 0.573 and 0.427" in captions(at)
    assert apptest.table(at, "context_final_cosines")["nearer"] == ["orange", "phone"]
    # every value of the new vectors to three decimals: st.dataframe wrote 1.810 as "1.81" beside "1.708"
    vectors = next(e for e in at.get("bidi_component") if e.proto.id.endswith("-context_new_vectors"))
    assert set(json.loads(vectors.proto.json)["digits"]) == {3}
    assert "softmax over every distinct word" in list(table["weights"])  # the table lists "an" once
    e, r = math.e, math.exp(s)
    # over the five tokens, "an" counted twice: e/(e + r + 3), r/(e + r + 3), 2/(e + r + 3)
    text = " ".join(markdown(at).split())
    assert f"itself {e / (e + r + 3):.3f}, apple {r / (e + r + 3):.3f}, and the two" in text
    assert f"{2 / (e + r + 3):.3f} together" in text
    # the question "at which layer do the two apples part ways?" has its curve: apple against apple, layer by
    # layer, each vector less the mean of every token of the four texts at its layer
    pair = context.PAIRS["en"]
    apart = figure(at, "“apple” in “an orange and an apple” vs in “a phone made by apple”")
    model = attention.load_model("all-MiniLM-L6-v2")
    traces = [attention.trace(model, s) for s in (*pair.sentences, *pair.references)]
    mean = np.concatenate([tr.hidden[:, 1:-1] for tr in traces], axis=1).mean(axis=1)  # no [CLS], no [SEP]
    apples = [traces[0].hidden[:, 5] - mean, traces[1].hidden[:, 5] - mean]  # [CLS] an orange and an apple
    by_hand = [a @ b / np.linalg.norm(a) / np.linalg.norm(b) for a, b in zip(*apples, strict=True)]
    assert array(apart["data"][0]["y"]) == pytest.approx(by_hand, abs=1e-5)
    assert min(by_hand) < 0.7  # the contexts pull them apart
    assert apptest.table(at, "context_final_cosines")["nearer"] == ["orange", "phone"]
    # each line in its reference's colour: the orange lines are the ones "vs orange"
    lines = figure(at, "Mean-centred cosine of “apple” with “orange” and “phone”")["data"]
    assert {t["line"]["color"] for t in lines if t["name"].endswith("vs orange")} == {"#E69F00"}
    assert "#E69F00" not in {t["line"]["color"] for t in lines if t["name"].endswith("vs phone")}
    assert "leans more toward" in markdown(at)
    at.radio(key="w:ctx_weights").set_value("normalized").run()
    spec = figure(at, "Weights: divided by the sum")
    words = list(spec["data"][0]["y"])
    assert z(spec)[words.index("orange"), words.index("orange")] == pytest.approx(1 / (1 + s), abs=1e-6)


# --- 5. queries and keys ------------------------------------------------------------------------------


def test_5_queries_keys_asymmetric_unless_one_projection(model):
    at = run_page(page("queries_keys"))
    qk = z(figure(at, "q<sub>i</sub> · k<sub>j</sub>"))  # drawn with subscripts, not printed "q_i"
    assert np.allclose(qk, attention.trace(model, FLUFFY).layers[0].scores[0], atol=1e-5)
    assert float(metric(at, "asymmetry max")) > 0.1
    xx = z(figure(at, "X Xᵀ"))
    assert np.allclose(xx, xx.T, atol=1e-5)
    at.toggle(key="w:qk_same").set_value(True).run()
    kk = z(figure(at, "k<sub>i</sub> · k<sub>j</sub>"))
    assert np.allclose(kk, kk.T, atol=1e-4)


def test_5_symmetric_scores_give_asymmetric_weights_and_the_notes_12288_is_a_width():
    at = run_page(page("queries_keys"))
    scores, weights = z(figure(at, "Scores: symmetric")), z(figure(at, "Softmax of each row"))
    assert np.allclose(scores, scores.T)
    e, r = math.e, math.exp(1 / math.sqrt(2))
    orange_and, and_orange = 1 / (e + r + 2), 1 / (2 + 2 * e)  # by hand: rows orange (1, 1/√2, 0, 0), and (0, 0, 1, 1)
    assert weights[0, 2] == pytest.approx(orange_and) and weights[2, 0] == pytest.approx(and_orange)
    text = markdown(at)
    assert f"{orange_and:.4f}" in text and f"{and_orange:.4f}" in text and "0.1482" in text and "0.1345" in text
    assert "384 / 12 = 32" in text  # MiniLM: d_model / n_heads = d_head
    aside = captions(at)
    assert "12,288 is GPT-3's embedding width" in aside and "50,257" in aside and "2,048" in aside


# --- 6. scaling ------------------------------------------------------------------------------------------


def test_6_every_spread_describes_the_histogram_beside_it():
    at = run_page(page("scaling"))
    shown = array(figure(at, "q·k / √dₖ, dₖ = 64")["data"][0]["x"])
    assert float(metric(at, "spread (std) of q·k / √dₖ")) == pytest.approx(np.std(shown), abs=0.006)
    assert float(metric(at, "spread (std) of q·k / √dₖ")) == pytest.approx(1.0, abs=0.05)
    unscaled = float(metric_exactly(at, "spread (std) of q·k"))
    assert unscaled == pytest.approx(math.sqrt(64), rel=0.05)
    top_scaled = float(metric(at, "top key's weight"))
    at.toggle(key="w:sc_scaled").set_value(False).run()
    raw = array(figure(at, "q·k, dₖ = 64")["data"][0]["x"])
    assert unscaled == pytest.approx(np.std(raw), abs=0.006)  # the histogram now shows the unscaled spread
    assert float(metric(at, "top key's weight")) > top_scaled
    weights = figure(at, "One query's softmax weights")["layout"]
    # the keys on a number axis, written upright and titled; the title's lines each have their room
    assert weights["xaxis"]["title"]["text"] == "key" and weights["xaxis"]["tickangle"] == 0
    assert weights["xaxis"]["type"] == "linear" and weights["margin"]["t"] > 50
    entropy = figure(at, "Softmax entropy")
    assert entropy["layout"]["xaxis"]["tickvals"] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024]  # no "2, 5"
    raw_h, scaled_h = (array(entropy["data"][i]["y"]) for i in (0, 1))
    assert scaled_h[-1] > 1.5 > raw_h[-1]  # at d_k = 1024
    question = next(r.label for r in at.radio if r.label.startswith("**Question.**"))
    # the spread is a standard deviation, not a range: √512 = 22.627…
    assert "standard deviation of about 22." in question and f"= {math.sqrt(512):.2f}" in question
    assert "±" not in question


# --- 7. predicting the next word -----------------------------------------------------------------------


def test_7_opens_on_the_installed_decoder_says_so_and_shows_its_own_predictions():
    at = run_page(page("next_word"), text="The capital of France is")
    assert "opens on **SmolLM2-135M**" in messages(at)
    assert at.sidebar.selectbox(key="w:model").value == "smollm2"
    bars = figure(at, "Likeliest after")
    guesses = dict(zip(bars["data"][0]["y"], array(bars["data"][0]["x"]), strict=True))
    # transformers' LlamaForCausalLM on the same GGUF file gives P(" Paris") = 0.773, P(" the") = 0.065
    assert guesses["␣Paris"] == pytest.approx(0.773, abs=5e-4) and guesses["␣the"] == pytest.approx(0.065, abs=5e-4)
    assert figure(at, "The real causal weights")
    assert not at.exception


def test_7_a_row_that_has_read_one_more_space_shows_it():
    at = run_page(page("next_word"), model="smollm2", text="the cat  sat")
    reads = list(apptest.table(at, "next_word_lessons")["reads"])
    assert "the cat" in reads and "the cat␣" in reads, reads  # SmolLM2 reads the second space as a token of its own
    assert len(set(reads)) == len(reads)


def test_7_a_model_named_in_the_link_stays_the_model():
    at = run_page(page("next_word"), model="all-MiniLM-L6-v2")
    assert "opens on" not in messages(at) and at.sidebar.selectbox(key="w:model").value == "all-MiniLM-L6-v2"


def test_7_an_encoder_shows_the_lessons_and_the_mask_and_names_the_decoder():
    at = run_page(page("next_word"), model="all-MiniLM-L6-v2")
    assert "is an encoder" in messages(at) and "**SmolLM2-135M**" in messages(at)
    assert "gpt2" not in messages(at)  # unavailable here: never offered as the thing to pick
    lessons = apptest.table(at, "next_word_lessons")
    assert list(lessons["must predict"])[:2] == ["fluffy", "blue"] and list(lessons["reads"])[:2] == ["a", "a fluffy"]
    spec = figure(at, "The causal mask M: 0 where a query may look, −∞ where it may not")
    hidden, text = z(spec), np.array(spec["data"][0]["text"])
    # the additive mask of chapter 8's softmax(s + M): −∞ above the diagonal (a later key), 0 on and below it
    assert (text[np.triu_indices(11, 1)] == "−∞").all() and (text[np.tril_indices(11)] == "0").all()
    assert (hidden[np.triu_indices(11, 1)] == 1).all() and (hidden[np.tril_indices(11)] == 0).all()
    bar = spec["data"][0]["colorbar"]
    assert bar["ticktext"] == ["0: may look", "−∞: may not"]  # two states in the legend, no 0-to-1 scale
    assert len({colour for _, colour in spec["data"][0]["colorscale"]}) == 2


def test_7_the_notes_candidates_after_the_fluffy_exactly():
    at = run_page(page("next_word"))
    scores = [4.1, 3.1, 5.1, 5.1, 5.5]  # dog, cat, bluebird, creature, animal
    total = sum(math.exp(s) for s in scores)
    bars = figure(at, "After “the fluffy”: the notes' scores")
    assert array(bars["data"][0]["y"]) == pytest.approx([math.exp(s) / total for s in scores])
    assert f"{math.exp(5.5) / total:.4f}" == "0.3734" and "0.3734" in markdown(at)  # animal
    assert "0.2503" in markdown(at) and "0.0339" in markdown(at)  # bluebird and creature tie; cat


def test_7_a_decoder_predicts_every_next_token_as_transformers_does(gpt2_in_cache, tiny_reference, tiny_gpt2_folder):
    """The table ranks text tokens (the tokenizer's special <|endoftext|> set apart, the rest renormalised); the
    loss is the model's own, over its whole vocabulary."""
    import torch

    at = run_page(page("next_word"), model="gpt2")
    ids = [t.id for t in attention.trace(attention.load_model(str(tiny_gpt2_folder)), FLUFFY).tokens]
    with torch.no_grad():
        p = torch.softmax(tiny_reference(torch.tensor([ids])).logits[0].double(), -1).numpy()
    added = json.loads((tiny_gpt2_folder / "tokenizer.json").read_text())["added_tokens"]
    q = p.copy()
    q[:, [t["id"] for t in added if t["special"]]] = 0
    q /= q.sum(axis=1, keepdims=True)
    table = apptest.table(at, "next_word_lessons")
    assert table["p(answer)"] == pytest.approx(list(q[np.arange(len(ids) - 1), ids[1:]]), abs=1e-4)
    assert table["p(guess)"] == pytest.approx(list(q.max(axis=1)[:-1]), abs=1e-4)
    loss = -np.log(p[np.arange(len(ids) - 1), ids[1:]]).mean()
    assert float(metric(at, "training loss")) == pytest.approx(loss, abs=0.006)
    text_loss = -np.log(q[np.arange(len(ids) - 1), ids[1:]]).mean()
    assert f"over text tokens alone it would be {text_loss:.2f}" in " ".join(c.value for c in at.caption)
    assert figure(at, "The real causal weights")


def test_7_on_gemma_no_tag_is_a_guess_the_first_row_reads_bos_and_the_loss_is_the_model_s():
    """Gemma 3 ranks <start_of_image> first at several positions: the table's guesses are text tokens, the tag is
    named and explained, the first row reads "<bos>" (its text is empty), and the loss is the full softmax's."""
    gemma = attention.load_model("gemma3")
    tr = attention.trace(gemma, FLUFFY)
    at = run_page(page("next_word"), model="gemma3", text=FLUFFY)
    table = apptest.table(at, "next_word_lessons")
    assert table["reads"][0] == "<bos>" and all(table["reads"])
    assert not [g for g in table["best guess"] if g.startswith("<") and g.endswith(">")]
    logits = gemma.logits(tr.final).astype(np.float64)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    ids = [t.id for t in tr.tokens]
    assert float(metric(at, "training loss")) == pytest.approx(
        -np.log(p[np.arange(len(ids) - 1), ids[1:]]).mean(), abs=0.006
    )
    said = " ".join(c.value for c in at.caption)
    assert "The likeliest of them here is `<start_of_image>`, with 98.2% after" in said
    assert "it is a tag the tokenizer keeps whole" in said and "among text tokens only" in said


# --- 8. masking -------------------------------------------------------------------------------------------


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


# --- 9 to 12 ---------------------------------------------------------------------------------------------------


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


# --- 13. KV cache --------------------------------------------------------------------------------------------


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


# --- 14. parameters -------------------------------------------------------------------------------------------


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
    question = next(r for r in at.radio if r.label.startswith("**Question.**"))
    question.set_value("the token embedding").run()
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


# --- statements about the model on screen, each from its own fields -------------------------------------------------


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


# --- presenter mode and a long sentence, on every chapter ----------------------------------------------------

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
