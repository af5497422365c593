"""Pictures of d_model-dimensional vectors: a PCA projection fitted per sentence, and who moved toward whom."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import ops
from ..traced import LayerTrace


@dataclass(frozen=True)
class Projection:
    mean: np.ndarray  # (d_model,)
    components: np.ndarray  # (dims, d_model): orthonormal principal directions
    explained: np.ndarray  # (dims,): fraction of the fitted points' variance along each direction

    @property
    def explained_total(self) -> float:
        return float(self.explained.sum())

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """(..., d_model) -> (..., dims)."""
        return (x - self.mean) @ self.components.T


def fit_projection(points: np.ndarray, dims: int = 2, about_origin: bool = False) -> Projection:
    """PCA with numpy's SVD on (n_points, d_model); each direction's sign fixed so its largest loading is positive.

    about_origin: fit the points as they are, not their spread about their mean: for vectors that all start at
    one point (displacements), the directions that keep the most of their squared lengths."""
    if dims not in (2, 3):
        raise ValueError("A projection is drawn in 2 or 3 dimensions.")
    points = np.asarray(points, dtype=np.float64)
    mean = np.zeros(points.shape[1]) if about_origin else points.mean(axis=0)
    centred = points - mean
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    var = s**2
    total = var.sum()
    components = vt[:dims]
    signs = np.sign(components[np.arange(len(components)), np.abs(components).argmax(axis=1)])
    components = components * np.where(signs == 0, 1.0, signs)[:, None]
    explained = var[:dims] / total if total > 0 else np.zeros(len(components))
    if len(components) < dims:  # fewer points than dimensions: pad with zero directions
        pad = dims - len(components)
        components = np.vstack([components, np.zeros((pad, points.shape[1]))])
        explained = np.concatenate([explained, np.zeros(pad)])
    return Projection(mean=mean, components=components, explained=explained)


@dataclass(frozen=True)
class AfterHeads:
    """One token's step after its heads, as the model computes it, in a projection of its own.

    After the heads' sum ΣΔe, a model adds the bias b_O where it has one, and its norm comes in one of three places
    (the config's norm_position): around e + ΣΔe (BERT's post-norm: e′ = LayerNorm(e + ΣΔe + b_O)), nowhere (a
    pre-norm model: e′ = e + ΣΔe + b_O), or on the sum before it is added (Gemma's sandwich: e′ = e + RMSNorm(ΣΔe),
    which never forms e + ΣΔe). `points` are the points the model reaches, in order; in a sandwich, e + ΣΔe is
    drawn apart (`unadded`), the sum as the heads made it, to compare with what the norm made of it."""

    projection: Projection  # fitted to these points (and `unadded`) alone
    points: np.ndarray  # (2 to 4, dims): e, then each point the model reaches, e′ the last
    lengths: np.ndarray  # each step's length, in all d_model dimensions
    unadded: np.ndarray | None = None  # (dims,): e + ΣΔe (+ b_O) where the norm acts on the sum before it is added
    unadded_length: float | None = None  # |ΣΔe (+ b_O)| there, in all d_model dimensions


@dataclass(frozen=True)
class DisplacementPicture:
    """One layer's moves, projected: e_j, e_j + Δe_j^(h) per head and e_j + ΣΔe_j; the step after, apart."""

    projection: Projection
    e: np.ndarray  # (n_tokens, dims)
    e_plus_head: np.ndarray  # (n_heads, n_tokens, dims)
    tip_to_tail: np.ndarray  # (n_heads + 1, n_tokens, dims): e, e + Δe^(1), e + Δe^(1) + Δe^(2), …, e + ΣΔe (the last)
    head_norms: np.ndarray  # (n_heads, n_tokens): |Δe^(h)| in d_model, not in the projection
    sum_norms: np.ndarray  # (n_tokens,): |Σ_h Δe^(h)|
    after: AfterHeads | None  # the followed token's step after the heads (None when no token is followed)


