"""The numpy trace of a Llama-family decoder against transformers' LlamaForCausalLM on the same tiny Llama.

The model is built here, at test time (tests/tiny_llama.py), so nothing is downloaded: transformers reads
the folder with its own code, the engine with numpy, and every number is compared: tokens, each head's
weights, q and k after the rotation, v, each head's Δe, the hidden states, the next-token probabilities.
Then each Llama step is broken on purpose (rotary pairs, key/value groups, RMSNorm), to show that the same
comparison catches the mistake.

    pytest tests/test_llama.py -s    # -s prints the largest differences measured
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import AutoTokenizer, GPT2LMHeadModel, LlamaForCausalLM

import attention
from attention import ops
from attention.kv_cache import generate_with_cache
from attention.trace import block, embed
from tests.llama_reference import (
    TOLERANCES,
    Measurements,
    differences,
    faithful,
    head_displacements,
    reference_run,
    relative,
    rotary_scores,
    softmax,
)
from tests.sentences import FLUFFY
from tests.tiny_llama import ROPE_THETA, build_tiny_llama

ROOT = Path(__file__).resolve().parents[1]
SENTENCES = [
    FLUFFY,
    "the bank by the river bank",  # a repeated word
    "In 1969, 3 astronauts flew 384,400 km to the Moon!",  # digits and punctuation
    "Café déjà vu: naïve façades in São Paulo",  # accents: several bytes per character
    "I ❤️ attention 🤖 and 東京 and שלום",  # emoji, CJK, right-to-left
    "two  spaces\nand a newline",  # whitespace the byte-level tokenizer keeps
    "x",  # a single token
]
MEASURED = Measurements()
record = MEASURED.record


@pytest.fixture(scope="module", autouse=True)
def report_largest_differences():
    yield
    print("\n\n" + MEASURED.table("tiny Llama vs transformers: the largest differences measured"))


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """The model the tests read: float32, output head tied to the embeddings (as SmolLM2's is)."""
    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="module")
def reference(folder):
    """The reference: transformers' own Llama, eager attention so it returns its weights, float32."""
    return LlamaForCausalLM.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32).eval()


@pytest.fixture(scope="module")
def reference_tokenizer(folder):
    return AutoTokenizer.from_pretrained(folder)


@pytest.fixture(scope="module")
def model(folder):
    return attention.load_model(str(folder))


# --- the model and its tokens -----------------------------------------------------------------------


def test_config_fields_are_read_from_config_json(model, reference):
    cfg = reference.config
    c = model.config
    assert c.family == "Llama decoder" and c.is_decoder and c.native_mask == "causal"
    assert (c.norm, c.norm_position, c.positions, c.mlp) == ("rms", "pre", "rotary", "swiglu")
    assert (c.n_layers, c.n_heads, c.n_kv_heads) == (cfg.num_hidden_layers, 4, 2)
    assert c.group_size == 2 and [c.kv_head_of(h) for h in range(4)] == [0, 0, 1, 1]
    assert (c.d_model, c.d_head, c.d_ff) == (cfg.hidden_size, cfg.head_dim, cfg.intermediate_size)
    assert c.vocab_size == cfg.vocab_size and c.norm_eps == cfg.rms_norm_eps
    assert c.rope_base == cfg.rope_parameters["rope_theta"] == ROPE_THETA
    assert c.max_positions == 0 and model.embeddings.position is None
    assert all(layer.b_q is None and layer.b_o is None and layer.w_gate is not None for layer in model.layers)
    assert all(layer.norm_attention.beta is None for layer in model.layers)


@pytest.mark.parametrize("text", SENTENCES)
def test_same_tokens_as_the_reference_tokenizer(model, reference_tokenizer, text):
    ids = reference_tokenizer(text)["input_ids"]
    tr = attention.trace(model, text)
    assert [t.id for t in tr.tokens] == ids
    assert [t.text for t in tr.tokens] == reference_tokenizer.convert_ids_to_tokens(ids)
    assert not tr.truncated and [t.position for t in tr.tokens] == list(range(len(ids)))


