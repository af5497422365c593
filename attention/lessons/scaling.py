"""Chapter 6: why the scores are divided by √d_k, shown on random queries and keys."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import ops


@dataclass(frozen=True)
class ScalingExperiment:
    d_k: int
    n_keys: int
    dots: np.ndarray  # (n_samples, n_keys): q·k for random unit-variance q and k
    entropy_raw: float  # mean softmax entropy (nats) of one query's raw scores over n_keys keys
    entropy_scaled: float  # the same after dividing by √d_k
    top_weight_raw: float  # mean weight the largest key gets, unscaled
    top_weight_scaled: float

    @property
    def root_d_k(self) -> float:
        return float(np.sqrt(self.d_k))

    def shown_scores(self, scaled: bool = True) -> np.ndarray:
        """(n_samples, n_keys): q·k, divided by √d_k when scaled."""
        return self.dots / self.root_d_k if scaled else self.dots

    def spread(self, scaled: bool = True) -> float:
        """The standard deviation of the scores as shown: about √d_k for q·k, about 1 once divided by √d_k."""
        return float(self.shown_scores(scaled).std())

    def top_weight(self, scaled: bool = True) -> float:
        return self.top_weight_scaled if scaled else self.top_weight_raw

    def mean_entropy(self, scaled: bool = True) -> float:
        return self.entropy_scaled if scaled else self.entropy_raw

    def example_weights(self, scaled: bool = True) -> np.ndarray:
        """(n_keys,): the softmax weights of the first sampled query, with or without the scale."""
        return ops.softmax(self.shown_scores(scaled)[0])

    def example_top_key(self, scaled: bool = True) -> int:
        """The key the first sampled query weighs most."""
        return int(np.argmax(self.example_weights(scaled)))

    @property
    def max_entropy(self) -> float:
        """Entropy of a uniform softmax over the keys: ln n_keys."""
        return float(np.log(self.n_keys))


def entropy(weights: np.ndarray, axis: int = -1) -> np.ndarray:
    """Shannon entropy in nats; 0 · log 0 counts as 0."""
    w = np.clip(weights, 1e-300, 1.0)
    return -(weights * np.log(w)).sum(axis=axis)


def scaling_experiment(d_k: int, n_keys: int = 16, n_samples: int = 1000, seed: int = 0) -> ScalingExperiment:
    """Draw q and k with independent standard-normal entries: q·k has variance d_k, so its spread grows like √d_k."""
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((n_samples, 1, d_k), dtype=np.float32)
    k = rng.standard_normal((n_samples, n_keys, d_k), dtype=np.float32)
    dots = ops.scores(q, k)[:, 0, :].astype(np.float64)  # (n_samples, n_keys)
    raw = ops.softmax(dots)
    scaled = ops.softmax(dots / np.sqrt(d_k))
    return ScalingExperiment(
        d_k=d_k,
        n_keys=n_keys,
        dots=dots,
        entropy_raw=float(entropy(raw).mean()),
        entropy_scaled=float(entropy(scaled).mean()),
        top_weight_raw=float(raw.max(axis=1).mean()),
        top_weight_scaled=float(scaled.max(axis=1).mean()),
    )


@dataclass(frozen=True)
class EntropyCurve:
    """Mean softmax entropy of random scores as d_k grows, unscaled and divided by √d_k."""

    widths: np.ndarray  # (n_widths,): the d_k of each point
    raw: np.ndarray  # (n_widths,)
    scaled: np.ndarray  # (n_widths,)
    max_entropy: float  # ln n_keys, a uniform softmax

    @property
    def uniform(self) -> np.ndarray:
        """(n_widths,): the uniform softmax's entropy at every width, drawn as a line."""
        return np.full(len(self.widths), self.max_entropy)


def entropy_curve(widths: tuple[int, ...], n_keys: int = 16, n_samples: int = 300, seed: int = 0) -> EntropyCurve:
    runs = [scaling_experiment(d_k, n_keys=n_keys, n_samples=n_samples, seed=seed) for d_k in widths]
    return EntropyCurve(
        widths=np.array(widths),
        raw=np.array([r.entropy_raw for r in runs]),
        scaled=np.array([r.entropy_scaled for r in runs]),
        max_entropy=float(np.log(n_keys)),
    )
