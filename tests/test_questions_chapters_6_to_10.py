"""The questions of chapters 6 to 10: each computed question's options recomputed here from the engine's traces and
the models' own arrays (numpy, not the pages' formatting), on two sentences on each model; the right one checked
against what the model computes, all of them apart as written, and changing with the sentence. Then one headless
run per chapter: three questions, with the options recomputed here among those the page offers."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import attention
from app_driver.apptest import run_page
from attention.lessons import questions_chapters_6_to_10
from tests.loaded import MODELS, loaded_model

SENTENCES = (
    "the animal didn't cross the street because it was too tired",
    "a fluffy blue creature roamed the verdant forest",
)


@pytest.fixture(scope="module", params=MODELS)
def loaded(request) -> attention.Model:
    return loaded_model(request.param)


def written(values, digits: int, lang: str = "en") -> list[str]:
    """Numbers as the page writes them in English (none here reaches a thousand) or French (a decimal comma)."""
    out = [f"{v:.{digits}f}" for v in values]
    return [w.replace(".", ",") for w in out] if lang == "fr" else out


def decimals(values, least: int) -> int:
    """The fewest decimals from `least` on at which the values all differ when written."""
    return next(d for d in range(least, 7) if len(set(written(values, d))) == len(values))


def questions(at) -> list:
    """The page's three question radios, in order."""
    assert not at.exception
    asked = [r for r in at.radio if r.label.startswith(("**Question ", "**질문 "))]
    heads = [re.match(r"\*\*(?:Question|질문) (\d) (?:of|sur|/) ?(\d)", r.label.replace("/", " / ")) for r in asked]
    assert [(int(m.group(1)), int(m.group(2))) for m in heads] == [(1, 3), (2, 3), (3, 3)], [
        r.label[:30] for r in asked
    ]
    return asked


def shapes(*pairs) -> list[str]:
    return sorted(f"({a}, {b})" for a, b in pairs)


def text_places(tr: attention.Trace) -> list[int]:
    return [t.position for t in tr.tokens if not t.is_special]