def test_the_reference_weights_have_structure(reference, reference_tokenizer):
    """Guard on the tiny model itself: flat rows (all 1/n) would let a wrong engine pass."""
    run = reference_run(reference, reference_tokenizer(FLUFFY)["input_ids"])
    n = run.attentions.shape[-1]
    uniform = 1.0 / np.arange(1, n + 1)
    assert (run.attentions.max(-1)[..., 1:] - uniform[1:]).mean() > 0.3
    # the two key/value heads differ, so that pairing a query head with the wrong one shows
    assert relative(run.k[0][0], run.k[0][1]) > 0.5


# --- every number, against transformers ---------------------------------------------------------------


@pytest.mark.parametrize("text", SENTENCES)
def test_every_quantity_equals_transformers(model, reference, text):
    found = differences(model, reference, text)
    failed = {name: value for name, value in found.items() if not record(name, value, TOLERANCES[name])}
    assert failed == {}


def test_each_heads_displacement_sums_to_o_proj(model, reference):
    """Δe per head, read through o_proj's pre-hook, adds up to o_proj's output (no bias in a Llama)."""
    tr = attention.trace(model, FLUFFY)
    run = reference_run(reference, [t.id for t in tr.tokens])
    for i, layer in enumerate(tr.layers):
        delta = head_displacements(reference, run, i)
        assert relative(delta.sum(0), run.attention_output[i]) <= 1e-5  # the split is exact in the reference
        assert layer.displacement.shape == delta.shape == (4, tr.n_tokens, model.config.d_model)
        assert relative(layer.displacement.sum(0), run.attention_output[i]) <= 1e-4
        assert not np.any(layer.b_o)
        # pre-norm: the attention output is added to the residual stream as it is
        assert relative(layer.updated, run.hidden[i] + run.attention_output[i]) <= 1e-4


@pytest.mark.parametrize("text", [FLUFFY, "the bank by the river", "x"])
def test_next_tokens_equal_the_reference_probabilities(model, reference, reference_tokenizer, text):
    tr = attention.trace(model, text)
    run = reference_run(reference, [t.id for t in tr.tokens])
    p = softmax(run.logits[-1].astype(np.float64))
    top = np.argsort(-p)[:10]
    predictions = tr.next_tokens(top=10)
    assert [x.id for x in predictions] == top.tolist()
    assert [x.token for x in predictions] == reference_tokenizer.convert_ids_to_tokens(top.tolist())
    gap = np.abs(np.array([x.probability for x in predictions]) - p[top]).max()
    assert record("probabilities (top 10)", gap, 1e-5)


def test_the_trace_is_causal(model):
    tr = attention.trace(model, FLUFFY)
    rows, cols = np.triu_indices(tr.n_tokens, 1)
    assert (tr.weights[..., rows, cols] == 0).all()
    assert np.allclose(tr.weights.sum(-1), 1.0, atol=1e-6)


# --- the KV cache -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [FLUFFY, SENTENCES[3]])
def test_the_kv_cache_equals_the_full_pass(model, reference, text):
    """One token at a time, keeping only the two key/value heads: the same last vectors as the full pass,
    and as transformers' own."""
    tr = attention.trace(model, text)
    run = reference_run(reference, [t.id for t in tr.tokens])
    cached = generate_with_cache(model, tr)
    assert cached.max_difference <= 1e-5 * np.abs(cached.full_hidden).max()
    assert record("kv cache vs full pass (relative)", relative(cached.hidden, cached.full_hidden), 1e-5)
    assert record("kv cache vs transformers (relative)", relative(cached.hidden, run.hidden[-1]), 1e-4)


# --- the output head: tied and untied -----------------------------------------------------------------


def test_an_untied_output_head_is_read(tmp_path):
    folder = build_tiny_llama(tmp_path / "untied", tied=False)
    reference = LlamaForCausalLM.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32).eval()
    model = attention.load_model(str(folder))
    found = differences(model, reference, FLUFFY)
    assert found["weights"] <= 1e-5  # the layers are right; only the head is in question
    assert found["probabilities"] <= 1e-5


# --- the base of the rotary frequencies -----------------------------------------------------------------


