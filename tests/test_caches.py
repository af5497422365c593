"""The server's caches bounded by bytes (ui/caches.py): each one filled past its budget stays within it, says what
it holds, and still returns what a fresh computation gives; a model let go of takes its traces with it."""

from __future__ import annotations

import gc
import threading
import time
import weakref
from types import SimpleNamespace

import numpy as np
import pytest

import attention
from app_driver.apptest import run_page
from attention.lessons import geometry
from ui import caches
from ui.components import plot
from ui.figures.base import stand_alone
from ui.figures.heads_grid import heads_grid
from ui.kit import chart
from ui.session import engine, models
from ui.words import i18n

TEXTS = [f"sentence number {i} about a fluffy creature " * (1 + 6 * i) for i in range(8)]  # 8 to 246 tokens


@pytest.fixture
def small(monkeypatch):
    """A cache of the server's, emptied, with a budget a few entries fill (restored after the test)."""

    def shrink(cache: caches.Bounded, budget: int) -> caches.Bounded:
        monkeypatch.setattr(cache, "budget", budget)
        cache.clear()
        return cache

    yield shrink


def within(cache: caches.Bounded) -> None:
    """Within its budget (or holding one entry alone), and its count of bytes the sum of its entries'."""
    entries = cache.entries()
    assert cache.used == sum(size for _, size in entries)
    assert cache.used <= cache.budget or len(entries) == 1
    held = caches.held()[cache.name]
    assert (held.entries, held.bytes, held.budget) == (len(entries), cache.used, cache.budget)


def test_the_trace_cache_stays_within_its_budget_and_gives_the_right_traces(model, small):
    sizes = [attention.trace(model, t).nbytes for t in TEXTS]
    cache = small(engine.TRACES, 3 * max(sizes))
    assert sum(sizes) > cache.budget  # more than fits
    for text in TEXTS:
        tr = engine.trace(text, None, models.MODEL)
        assert tr.text == text
        np.testing.assert_array_equal(tr.layers[2].weights, attention.trace(model, text).layers[2].weights)
        within(cache)
        assert (models.MODEL, "none", text) in dict(cache.entries())  # the newest is always kept
    assert len(cache.entries()) < len(TEXTS)


def test_a_trace_that_stacks_its_weights_is_measured_again(model, small):
    cache = small(engine.TRACES, 2**30)
    tr = engine.trace(TEXTS[3], None, models.MODEL)
    before = dict(cache.entries())[(models.MODEL, "none", TEXTS[3])]
    assert before == tr.nbytes
    stacked = tr.weights  # (n_layers, n_heads, n, n): a copy the trace keeps
    assert engine.trace(TEXTS[3], None, models.MODEL) is tr
    assert dict(cache.entries())[(models.MODEL, "none", TEXTS[3])] == before + stacked.nbytes
    within(cache)


def test_the_results_cache_stays_within_its_budget_and_gives_the_right_results(model, small):
    keep = tuple(range(1, 5))
    one = engine.before_after.cached(models.MODEL, TEXTS[7], "none", 1, "attention", keep)
    cache = small(engine.RESULTS, 3 * caches.nbytes(one))
    for text in TEXTS:
        got = engine.before_after.cached(models.MODEL, text, "none", 1, "attention", keep)
        want = geometry.layer_before_after(attention.trace(model, text).layers[1], "attention", keep)
        np.testing.assert_allclose(got.before, want.before, rtol=1e-6)
        np.testing.assert_allclose(got.after, want.after, rtol=1e-6)
        within(cache)
    assert 1 < len(cache.entries()) < len(TEXTS)
    assert all(key[:2] == ("before_after", models.MODEL) for key, _ in cache.entries())


def test_a_result_is_one_entry_whether_its_defaults_are_given_or_not(small):
    cache = small(engine.RESULTS, 2**30)
    calls = []

    @caches.kept(cache)
    def twice(x: int, times: int = 2) -> int:
        calls.append(x)
        return x * times

    assert twice(3) == twice(3, 2) == twice(x=3, times=2) == 6
    assert twice(3, 3) == 9
    assert calls == [3, 3]


def grid(n_tokens: int, seed: int):
    """The explorer's grid of every head's weights: 12 heads of n × n, its largest figure."""
    rng = np.random.default_rng(seed)
    w = rng.random((12, n_tokens, n_tokens))
    w /= w.sum(-1, keepdims=True)
    return heads_grid(w, [f"t{i}" for i in range(n_tokens)], 0, f"All 12 heads, {n_tokens} tokens", words=i18n.words())


