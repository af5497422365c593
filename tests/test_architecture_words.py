"""The words a page says about a model come from its fields (ui/words/architecture/): checked on the three bundled
models' configs and on made-up ones, and on every page of the app for the two decoders, whose pages must say
nothing that describes another architecture."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

import attention
from app_driver.apptest import run_page
from app_driver.words import PAGES, page_text
from attention.lessons import budget
from ui.words import architecture


@pytest.fixture(scope="module")
def configs() -> dict[str, attention.ModelConfig]:
    return {
        name: attention.load_model(None if name == "minilm" else name).config
        for name in ("minilm", "smollm2", "gemma3")
    }


def test_a_rotary_model_is_never_said_to_learn_positions(configs):
    for name in ("smollm2", "gemma3"):
        cfg = configs[name]
        words = architecture.positions_sentence(cfg) + architecture.distance_enters(cfg)
        assert "learned vector" not in words and "position vectors" not in words
        assert "+ P" not in architecture.embedding_latex(cfg) and "rotated" in architecture.embedding_latex(cfg)
        assert architecture.positions_noun(cfg) == "rotary positions"
    assert architecture.positions_noun(configs["minilm"]) == "position embeddings"
    assert r"P_i + T_0" in architecture.embedding_latex(configs["minilm"])


def test_a_bias_free_model_s_equations_have_no_bias(configs):
    for name in ("smollm2", "gemma3"):
        cfg = configs[name]
        text = architecture.qkv_latex(cfg) + architecture.after_heads_latex(cfg) + architecture.after_heads_note(cfg)
        assert "b_" not in text
        assert all("b_" not in architecture.budget_row(cfg, key) for key in ("query", "key", "value", "output"))
    assert "b_Q" in architecture.qkv_latex(configs["minilm"]) and "b_O" in architecture.after_heads_latex(
        configs["minilm"]
    )


def test_each_model_s_step_after_the_heads(configs):
    assert [step.name for step in architecture.after_heads_steps(configs["minilm"])] == [
        "e",
        "e + ΣΔe",
        "e + ΣΔe + b<sub>O</sub>",  # drawn with its subscript: "b_O" was printed as typed
        "e′ = LayerNorm(e + ΣΔe + b<sub>O</sub>)",
    ]
    assert not architecture.has_step_after_heads(configs["smollm2"])  # e′ = e + ΣΔe: nothing to show
    # Gemma normalises the heads' sum before adding it: one step, e → e′, and e + ΣΔe is no point it reaches
    gemma = architecture.after_heads_steps(configs["gemma3"])
    assert [step.name for step in gemma] == ["e", "e′ = e + RMSNorm(ΣΔe)"] and gemma[1].kind == "norm"
    assert architecture.has_step_after_heads(configs["gemma3"])
    assert architecture.unadded_sum(configs["gemma3"]) and not architecture.unadded_sum(configs["minilm"])
    assert architecture.heads_sum_tip(configs["gemma3"])[0] == "ΣΔe"
    assert architecture.heads_sum_tip(configs["smollm2"])[0] == "e + ΣΔe"


def test_gemma_s_own_features_are_named(configs):
    cfg = configs["gemma3"]
    assert r"\operatorname{RMSNorm}_q" in architecture.qkv_latex(cfg)
    assert "QK-norm" in architecture.qk_norm_sentence(cfg)
    assert r"\sqrt{640}" in architecture.embedding_latex(cfg) and "√640" in architecture.positions_sentence(cfg)
    assert architecture.sharing_name(cfg) == "multi-query attention"
    assert architecture.sharing_name(configs["smollm2"]) == "grouped-query attention"
    assert architecture.sharing_name(configs["minilm"]) == "multi-head attention"
    assert "sliding window of 512" in architecture.mask_sentence(cfg)
    assert "sliding" not in architecture.mask_sentence(configs["smollm2"])
    assert "GeGLU" in architecture.mlp_name(cfg) and "SwiGLU" in architecture.mlp_name(configs["smollm2"])
    assert "before and after" in architecture.block_sentence(cfg)
    assert architecture.specials_named(cfg) == "<bos>" and architecture.specials_named(configs["smollm2"]) == ""
    assert architecture.specials_named(configs["minilm"]) == "[CLS] and [SEP]"


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("norm", "scale"),
        ("norm_position", "middle"),
        ("positions", "alibi"),
        ("mlp", "relu"),
        ("native_mask", "prefix"),
    ],
)
def test_a_field_value_with_no_words_raises(configs, field, value):
    """A new family is never described as an old one: a value the module has no words for stops the page."""
    cfg = dataclasses.replace(configs["smollm2"], **{field: value})
    describe = [
        architecture.positions_sentence,
        architecture.embedding_latex,
        architecture.qkv_latex,
        architecture.mask_sentence,
        architecture.after_heads_latex,
        architecture.block_sentence,
        architecture.mlp_name,
        architecture.norm_name,
    ]
    raised = 0
    for words in describe:
        try:
            words(cfg)
        except ValueError as exc:
            assert field in str(exc) and value in str(exc)
            raised += 1
    assert raised >= 1


def test_the_calculator_s_gap_adds_up_to_the_arrays(configs):
    """Each assumption of GPT-2's structure replaced by the model's own: the changes add up to exactly the arrays'
    count minus the calculator's, and each one is named in words."""
    for name in ("smollm2", "gemma3"):
        model = attention.load_model(name)
        calculator = budget.decoder_budget(budget.sizes_of(model.config)).total
        gap = budget.calculator_gap(model)
        assert calculator + sum(change for _, change in gap) == model.n_parameters == budget.model_budget(model).total
        sentence = architecture.gap_sentence(model.config, gap)
        assert all(f"{abs(change):,}" in sentence for _, change in gap)
    assert dict(budget.calculator_gap(attention.load_model("gemma3")))["gated"] > 0
    structure = dict(
        n_layers=12,
        d=768,
        width=768,
        kv_width=768,
        d_ff=3072,
        vocab=50257,
        positions=1024,
        biases=attention.model.ALL_BIASES,
    )
    assert budget.gpt_count(**structure, norm_size=1536, norms_per_layer=2, gated=False) == 124_439_808  # gpt2


