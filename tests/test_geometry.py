"""The projection and the who-moved-toward-whom table, on known geometry and on a real layer."""

from __future__ import annotations

import numpy as np
import pytest

import attention
from attention.geometry import before_after, displacement_picture, fit_projection, moved_toward


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
    layer = attention.trace(model, "a fluffy blue creature roamed the verdant forest").layers[1]
    pic = displacement_picture(layer, dims=3)
    assert pic.e.shape == (13, 3) and pic.e_plus_head.shape == (12, 13, 3)
    arrows = pic.e_plus_head - pic.e[None]
    assert np.allclose(arrows.sum(axis=0), pic.e_plus_sum - pic.e, atol=1e-6)
    assert 0.0 < pic.projection.explained_total <= 1.0
    # the lesson's Δe_j^(h) = (Σ_i w_ji v_i) W_O^(h), from the weights and values, measured in all d_model dimensions
    delta = np.einsum("hji,hid,hde->hje", layer.weights, layer.v, layer.w_o_heads, dtype=np.float64)
    assert np.allclose(pic.head_norms, np.linalg.norm(delta, axis=-1), rtol=1e-4)
    assert np.allclose(pic.sum_norms, np.linalg.norm(delta.sum(axis=0), axis=-1), rtol=1e-4)


def test_moved_toward_finds_the_pair_that_got_closer():
    before = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    after = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])  # token 0 turned toward token 1
    moves = moved_toward(before_after(before, after))
    assert (moves[0].token, moves[0].toward) == (0, 1)
    assert moves[0].cos_before == pytest.approx(0.0) and moves[0].cos_after == pytest.approx(np.sqrt(0.5))


def test_a_chain_ends_where_the_whole_sum_lands():
    rng = np.random.default_rng(5)
    start, steps = rng.standard_normal(384), rng.standard_normal((7, 384))
    from attention.geometry import chain

    c = chain(start, steps)
    assert c.points.shape == (8, 2) and c.steps.shape == (7, 2)
    assert np.allclose(c.points[-1], c.projection(start + steps.sum(axis=0)))
    assert np.allclose(c.steps.sum(axis=0), c.points[-1] - c.points[0])
