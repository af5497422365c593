"""What each head does: measures of its attention pattern, and the role they give it.

Each measure reads weights (..., n_tokens, n_tokens), rows are queries, and returns (...): for a trace's weights
(n_layers, n_heads), one number per head. A share is the mean, over the query rows that can express it, of the
weight a row puts on one key picked by a rule (the previous token, the first, itself, [SEP]). Rows where two
rules pick the same key are left out of both, so that a head that does one thing scores 0 on the others: row 0
(its first token is itself), row 1 (its previous token is the first), the [SEP] row (itself) and the row after it.

    previous token   Clark et al. 2019, "What does BERT look at?": the weight on position i − 1
    first token      the attention sink (Xiao et al. 2023); an encoder's [CLS]: the weight on position 0
    [SEP]            Clark et al.: the weight on the last special token, where a head "does nothing"
    self             the weight on the diagonal
    entropy          −Σ_j w_ij log w_ij, in nats; normalized by log(visible keys), the uniform row's
    induction        Olsson et al. 2022: on N random tokens seen twice, the weight a token of the second copy
                     puts on the token that followed its first occurrence

A head's role (classify): "induction" if its induction score is above INDUCTION, else the largest share above its
threshold, else "broad" if its normalized entropy is above BROAD, else "mixed". The induction score is measured on
its own run (induction_scores(model): fixed for a model, worth caching), passed to head_roles beside the trace.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..model import Model
from ..tokens import Token, readable
from ..trace import trace_tokens
from ..traced import Trace

# A role needs most of a head's weight on one kind of key: above one half, no other key can hold more.
PREVIOUS_TOKEN = 0.5  # Clark et al.'s previous-token heads put over half of each row on the token before
FIRST_TOKEN = 0.5  # a sink head parks most of each row on the first token ([CLS], or a decoder's first word)
SEP = 0.5  # Clark et al.'s [SEP] heads: over half of each row on [SEP] in BERT's middle layers
SELF = 0.5  # most of each row on the token itself
INDUCTION = 0.4  # random tokens give no other reason to look there: chance is 1/visible keys, a few per cent
BROAD = 0.8  # normalized entropy: as spread as a row uniform over e^0.8·ln(n) = n^0.8 of its n keys (38 of 96)

ROLES = ("previous token", "first token", "[SEP]", "self", "broad", "induction", "mixed")

INDUCTION_LENGTH = 32  # N random tokens, then the same N again: 32 rows of the second copy to average
INDUCTION_SEED = 0  # the fixed sequence every run measures


def key_share(weights: np.ndarray, rows: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Mean over the query rows `rows` of the weight each puts on its key (keys[r] for rows[r]):
    (..., n_tokens, n_tokens) -> (...), in float64; NaN where no row is given."""
    rows, keys = np.asarray(rows, dtype=int), np.asarray(keys, dtype=int)
    if rows.size == 0:
        return np.full(weights.shape[:-2], np.nan)
    return weights[..., rows, keys].astype(np.float64).mean(axis=-1)


