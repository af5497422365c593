"""The Qwen2 family: its numpy trace against transformers' Qwen2ForCausalLM on the same tiny Qwen2, and the explorer
drawn on it, words included.

Qwen2 is a Llama whose queries, keys and values add a bias, and nothing else does: the family is one preset of
fields (attention/families.py) and one reader (attention/folder.py), and everything else follows from the fields.
The model is built here, at test time (tests/tiny_qwen2.py): transformers reads the folder with its own code, the
engine with numpy, and every number is compared on four sentences. Then the explorer runs on it, the folder laid out
where a download of "gpt2" would be, and what it says about the biases is read back.

    pytest tests/test_qwen2.py -s    # -s prints the largest differences measured
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch
from transformers import AutoTokenizer, Qwen2ForCausalLM
from transformers.models.qwen2 import modeling_qwen2

import attention
from app_driver.apptest import array, figure, figures, run_page
from attention import ops
from attention.lessons import budget
from tests.llama_reference import Measurements, differences, head_displacements, reference_run, relative, softmax
from tests.sentences import FLUFFY
from tests.tiny_qwen2 import build_tiny_qwen2
from ui.words import architecture

SENTENCES = [
    FLUFFY,
    "the bank by the river bank",  # a repeated word
    "In 1969, 3 astronauts flew 384,400 km to the Moon!",  # digits and punctuation
    "Café déjà vu: naïve façades in São Paulo",  # accents: several bytes per character
]
TOLERANCE = 1e-5  # weights, hidden states (relative to each layer's largest) and next-token probabilities
MEASURED = Measurements()


@pytest.fixture(scope="module", autouse=True)
def report_largest_differences():
    yield
    print("\n\n" + MEASURED.table("tiny Qwen2 vs transformers: the largest differences measured"))


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return build_tiny_qwen2(tmp_path_factory.mktemp("tiny-qwen2"))


@pytest.fixture(scope="module")
def reference(folder):
    return Qwen2ForCausalLM.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32).eval()


@pytest.fixture(scope="module")
def model(folder):
    return attention.load_model(str(folder))


def test_the_family_is_read_as_its_fields(model, reference):
    c = model.config
    assert c.family == "Qwen2 decoder" and c.is_decoder
    assert (c.norm, c.norm_position, c.positions, c.mlp) == ("rms", "pre", "rotary", "swiglu")
    assert (c.n_heads, c.n_kv_heads, c.d_model) == (4, 2, 64)
    assert c.biases == {"q", "k", "v"} and not c.has_bias("o") and not c.has_bias("mlp")
    for layer, theirs in zip(model.layers, reference.model.layers, strict=True):
        attn = theirs.self_attn
        for mine, linear in ((layer.b_q, attn.q_proj), (layer.b_k, attn.k_proj), (layer.b_v, attn.v_proj)):
            assert np.array_equal(mine, linear.bias.detach().numpy())
        assert attn.o_proj.bias is None and layer.b_o is None and layer.b_ff1 is None and layer.b_ff2 is None


def test_the_biases_move_the_scores(model):
    """Guard on the tiny model: its scores without q's and k's biases are far from its own, so that an engine that
    dropped a bias could not pass the comparisons below."""
    cfg, w = model.config, model.layers[0]
    layer = attention.trace(model, FLUFFY).layers[0]
    angles = ops.rope_angles(np.arange(layer.x.shape[0]), cfg.d_head, cfg.rope_base)
    q = ops.rope(ops.split_heads(ops.linear(layer.attention_input, w.w_q), cfg.n_heads), angles)
    k = ops.rope(ops.split_heads(ops.linear(layer.attention_input, w.w_k), cfg.n_kv_heads), angles)
    without = ops.scores(q, ops.share_kv(k, cfg.n_heads))
    assert np.allclose(ops.scores(layer.q, layer.k), layer.scores, atol=1e-4)  # the check reads the trace's steps
    assert relative(without, layer.scores) > 0.2


@pytest.mark.parametrize("text", SENTENCES)
def test_same_tokens_as_the_reference_tokenizer(model, folder, text):
    reference_tokenizer = AutoTokenizer.from_pretrained(folder)
    ids = reference_tokenizer(text)["input_ids"]
    assert [t.id for t in attention.trace(model, text).tokens] == ids


@pytest.mark.parametrize("text", SENTENCES)
def test_weights_hidden_states_and_probabilities_equal_transformers(model, reference, text):
    found = differences(model, reference, text, modeling=modeling_qwen2)
    for name in ("weights", "hidden", "probabilities"):
        assert MEASURED.record(name, found[name], TOLERANCE), (name, found[name])
    for name in ("q", "k", "v", "displacement"):  # relative to their largest magnitude
        assert MEASURED.record(name, found[name], 1e-4), (name, found[name])


def test_each_heads_displacement_sums_to_o_proj_with_no_bias(model, reference):
    tr = attention.trace(model, FLUFFY)
    run = reference_run(reference, [t.id for t in tr.tokens], modeling=modeling_qwen2)
    for i, layer in enumerate(tr.layers):
        assert relative(layer.displacement, head_displacements(reference, run, i)) <= 1e-4
        assert relative(layer.displacement.sum(0), run.attention_output[i]) <= 1e-4
        assert not np.any(layer.b_o)


def test_an_untied_output_head_is_read(tmp_path):
    folder = build_tiny_qwen2(tmp_path / "untied", tied=False)
    reference = Qwen2ForCausalLM.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32).eval()
    model = attention.load_model(str(folder))
    assert model.output is not None
    tr = attention.trace(model, FLUFFY)
    run = reference_run(reference, [t.id for t in tr.tokens], modeling=modeling_qwen2)
    p, mine = softmax(run.logits[-1].astype(np.float64)), softmax(tr.next_logits.astype(np.float64))
    assert MEASURED.record("probabilities (untied head)", np.abs(mine - p).max(), TOLERANCE)


def test_the_parameter_count_adds_up_with_q_k_v_biases_only(model, reference):
    """GPT-2's structure, each assumption replaced by the model's own: the changes reach the arrays' count, which is
    transformers' own, and the sentence names the three biases it has."""
    calculator = budget.decoder_budget(budget.sizes_of(model.config)).total
    gap = budget.calculator_gap(model)
    theirs = sum(p.numel() for p in reference.parameters())  # a tied head counted once
    assert calculator + sum(change for _, change in gap) == model.n_parameters == theirs
    assert "biases" in dict(gap)
    said = architecture.gap_sentence(model.config, gap)
    assert "its only biases are b_Q, b_K, and b_V" in said, said