def test_the_parameter_table_has_only_the_rows_a_model_has(configs):
    rows = {
        name: [r[0] for r in budget.model_budget(attention.load_model(None if name == "minilm" else name)).rows]
        for name in configs
    }
    assert "position" not in rows["smollm2"] and "gate" in rows["smollm2"] and "qk_norm" not in rows["smollm2"]
    assert {"qk_norm", "norm_attention_out", "norm_ffn_out", "gate"} <= set(rows["gemma3"])
    assert "position" in rows["minilm"] and "gate" not in rows["minilm"]


# --- every page, read on each decoder ----------------------------------------------------------------------------

# Sentences that describe another architecture than the loaded one. A page may still name another family where it
# compares (the GPT-2 calculator of chapter 14, BERT's [SEP] in the research chapter 10 cites): those say so.
ANOTHER_ARCHITECTURE = {
    "smollm2": [
        r"\[CLS\]",
        r"learned vector for its position",
        r"\bb_O\b",
        r"\bb_Q\b",
        r"GPT-2:",
        r"W_E\[t_?i?\] \+ P",
        r"[Pp]osition embeddings",
        r"position vectors",
        r"<bos>",
        r"no LayerNorm",
        r"LayerNorm\(",
        r"RMSNorm\}_q",  # QK-norm in an equation of the model (chapters 6 and 8 name QK-norm and windows to point elsewhere)
        r"sliding window of \d",
    ],
    "gemma3": [
        r"\[CLS\]",
        r"learned vector for its position",
        r"\bb_O\b",
        r"\bb_Q\b",
        r"GPT-2:",
        r"W_E\[t_?i?\] \+ P",
        r"[Pp]osition embeddings",
        r"position vectors",
        r"LayerNorm\(",
        r"SwiGLU",
        r"grouped-query attention\*\*",
    ],
}


# the glossary defines every term of the lesson, whichever model is loaded: it describes no model
MODEL_PAGES = [p for p in PAGES if not p.endswith("glossary.py")]


@pytest.mark.parametrize("model", list(ANOTHER_ARCHITECTURE))
@pytest.mark.parametrize("page", MODEL_PAGES, ids=[Path(p).stem for p in MODEL_PAGES])
def test_no_page_describes_another_architecture(model, page):
    at = run_page(page, model=model)
    assert not at.exception
    found = [
        (pattern, text[max(0, m.start() - 60) : m.end() + 40])
        for text in page_text(at)
        for pattern in ANOTHER_ARCHITECTURE[model]
        for m in re.finditer(pattern, text or "")
    ]
    assert found == []


@pytest.mark.parametrize(
    "name, added",
    [
        ("all-MiniLM-L6-v2", "Add & LayerNorm x + attention(x), then 384 gains"),  # post-norm: the sum, then its norm
        ("smollm2", "Residual: x + attention(RMSNorm(x))"),  # pre-norm: the heads read a normalised x
        ("gemma3", "Residual: x + RMSNorm(attention(RMSNorm(x)))"),  # sandwich: the heads' output normalised too
    ],
)
def test_the_residual_box_adds_what_the_sub_layer_computes(name, added):
    words = " ".join(architecture.part_words(attention.load_model(name), "add_attention"))
    assert added in words
