"""The Model choice: the bundled encoder always, GPT-2 decoders only where their weights are on the machine.

No network: "gpt2" is a small random GPT-2 built at test time and laid out in a temporary Hugging
Face cache, exactly where a real download would put it."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from app_driver.apptest import ROOT, TIMEOUT, figure, messages, run_page
from ui.session import models


def test_offline_the_menu_offers_the_models_it_can_load_and_names_the_others_with_the_reason(empty_cache):
    at = run_page()
    box = at.sidebar.selectbox(key="w:model")
    assert box.options == [
        "all-MiniLM-L6-v2 (encoder)",
        "SmolLM2-135M (decoder)",  # installed with the app: offline too
        "Gemma 3 270M (multilingual)",
    ]
    assert box.value == "all-MiniLM-L6-v2"
    assert "Not on this server: **gpt2 (decoder)** (not in the local Hugging Face cache" in box.help
    assert "**distilgpt2 (decoder)**" in box.help
    assert "site-packages" not in box.help and "/root" not in box.help  # no server path anywhere
    assert not at.exception


def test_a_link_to_an_unavailable_decoder_says_why_and_stays_on_the_bundled_model(empty_cache):
    at = run_page(model="gpt2")
    assert "**gpt2** cannot be used here (not in the local Hugging Face cache" in messages(at)
    assert at.sidebar.selectbox(key="w:model").value == "all-MiniLM-L6-v2"
    assert figure(at, "13 tokens")  # the encoder's tokens of the default sentence
    assert at.query_params.get("model") in (None, [], "all-MiniLM-L6-v2")
    assert not at.exception


def test_a_link_to_another_unavailable_decoder_changes_nothing_but_says_why(empty_cache):
    at = run_page(model="distilgpt2")
    assert "**distilgpt2** cannot be used here" in messages(at)
    assert at.sidebar.selectbox(key="w:model").value == "all-MiniLM-L6-v2"
    assert not at.exception


def test_a_decoder_in_the_cache_runs_with_its_own_causal_mask(gpt2_in_cache):
    at = run_page(model="gpt2")
    assert not at.exception and not messages(at)
    assert at.sidebar.selectbox(key="w:model").value == "gpt2"
    assert at.sidebar.radio(key="w:mask").value == "causal"
    chips = figure(at, "10 tokens")  # the tiny tokenizer's pieces of the default sentence
    shown = [t for trace in chips["data"] for t in (trace.get("text") or []) if isinstance(t, str)]
    assert "␣fluffy" in shown  # GPT-2's "Ġfluffy", shown with a space mark
    assert at.query_params.get("model") in ("gpt2", ["gpt2"])


def test_switching_to_the_decoder_takes_its_mask_and_back(gpt2_in_cache):
    at = run_page()
    at.sidebar.selectbox(key="w:model").set_value("gpt2").run()
    assert at.sidebar.radio(key="w:mask").value == "causal"
    at.sidebar.selectbox(key="w:model").set_value("all-MiniLM-L6-v2").run()
    assert at.sidebar.radio(key="w:mask").value == "none"
    assert not at.exception


def test_a_server_can_leave_the_decoders_out(gpt2_in_cache, monkeypatch):
    """ATTENTION_DECODERS names the decoders a server offers: a small one offers none, even from the cache."""
    monkeypatch.setenv("ATTENTION_DECODERS", "")
    models.choices.clear()
    at = run_page(model="gpt2")
    assert "not offered on this server" in messages(at)
    assert at.sidebar.selectbox(key="w:model").value == "all-MiniLM-L6-v2"
    assert not at.exception


def test_a_chapter_that_opened_on_the_decoder_gives_it_back_to_the_next_page():
    """Chapter 7 opens on SmolLM2 by itself; chapter 9 (no preference) is back on the encoder, and the explorer
    too; a model the student picked stays picked."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.run()
    at.switch_page("pages/07_next_word.py").run()
    assert at.session_state["model"] == "smollm2" and "opens on **SmolLM2-135M**" in messages(at)
    at.switch_page("pages/08_masking.py").run()
    assert at.session_state["model"] == "smollm2" and "opens on **SmolLM2-135M**" in messages(at)
    at.switch_page("pages/09_values.py").run()
    assert at.session_state["model"] == "all-MiniLM-L6-v2"
    at.sidebar.selectbox(key="w:model").set_value("smollm2").run()
    at.switch_page("pages/00_explorer.py").run()
    assert at.session_state["model"] == "smollm2"  # picked: it stays
    assert not at.exception


def test_a_sentence_the_model_cannot_read_offers_gemma_in_one_click():
    """A Korean sentence is all jamo to MiniLM: the page says so and one click reads it with Gemma 3."""
    at = run_page(text="푸른 털복숭이 생물이 푸른 숲을 돌아다녔다")
    assert "cannot read this text: 100% of its words" in messages(at)
    (button,) = [b for b in at.button if b.key == "w:unread"]
    button.click().run()
    assert at.sidebar.selectbox(key="w:model").value == "gemma3" and not at.exception
    assert "cannot read this text" not in messages(at)
    assert at.query_params.get("model") in ("gemma3", ["gemma3"])
    english = run_page(text="a fluffy blue creature roamed the verdant forest")
    assert "cannot read this text" not in messages(english)
