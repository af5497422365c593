"""See the numpy: the lines each explorer step shows are the lines of attention/ as the files have them, and the
ones a trace of the sentence runs (recorded with sys.settrace while the engine computes, nothing in attention/
changed), with the shapes of the sentence on screen beside them."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import attention
from app_driver.apptest import run_page
from tests.sentences import FLUFFY
from ui.kit import numpy_code

ROOT = Path(__file__).resolve().parents[1]
ENGINE = str(ROOT / "attention")


def ran(model: attention.Model, text: str, mask: str | None = None) -> tuple[set, set]:
    """(file, line) of every line the engine ran for the text and the explorer's per-head displacement, and
    (file, first line) of every function it called."""
    lines, calls = set(), set()

    def tracer(frame, event, _arg):
        path = frame.f_code.co_filename
        if not path.startswith(ENGINE):
            return None
        where = Path(path).relative_to(ROOT).as_posix()
        if event == "call":
            calls.add((where, frame.f_code.co_firstlineno))
        elif event == "line":
            lines.add((where, frame.f_lineno))
        return tracer

    sys.settrace(tracer)
    try:
        tr = attention.trace(model, text, mask)
        _ = [layer.displacement for layer in tr.layers]
    finally:
        sys.settrace(None)
    return lines, calls


def check_steps(model: attention.Model, text: str, mask: str | None = None) -> int:
    lines, calls = ran(model, text, mask)
    tr = attention.trace(model, text, mask)
    steps = numpy_code.steps(model.config, tr.mask_kind, tr.layers[0].window)
    assert set(steps) == {"embeddings", "qkv", "scores", "scaling", "mask", "softmax", "values", "w_o", "after"}
    checked = 0
    for key, pieces in steps.items():
        for piece in pieces:
            shown = numpy_code.lines(piece)
            assert shown, (key, piece.function)
            for line in shown:  # as the file has it now
                source = (ROOT / line.path).read_text(encoding="utf-8").splitlines()
                assert source[line.number - 1] == line.text, (key, line)
            if piece.starts:  # the lines picked from inside a function: each one ran
                missing = [line for line in shown if (line.path, line.number) not in lines]
                assert not missing, (key, missing)
            else:  # a function shown whole: the engine called it for this sentence
                assert (shown[0].path, shown[0].number) in calls, (key, piece.function.__name__)
            checked += len(shown)
    return checked


def test_each_step_shows_the_lines_the_encoder_ran(model):
    assert check_steps(model, FLUFFY) > 100


def test_each_step_shows_the_lines_a_decoder_ran_with_its_rotation_and_shared_heads(tiny):
    """A decoder's causal mask, and the counterfactual one (the bundled decoders' rotation and shared heads: below)."""
    assert check_steps(tiny, FLUFFY) > 100
    assert check_steps(tiny, "the cat sat", "none") > 100


@pytest.mark.parametrize("name", ["smollm2", "gemma3"])
def test_the_bundled_decoders_steps_are_the_lines_they_run(name):
    model = attention.load_model(name)
    check_steps(model, FLUFFY)
    steps = numpy_code.steps(model.config, "causal", model.config.window_of(0))
    qkv = numpy_code.listing(steps["qkv"], numpy_code.sizes(model.config, 9))
    assert "ops.rope(" in qkv and "def rope(" in qkv
    assert ("ops.rms_norm" in qkv) == model.config.qk_norm
    if model.config.n_kv_heads < model.config.n_heads:
        assert "def share_kv(" in numpy_code.listing(steps["scores"], numpy_code.sizes(model.config, 9))


def test_a_line_that_is_no_longer_in_the_source_is_said_not_hidden():
    piece = numpy_code.Piece(attention.ops.softmax, ("e = np.exp(x - x.min(",))
    with pytest.raises(LookupError, match="softmax"):
        numpy_code.lines(piece)


def test_shapes_are_the_sentence_s_own(model):
    tr = attention.trace(model, FLUFFY)
    layer, cfg = tr.layers[0], model.config
    size = numpy_code.sizes(cfg, tr.n_tokens)
    listing = numpy_code.listing(numpy_code.steps(cfg, tr.mask_kind, 0)["qkv"], size)
    q_line = next(line for line in listing.splitlines() if line.startswith("q = ops.split_heads"))
    assert q_line.endswith(str(tuple(layer.q.shape)).replace(",)", ")"))
    softmax = numpy_code.listing(numpy_code.steps(cfg, tr.mask_kind, 0)["softmax"], size)
    assert str(tuple(layer.weights.shape)) in softmax
    assert np.array_equal(layer.weights.shape, (cfg.n_heads, tr.n_tokens, tr.n_tokens))


def test_the_explorer_shows_the_code_under_its_steps_once_opened():
    at = run_page("pages/00_explorer.py", text="the cat sat on the mat")
    assert not at.exception
    labels = [e.label for e in at.expander]
    numpy_labels = [label for label in labels if label.startswith("See the numpy")]
    assert len(numpy_labels) == 5, labels
    assert not at.code  # closed: no listing made or sent
    opened = [numpy_code.key(keys) for keys in (("embeddings",), ("scores",))]
    for key in opened:
        at.session_state[key] = True
    at.run()
    assert not at.exception
    code = [c.value for c in at.code]
    assert len(code) == 1 + 4, code  # the embeddings' one step, and scores, scaling, mask and softmax
    assert any("def softmax(" in c and "(12, 8, 8)" in c for c in code), code  # [CLS] the cat sat on the mat [SEP]
    assert any("def embed(" in c and "(8, 384)" in c for c in code)
