"""The lesson's computations of the later chapters and of the decoders: the KV cache, the parameter budget, why
attention (a recurrent memory against attention's reach), the next word, and a decoder in the other chapters, each
against the notes' numbers, hand computations or transformers' GPT-2. The earlier chapters' are
tests/test_lessons.py's."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import attention
from attention import kv_cache
from attention.lessons import (
    budget,
    context,
    cross,
    heads,
    masking,
    motivation,
    position,
    prediction,
    similarity,
    window,
)
from tests.gpt2_counts import gpt2_of_sizes, parameters_by_group
from tests.sentences import FLUFFY
from tests.test_lessons import reference_run


def test_cached_steps_equal_full_causal_attention(model):
    layer = attention.trace(model, FLUFFY, mask="causal").layers[2]
    run = kv_cache.cached_attention(layer, head=4)
    assert run.max_difference < 1e-6
    assert np.allclose(run.full_weights, layer.weights[4], atol=1e-6)


def test_the_whole_model_step_by_step_with_a_cache_equals_the_causal_pass(model):
    tr = attention.trace(model, FLUFFY, mask="causal")
    run = kv_cache.generate_with_cache(model, tr)
    assert run.max_difference < 1e-4
    with pytest.raises(ValueError):
        kv_cache.generate_with_cache(model, attention.trace(model, FLUFFY))  # the unmasked pass is not a cache's


def test_the_decoders_generation_with_a_cache_equals_transformers_full_pass(tiny, tiny_reference):
    tr = attention.trace(tiny, FLUFFY)  # a decoder's own mask: causal
    run = kv_cache.generate_with_cache(tiny, tr)
    _, hidden = reference_run(tiny_reference, [t.id for t in tr.tokens])
    assert np.abs(run.hidden - hidden[-1]).max() < 1e-4  # transformers' last hidden state is after ln_f


def test_cache_costs_grow_linearly_and_quadratically(model):
    cfg = model.config
    c = kv_cache.cache_costs(100, n_layers=cfg.n_layers, n_heads=cfg.n_heads, d_head=cfg.d_head, d_model=cfg.d_model)
    assert np.allclose(np.diff(c.flops_with_cache, 2), 0)  # linear in t
    assert (np.diff(c.flops_without_cache, 2) > 0).all()  # quadratic in t
    tr = attention.trace(model, "the cat sat on the mat " * 30, mask="causal", max_tokens=100)
    kept = sum(layer.k_shared.nbytes + layer.v_shared.nbytes for layer in tr.layers)  # what a cache would hold
    assert tr.n_tokens == 100 and c.cache_bytes[-1] == kept


def test_a_sliding_window_caps_its_layers_cache_as_chapter_8_counts_it():
    """Gemma 3's 15 local layers keep only their last 512 tokens: at 1,024 tokens the cache holds what chapter 8's
    window lesson says it saves (a count over the layers' kinds), and up to the window nothing is saved."""
    cfg = attention.load_model("gemma3").config
    kinds = window.windows(cfg)
    sizes = dict(n_layers=cfg.n_layers, n_heads=cfg.n_heads, d_head=cfg.d_head, d_model=cfg.d_model)
    full = kv_cache.cache_costs(1024, **sizes, n_kv_heads=cfg.n_kv_heads)
    capped = kv_cache.cache_costs(
        1024, **sizes, n_kv_heads=cfg.n_kv_heads, window=kinds.window, n_local=len(kinds.local)
    )
    assert len(kinds.local) == 15 and kinds.window == 512
    assert capped.cache_bytes[511] == full.cache_bytes[511]
    assert np.isclose(capped.cache_bytes[-1], full.cache_bytes[-1] * (1 - kinds.cache_per_token_saved(cfg, 1024)))
    assert (capped.flops_with_cache <= full.flops_with_cache).all()


def test_gpt3_tally_follows_3blue1brown_and_the_full_count_is_its_published_175b():
    tally = budget.matrix_tally(budget.GPT3)
    assert tally.total == 175_181_291_520  # 3Blue1Brown's tally of GPT-3's weight matrices
    assert tally.group("attention") == 4 * 14_495_514_624  # his key, query, value and output rows
    full = budget.decoder_budget(budget.GPT3)
    g = budget.GPT3
    counted = parameters_by_group(gpt2_of_sizes(g.n_layers, g.n_heads, g.d_head, g.vocab, g.context))
    assert {group: full.group(group) for group in counted} == counted  # as transformers builds a GPT-2 that size
    assert full.total == sum(counted.values()) == 174_604_259_328
    assert budget.rounded(full.total, "B") == budget.GPT3.published == "175B"
    assert 0.30 < full.share("attention") < 0.36  # the notes' "about 1/3"


def test_gpt2_small_matches_hugging_faces_count_exactly():
    g = budget.GPT2_SMALL
    assert g.n_heads * g.d_head == g.d_model == 768 and g.d_ff == 4 * 768
    counted = parameters_by_group(gpt2_of_sizes(g.n_layers, g.n_heads, g.d_head, g.vocab, g.context))
    assert {group: budget.decoder_budget(g).group(group) for group in counted} == counted
    assert budget.decoder_budget(g).total == 124_439_808  # Hugging Face's gpt2
    assert budget.rounded(124_439_808, "M") == g.published == "124M"


def test_the_calculator_counts_a_decoder_as_transformers_does(tiny, tiny_reference):
    counted = budget.decoder_budget(budget.sizes_of(tiny.config)).total
    assert counted == sum(p.numel() for p in tiny_reference.parameters()) == tiny.n_parameters


def test_the_big_pictures_boxes_add_up_to_the_reference_models_parameters(model, st_model, tiny, tiny_reference):
    # BERT's pooler (a 384 × 384 layer for [CLS]) ships in the files but this model pools by the mean: unused
    used = sum(p.numel() for name, p in st_model.named_parameters() if ".pooler." not in name)
    assert budget.architecture(model).total == used
    arch = budget.architecture(tiny)
    assert arch.total == sum(p.numel() for p in tiny_reference.parameters())
    assert [p.key for p in arch.parts].index("norm_attention") < [p.key for p in arch.parts].index("attention")


def test_loaded_model_budget_counts_every_parameter(model, st_model):
    b = budget.model_budget(model)
    assert b.total == model.n_parameters
    # sentence-transformers' own: per layer, query, key, value, the output dense layer and the LayerNorm after them
    attention_ = sum(p.numel() for name, p in st_model.named_parameters() if ".attention." in name)
    assert b.group("attention") == attention_


def test_value_contributions_add_up_to_the_displacement(model):
    layer = attention.trace(model, FLUFFY).layers[1]
    parts = heads.value_contributions(layer, head=3, token=4)
    assert parts.shape == (13, 384)
    assert np.abs(parts.sum(axis=0) - layer.displacement[3, 4]).max() <= 1e-5


def test_the_recurrent_share_is_what_a_leaky_state_keeps_of_a_word():
    keep, n = 0.8, 12
    h = np.zeros(n)  # h_t = λ h_{t−1} + (1 − λ) x_t with one-hot x_t: h's coordinate i is word i's share
    for t in range(n):
        h = keep * h + (1 - keep) * np.eye(n)[t]
    assert np.allclose(h[::-1], motivation.recurrent_share(np.arange(n), keep))


def test_the_distance_experiment_reads_the_second_apples_weight_on_the_first(model):
    exp = motivation.distance_experiment(model, 256)
    assert list(exp.distances) == sorted(exp.distances) and exp.repeats == motivation.REPEATS
    tr = attention.trace(model, "my friend ate an apple" + motivation.FILLER * 16 + " and i ate an apple")
    apples = [t.position for t in tr.tokens if t.text == "apple"]
    assert exp.distances[-1] == apples[1] - apples[0]
    assert exp.best[-1] == tr.weights[exp.layer, exp.head, apples[1], apples[0]]
    assert motivation.tokens_apart(model, motivation.NOTES_SENTENCE, "Don't", "kill") == 13  # don ' t go … and kill


def test_every_positions_next_token_equals_transformers_lm_head(tiny, tiny_reference, tiny_gpt2_folder):
    """The guesses are the text tokens of transformers' own distribution, renormalised over them (GPT-2's
    <|endoftext|>, special in its tokenizer.json, set apart); the real token's probability and the loss are the
    model's own, over the whole vocabulary."""
    tr = attention.trace(tiny, FLUFFY)
    ids = [t.id for t in tr.tokens]
    logits, _ = reference_run(tiny_reference, ids)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    added = json.loads((tiny_gpt2_folder / "tokenizer.json").read_text())["added_tokens"]
    apart = [t["id"] for t in added if t["special"]]
    assert apart  # <|endoftext|>
    q = p.copy()
    q[:, apart] = 0
    q /= q.sum(axis=1, keepdims=True)
    guesses = prediction.every_next_token(tiny, tr, top=3)
    assert (guesses.top1_ids == q.argmax(axis=1)).all()
    shown = np.array([[g.probability for g in row] for row in guesses.guesses])
    assert np.abs(shown - np.sort(q)[:, ::-1][:, :3]).max() < 1e-5
    assert not {g.id for row in guesses.guesses for g in row} & set(apart)
    actual = p[np.arange(len(ids) - 1), ids[1:]]
    assert np.abs(guesses.actual_probability - actual).max() < 1e-5
    assert np.abs(guesses.actual_text_probability - q[np.arange(len(ids) - 1), ids[1:]]).max() < 1e-5
    assert guesses.loss == pytest.approx(-np.log(actual).mean(), abs=1e-5)
    assert np.abs(guesses.set_apart_share - p[:, apart].sum(axis=1)).max() < 1e-6
    assert guesses.guesses[-1][0].id == prediction.next_words_after(tiny, tr, 1).text[0].id  # the last position


def test_the_text_tokens_are_read_from_the_tokenizer_s_own_marks():
    """Special added tokens are control tokens, added tags are markup; the vocabulary's pieces, and added runs of
    spaces or newlines, are text. The rule never looks a token up by its spelling alone: a piece spelled <b> that
    the tokenizer did not add whole is text."""
    from tokenizers import AddedToken, Tokenizer, models

    from attention import text_tokens

    vocab = {"a": 0, "b": 1, "<b>": 2}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="a"))
    tokenizer.add_special_tokens([AddedToken("<|end|>", special=True)])  # 3
    tokenizer.add_tokens([AddedToken("<h1>", special=False), AddedToken("\n\n", special=False)])  # 4, 5
    kinds = text_tokens.token_kinds(tokenizer, 7)  # one more row than the tokenizer has tokens
    T, C, M = text_tokens.TEXT, text_tokens.CONTROL, text_tokens.MARKUP
    assert kinds.tolist() == [T, T, T, C, M, T, C]
    p = np.array([0.1, 0.2, 0.1, 0.4, 0.1, 0.1, 0.0])
    assert text_tokens.renormalised(p, kinds) == pytest.approx([0.2, 0.4, 0.2, 0, 0, 0.2, 0])


