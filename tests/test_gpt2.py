"""The numpy trace of a decoder against transformers' GPT2LMHeadModel on the same tiny GPT-2.

The model is built here, at test time (tests/tiny_gpt2.py), so nothing is downloaded: transformers
reads the folder with its own code, the engine with numpy, and every number is compared.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import AutoTokenizer, GPT2LMHeadModel

import attention
from tests.sentences import FLUFFY
from tests.tiny_gpt2 import install_in_hf_cache

ROOT = Path(__file__).resolve().parents[1]
SENTENCES = [
    FLUFFY,
    "the bank by the river bank",  # a repeated word
    "a fluffy blue creature roamed the verdant forest, then slept.",  # a word the tokenizer splits
    "In 1969, 3 astronauts flew 384,400 km to the Moon!",  # digits and punctuation
    "Café déjà vu: naïve façades in São Paulo",  # accents: several bytes per character
    "I ❤️ attention 🤖 and 東京 and שלום",  # emoji, CJK, right-to-left
    "two  spaces\nand a newline",  # whitespace the byte-level tokenizer keeps
    "x",  # a single token
]


@pytest.fixture(scope="module")
def reference(tiny_gpt2_folder):
    """The reference: transformers' own GPT-2, eager attention so it returns its weights, float32."""
    return GPT2LMHeadModel.from_pretrained(tiny_gpt2_folder, attn_implementation="eager", dtype=torch.float32).eval()


@pytest.fixture(scope="module")
def reference_tokenizer(tiny_gpt2_folder):
    return AutoTokenizer.from_pretrained(tiny_gpt2_folder)


@pytest.fixture(scope="module")
def model(tiny_gpt2_folder):
    return attention.load_model(str(tiny_gpt2_folder))


@dataclass(frozen=True)
class ReferenceRun:
    attentions: np.ndarray  # (n_layers, n_heads, n, n)
    hidden: np.ndarray  # (n_layers + 1, n, d_model)
    logits: np.ndarray  # (n, vocab_size)
    qkv: tuple[np.ndarray, ...]  # per layer, c_attn's output: (n, 3·d_model)
    merged_heads: tuple[np.ndarray, ...]  # per layer, c_proj's input: (n, n_heads·d_head)
    attention_output: tuple[np.ndarray, ...]  # per layer, c_proj's output: (n, d_model)