def displacement_picture(
    layer: LayerTrace, dims: int = 2, token: int | None = None, *, bias: bool = True, norm_position: str = "post"
) -> DisplacementPicture:
    """Project the heads' moves with one PCA, fitted to e, every e + Δe^(h) and e + ΣΔe only.

    The updated e′ is left out of the fit: a LayerNorm moves a token much further than its heads do,
    and would shrink their arrows to a blob. It gets its own picture (`after`).
    token: fit to that token's points alone, so that its arrows fill the picture; None fits every token's.
    bias, norm_position: what comes after the heads (see after_heads).
    """
    e = layer.x.astype(np.float64)
    disp = layer.displacement.astype(np.float64)  # (n_heads, n_tokens, d_model)
    delta_sum = layer.delta_sum.astype(np.float64)  # (n_tokens, d_model)
    d_model = e.shape[1]
    rows = slice(None) if token is None else slice(token, token + 1)
    points = np.concatenate([e[rows], (e[None, rows] + disp[:, rows]).reshape(-1, d_model), (e + delta_sum)[rows]])
    proj = fit_projection(points, dims)
    # the projection is affine: e + Δe lands at proj(e) + Δe's own projection, and a sum of moves at the sum of
    # theirs; projected so, no (n_heads, n_tokens, d_model) point is formed (25 ms of a 128-token paragraph's run)
    at = proj(e)
    moves = disp @ proj.components.T  # (n_heads, n_tokens, dims)
    return DisplacementPicture(
        projection=proj,
        e=at,
        e_plus_head=at[None] + moves,
        tip_to_tail=at[None] + np.concatenate([np.zeros_like(moves[:1]), np.cumsum(moves, axis=0)]),
        head_norms=np.linalg.norm(disp, axis=-1),
        sum_norms=np.linalg.norm(delta_sum, axis=-1),
        after=None if token is None else after_heads(layer, token, dims, bias=bias, norm_position=norm_position),
    )


NORM_POSITIONS = ("post", "pre", "sandwich")  # ModelConfig.norm_position: where the norm sits (see AfterHeads)


def after_heads(layer: LayerTrace, token: int, dims: int = 2, *, bias: bool, norm_position: str) -> AfterHeads:
    """The followed token from e to e′ as the model computes it (see AfterHeads), in a PCA of those points."""
    if norm_position not in NORM_POSITIONS:
        raise ValueError(f"norm_position must be one of {NORM_POSITIONS}, not {norm_position!r}.")
    e = layer.x[token].astype(np.float64)
    summed = layer.delta_sum[token].astype(np.float64) + (layer.b_o.astype(np.float64) if bias else 0.0)
    updated = layer.updated[token].astype(np.float64)
    if norm_position == "sandwich":  # e′ = e + Norm(ΣΔe): one step; e + ΣΔe is never formed
        points, unadded = np.stack([e, updated]), e + summed
        proj = fit_projection(np.vstack([points, unadded]), dims)
        return AfterHeads(
            projection=proj,
            points=proj(points),
            lengths=np.linalg.norm(np.diff(points, axis=0), axis=-1),
            unadded=proj(unadded),
            unadded_length=float(np.linalg.norm(summed)),
        )
    steps = [e, e + layer.delta_sum[token].astype(np.float64)]
    if bias:
        steps.append(e + summed)
    if norm_position == "post":
        steps.append(updated)
    points = np.stack(steps)
    proj = fit_projection(points, dims)
    return AfterHeads(projection=proj, points=proj(points), lengths=np.linalg.norm(np.diff(points, axis=0), axis=-1))


@dataclass(frozen=True)
class BeforeAfter:
    projection: Projection
    before: np.ndarray  # (n_tokens, dims)
    after: np.ndarray  # (n_tokens, dims)
    cos_before: np.ndarray  # (n_tokens, n_tokens)
    cos_after: np.ndarray  # (n_tokens, n_tokens)


def centred_cosine_matrix(x: np.ndarray) -> np.ndarray:
    """Cosine similarity between every pair of rows once their mean row is subtracted: (n, d) -> (n, n).
    Through the layers every token drifts toward one direction they all share, which pushes every plain cosine
    toward 1 and makes every token the "closest" of the same one; less the mean, the cosine compares what sets
    the tokens apart. Adding one vector to every row leaves it unchanged."""
    x = np.asarray(x, dtype=np.float64)
    return ops.cosine_matrix(x - x.mean(axis=0))


def before_after(before: np.ndarray, after: np.ndarray, dims: int = 2, centred: bool = True) -> BeforeAfter:
    """Every token before and after a step, in one projection fitted to both, with cosine tables: mean-centred
    (each side less its own mean token, `centred_cosine_matrix`) unless `centred` is False."""
    before = np.asarray(before, dtype=np.float64)
    after = np.asarray(after, dtype=np.float64)
    proj = fit_projection(np.concatenate([before, after]), dims)
    cosines = centred_cosine_matrix if centred else ops.cosine_matrix
    return BeforeAfter(
        projection=proj,
        before=proj(before),
        after=proj(after),
        cos_before=cosines(before),
        cos_after=cosines(after),
    )