def test_an_encoder_predicts_no_next_token(model):
    with pytest.raises(ValueError, match="encoder"):
        prediction.every_next_token(model, attention.trace(model, FLUFFY))


def test_a_decoders_apple_cannot_see_the_words_after_it(tiny):
    shift = context.context_shift(tiny, "apple", ["an apple and an orange", "an apple phone"], ["orange", "phone"])
    assert np.allclose(shift.similarity[:, 0], shift.similarity[:, 1], atol=1e-6)  # same prefix, same vectors


def test_cross_attention_reads_what_a_decoders_heads_read(tiny):
    same = cross.cross_attention(tiny, FLUFFY, FLUFFY, layer=0, head=2)  # the first layer: the same input either way
    unmasked = attention.trace(tiny, FLUFFY, mask="none").layers[0].weights[2]
    assert np.allclose(same.weights, unmasked, atol=1e-6)  # the LayerNorm'd input, as GPT-2's heads read it


def test_shuffling_keeps_special_tokens_only_where_a_model_has_them(tiny):
    assert list(position.shuffled_order(6, 0, keep_first=True, keep_last=True)[[0, -1]]) == [0, 5]
    blind = position.shuffle_experiment(tiny, FLUFFY, seed=2)
    assert sorted(blind.order) == list(range(len(blind.order))) and blind.gap(0) < 1e-5


