"""The projection and the who-moved-toward-whom table, on known geometry and on a real layer."""

from __future__ import annotations

import numpy as np
import pytest

import attention
from attention.lessons.geometry import (
    Move,
    after_heads,
    before_after,
    displacement_directions,
    displacement_picture,
    fit_projection,
    layer_before_after,
    moved_toward,
    summarise_moves,
)
from tests.sentences import FLUFFY


def test_pca_recovers_a_plane_exactly():
    rng = np.random.default_rng(0)
    basis = np.linalg.qr(rng.standard_normal((384, 2)))[0].T  # two orthonormal directions
    coords = rng.standard_normal((50, 2)) * [5.0, 1.0]
    points = coords @ basis + 3.0
    proj = fit_projection(points, 2)
    assert proj.explained_total == pytest.approx(1.0)
    assert proj.explained[0] > proj.explained[1]
    back = proj(points) @ proj.components + proj.mean
    assert np.allclose(back, points)


def test_projection_is_linear_so_arrows_add(model):
    layer = attention.trace(model, FLUFFY).layers[1]
    pic = displacement_picture(layer, dims=3)
    assert pic.e.shape == (13, 3) and pic.e_plus_head.shape == (12, 13, 3)
    arrows = pic.e_plus_head - pic.e[None]
    assert np.allclose(
        arrows.sum(axis=0), pic.projection(layer.x.astype(np.float64) + layer.delta_sum) - pic.e, atol=1e-5
    )
    assert 0.0 < pic.projection.explained_total <= 1.0
    # the lesson's Δe_j^(h) = (Σ_i w_ji v_i) W_O^(h), from the weights and values, measured in all d_model dimensions
    delta = np.einsum("hji,hid,hde->hje", layer.weights, layer.v, layer.w_o_heads, dtype=np.float64)
    assert np.allclose(pic.head_norms, np.linalg.norm(delta, axis=-1), rtol=1e-4)
    assert np.allclose(pic.sum_norms, np.linalg.norm(delta.sum(axis=0), axis=-1), rtol=1e-4)


def test_moved_toward_finds_the_pair_that_got_closer():
    before = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    after = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # token 0 turned toward token 1
    moves = moved_toward(before_after(before, after, centred=False))
    assert (moves[0].token, moves[0].toward) == (0, 1)
    assert moves[0].cos_before == pytest.approx(0.0) and moves[0].cos_after == pytest.approx(np.sqrt(0.5))


def test_the_mean_centred_cosine_ignores_a_shared_drift():
    """Every token pushed far along one shared direction: plain cosines all near 1, centred ones unchanged."""
    from attention.lessons.geometry import centred_cosine_matrix

    rng = np.random.default_rng(3)
    x = rng.standard_normal((6, 32))
    drift = 50 * rng.standard_normal(32)
    plain = before_after(x, x + drift, centred=False)
    assert plain.cos_after[~np.eye(6, dtype=bool)].min() > 0.9  # every token "closest" to every other
    assert np.allclose(centred_cosine_matrix(x + drift), centred_cosine_matrix(x))
    centred = x - x.mean(axis=0)
    unit = centred / np.linalg.norm(centred, axis=1, keepdims=True)
    assert np.allclose(centred_cosine_matrix(x), unit @ unit.T)  # by hand
    ba = before_after(x, x + drift)
    assert np.allclose(ba.cos_before, ba.cos_after)  # a drift alone moves no token toward another
    moves = moved_toward(before_after(x, x))
    summary = summarise_moves(moves)
    assert summary.n == 6 and 0 <= summary.to_neighbour <= 6
    counts = [[m.toward for m in moves].count(t) for t in range(6)]
    assert summary.commonest_count == max(counts)
    assert summary.commonest == tuple(t for t in range(6) if counts[t] == max(counts))  # every one that ties
    tied = summarise_moves([Move(0, 1, 0.0, 0.5), Move(2, 1, 0.0, 0.5), Move(1, 3, 0.0, 0.5), Move(4, 3, 0.0, 0.5)])
    assert tied.commonest == (1, 3) and tied.commonest_count == 2 and tied.to_neighbour == 3


def test_a_chain_ends_where_the_whole_sum_lands():
    rng = np.random.default_rng(5)
    start, steps = rng.standard_normal(384), rng.standard_normal((7, 384))
    from attention.lessons.geometry import chain

    c = chain(start, steps)
    assert c.points.shape == (8, 2) and c.steps.shape == (7, 2)
    assert np.allclose(c.points[-1], c.projection(start + steps.sum(axis=0)))
    assert np.allclose(c.steps.sum(axis=0), c.points[-1] - c.points[0])