@dataclass(frozen=True)
class Moves:
    """Every token's displacement Δe, projected onto the directions along which the tokens are moved the most."""

    projection: Projection  # fitted to the Δe alone, about the origin: explained is each direction's share of Σ|Δe|²
    moves: np.ndarray  # (n_tokens, dims): each Δe, projected
    lengths: np.ndarray  # (n_tokens,): |Δe| in all d_model dimensions


def displacement_directions(displacement: np.ndarray, dims: int = 2) -> Moves:
    """Each token's Δe in the plane that keeps the most of them. A plane fitted to the embeddings shows their
    spread, often a hundred times the moves', and every arrow shrinks to a dot; fitted to the Δe, the arrows
    are what the axes measure."""
    displacement = np.asarray(displacement, dtype=np.float64)  # (n_tokens, d_model)
    proj = fit_projection(displacement, dims, about_origin=True)
    return Moves(projection=proj, moves=proj(displacement), lengths=np.linalg.norm(displacement, axis=-1))


AFTER = ("attention", "layer")  # after the attention sub-layer, or after the whole layer (feed-forward too)


def layer_before_after(layer: LayerTrace, after: str, rows: Sequence[int]) -> BeforeAfter:
    """The tokens at `rows` entering a layer and leaving one of its steps, projected with a PCA fitted
    to those tokens alone: a token left out ([CLS], [SEP]) neither stretches the picture nor counts
    among those another moved toward."""
    if after not in AFTER:
        raise ValueError(f"after must be one of {AFTER}, not {after!r}.")
    rows = list(rows)
    leaving = layer.updated if after == "attention" else layer.output
    return before_after(layer.x[rows], leaving[rows])


@dataclass(frozen=True)
class Move:
    token: int  # position of the token that moved
    toward: int  # position of the token it moved most toward
    cos_before: float
    cos_after: float


def moved_toward(ba: BeforeAfter, candidates: list[int] | None = None) -> list[Move]:
    """For each token, the other token whose cosine similarity with it rose the most (or fell the least)."""
    n = ba.cos_before.shape[0]
    pool = list(range(n)) if candidates is None else list(candidates)
    moves = []
    for j in pool:
        others = [i for i in pool if i != j]
        if not others:
            continue
        change = ba.cos_after[j, others] - ba.cos_before[j, others]
        i = others[int(np.argmax(change))]
        moves.append(
            Move(token=j, toward=i, cos_before=float(ba.cos_before[j, i]), cos_after=float(ba.cos_after[j, i]))
        )
    return moves


@dataclass(frozen=True)
class MoveSummary:
    """What the moves of a step have in common, counted: how many went toward a neighbour (the token just before or
    after), and the tokens the most moved toward (every one of them, where several tie), with how many each."""

    n: int
    to_neighbour: int
    commonest: tuple[int, ...]  # positions (in the shown tokens) of the tokens most often moved toward, in order
    commonest_count: int


def summarise_moves(moves: Sequence[Move]) -> MoveSummary:
    """Counts over `moves` (their positions among the tokens shown)."""
    if not moves:
        return MoveSummary(0, 0, (), 0)
    targets = [m.toward for m in moves]
    most = max(targets.count(t) for t in targets)
    return MoveSummary(
        n=len(moves),
        to_neighbour=sum(abs(m.toward - m.token) == 1 for m in moves),
        commonest=tuple(sorted(t for t in set(targets) if targets.count(t) == most)),
        commonest_count=most,
    )


@dataclass(frozen=True)
class Chain:
    """Vectors laid tip to tail from a start point, projected: start, then the point after each step."""

    projection: Projection
    points: np.ndarray  # (n_steps + 1, dims)

    @property
    def steps(self) -> np.ndarray:
        """(n_steps, dims): each step as drawn."""
        return np.diff(self.points, axis=0)

    def longest(self, k: int) -> list[int]:
        """The k steps drawn longest, longest first (the earlier step where two are as long)."""
        lengths = np.linalg.norm(self.steps, axis=1)
        return np.argsort(-lengths, kind="stable")[:k].tolist()


def chain(start: np.ndarray, steps: np.ndarray, dims: int = 2) -> Chain:
    """Project start, start + s_1, start + s_1 + s_2, … with a PCA fitted to those points."""
    points = np.vstack([start, start + np.cumsum(steps, axis=0)]).astype(np.float64)
    proj = fit_projection(points, dims)
    return Chain(projection=proj, points=proj(points))