def test_the_additive_mask_is_zero_or_minus_infinity_and_gives_the_masked_softmax():
    m = masking.additive_mask(3)
    assert m.tolist() == [[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]]
    s = np.array([[1.0, 2.0, 3.0], [0.5, 0.0, 9.0], [0.0, 0.0, 0.0]])
    w = attention.ops.softmax(s + m)
    assert w[0].tolist() == [1.0, 0.0, 0.0]
    assert w[1, :2] == pytest.approx([math.exp(0.5) / (math.exp(0.5) + 1), 1 / (math.exp(0.5) + 1)])


def test_the_notes_12288_is_gpt3s_width_not_a_number_of_tokens():
    gpt3 = budget.GPT3
    assert budget.NOTES_EMBEDDING_WIDTH == gpt3.d_model == 96 * 128
    assert budget.NOTES_EMBEDDING_WIDTH not in (gpt3.vocab, gpt3.context)


def test_one_projection_makes_the_scores_symmetric_but_not_the_weights():
    sym = similarity.symmetric_scores()
    assert np.allclose(sym.scores, sym.scores.T)
    score, orange_and, and_orange = sym.pair("orange", "and")
    assert score == 0
    assert orange_and == pytest.approx(1 / (math.e + math.exp(1 / math.sqrt(2)) + 2))  # 0.14823
    assert and_orange == pytest.approx(1 / (2 + 2 * math.e))  # 0.13447
    assert np.allclose(sym.weights.sum(axis=1), 1)