def per_head(kv: np.ndarray, n_heads: int) -> np.ndarray:
    """(n_kv_heads, n, d) → (n_heads, n, d): each query head's key/value head, in groups of consecutive heads."""
    return np.repeat(kv, n_heads // kv.shape[0], axis=0)


# --- chapter 6: the spread of the real scores, divided by √d_k -------------------------------------------------


def spreads(model: attention.Model, text: str) -> tuple[float, float]:
    """The first layer's scores q·k recomputed from its queries and keys, every head, over the pairs the mask lets
    a query see: their spread raw and divided by √d_head; the scaled ones checked to be the softmax's input."""
    layer = attention.trace(model, text).layers[0]
    cfg = model.config
    q = layer.q.astype(np.float64)
    k = per_head(layer.k_shared.astype(np.float64), cfg.n_heads)
    raw = q @ k.transpose(0, 2, 1)  # (n_heads, n, n)
    scaled = raw / math.sqrt(cfg.d_head)
    softmax = np.exp(np.where(layer.mask, -np.inf, scaled - scaled.max(axis=-1, keepdims=True)))
    assert np.allclose(softmax / softmax.sum(axis=-1, keepdims=True), layer.weights, atol=1e-4)
    seen = ~layer.mask
    return float(raw[:, seen].std()), float(scaled[:, seen].std())


def spread_options(model: attention.Model, raw: float) -> tuple[float, ...]:
    cfg = model.config
    return raw / math.sqrt(cfg.d_head), raw / cfg.d_head, raw, raw / math.sqrt(cfg.d_model)


def test_06_the_spread_question_divides_by_the_root_of_the_heads_width(loaded):
    asked = []
    for text in SENTENCES:
        raw, scaled = spreads(loaded, text)
        options = questions_chapters_6_to_10.scaled_spread(
            questions_chapters_6_to_10.score_spread(attention.trace(loaded, text).layers[0]),
            loaded.config.d_head,
            loaded.config.d_model,
        )
        expected = spread_options(loaded, raw)
        assert np.allclose(options.values, expected, rtol=1e-4)
        assert options.right == pytest.approx(scaled, rel=1e-4)  # the spread the softmax really receives
        d = decimals(expected, 2)
        assert len(set(written(options.values, d))) == 4
        asked.append(written(options.values, d))
    assert asked[0] != asked[1]


def test_06_the_page_asks_it():
    text = SENTENCES[0]
    at = run_page("pages/06_scaling.py", text=text, lang="fr")  # French: on Gemma 3, its decimal comma
    _first, second, third = questions(at)
    model = loaded_model("gemma3")
    expected = spread_options(model, spreads(model, text)[0])
    assert sorted(second.options) == sorted(written(expected, decimals(expected, 2), "fr"))
    c, d, e = attention.trace(model, text).n_tokens, model.config.d_head, model.config.d_model
    assert f"({c}, {d})" in third.label
    square = [o for o in third.options if o.startswith(f"({c}, {c})")]  # the options' words: the page's language
    assert sorted(re.search(r"√(\d+)", o).group(1) for o in square) == sorted([str(d), str(e)])
    assert sorted(o.split(")")[0] + ")" for o in third.options) == shapes((c, c), (c, c), (d, d), (c, d))


# --- chapter 7: the scores the causal mask hides ------------------------------------------------------------------


def hidden_counted(n: int) -> int:
    """Query by query, the keys after it."""
    return sum(len(range(i + 1, n)) for i in range(n))


def passage_tokens(model: attention.Model, text: str) -> int:
    """The tokens the page's mask is drawn over: every token on a decoder, the text's alone on an encoder."""
    tr = attention.trace(model, text)
    return tr.n_tokens if model.config.is_decoder else len(text_places(tr))


def test_07_the_mask_question_counts_the_hidden_scores(loaded):
    asked = []
    for text in SENTENCES:
        n = passage_tokens(loaded, text)
        causal = attention.trace(loaded, text, mask="causal").layers[0].weights[0]
        if loaded.config.is_decoder:  # the model's own run: a hidden score's weight is an exact 0
            assert int((causal == 0).sum()) == hidden_counted(n)
        options = questions_chapters_6_to_10.hidden_scores(n)
        assert options.right == hidden_counted(n)
        assert options.wrong == (n * n - hidden_counted(n), n * n, n - 1)  # the ones kept, every score, one a lesson
        assert len({f"{v:,}" for v in options.values}) == 4
        asked.append(options.values)
    assert asked[0] != asked[1]


def test_07_the_page_asks_it():
    text = SENTENCES[1]
    at = run_page("pages/07_next_word.py", text=text, model="all-MiniLM-L6-v2")  # the encoder: the text's tokens
    _first, second, third = questions(at)
    model = loaded_model(MODELS[0])
    n = passage_tokens(model, text)
    hidden = hidden_counted(n)
    assert sorted(second.options) == sorted(f"{v:,}" for v in (hidden, n * n - hidden, n * n, n - 1))
    v, e = model.config.vocab_size, model.config.d_model
    assert sorted(third.options) == shapes((n, v), (1, v), (n, e), (v, e))


# --- chapter 8: a weight with and without the mask, in layer 1 -----------------------------------------------------


def masked_options(model: attention.Model, text: str, head: int) -> tuple[int, int, tuple[float, ...], float]:
    """The query and key the question picks, its options recomputed from the unmasked run's weights, and the weight
    the causal run really gives."""
    none = attention.trace(model, text, mask="none")
    unmasked = none.layers[0].weights[head].astype(np.float64)
    pick = questions_chapters_6_to_10.masked_pick(none.layers[0].weights[head], text_places(none))
    i, j = pick.query, pick.key
    visible = unmasked[i, : i + 1].sum()
    freed = 1 - visible
    expected = (unmasked[i, j] / visible, unmasked[i, j], unmasked[i, j] + freed / (i + 1), unmasked[i, j] + freed)
    assert np.allclose(pick.options.values, expected, atol=1e-6)
    causal = attention.trace(model, text, mask="causal").layers[0].weights[head]
    return i, j, expected, float(causal[i, j])


def test_08_the_mask_question_shares_the_weight_out_in_proportion(loaded):
    asked = []
    for text in SENTENCES:
        i, j, expected, real = masked_options(loaded, text, 0)
        places = text_places(attention.trace(loaded, text))
        assert i in places and j in places and j < i < len(attention.trace(loaded, text).tokens) - 1
        assert expected[0] == pytest.approx(real, abs=1e-4)  # the causal run's own weight
        d = decimals(expected, 2)
        assert len(set(written(expected, d))) == 4
        asked.append(written(expected, d))
    assert asked[0] != asked[1]


def test_08_the_page_asks_it():
    text = SENTENCES[0]
    at = run_page("pages/08_masking.py", text=text, model="gemma3", head="2")
    _first, second, third = questions(at)
    model = loaded_model("gemma3")
    _i, _j, expected, _real = masked_options(model, text, 1)
    assert sorted(second.options) == sorted(written(expected, decimals(expected, 2)))
    c, e = attention.trace(model, text).n_tokens, model.config.d_model
    assert sorted(third.options) == shapes((c, c), (c, 1), (c, e), (e, e))


# --- chapter 9: the arrow one token adds to another's change ---------------------------------------------------


def arrows(model: attention.Model, text: str, layer_i: int, head: int, token: int) -> tuple[np.ndarray, ...]:
    """w_ji · v_i W_O^(h) for each token i, (n_tokens, d_model), from the trace's values and the model's own rows of
    W_O, checked to add up to the head's change Δe_j as the forward pass computed it; the values and the rows."""
    layer = attention.trace(model, text).layers[layer_i]
    cfg = model.config
    v = per_head(layer.v_shared.astype(np.float64), cfg.n_heads)[head]  # (n, d_head)
    rows = model.layers[layer_i].w_o[head * cfg.d_head : (head + 1) * cfg.d_head].astype(np.float64)
    out = layer.weights[head, token].astype(np.float64)[:, None] * (v @ rows)
    assert np.allclose(out.sum(axis=0), layer.displacement[head, token], atol=1e-3)
    return out, v, rows


def arrow_options(model, text, layer_i, head, token) -> tuple[float, ...]:
    out, v, rows = arrows(model, text, layer_i, head, token)
    arrow = questions_chapters_6_to_10.longest_arrow(attention.trace(model, text).layers[layer_i], head, token)
    i = arrow.key
    w = float(attention.trace(model, text).layers[layer_i].weights[head, token, i])
    expected = (np.linalg.norm(out[i]), np.linalg.norm(v[i] @ rows), w * np.linalg.norm(v[i]))
    assert np.allclose(arrow.options.values, expected, rtol=1e-4)
    return expected


def test_09_the_arrow_question_weighs_the_carried_value(loaded):
    asked = []
    for text in SENTENCES:
        expected = arrow_options(loaded, text, 0, 0, 3)
        d = decimals(expected, 2)
        assert len(set(written(expected, d))) == 3
        asked.append(written(expected, d))
    assert asked[0] != asked[1]


def test_09_the_page_asks_it():
    text = SENTENCES[1]
    at = run_page("pages/09_values.py", text=text, model="smollm2", layer="2", head="3", token="4")
    _first, second, third = questions(at)
    model = loaded_model("smollm2")
    expected = arrow_options(model, text, 1, 2, 4)
    assert sorted(second.options) == sorted(written(expected, decimals(expected, 2)))
    c, d, e = attention.trace(model, text).n_tokens, model.config.d_head, model.config.d_model
    assert sorted(third.options) == shapes((c, e), (c, d), (e, e))


# --- chapter 10: the idea, and the heads' outputs side by side ---------------------------------------------------


def test_10_the_page_asks_it():
    text = SENTENCES[0]
    at = run_page("pages/10_heads.py", text=text)
    _first, second, third = questions(at)
    assert len(second.options) == 4 and any(o.startswith("more patterns of weights") for o in second.options)
    cfg = loaded_model(MODELS[0]).config
    c = attention.trace(loaded_model(MODELS[0]), text).n_tokens
    assert sorted(third.options) == shapes(
        (c, cfg.n_heads * cfg.d_head), (c, cfg.d_head), (cfg.n_heads * cfg.d_head, cfg.d_model)
    )