def pca(points: np.ndarray, dims: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """The test's own PCA: (mean, directions) from numpy's SVD of the centred points."""
    mean = points.mean(axis=0)
    _, _, vt = np.linalg.svd(points - mean, full_matrices=False)
    return mean, vt[:dims]


def same_up_to_sign(a: np.ndarray, b: np.ndarray, atol: float) -> bool:
    """Two projections agree when each axis matches, or matches flipped (PCA fixes no sign)."""
    return all(
        np.allclose(a[..., i], b[..., i], atol=atol) or np.allclose(a[..., i], -b[..., i], atol=atol)
        for i in range(a.shape[-1])
    )


@pytest.fixture(scope="module")
def fluffy(model):
    return attention.trace(model, FLUFFY)


def test_the_heads_picture_is_fitted_to_the_heads_and_their_sum_only(fluffy):
    """The updated e′ (after a LayerNorm that moves the token much further) is not in the fit: the picture is
    the PCA of e, every e + Δe^(h) and e + ΣΔe, with Δe^(h) computed here from weights, values and W_O."""
    layer, j = fluffy.layers[1], 4
    delta = np.einsum("hi,hid,hde->he", layer.weights[:, j], layer.v, layer.w_o_heads, dtype=np.float64)
    e = layer.x[j].astype(np.float64)
    points = np.vstack([e, e + delta, e + delta.sum(axis=0)])
    mean, directions = pca(points)
    pic = displacement_picture(layer, token=j)
    shown = np.vstack([pic.e[j], pic.e_plus_head[:, j], pic.projection(points[-1])])
    assert same_up_to_sign(shown, (points - mean) @ directions.T, atol=1e-4)
    # and the fit really left e′ out: with it, the first direction would be another one
    _, with_updated = pca(np.vstack([points, layer.updated[j].astype(np.float64)]))
    assert abs(with_updated[0] @ directions[0]) < 0.99
    # laid tip to tail, the heads' arrows end on the sum
    chain = pic.tip_to_tail[:, j]
    assert np.allclose(chain[0], pic.e[j]) and np.allclose(chain[-1], pic.projection(points[-1]), atol=1e-4)
    assert np.allclose(np.diff(chain, axis=0), pic.e_plus_head[:, j] - pic.e[j], atol=1e-6)


def test_the_step_after_the_heads_of_an_encoder_is_a_layer_norm(fluffy, model):
    layer, j = fluffy.layers[0], 4
    after = after_heads(layer, j, bias=True, norm_position="post")
    e = layer.x[j].astype(np.float64)
    summed = e + np.einsum("hi,hid,hde->e", layer.weights[:, j], layer.v, layer.w_o_heads, dtype=np.float64)
    biased = summed + layer.b_o
    lengths = np.linalg.norm([summed - e, biased - summed, layer.updated[j] - biased], axis=1)
    assert len(after.points) == 4 and np.allclose(after.lengths, lengths, rtol=1e-4)
    # BERT's e′ is the LayerNorm of e + ΣΔe + b_O, with the layer's own gain and shift
    norm = model.layers[0].norm_attention
    normalized = (biased - biased.mean()) / np.sqrt(biased.var() + model.config.norm_eps)
    updated = normalized * norm.gamma + norm.beta
    assert np.allclose(layer.updated[j], updated, atol=1e-4)
    points = np.vstack([e, summed, biased, updated])
    mean, directions = pca(points)
    assert same_up_to_sign(after.points, (points - mean) @ directions.T, atol=1e-3)


def test_before_after_leaves_out_the_rows_not_shown(fluffy):
    """[CLS] and [SEP] hidden: the projection is the PCA of the other tokens alone (numpy's SVD here), and
    "moved most toward" picks among them the one whose mean-centred cosine rose most (computed here)."""
    layer = fluffy.layers[1]
    keep = [t.position for t in fluffy.tokens if not t.is_special]
    assert len(keep) == fluffy.n_tokens - 2
    ba = layer_before_after(layer, "attention", keep)
    before, after = layer.x[keep].astype(np.float64), layer.updated[keep].astype(np.float64)
    mean, directions = pca(np.vstack([before, after]))
    assert same_up_to_sign(ba.before, (before - mean) @ directions.T, atol=1e-4)
    assert same_up_to_sign(ba.after, (after - mean) @ directions.T, atol=1e-4)

    def cosines(m: np.ndarray) -> np.ndarray:  # mean-centred over the rows shown
        m = m - m.mean(axis=0)
        unit = m / np.linalg.norm(m, axis=1, keepdims=True)
        return unit @ unit.T

    change = cosines(after) - cosines(before)
    np.fill_diagonal(change, -np.inf)
    assert [m.toward for m in moved_toward(ba)] == list(change.argmax(axis=1))
    whole = layer_before_after(layer, "layer", keep)  # after the feed-forward too
    output = layer.output[keep].astype(np.float64)
    mean, directions = pca(np.vstack([before, output]))
    assert same_up_to_sign(whole.after, (output - mean) @ directions.T, atol=1e-4)
    with pytest.raises(ValueError):
        layer_before_after(layer, "ffn", keep)


def test_a_decoders_step_after_the_heads_has_no_layer_norm(tiny_gpt2_folder):
    """GPT-2 adds the heads' sum and b_O to e and stops there: e′ is e + ΣΔe + b_O, the third point."""
    gpt2 = attention.load_model(str(tiny_gpt2_folder))
    layer, j = attention.trace(gpt2, FLUFFY).layers[1], 3
    after = after_heads(layer, j, bias=True, norm_position="pre")
    e = layer.x[j].astype(np.float64)
    summed = e + np.einsum("hi,hid,hde->e", layer.weights[:, j], layer.v, layer.w_o_heads, dtype=np.float64)
    assert np.allclose(layer.updated[j], summed + layer.b_o, atol=1e-4)
    assert len(after.points) == 3 and len(after.lengths) == 2
    assert after.lengths[1] == pytest.approx(np.linalg.norm(layer.b_o), rel=1e-5)
    assert after.projection.explained_total == pytest.approx(1.0)  # three distinct points lie in a plane


def test_gemma_s_step_after_the_heads_normalises_their_sum_before_adding_it():
    """Gemma's sandwich: e′ = e + RMSNorm(ΣΔe), the norm with the layer's own gains, no bias. The picture's steps
    are the model's: one, e → e′, as long as RMSNorm(ΣΔe); e + ΣΔe, a point Gemma never forms, is drawn apart."""
    from attention import ops

    gemma = attention.load_model("gemma3")
    layer, j = attention.trace(gemma, FLUFFY).layers[2], 3
    after = after_heads(layer, j, bias=False, norm_position="sandwich")
    gains = gemma.layers[2].norm_attention_out.gamma
    normalised = ops.rms_norm(layer.delta_sum[j].astype(np.float64), gains, gemma.config.norm_eps)
    assert np.allclose(layer.updated[j], layer.x[j] + normalised, rtol=1e-5, atol=1e-4)
    assert len(after.points) == 2 and len(after.lengths) == 1
    assert after.lengths[0] == pytest.approx(np.linalg.norm(normalised), rel=1e-4)
    assert after.unadded_length == pytest.approx(np.linalg.norm(layer.delta_sum[j]), rel=1e-5)
    e = layer.x[j].astype(np.float64)
    points = np.vstack([e, e + normalised, e + layer.delta_sum[j]])
    mean, directions = pca(points)
    drawn = np.vstack([after.points, after.unadded])
    assert same_up_to_sign(drawn, (points - mean) @ directions.T, atol=1e-2)
    with pytest.raises(ValueError):
        after_heads(layer, j, bias=False, norm_position="middle")


def test_moves_in_a_plane_are_drawn_at_their_full_length_however_far_apart_the_tokens_are():
    rng = np.random.default_rng(1)
    plane = np.linalg.qr(rng.standard_normal((384, 2)))[0].T  # (2, d_model): two orthonormal directions
    delta = rng.standard_normal((9, 2)) @ plane  # every move lies in that plane
    mv = displacement_directions(delta)
    assert mv.projection.explained_total == pytest.approx(1.0)
    assert np.allclose(np.linalg.norm(mv.moves, axis=1), np.linalg.norm(delta, axis=1))
    assert np.allclose(mv.lengths, np.linalg.norm(delta, axis=1))


def test_the_moves_picture_keeps_more_of_the_moves_than_the_embeddings_picture(model):
    layer = attention.trace(model, FLUFFY).layers[0]
    delta = layer.delta_sum.astype(np.float64)
    mv = displacement_directions(delta)
    # the share of Σ|Δe|² the plane keeps, measured directly, is what its axes say
    kept = float((mv.moves**2).sum() / (delta**2).sum())
    assert mv.projection.explained_total == pytest.approx(kept)
    assert np.all(np.linalg.norm(mv.moves, axis=1) <= mv.lengths + 1e-9)  # a projection never lengthens
    # the embeddings' own plane (before_after) keeps far less of the moves: why its arrows looked like dots
    ba = before_after(layer.x, layer.x + layer.delta_sum)
    kept_there = float(((ba.after - ba.before) ** 2).sum() / (delta**2).sum())
    assert kept > 0.5 > kept_there