def test_a_rope_theta_at_the_top_of_config_json_is_read(tmp_path):
    """The layout of config.json on the hub (SmolLM2's, TinyLlama's, saved by transformers 4): rope_theta at
    the top. A base far from 10 000 shows whether it is really read."""
    folder = build_tiny_llama(tmp_path / "theta", rope_theta=500.0)
    path = folder / "config.json"
    cfg = json.loads(path.read_text())
    cfg["rope_theta"] = cfg.pop("rope_parameters")["rope_theta"]
    path.write_text(json.dumps(cfg))
    reference = LlamaForCausalLM.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32).eval()
    assert reference.config.rope_parameters["rope_theta"] == 500.0  # transformers reads the old layout too
    model = attention.load_model(str(folder))
    assert model.config.rope_base == 500.0
    assert faithful(differences(model, reference, FLUFFY))


def test_a_rope_theta_in_rope_parameters_is_read(tmp_path):
    """The layout transformers 5 saves: {"rope_parameters": {"rope_theta": …, "rope_type": "default"}}."""
    folder = build_tiny_llama(tmp_path / "theta", rope_theta=500.0)
    assert json.loads((folder / "config.json").read_text())["rope_parameters"]["rope_theta"] == 500.0
    model = attention.load_model(str(folder))
    assert model.config.rope_base == 500.0
    reference = LlamaForCausalLM.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32).eval()
    assert faithful(differences(model, reference, FLUFFY))


# --- bfloat16 weights, read without torch -------------------------------------------------------------

READ_BF16 = """
import json, sys
import attention
model = attention.load_model(sys.argv[1])
tr = attention.trace(model, sys.argv[2])
print(json.dumps({
    "ids": [t.id for t in tr.tokens],
    "weights": tr.weights.tolist(),
    "logits": tr.next_logits.tolist(),
    "torch_imported": "torch" in sys.modules,
}))
"""


def test_bfloat16_weights_load_without_torch_and_equal_transformers(tmp_path):
    folder = build_tiny_llama(tmp_path / "bf16", dtype=torch.bfloat16)
    header = (folder / "model.safetensors").read_bytes()[8:4096]
    assert b'"BF16"' in header and b'"F32"' not in header  # the weights really are stored as bfloat16
    done = subprocess.run(
        [sys.executable, "-c", READ_BF16, str(folder), FLUFFY],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["torch_imported"] is False
    # the reference: the same bfloat16 numbers, widened to float32 by transformers
    reference = LlamaForCausalLM.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32).eval()
    assert reference.model.embed_tokens.weight.dtype == torch.float32
    run = reference_run(reference, got["ids"])
    assert record("weights (bf16 folder)", np.abs(np.array(got["weights"]) - run.attentions).max(), 1e-5)
    p, p_mine = softmax(run.logits[-1].astype(np.float64)), softmax(np.array(got["logits"]))
    assert record("probabilities (bf16 folder)", np.abs(p_mine - p).max(), 1e-5)


# --- deliberate mistakes: the comparison must catch each one -------------------------------------------


