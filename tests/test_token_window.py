"""A long text in the explorer: sections 2 to 4 show a window of tokens the student moves, every one named."""

from __future__ import annotations

import attention
from app_driver.apptest import array, run_page
from pages.explorer.heads import WINDOW
from tests.test_app import step, steps

# 90 words, each one token for MiniLM's WordPiece: 92 tokens with [CLS] and [SEP]
WORDS = ("the cat sat on a mat and the dog ran in the park while a bird sang " * 6).split()[:90]
PARAGRAPH = " ".join(WORDS)


def test_a_long_text_is_shown_a_window_at_a_time_each_token_named(model):
    tokens = [t.display for t in attention.trace(model, PARAGRAPH).tokens]
    assert len(tokens) == 92
    at = run_page(text=PARAGRAPH)
    spec = steps(at)
    weights = step(spec, 3)
    assert array(weights["z"]).shape[-2:] == (WINDOW, WINDOW)  # the first WINDOW tokens, every one a cell
    named = spec["layout"]["yaxis"]["ticktext"]
    assert len(named) == WINDOW and [n.split(" (")[0] for n in named] == tokens[:WINDOW]  # each labelled
    slider = at.select_slider(key="w:win")
    assert (slider.options[0], slider.options[-1], slider.value) == ("0", str(92 - WINDOW), 1)  # positions, from 0

    slider.set_value(40).run()
    named = steps(at)["layout"]["yaxis"]["ticktext"]
    assert [n.split(" (")[0] for n in named] == tokens[39 : 39 + WINDOW]  # tokens 40 to 55
    assert f"Tokens 39 to {38 + WINDOW} (numbered from 0, as in section 1), {WINDOW} of the 92" in " ".join(
        c.value for c in at.caption
    )
    assert at.query_params["win"] == "40"  # the link reopens the same window


def test_a_short_text_has_no_window():
    at = run_page()
    assert not [s for s in at.select_slider if s.key == "w:win"]
    assert array(step(steps(at), 3)["z"]).shape[-1] == 13
