"""The questions of chapters 11 to 14: each computed question's options recomputed here from the engine's traces
and the models' own arrays (numpy, not the pages' formatting), on two sentences on each model; the right one right,
all of them apart as written, and changing with the sentence. Then one headless run per chapter: three questions,
with the options recomputed here among those the page offers."""

from __future__ import annotations

import re

import numpy as np
import pytest

import attention
from app_driver.apptest import run_page
from attention.lessons import budget, position, questions_chapters_11_to_14
from tests.loaded import MODELS, loaded_model
from ui.session.state import CROSS_SOURCE

SENTENCES = (
    "the animal didn't cross the street because it was too tired",
    "a fluffy blue creature roamed the verdant forest",
)
SEED = 1  # the page's shuffle slider, as a new session opens it
# every parameter the engine reads of each model, as their authors count them: MiniLM's 22,713,216 less its pooler
# (384 × 384 + 384, which the engine does not read), SmolLM2-135M's 134,515,008, Gemma 3 270M's 268,098,176
PUBLISHED = {"all-MiniLM-L6-v2": 22_713_216 - 147_840, "smollm2": 134_515_008, "gemma3": 268_098_176}


@pytest.fixture(scope="module", params=MODELS)
def model(request) -> attention.Model:
    return loaded_model(request.param)


def decimals(values, least: int) -> int:
    """The fewest decimals from `least` on at which the values all differ when written."""
    return next(d for d in range(least, 7) if len({f"{v:.{d}f}" for v in values}) == len(values))


def questions(at) -> list:
    """The page's three question radios, in order."""
    asked = [r for r in at.radio if r.label.startswith("**Question ")]
    assert [r.label[:20] for r in asked] == [f"**Question {n} of 3.**" for n in (1, 2, 3)]
    return asked


# --- chapter 11: the shuffled sentence's weight between two tokens -------------------------------------------


def shuffled_order(tokens, seed: int) -> np.ndarray:
    """The page's shuffle: [CLS] or <bos> stays first and [SEP] last, the rest in the seed's random order."""
    lo, hi = int(tokens[0].is_special), len(tokens) - int(tokens[-1].is_special)
    middle = np.random.default_rng(seed).permutation(np.arange(lo, hi))
    return np.concatenate([np.arange(lo), middle, np.arange(hi, len(tokens))])


def test_11_the_shuffle_question_reads_the_right_cells(model):
    asked = []
    for text in SENTENCES:
        tr = attention.trace(model, text, mask="none", positions=False)  # the experiment: no mask, no positions
        w = tr.layers[0].weights[0]  # (n, n): layer 1, head 1, as the page opens
        order = shuffled_order(tr.tokens, SEED)
        exp = position.shuffle_experiment(model, text, SEED, False)
        assert (exp.order == order).all()
        words = [t.position for t in tr.tokens if not t.is_special]
        pair = questions_chapters_11_to_14.shuffle_pair(
            w, exp.unshuffled_weights(0)[0], exp.order, words, positions=False
        )
        i, j, p, q = pair.i, pair.j, pair.p, pair.q
        assert i in words and j in words and i != j and order[p] == i and order[q] == j and p != i and q != j
        # without positions the shuffled run's weight from place p to place q is the original one from i to j
        expected = (w[i, j], w[p, q], w[j, i], w[q, p])
        assert np.allclose(pair.options.values, expected, atol=1e-5)
        d = decimals(expected, 2)
        written = [f"{v:.{d}f}" for v in pair.options.values]
        assert written == [f"{v:.{d}f}" for v in expected] and len(set(written)) == 4
        asked.append(written)
    assert asked[0] != asked[1]


def test_11_the_page_asks_it():
    text = SENTENCES[0]
    at = run_page("pages/11_position.py", text=text)
    assert not at.exception
    _first, second, third = questions(at)
    m = re.search(r"from place (\d+) to place (\d+) and .* from place (\d+) to place (\d+) ", second.label)
    i, p, j, q = map(int, m.groups())
    model = loaded_model(MODELS[0])
    tr = attention.trace(model, text, mask="none", positions=False)
    w = tr.layers[0].weights[0]
    order = shuffled_order(tr.tokens, SEED)
    assert order[p] == i and order[q] == j
    expected = (w[i, j], w[p, q], w[j, i], w[q, p])
    d = decimals(expected, 2)
    assert sorted(second.options) == sorted(f"{v:.{d}f}" for v in expected)
    c, e = tr.n_tokens, model.config.d_model
    assert sorted(third.options) == sorted([f"({c}, {e})", f"({c}, 1)", f"({c}, {c})", f"({e}, {e})"])


# --- chapter 12: the head's output shape, between two sentences ------------------------------------------------


def test_12_the_page_asks_the_output_shape():
    at = run_page("pages/12_cross_attention.py", text=SENTENCES[1])
    assert not at.exception
    _first, _second, third = questions(at)
    model = loaded_model(MODELS[0])
    c, s = attention.trace(model, SENTENCES[1]).n_tokens, attention.trace(model, CROSS_SOURCE).n_tokens
    d, e = model.config.d_head, model.config.d_model
    assert c != s and sorted(third.options) == sorted([f"({c}, {d})", f"({c}, {s})", f"({c}, {e})"])
    assert f"({c}, {d})" in third.label and f"({s}, {d})" in third.label  # Q's shape and K's, given