def rope_interleaved(x: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """The wrong pairing for these weights: (x₀, x₁), (x₂, x₃)… (llama.cpp's layout) instead of the halves."""
    even, odd = x[..., 0::2], x[..., 1::2]
    cos, sin = np.cos(angles), np.sin(angles)
    return np.stack([even * cos - odd * sin, even * sin + odd * cos], axis=-1).reshape(x.shape)


def share_kv_tiled(x: np.ndarray, n_heads: int) -> np.ndarray:
    """The wrong groups: query heads 0, 1, 2, 3 read key/value heads 0, 1, 0, 1 instead of 0, 0, 1, 1."""
    return np.tile(x, (n_heads // x.shape[0], 1, 1))


def rms_norm_centred(x: np.ndarray, gamma: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm's centring slipped into RMSNorm: the mean subtracted first."""
    x = x - x.mean(axis=-1, keepdims=True)
    return gamma * (x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps))


@pytest.mark.parametrize(
    ("name", "wrong", "caught_by"),
    [
        ("rope", rope_interleaved, "weights"),
        ("share_kv", share_kv_tiled, "weights"),
        ("rms_norm", rms_norm_centred, "hidden"),
    ],
    ids=["rope-interleaved", "share_kv-tile", "rms_norm-mean"],
)
def test_a_broken_step_fails_the_comparison(model, reference, monkeypatch, name, wrong, caught_by):
    assert faithful(differences(model, reference, FLUFFY))  # the engine as it is passes
    monkeypatch.setattr(ops, name, wrong)
    found = differences(model, reference, FLUFFY)
    assert not faithful(found)
    assert found[caught_by] > 100 * TOLERANCES[caught_by]  # far outside, not a borderline miss


# --- positions: learned ones move the scores, rotary ones keep only the distance ------------------------


def layer0_scores_shifted_gpt2(model, ids: list[int], shift: int) -> np.ndarray:
    """GPT-2's layer-0 q·k with every position moved on by `shift` (its learned position vectors change)."""
    x = embed(model, ids, first_position=shift)
    places = np.arange(shift, shift + len(ids))
    return block(x, model.layers[0], model.config, ops.causal_mask(len(ids)), places).attention.scores


def test_learned_positions_change_the_scores_when_shifted(tiny_gpt2_folder):
    model = attention.load_model(str(tiny_gpt2_folder))
    reference = GPT2LMHeadModel.from_pretrained(
        tiny_gpt2_folder, attn_implementation="eager", dtype=torch.float32
    ).eval()
    ids = [t.id for t in attention.trace(model, FLUFFY).tokens]
    unshifted, shifted = attention.trace(model, FLUFFY).layers[0].scores, layer0_scores_shifted_gpt2(model, ids, 7)
    assert relative(shifted, unshifted) > 0.1  # the same words, other positions: other scores
    # transformers agrees on the shifted scores (its own position_ids), so the shift is GPT-2's, not ours
    qkv = []
    hook = reference.transformer.h[0].attn.c_attn.register_forward_hook(lambda _m, _i, o: qkv.append(o[0].numpy()))
    try:
        with torch.inference_mode():
            reference(input_ids=torch.tensor([ids]), position_ids=torch.arange(7, 7 + len(ids))[None])
    finally:
        hook.remove()
    q, k, _ = (p.reshape(len(ids), 4, -1).transpose(1, 0, 2) for p in np.split(qkv[0], 3, axis=-1))
    assert relative(shifted, q @ k.transpose(0, 2, 1)) <= 1e-5


@pytest.mark.parametrize("shift", [1, 7, 100])
def test_rotary_scores_keep_only_the_distance(model, reference, shift):
    tr = attention.trace(model, FLUFFY)
    layer = tr.layers[0]
    places = np.arange(tr.n_tokens)
    shifted = rotary_scores(model, layer.attention_input, places + shift)
    assert relative(rotary_scores(model, layer.attention_input, places), layer.scores) <= 1e-6  # the same steps
    assert record("rotary shift: layer-0 scores (relative)", relative(shifted, layer.scores), 1e-4)
    # transformers, every position moved on by the same shift: every layer's weights unchanged
    run = reference_run(reference, [t.id for t in tr.tokens], first_position=shift)
    assert record("rotary shift: transformers' weights", np.abs(run.attentions - tr.weights).max(), 1e-5)
    assert relative(run.q[0], layer.q) > 0.1  # while q itself did turn


# --- a folder whose config.json does not fit its weights ------------------------------------------------


@pytest.mark.parametrize(
    ("key", "value", "tensor"),
    [("num_key_value_heads", 4, "attn_k"), ("intermediate_size", 96, "ffn_up"), ("vocab_size", 500, "token_embd")],
)
def test_a_config_that_does_not_fit_the_weights_names_the_tensor(folder, tmp_path, key, value, tensor):
    broken = tmp_path / "broken"
    shutil.copytree(folder, broken)
    cfg = json.loads((broken / "config.json").read_text())
    cfg[key] = value
    (broken / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(attention.UnsupportedModelError) as error:
        attention.load_model(str(broken))
    assert tensor in str(error.value) and "broken" in str(error.value)


def test_a_bias_the_family_does_not_add_is_refused_not_dropped(folder, tmp_path):
    """A Llama adds no bias: a q_proj.bias in its file is refused by name, never read past (the model would draw
    numbers without it under a Llama's words)."""
    from safetensors.numpy import load_file, save_file

    biased = tmp_path / "biased"
    shutil.copytree(folder, biased)
    tensors = load_file(biased / "model.safetensors")
    tensors["model.layers.1.self_attn.q_proj.bias"] = np.ones(64, dtype=np.float32)
    save_file(tensors, biased / "model.safetensors", metadata={"format": "pt"})
    with pytest.raises(attention.UnsupportedModelError, match=r"blk\.1\.attn_q\.bias is a bias"):
        attention.load_model(str(biased))