# --- the explorer, drawn on it --------------------------------------------------------------------------------


@pytest.fixture
def qwen2_as_gpt2(folder, tmp_path, empty_cache):
    """The tiny Qwen2 where a download of "gpt2" would be: the menu offers it under that name, and every page
    reads what it does from its fields."""
    from tests.tiny_gpt2 import install_in_hf_cache
    from ui.session import engine, models

    def let_go() -> None:  # another test of this process may have loaded its own "gpt2" (the tiny GPT-2)
        models._slot().pop("gpt2", None)
        engine.forget("gpt2")

    install_in_hf_cache(folder, "gpt2", tmp_path / "hub")
    let_go()
    yield
    let_go()


def every_text(at) -> list[str]:
    texts = [e.value for kind in ("markdown", "caption", "latex", "info", "warning") for e in at.get(kind)]
    texts += [t.label for t in at.toggle]
    for spec in figures(at).values():
        layout = spec["layout"]
        texts.append((layout.get("title") or {}).get("text", ""))
        texts += [a.get("text", "") for a in layout.get("annotations", [])]
        texts += [str(t.get("text", "")) for t in spec["data"]]
    return texts


def test_the_explorer_draws_qwen2_with_its_own_biases(qwen2_as_gpt2, model, reference):
    at = run_page(model="gpt2", layer="2", head="3")
    assert not at.exception
    drawn = figures(at)
    assert len(drawn) >= 8, list(drawn)
    # the q/k/v equation with their biases, and no b_O anywhere: this model has none
    qkv = [e.value for e in at.latex if "q_i =" in e.value]
    assert qkv and all(f"W_{m} + b_{m}" in qkv[0] for m in "QKV"), qkv
    texts = every_text(at)
    assert not [t for t in texts if "b_O" in t or "b<sub>O</sub>" in t]
    assert any("e′ = e + ΣΔe" in t and "no bias" in t for t in texts)
    assert not [t for t in drawn if t.startswith("The step after")]
    # every head's weights in the grid are transformers' own
    tr = attention.trace(model, FLUFFY)
    run = reference_run(reference, [t.id for t in tr.tokens], modeling=modeling_qwen2)
    heatmaps = [t for t in figure(at, "All 4 heads")["data"] if t["type"] == "heatmap"]
    assert len(heatmaps) == 4
    for h, trace in enumerate(heatmaps):
        shown = np.nan_to_num(array(trace["z"]).astype(float))
        assert MEASURED.record("the explorer's grid (layer 2)", np.abs(shown - run.attentions[1, h]).max(), 1e-5)


def test_a_bias_its_family_does_not_add_is_refused_not_dropped(folder, tmp_path):
    """The same files called a Llama (which adds no bias): the reader refuses q's bias instead of reading the model
    without it, which would draw other numbers under a Llama's words."""
    relabelled = tmp_path / "qwen2-as-llama"
    shutil.copytree(folder, relabelled)
    cfg = json.loads((relabelled / "config.json").read_text())
    (relabelled / "config.json").write_text(json.dumps(cfg | {"model_type": "llama", "architectures": ["Llama"]}))
    with pytest.raises(attention.UnsupportedModelError, match=r"attn_q\.bias is a bias"):
        attention.load_model(str(relabelled))
