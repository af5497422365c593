"""Every chapter run headless: no exception, its controls in the link, its question answerable, and its key
numbers against an independent computation (a hand formula, the lesson notes, the reference library)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import attention
from app_driver import apptest
from app_driver.apptest import array, figure, messages, metric, run_page, typed_markup
from attention.lessons import context
from tests.sentences import FLUFFY
from ui.components import plot
from ui.kit import chapter
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


# --- what every chapter has ---------------------------------------------------------------------------


@pytest.mark.parametrize("chapter_", CHAPTERS, ids=lambda c: c.file)
def test_every_chapter_runs_with_an_equation_a_figure_a_question_and_its_neighbours(chapter_):
    at = run_page(f"pages/{chapter_.file}")
    assert not at.exception
    assert at.title[0].value == chapter_.title == f"{chapter_.number} · {chapter_.name}"
    assert at.get("latex") and plot.drawn(at)
    assert any("Try this." in m.value for m in at.markdown)
    questions = [r for r in at.radio if r.label.startswith("**Question ")]
    assert [q.label[: len("**Question 1 of 3.**")] for q in questions] == [f"**Question {n} of 3.**" for n in (1, 2, 3)]
    assert all(q.value is None and len(q.options) >= 2 for q in questions)
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


def question(at, n: int = 1):
    return next(r for r in at.radio if r.label.startswith(f"**Question {n} of "))


def pick(at, shown: str, n: int = 1) -> None:
    """Choose the option the page shows as `shown` (the radio's values are the options' places in the prose)."""
    radio = question(at, n)
    radio.set_value(next(i for i in range(len(radio.options)) if radio.format_func(i) == shown)).run()


def test_a_wrong_answer_may_be_tried_again_and_the_answer_is_one_click_away():
    at = run_page(page("similarity"))
    pick(at, next(o for o in question(at).options if o.startswith("−1")))
    assert at.error and at.error[0].value.startswith("Not this one.") and not at.success
    assert "right angle" not in messages(at)  # the answer is not given away
    at.toggle(key="w:show_3.1").set_value(True).run()
    assert at.info and at.info[0].value.startswith("It is “0”.") and "right angle" in at.info[0].value
    pick(at, "0")
    assert at.success and "right angle" in at.success[0].value and not at.error


def test_the_options_come_in_an_order_drawn_from_the_link_and_the_right_one_moves():
    from ui.kit import questions
    from ui.words import prose

    places = []
    for c in CHAPTERS:
        for section in questions.SECTIONS:
            q = questions.quiz(prose.sections(c.prose)[section])
            for text in ("a fluffy blue creature roamed the verdant forest", "the cat sat on the mat"):
                shown = questions.order(q, f"{text}\n{c.file}\n{section}")
                assert sorted(shown) == list(range(len(q.options)))
                assert questions.order(q, f"{text}\n{c.file}\n{section}") == shown  # the same link, the same order
                places.append(shown.index(q.answer))
    assert min(places.count(p) for p in (0, 1, 2)) >= len(places) // 6, places  # the right one in every place


def test_answers_go_into_the_link_only_when_shared():
    at = run_page(page("similarity"))
    pick(at, "0")
    assert in_link(at, "answers") is None
    at.toggle(key="w:share_answers").set_value(True).run()
    kept = in_link(at, "answers")
    assert kept == "3.1:" + str(question(at).value)
    reopened = run_page(page("similarity"), share_answers="1", answers=kept)
    assert question(reopened).value == question(at).value and (reopened.error or reopened.success)
    at.toggle(key="w:share_answers").set_value(False).run()
    assert in_link(at, "answers") is None


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
    question = next(r.label for r in at.radio if r.label.startswith("**Question 1 of 3.**"))
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


# --- 9 to 12 ---------------------------------------------------------------------------------------------------


# --- 13. KV cache --------------------------------------------------------------------------------------------


# --- 14. parameters -------------------------------------------------------------------------------------------


# --- statements about the model on screen, each from its own fields -------------------------------------------------


# --- presenter mode and a long sentence, on every chapter ----------------------------------------------------