def seen(rows: np.ndarray, keys: np.ndarray, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The (row, key) pairs the mask lets the row see (mask True where a query may not see a key)."""
    rows, keys = np.asarray(rows, dtype=int), np.asarray(keys, dtype=int)
    if mask is None:
        return rows, keys
    keep = ~mask[rows, keys]
    return rows[keep], keys[keep]


def previous_token_share(weights: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Weight on position i − 1, over rows i ≥ 2 (row 0 has no previous token, row 1's is the first token)."""
    rows = np.arange(2, weights.shape[-1])
    return key_share(weights, *seen(rows, rows - 1, mask))


def first_token_share(weights: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Weight on position 0 (a sink, or [CLS]), over rows i ≥ 2 (for rows 0 and 1 it is themselves, the previous)."""
    rows = np.arange(2, weights.shape[-1])
    return key_share(weights, *seen(rows, np.zeros_like(rows), mask))


def self_share(weights: np.ndarray, sep: int | None = None) -> np.ndarray:
    """Weight on the diagonal, over rows i ≥ 1 but the [SEP] row (row 0 is the first token, [SEP]'s own is [SEP])."""
    rows = np.setdiff1d(np.arange(1, weights.shape[-1]), [] if sep is None else [sep])
    return key_share(weights, rows, rows)


def sep_share(weights: np.ndarray, sep: int | None, mask: np.ndarray | None = None) -> np.ndarray:
    """Weight on [SEP] (position `sep`), over the rows that see it but itself and the row after it (its previous).
    NaN where there is no [SEP] (sep None: a decoder's text) or no row may see it (a causal mask, [SEP] last):
    a head cannot be said to ignore a token it cannot look at."""
    if sep is None:
        return np.full(weights.shape[:-2], np.nan)
    rows = np.setdiff1d(np.arange(weights.shape[-1]), [sep, sep + 1])
    return key_share(weights, *seen(rows, np.full_like(rows, sep), mask))


def sep_position(tokens: tuple[Token, ...]) -> int | None:
    """Where [SEP] is: the last special token, unless it is the first token (a decoder's <|im_start|>)."""
    special = [t.position for t in tokens if t.is_special]
    return special[-1] if special and special[-1] > 0 else None


def row_entropy(weights: np.ndarray) -> np.ndarray:
    """−Σ_j w_ij ln w_ij of every row, in nats (0 ln 0 = 0): (..., n, n) -> (..., n).

    One leading slice at a time (a layer of a trace's weights): in float64 the whole of a 256-token trace's would
    take four copies of 38 MB at once."""
    if weights.ndim > 3:
        return np.stack([row_entropy(w) for w in weights])
    w = weights.astype(np.float64)
    terms = np.log(w, out=np.zeros_like(w), where=w > 0)  # ln w, and 0 where w is 0
    terms *= w
    return -terms.sum(axis=-1)


def visible_keys(mask: np.ndarray | None, n_tokens: int) -> np.ndarray:
    """(n_tokens,): how many keys each query may see."""
    return np.full(n_tokens, n_tokens) if mask is None else (~mask).sum(axis=-1)


def entropy(weights: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Mean row entropy in nats, over rows that see at least two keys (a row of one key has none to spread over)."""
    rows = visible_keys(mask, weights.shape[-1]) >= 2
    return row_entropy(weights)[..., rows].mean(axis=-1) if rows.any() else np.full(weights.shape[:-2], np.nan)


def normalized_entropy(weights: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
    """Mean of each row's entropy ÷ ln(its visible keys), the uniform row's entropy, over rows that see two keys
    or more: 1 is spread evenly over everything the row may see, 0 is all on one key, at any length and mask."""
    count = visible_keys(mask, weights.shape[-1])
    rows = count >= 2
    if not rows.any():
        return np.full(weights.shape[:-2], np.nan)
    return (row_entropy(weights)[..., rows] / np.log(count[rows])).mean(axis=-1)


# --- induction: a sequence of random tokens, seen twice -------------------------------------------------------


def special_frame(tokenizer) -> tuple[list[int], list[int]]:
    """The special tokens the tokenizer puts before and after a text ([CLS] and [SEP]; none for SmolLM2)."""
    enc = tokenizer.encode("a")
    first = enc.special_tokens_mask.index(0)
    last = len(enc.ids) - enc.special_tokens_mask[::-1].index(0)
    return list(enc.ids[:first]), list(enc.ids[last:])


def ordinary_ids(model: Model) -> np.ndarray:
    """Every token id of the vocabulary but the special ones ([CLS], [PAD], <|endoftext|>…)."""
    vocab = min(model.tokenizer.get_vocab_size(with_added_tokens=True), model.config.vocab_size)
    special = [i for i, t in model.tokenizer.get_added_tokens_decoder().items() if t.special]
    return np.setdiff1d(np.arange(vocab), special)


def repeated_random_tokens(
    model: Model, length: int = INDUCTION_LENGTH, seed: int = INDUCTION_SEED
) -> tuple[Token, ...]:
    """N distinct random ordinary tokens, then the same N again, inside the model's own special tokens.
    Distinct, so that each token of the second copy has one earlier occurrence and one token that followed it."""
    ids = np.random.default_rng(seed).choice(ordinary_ids(model), size=length, replace=False).tolist()
    before, after = special_frame(model.tokenizer)
    sequence = [*before, *ids, *ids, *after]
    special = [True] * len(before) + [False] * 2 * length + [True] * len(after)
    return tuple(
        Token(
            text=model.tokenizer.id_to_token(i),
            display=readable(model.tokenizer, model.tokenizer.id_to_token(i), i),
            id=i,
            position=p,
            is_special=s,
            is_continuation=False,
            word=None if s else p,
            start=0,
            end=0,
        )
        for p, (i, s) in enumerate(zip(sequence, special, strict=True))
    )


def induction_trace(model: Model, length: int = INDUCTION_LENGTH, seed: int = INDUCTION_SEED) -> Trace:
    """The model's own run over the repeated random tokens, with its own mask."""
    tokens = repeated_random_tokens(model, length, seed)
    return trace_tokens(model, tokens, model.tokenizer.decode([t.id for t in tokens], skip_special_tokens=False))


def induction_score(weights: np.ndarray, length: int, start: int = 0) -> np.ndarray:
    """Olsson et al.: mean weight that token t of the second copy (row start + length + t) puts on the token after
    its first occurrence (key start + t + 1), over the second copy's `length` rows. start: where the first copy
    begins (1 after [CLS])."""
    t = np.arange(length)
    return key_share(weights, start + length + t, start + t + 1)


def induction_scores(model: Model, length: int = INDUCTION_LENGTH, seed: int = INDUCTION_SEED) -> np.ndarray:
    """(n_layers, n_heads): every head's induction score, from one run over the repeated random tokens."""
    tr = induction_trace(model, length, seed)
    start = next(t.position for t in tr.tokens if not t.is_special)
    return induction_score(tr.weights, length, start)


# --- roles ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class HeadRoles:
    """Every head's measures, (n_layers, n_heads) each, and the role they give it."""

    previous_token_share: np.ndarray
    first_token_share: np.ndarray
    sep_share: np.ndarray  # NaN where the text has no [SEP] (a decoder's)
    self_share: np.ndarray
    entropy: np.ndarray  # nats
    normalized_entropy: np.ndarray  # 1: uniform over the visible keys
    induction_score: np.ndarray | None  # None when no induction run was given
    roles: np.ndarray  # (n_layers, n_heads) of str, each one of ROLES

    @property
    def counts(self) -> dict[str, int]:
        """How many heads have each role, in the order of ROLES (zeros included)."""
        return role_counts(self.roles)


def role_counts(roles: np.ndarray) -> dict[str, int]:
    return {role: int((roles == role).sum()) for role in ROLES}


THRESHOLDS = {"previous token": PREVIOUS_TOKEN, "first token": FIRST_TOKEN, "[SEP]": SEP, "self": SELF}


def classify(shares: dict[str, np.ndarray], normalized: np.ndarray, induction: np.ndarray | None = None) -> np.ndarray:
    """Each head's role, (n_layers, n_heads) of str: "induction" when its induction score is above INDUCTION (on a
    text with nothing repeated an induction head has nothing to copy, and parks its weight elsewhere, so the probe
    made for it decides); else the largest share above its threshold (THRESHOLDS, keyed by role); else "broad" when
    its normalized entropy is above BROAD; else "mixed". A NaN share (not measurable) never wins."""
    names = list(shares)
    stacked = np.stack([np.nan_to_num(shares[r], nan=-np.inf) for r in names])  # (n_roles, n_layers, n_heads)
    above = stacked > np.array([THRESHOLDS[r] for r in names])[:, None, None]
    best = np.where(above, stacked, -np.inf).argmax(axis=0)
    roles = np.where(above.any(axis=0), np.array(names, dtype=object)[best], "mixed")
    roles = np.where((roles == "mixed") & (normalized > BROAD), "broad", roles)
    if induction is not None:
        roles = np.where(induction > INDUCTION, "induction", roles)
    return roles.astype(object)


def head_roles(tr: Trace, induction: np.ndarray | None = None) -> HeadRoles:
    """Every head's measures on this trace, and its role. induction: (n_layers, n_heads) from induction_scores
    (it needs its own run over random tokens); without it no head is called "induction"."""
    return roles_of(tr.weights, tr.layers[0].mask, sep_position(tr.tokens), induction)


def roles_of(
    weights: np.ndarray, mask: np.ndarray | None = None, sep: int | None = None, induction: np.ndarray | None = None
) -> HeadRoles:
    """head_roles from the weights themselves, (n_layers, n_heads, n_tokens, n_tokens): mask (n_tokens, n_tokens)
    True where a query may not see a key (None: all visible); sep the position of [SEP], if there is one."""
    shares = {
        "previous token": previous_token_share(weights, mask),
        "first token": first_token_share(weights, mask),
        "[SEP]": sep_share(weights, sep, mask),
        "self": self_share(weights, sep),
    }
    normalized = normalized_entropy(weights, mask)
    return HeadRoles(
        previous_token_share=shares["previous token"],
        first_token_share=shares["first token"],
        sep_share=shares["[SEP]"],
        self_share=shares["self"],
        entropy=entropy(weights, mask),
        normalized_entropy=normalized,
        induction_score=induction,
        roles=classify(shares, normalized, induction),
    )
