"""The lesson's computations, against the notes' worked numbers and properties that must hold."""

from __future__ import annotations

import numpy as np
import pytest

import attention
from attention import budget, context, cross, heads, kv_cache, masking, position, scaling, similarity

# --- 1. similarity ---------------------------------------------------------------------------


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


# --- 2. context --------------------------------------------------------------------------------


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
    assert np.allclose(w[0], similarity.NOTES_SOFTMAX_WEIGHTS[0], atol=0.005)  # the notes' first row, rounded
    e = np.exp(1.0)
    assert np.allclose(w[2], [1 / (2 + 2 * e)] * 2 + [e / (2 + 2 * e)] * 2)  # 0.134, 0.134, 0.366, 0.366
    s = 1 / np.sqrt(2)  # cos(orange, apple); orange is orthogonal to "and" and "an"
    assert np.allclose(w[0], np.exp([1, s, 0, 0]) / np.exp([1, s, 0, 0]).sum())  # 0.394, 0.288, 0.159, 0.159
    assert np.allclose(mixed.weights.sum(axis=1), 1.0)


def test_real_model_puts_apple_near_orange_or_phone_by_context(model):
    shift = context.context_shift(model, "apple", ["an apple and an orange", "an apple phone"], ["orange", "phone"])
    last = shift.similarity[-1]  # (sentences, references)
    assert last[0, 0] > last[0, 1]  # beside "orange": nearer orange than phone
    assert last[1, 1] > last[1, 0]  # beside "phone": nearer phone than orange
    assert np.allclose(shift.similarity[0, 0], shift.similarity[0, 1])  # before any layer, context plays no part


# --- 3 and 6, 7. queries, keys, values, heads ------------------------------------------------------


def test_query_key_scores_are_not_symmetric_but_self_similarity_is(model):
    layer = attention.trace(model, "a fluffy blue creature roamed the verdant forest").layers[0]
    assert heads.asymmetry(layer.scores[0]) > 0.1
    assert heads.asymmetry(heads.self_similarity(layer)) < 1e-6


def test_value_map_is_low_rank(model):
    vm = heads.value_map(model, 0, 0)
    assert vm.rank == model.config.d_head == 32
    assert vm.full_parameters == 384 * 384 and vm.low_rank_parameters == 2 * 384 * 32


def test_sum_of_heads_equals_concat_times_w_o(model):
    layer = attention.trace(model, "an apple and an orange").layers[3]
    summed = layer.displacement.sum(axis=0)  # each head's Δe^(h), added here
    assert np.abs(summed - heads.concat_then_project(layer)).max() <= 1e-5
    assert np.abs(layer.delta_sum - summed).max() <= 1e-5
    assert heads.concat_gap(layer) <= 1e-5


# --- 4. scaling -------------------------------------------------------------------------------------


@pytest.mark.parametrize("d_k", [4, 64, 512])
def test_dot_product_spread_grows_like_root_d_k(d_k):
    exp = scaling.scaling_experiment(d_k, seed=1)
    assert exp.dots.std() == pytest.approx(np.sqrt(d_k), rel=0.05)


def test_unscaled_softmax_collapses_onto_one_key():
    exp = scaling.scaling_experiment(512, n_keys=16, seed=2)
    assert exp.top_weight_raw > 0.9 and exp.entropy_raw < 0.3
    assert exp.entropy_scaled > 1.5 and exp.entropy_scaled <= exp.max_entropy


# --- 5. masking ---------------------------------------------------------------------------------------


def test_notes_worked_softmax_exact_values():
    w = masking.column_softmax(masking.NOTES_SCORES)
    assert np.allclose(w.sum(axis=0), 1.0)
    assert (w[np.tril_indices(4, -1)] == 0).all()
    assert w[0, 2] == pytest.approx(np.exp(1.9) / (np.exp(1.9) + np.exp(-0.2) + np.exp(0.99)))
    assert round(w[0, 2], 2) == 0.66 and masking.NOTES_ROUNDED[0, 2] == 0.69  # the notes' slip
    assert np.allclose(w[:2, 1], [0.75, 0.25], atol=0.002)


def test_softmax_of_the_notes_small_example():
    w = attention.ops.softmax(masking.NOTES_SMALL_EXAMPLE)
    assert w[1] == pytest.approx(1 / (1 + 2 * np.exp(-10)))  # 0.99991, not the notes' 0.67
    assert w[0] == w[2] == pytest.approx(np.exp(-10) / (1 + 2 * np.exp(-10)))


# --- 8. position ----------------------------------------------------------------------------------------


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


# --- 9. cross-attention -------------------------------------------------------------------------------


def test_cross_attention_shapes_and_self_case(model):
    ca = cross.cross_attention(model, "the cat sleeps", "le chat dort sur le tapis", layer=1, head=2)
    assert ca.weights.shape == (len(ca.target), len(ca.source))
    assert np.allclose(ca.weights.sum(axis=1), 1.0, atol=1e-6)
    same = cross.cross_attention(model, "an apple phone", "an apple phone", layer=1, head=2)
    assert np.allclose(same.weights, attention.trace(model, "an apple phone").layers[1].weights[2], atol=1e-6)


# --- 10. KV cache -----------------------------------------------------------------------------------------


def test_cached_steps_equal_full_causal_attention(model):
    layer = attention.trace(model, "a fluffy blue creature roamed the verdant forest", mask="causal").layers[2]
    run = kv_cache.cached_attention(layer, head=4)
    assert run.max_difference < 1e-6
    assert np.allclose(run.full_weights, layer.weights[4], atol=1e-6)


def test_cache_costs_grow_linearly_and_quadratically():
    c = kv_cache.cache_costs(100, n_layers=6, n_heads=12, d_head=32, d_model=384)
    assert np.allclose(np.diff(c.flops_with_cache, 2), 0)  # linear in t
    assert (np.diff(c.flops_without_cache, 2) > 0).all()  # quadratic in t
    assert c.cache_bytes[-1] == 2 * 6 * 384 * 100 * 4


# --- 11. parameter budget -------------------------------------------------------------------------------


def test_gpt3_budget_and_attention_share():
    b = budget.decoder_budget(budget.GPT3)
    assert b.total == 175_181_291_520  # 3Blue1Brown's tally of GPT-3's weight matrices
    assert b.group("attention") == 96 * 4 * 12288 * 12288
    assert 0.30 < b.share("attention") < 0.36


def test_gpt2_small_matches_its_published_count():
    # Hugging Face's gpt2 has 124,439,808 parameters: its unembedding is tied to the embedding (counted once), it
    # learns a position table, and its biases and LayerNorms add 121,344, which the tally leaves out.
    g = budget.GPT2_SMALL
    assert g.n_heads * g.d_head == g.d_model and g.d_ff == 4 * g.d_model
    b = budget.decoder_budget(g)
    unembedding = dict((name, n) for name, _, n in b.rows)["unembedding"]
    assert b.total - unembedding + g.context * g.d_model == 124_439_808 - 121_344


def test_loaded_model_budget_counts_every_parameter(model):
    b = budget.model_budget(model)
    assert b.total == model.n_parameters
    assert b.group("attention") == 6 * (4 * 384 * 384 + 4 * 384 + 2 * 384)


def test_value_contributions_add_up_to_the_displacement(model):
    layer = attention.trace(model, "a fluffy blue creature roamed the verdant forest").layers[1]
    parts = heads.value_contributions(layer, head=3, token=4)
    assert parts.shape == (13, 384)
    assert np.abs(parts.sum(axis=0) - layer.displacement[3, 4]).max() <= 1e-5