# --- chapter 13: the keys a head computes without the cache ----------------------------------------------------


def keys_by_steps(n: int) -> tuple[int, int]:
    """Replayed step by step: without the cache step t computes the keys of all t tokens so far; with it, one."""
    without = with_cache = 0
    for t in range(1, n + 1):
        without += len(range(t))
        with_cache += 1
    return without, with_cache


def test_13_the_keys_question_counts_them(model):
    asked = []
    for text in SENTENCES:
        n = attention.trace(model, text, mask="causal").n_tokens
        without, with_cache = keys_by_steps(n)
        options = questions_chapters_11_to_14.keys_computed(n)
        assert options.right == without and options.wrong[0] == with_cache
        assert options.wrong[1:] == (n**2, without - n)  # every step the whole sentence; one key short each step
        written = [f"{v:,}" for v in options.values]
        assert len(set(written)) == 4
        asked.append(written)
    assert asked[0] != asked[1]


def test_13_the_page_asks_it():
    text = SENTENCES[0]
    at = run_page("pages/13_kv_cache.py", text=text, model="smollm2")
    assert not at.exception
    _first, second, third = questions(at)
    model = loaded_model("smollm2")
    n = attention.trace(model, text, mask="causal").n_tokens
    without, with_cache = keys_by_steps(n)
    assert sorted(second.options) == sorted(f"{v:,}" for v in (without, with_cache, n * n, without - n))
    cfg = model.config
    kv, d, e = cfg.n_kv_heads, cfg.d_head, cfg.d_model
    assert sorted(third.options) == sorted([f"({kv}, {n}, {d})", f"({kv}, 1, {d})", f"({n}, {e})", f"({kv}, {n}, {e})"])


# --- chapter 14: attention's share of the loaded model ----------------------------------------------------------

ATTENTION_ARRAYS = ("w_q", "b_q", "w_k", "b_k", "w_v", "b_v", "w_o", "b_o")
ATTENTION_NORMS = ("norm_attention", "norm_attention_out", "norm_q", "norm_k")
MLP_ARRAYS = ("w_ff1", "b_ff1", "w_gate", "w_ff2", "b_ff2")
MLP_NORMS = ("norm_ffn", "norm_ffn_out")


def counted(model: attention.Model, arrays: tuple[str, ...], norms: tuple[str, ...]) -> int:
    """The numbers of the named arrays and norms, in every layer."""
    out = 0
    for layer in model.layers:
        out += sum(np.size(getattr(layer, a)) for a in arrays if getattr(layer, a) is not None)
        for name in norms:
            n = getattr(layer, name)
            out += 0 if n is None else sum(np.size(g) for g in (n.gamma, n.beta) if g is not None)
    return out


def shares_of(model: attention.Model, name: str) -> tuple[float, ...]:
    attention_ = counted(model, ATTENTION_ARRAYS, ATTENTION_NORMS)
    output = sum(np.size(layer.w_o) + np.size(layer.b_o if layer.b_o is not None else []) for layer in model.layers)
    mlp = counted(model, MLP_ARRAYS, MLP_NORMS)
    total = PUBLISHED[name]
    return (
        attention_ / total,
        attention_ / (attention_ + mlp),
        (attention_ - output) / total,
        attention_ / (total - attention_),
    )


def test_14_the_share_question_counts_the_arrays():
    """The loaded model's rows, as the page sums them, against the arrays counted here and the published totals:
    the question reads the model, not the sentence, so its options change from one model to the next."""
    asked = []
    for name in MODELS:
        model = loaded_model(name)
        b = budget.model_budget(model)
        rows = {r[0]: r[2] for r in b.rows}
        options = questions_chapters_11_to_14.attention_share(
            b.group("attention"), rows["output"], b.group("mlp"), b.total
        )
        expected = shares_of(model, name)
        assert np.allclose(options.values, expected, rtol=1e-12)
        d = decimals([100 * v for v in expected], 1)
        written = [f"{100 * v:.{d}f}%" for v in options.values]
        assert len(set(written)) == 4
        asked.append(written)
    assert len({tuple(a) for a in asked}) == len(MODELS)


def test_14_the_page_asks_it():
    at = run_page("pages/14_parameters.py", text=SENTENCES[0])
    assert not at.exception
    _first, second, third = questions(at)
    model = loaded_model(MODELS[0])
    expected = shares_of(model, MODELS[0])
    d = decimals([100 * v for v in expected], 1)
    assert sorted(second.options) == sorted(f"{100 * v:.{d}f}%" for v in expected)
    c, v, e = attention.trace(model, SENTENCES[0]).n_tokens, model.config.vocab_size, model.config.d_model
    assert sorted(third.options) == sorted([f"({v}, {e})", f"({e}, {v})", f"({c}, {e})", f"({e}, {e})"])