def test_the_figure_cache_stays_within_its_budget_and_gives_the_right_figures(small):
    sizes = [len(plot.to_json(grid(n, n))) for n in (8, 32, 64, 96, 128)]
    cache = small(chart.FIGURES, 3 * max(sizes))
    for n in (8, 32, 64, 96, 128, 8, 32):
        fig = chart._kept("all_heads", ("view", n), (), "a subtitle", 0, 820, lambda n=n: grid(n, n), i18n.words())
        want = stand_alone(grid(n, n), (), "a subtitle", 820, words=i18n.words())
        assert plot.spec(fig) == plot.to_json(want)
        size = dict(cache.entries())[("all_heads", ("view", n), (), "a subtitle", 0, 820, i18n.words())]
        # measured from its JSON alone (chart._figure_bytes), a figure counts for no less than it holds: its JSON,
        # and plotly's data and layout walked through
        assert size >= len(plot.spec(fig)) + caches.nbytes(fig)
        within(cache)
    assert len(cache.entries()) < 5


def test_an_entry_larger_than_the_budget_is_kept_alone():
    cache = caches.Bounded("test", budget=1000)
    cache.get("small", lambda: np.zeros(100, dtype=np.uint8))
    big = cache.get("big", lambda: np.zeros(5000, dtype=np.uint8))
    assert [key for key, _ in cache.entries()] == ["big"] and cache.used == big.nbytes
    assert cache.get("big", lambda: pytest.fail("made again")) is big


def test_two_sessions_asking_for_one_missing_entry_make_it_once():
    cache = caches.Bounded("test", budget=2**20)
    made = []

    def make():
        made.append(1)
        time.sleep(0.2)
        return np.ones(10)

    got = []
    threads = [threading.Thread(target=lambda: got.append(cache.get("k", make))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and len(got) == 4 and all(g is got[0] for g in got)


def test_an_entry_that_failed_is_not_kept():
    cache = caches.Bounded("test", budget=2**20)
    with pytest.raises(ValueError):
        cache.get("k", lambda: (_ for _ in ()).throw(ValueError("empty")))
    assert cache.entries() == [] and cache.used == 0


def test_sizes_count_arrays_once_and_a_trace_by_its_own_nbytes(model):
    a = np.zeros((100, 100), dtype=np.float32)
    assert caches.nbytes((a, a, [a])) - a.nbytes < 200  # the containers, not the array three times
    tr = attention.trace(model, "the bank by the river")
    assert caches.nbytes({"t": tr}) - tr.nbytes < 500  # not the model's W_O, config or vocabulary it points to
    assert caches.nbytes(model) == 0  # the server's, not a result's


def test_a_model_let_go_of_takes_its_traces_and_results_with_it(monkeypatch, small):
    """At most one model beside the bundled one: the next is loaded only once the last and what was computed with
    it are gone."""
    loaded = []
    monkeypatch.setattr(attention, "load_model", lambda name: loaded.append(name) or f"model {name}")
    slot = {}
    monkeypatch.setattr(models, "_slot", lambda: slot)
    traces, results = small(engine.TRACES, 2**30), small(engine.RESULTS, 2**30)
    assert models._chosen("first") == "model first"
    traces.get(("first", "causal", "a text"), lambda: SimpleNamespace(nbytes=80))  # as a trace measures itself
    results.get(("shifted", "first", "a text", 3), lambda: np.zeros(10))
    results.get(("scaling_experiment", 64, 8), lambda: np.zeros(10))
    assert models._chosen("first") == "model first" and loaded == ["first"]
    assert models._chosen("second") == "model second"
    assert models._slot() == {"second": "model second"}
    assert traces.entries() == []
    assert [key for key, _ in results.entries()] == [("scaling_experiment", 64, 8)]


def test_memory_is_handed_back_when_forced():
    assert caches.release(force=True) is (caches.resident() is not None)
    assert not caches.release()  # nothing grew since


def test_after_a_run_the_process_s_objects_are_left_out_of_collections_and_new_garbage_is_still_collected():
    caches.release()  # the end of a page's run
    frozen = gc.get_freeze_count()
    assert frozen > 10_000  # the modules imported: plotly's classes, Streamlit, numpy
    caches.release()
    assert gc.get_freeze_count() == frozen  # frozen once

    class Node:
        pass

    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle, which only a collection frees
    gone = weakref.ref(a)
    del a, b
    gc.collect()
    assert gone() is None


def test_a_new_sentence_is_tokenized_once(monkeypatch):
    """Accepted, checked for what the model cannot read, and traced: one tokenization of the text for all three."""
    import attention.tokens

    seen = []
    real = attention.tokens.tokenize
    monkeypatch.setattr(
        attention.tokens, "tokenize", lambda tok, text, limit: seen.append(text) or real(tok, text, limit)
    )
    text = "a sentence no other test of this process has sent, about owls"
    at = run_page(text=text)
    assert not at.exception
    assert seen.count(text) == 1, seen