def reference_run(reference, ids: list[int]) -> ReferenceRun:
    """One forward pass, with hooks on each block's attention to read what goes in and out of c_proj."""
    qkv, merged, out = [], [], []
    hooks = []
    for block in reference.transformer.h:
        hooks.append(block.attn.c_attn.register_forward_hook(lambda _m, _i, o: qkv.append(o[0].numpy().copy())))
        hooks.append(block.attn.c_proj.register_forward_pre_hook(lambda _m, i: merged.append(i[0][0].numpy().copy())))
        hooks.append(block.attn.c_proj.register_forward_hook(lambda _m, _i, o: out.append(o[0].numpy().copy())))
    try:
        with torch.inference_mode():
            result = reference(input_ids=torch.tensor([ids]), output_attentions=True, output_hidden_states=True)
    finally:
        for hook in hooks:
            hook.remove()
    return ReferenceRun(
        attentions=np.stack([a[0].numpy() for a in result.attentions]),
        hidden=np.stack([h[0].numpy() for h in result.hidden_states]),
        logits=result.logits[0].numpy(),
        qkv=tuple(qkv),
        merged_heads=tuple(merged),
        attention_output=tuple(out),
    )


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def split_heads(qkv: np.ndarray, n_heads: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """c_attn's output (n, 3·d_model) as q, k, v, each (n_heads, n, d_head)."""
    n = qkv.shape[0]
    return tuple(part.reshape(n, n_heads, -1).transpose(1, 0, 2) for part in np.split(qkv, 3, axis=-1))


def above_diagonal(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(n, 1)


# --- the model and its tokens -------------------------------------------------------------------


def test_sizes_are_read_from_the_config(model, reference):
    cfg = reference.config
    c = model.config
    assert c.family == "GPT-2 decoder" and c.is_decoder and c.native_mask == "causal"
    assert (c.norm, c.norm_position, c.positions, c.mlp) == ("layer", "pre", "learned", "gelu_tanh")
    assert (c.n_layers, c.n_heads, c.d_model) == (cfg.n_layer, cfg.n_head, cfg.n_embd)
    assert c.d_head == cfg.n_embd // cfg.n_head
    assert c.d_ff == reference.transformer.h[0].mlp.c_fc.nf  # the MLP's width as transformers built it
    assert c.max_positions == cfg.n_positions
    assert c.vocab_size == cfg.vocab_size
    assert c.norm_eps == cfg.layer_norm_epsilon and c.n_kv_heads == c.n_heads


@pytest.mark.parametrize("text", SENTENCES)
def test_same_tokens_as_the_reference_tokenizer(model, reference_tokenizer, text):
    ids = reference_tokenizer(text)["input_ids"]
    assert ids == reference_tokenizer(text, add_special_tokens=True)["input_ids"]  # GPT-2 adds no special tokens
    tr = attention.trace(model, text)
    assert [t.id for t in tr.tokens] == ids
    assert [t.text for t in tr.tokens] == reference_tokenizer.convert_ids_to_tokens(ids)
    assert tr.n_tokens == len(ids) and not tr.truncated
    assert not any(t.is_special for t in tr.tokens)
    assert [t.position for t in tr.tokens] == list(range(len(ids)))


def test_tokens_keep_the_tokenizers_spelling(model):
    tokens = [t.text for t in attention.trace(model, FLUFFY).tokens]
    assert tokens[:4] == ["a", "Ġfluffy", "Ġblue", "Ġcreature"]
    assert "<|endoftext|>" not in tokens


def test_long_text_is_cut_to_the_position_table(model, reference_tokenizer, reference):
    text = "the quick brown fox jumps over the lazy dog " * 8
    ids = reference_tokenizer(text, truncation=False)["input_ids"]
    n = reference.config.n_positions
    assert len(ids) > n
    tr = attention.trace(model, text)
    assert tr.truncated and tr.n_tokens == n and tr.n_dropped == len(ids) - n
    assert [t.id for t in tr.tokens] == ids[:n]
    run = reference_run(reference, ids[:n])
    assert np.abs(tr.weights - run.attentions).max() <= 1e-5


# --- attention, hidden states and each head's displacement ------------------------------------


@pytest.mark.parametrize("text", SENTENCES)
def test_weights_and_hidden_states_equal_transformers(model, reference, text):
    tr = attention.trace(model, text)
    run = reference_run(reference, [t.id for t in tr.tokens])
    assert tr.weights.shape == run.attentions.shape
    assert np.abs(tr.weights - run.attentions).max() <= 1e-5
    assert tr.hidden.shape == run.hidden.shape == (model.config.n_layers + 1, tr.n_tokens, model.config.d_model)
    assert np.abs(tr.hidden - run.hidden).max() <= 1e-4  # the last entry is after ln_f, as transformers returns it


def test_the_trace_is_causal_by_default(model):
    tr = attention.trace(model, FLUFFY)
    assert tr.mask_kind == "causal" and tr.mask_is_real
    rows, cols = above_diagonal(tr.n_tokens)
    assert (tr.weights[..., rows, cols] == 0).all()  # exactly zero, not merely small
    assert np.allclose(tr.weights.sum(-1), 1.0, atol=1e-6)
    assert np.array_equal(tr.weights[:, :, 0, 0], np.ones(tr.weights.shape[:2]))  # the first token sees only itself


def test_the_reference_weights_have_structure(reference, reference_tokenizer):
    """Guard on the tiny model itself: flat rows (all 1/n) would let a wrong engine pass."""
    run = reference_run(reference, reference_tokenizer(FLUFFY)["input_ids"])
    n = run.attentions.shape[-1]
    uniform = 1.0 / np.arange(1, n + 1)  # a causal row i spread evenly over i + 1 tokens
    assert (run.attentions.max(-1)[..., 1:] - uniform[1:]).mean() > 0.3


def test_queries_keys_values_and_scores_equal_transformers(model, reference):
    tr = attention.trace(model, FLUFFY)
    run = reference_run(reference, [t.id for t in tr.tokens])
    for layer, qkv in zip(tr.layers, run.qkv, strict=True):
        q, k, v = split_heads(qkv, model.config.n_heads)
        assert np.abs(layer.q - q).max() <= 1e-4
        assert np.abs(layer.k - k).max() <= 1e-4
        assert np.abs(layer.v - v).max() <= 1e-4
        raw = q @ k.transpose(0, 2, 1)  # q·k before the 1/√d_head scaling
        assert np.abs(layer.scores - raw).max() <= 1e-5 * max(1.0, np.abs(raw).max())


def test_each_heads_displacement_equals_its_slice_of_c_proj(model, reference):
    tr = attention.trace(model, FLUFFY)
    run = reference_run(reference, [t.id for t in tr.tokens])
    d = model.config.d_head
    for i, (block, layer) in enumerate(zip(reference.transformer.h, tr.layers, strict=True)):
        w = block.attn.c_proj.weight.detach().numpy()  # Conv1D: (input, output) = (n_heads·d_head, d_model)
        b = block.attn.c_proj.bias.detach().numpy()
        merged = run.merged_heads[i]  # (n, n_heads·d_head)
        delta = np.stack([merged[:, h * d : (h + 1) * d] @ w[h * d : (h + 1) * d] for h in range(model.config.n_heads)])
        assert np.abs(delta.sum(0) + b - run.attention_output[i]).max() <= 1e-4  # the split is exact in the reference
        assert layer.displacement.shape == delta.shape
        assert np.abs(layer.displacement - delta).max() <= 1e-4
        assert np.abs(layer.attention_output - run.attention_output[i]).max() <= 1e-4
        assert np.abs(layer.displacement.sum(0) + layer.b_o - run.attention_output[i]).max() <= 1e-4
        # GPT-2 is pre-LayerNorm: the attention output is simply added to the residual stream
        assert np.abs(layer.x - run.hidden[i]).max() <= 1e-4
        assert np.abs(layer.updated - (run.hidden[i] + run.attention_output[i])).max() <= 1e-4


# --- next-token probabilities ------------------------------------------------------------------


@pytest.mark.parametrize("text", [FLUFFY, "the bank by the river", "x"])
def test_next_tokens_equal_the_softmax_of_the_last_logits(model, reference, reference_tokenizer, text):
    tr = attention.trace(model, text)
    run = reference_run(reference, [t.id for t in tr.tokens])
    p = softmax(run.logits[-1].astype(np.float64))
    top = np.argsort(-p)[:10]
    predictions = tr.next_tokens(top=10)
    assert [x.id for x in predictions] == top.tolist()
    assert [x.token for x in predictions] == reference_tokenizer.convert_ids_to_tokens(top.tolist())
    probabilities = np.array([x.probability for x in predictions])
    assert np.abs(probabilities - p[top]).max() <= 1e-5
    assert (np.diff(probabilities) <= 0).all()


@pytest.mark.parametrize("temperature", [0.5, 2.0])
def test_temperature_divides_the_logits(model, reference, temperature):
    tr = attention.trace(model, FLUFFY)
    run = reference_run(reference, [t.id for t in tr.tokens])
    p = softmax(run.logits[-1].astype(np.float64) / temperature)
    top = np.argsort(-p)[:10]
    predictions = tr.next_tokens(top=10, temperature=temperature)
    assert [x.id for x in predictions] == top.tolist()
    assert np.abs(np.array([x.probability for x in predictions]) - p[top]).max() <= 1e-5


def test_next_tokens_is_for_decoders_only():
    tr = attention.trace(attention.load_model(), FLUFFY)  # the bundled encoder
    with pytest.raises(ValueError):
        tr.next_tokens()


# --- the counterfactual: a decoder without its causal mask -------------------------------------


def test_no_mask_on_a_decoder_is_a_counterfactual(model, reference):
    tr = attention.trace(model, FLUFFY, mask="none")
    assert tr.mask_kind == "none" and tr.mask_is_real is False
    rows, cols = above_diagonal(tr.n_tokens)
    assert (tr.weights[..., rows, cols] > 0).any()
    assert (tr.weights[0, :, 0, :] > 0).all()  # layer 0, row 0 now attends to every token
    assert np.allclose(tr.weights.sum(-1), 1.0, atol=1e-6)
    # Layer 0's input does not depend on the mask, so its unmasked weights follow from the
    # reference's own queries and keys: softmax(q·kᵀ/√d_head) over every key.
    run = reference_run(reference, [t.id for t in tr.tokens])
    q, k, _ = split_heads(run.qkv[0], model.config.n_heads)
    unmasked = softmax(q @ k.transpose(0, 2, 1) / np.sqrt(model.config.d_head))
    assert np.abs(tr.weights[0] - unmasked).max() <= 1e-5


# --- from outside: the CLI, the Hugging Face cache, and the server's imports -------------------


def run_python(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, env=env, timeout=timeout, check=False
    )


def test_cli_next_prints_the_reference_top_tokens(tiny_gpt2_folder, reference, reference_tokenizer):
    done = run_python(
        "-m", "attention", "next", FLUFFY, "--model", str(tiny_gpt2_folder), "--top", "5", "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    predictions = json.loads(done.stdout)
    run = reference_run(reference, reference_tokenizer(FLUFFY)["input_ids"])
    p = softmax(run.logits[-1].astype(np.float64))
    top = np.argsort(-p)[:5]
    assert [x["token"] for x in predictions] == reference_tokenizer.convert_ids_to_tokens(top.tolist())
    assert np.abs(np.array([x["probability"] for x in predictions]) - p[top]).max() <= 1e-5


def test_cli_trace_writes_the_reference_weights(tiny_gpt2_folder, reference, reference_tokenizer, tmp_path):
    out = tmp_path / "t.npz"
    done = run_python("-m", "attention", "trace", FLUFFY, "--model", str(tiny_gpt2_folder), "--out", str(out))
    assert done.returncode == 0, done.stderr
    data = np.load(out)
    ids = reference_tokenizer(FLUFFY)["input_ids"]
    assert [str(t) for t in data["tokens"]] == reference_tokenizer.convert_ids_to_tokens(ids)
    run = reference_run(reference, ids)
    assert data["weights"].shape == run.attentions.shape
    assert np.abs(data["weights"] - run.attentions).max() <= 1e-5
    assert np.abs(data["hidden"] - run.hidden).max() <= 1e-4


def hub_env(cache: Path, home: Path, offline: bool) -> dict[str, str]:
    """This process's environment with the Hugging Face cache moved to `cache`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGINGFACE_", "TRANSFORMERS_"))}
    env.update(HF_HUB_CACHE=str(cache), HF_HOME=str(home))
    if offline:
        env["HF_HUB_OFFLINE"] = "1"
    return env


LOAD_FROM_CACHE = f"""
import json, sys
import attention
model = attention.load_model("gpt2")
tr = attention.trace(model, {FLUFFY!r})
print(json.dumps({{
    "arch": model.config.family,
    "sizes": [model.config.n_layers, model.config.n_heads, model.config.d_model, model.config.vocab_size],
    "next": [[p.token, p.probability] for p in tr.next_tokens(top=5)],
    "available": {{c.name: c.available for c in attention.available_models()}},
    "torch_imported": "torch" in sys.modules,
}}))
"""


@pytest.mark.parametrize("offline", [True, False], ids=["offline", "online"])
def test_a_hub_name_is_read_from_the_local_cache(tiny_gpt2_folder, reference, reference_tokenizer, tmp_path, offline):
    """The tiny model installed as "gpt2": found in the cache first, so no network is needed even online."""
    install_in_hf_cache(tiny_gpt2_folder, "gpt2", tmp_path / "hub")
    done = run_python("-c", LOAD_FROM_CACHE, env=hub_env(tmp_path / "hub", tmp_path / "home", offline))
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    cfg = reference.config
    assert got["arch"] == "GPT-2 decoder"
    assert got["sizes"] == [cfg.n_layer, cfg.n_head, cfg.n_embd, cfg.vocab_size]  # the tiny model, not the real gpt2
    p = softmax(reference_run(reference, reference_tokenizer(FLUFFY)["input_ids"]).logits[-1].astype(np.float64))
    top = np.argsort(-p)[:5]
    assert [t for t, _ in got["next"]] == reference_tokenizer.convert_ids_to_tokens(top.tolist())
    assert np.abs(np.array([q for _, q in got["next"]]) - p[top]).max() <= 1e-5
    assert got["available"]["gpt2"] is True and got["available"]["distilgpt2"] is False
    assert got["torch_imported"] is False


MISSING_OFFLINE = """
import json, sys, time
import attention
start = time.perf_counter()
try:
    attention.load_model("distilgpt2")
    print(json.dumps({"raised": None}))
except attention.ModelUnavailableError as error:
    print(json.dumps({"raised": type(error).__name__, "message": str(error), "seconds": time.perf_counter() - start}))
"""


def test_a_model_missing_offline_fails_at_once_and_says_why(tmp_path):
    (tmp_path / "hub").mkdir()
    done = run_python("-c", MISSING_OFFLINE, env=hub_env(tmp_path / "hub", tmp_path / "home", offline=True), timeout=60)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["raised"] == "ModelUnavailableError"
    assert got["seconds"] < 3
    message = got["message"].lower()
    assert "distilgpt2" in message
    assert "offline" in message or "cache" in message


def test_the_server_path_never_imports_torch(tiny_gpt2_folder):
    code = (
        "import sys, attention\n"
        f"m = attention.load_model({str(tiny_gpt2_folder)!r})\n"
        "attention.trace(m, 'a fluffy blue').next_tokens()\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] in ('torch', 'transformers', 'sentence_transformers')))\n"
    )
    done = run_python("-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
