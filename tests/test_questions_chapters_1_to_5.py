"""The questions of chapters 1 to 5: each computed question's options recomputed here from the models' traces with
numpy (a recurrent state stepped token by token, a distance measured, a cosine mean-centred, a score multiplied out),
on two sentences on each model; the right one right, all of them apart as written, and changing with the sentence.
Then one headless run per chapter: three questions, with the options recomputed here among those the page offers."""

from __future__ import annotations

import numpy as np
import pytest

import attention
from app_driver.apptest import run_page
from attention.lessons import context, motivation, questions_chapters_1_to_5
from tests.loaded import MODELS, loaded_model

SENTENCES = (
    "a fluffy blue creature roamed the verdant forest",
    "the animal didn't cross the street because it was too tired",
)
# the notes' sentence, and another whose first word decides its meaning, each with a word far on and its last word
LONG_RANGE = (
    (motivation.NOTES_SENTENCE, "Don't", "kill", "paper"),
    (
        "Never, whatever they tell you at the meeting tomorrow, sign the contract they hand you.",
        "Never",
        "sign",
        "you.",
    ),
)


@pytest.fixture(scope="module", params=MODELS)
def loaded(request) -> attention.Model:
    return loaded_model(request.param)


def written(values, least: int = 2) -> list[str]:
    """The values as an English page writes them (a minus sign, thousands grouped), with the fewest decimals from
    `least` on at which they all differ."""
    for d in range(least, 7):
        out = [f"{v:,.{d}f}".replace("-", "−") for v in values]
        if len(set(out)) == len(out):
            return out
    raise AssertionError(f"{values} cannot be told apart")


def percents(values) -> list[str]:
    """Shares as an English page writes them as percentages, kept apart."""
    for d in range(2, 7):
        out = [f"{100 * v:.{d}f}%" for v in values]
        if len(set(out)) == len(out):
            return out
    raise AssertionError(f"{values} cannot be told apart")


def questions(at) -> list:
    """The page's three question radios, in order."""
    asked = [r for r in at.radio if r.label.startswith("**Question ")]
    assert [r.label[:20] for r in asked] == [f"**Question {n} of 3.**" for n in (1, 2, 3)]
    return asked


def words(tokens) -> list[int]:
    """The positions of the tokens that hold a letter or digit, special tokens left out."""
    return [t.position for t in tokens if not t.is_special and any(c.isalnum() for c in t.display)]


# --- chapter 1: the block hands on the shape it receives -----------------------------------------------------


def test_01_the_page_asks_an_idea_and_the_blocks_shape():
    text = SENTENCES[1]
    at = run_page("pages/01_big_picture.py", text=text, model="smollm2")
    assert not at.exception
    _first, second, third = questions(at)
    assert len(second.options) == 4 and not any(c.isdigit() for o in second.options for c in o)  # an idea, no number
    cfg = loaded_model("smollm2").config
    c, e, layers = attention.trace(loaded_model("smollm2"), text).n_tokens, cfg.d_model, cfg.n_layers
    assert f"as {c} tokens" in third.label
    assert sorted(third.options) == sorted([f"({c}, {e})", f"({c}, {c})", f"({e}, {e})", f"({layers}, {c}, {e})"])


# --- chapter 2: the share of a word left in a recurrent state ---------------------------------------------------


def stepped_share(steps: int, keep: float) -> float:
    """A leaky recurrent state h ← λh + (1 − λ)x run token by token: the word's one-hot part, `steps` tokens on."""
    h = np.zeros(2)
    h = keep * h + (1 - keep) * np.array([1.0, 0.0])  # the word is read
    for _ in range(steps):
        h = keep * h + (1 - keep) * np.array([0.0, 1.0])  # every token after it
    return float(h[0])


def apart(model: attention.Model, text: str, first: str, later: str) -> int:
    """How many tokens after the token holding `first` the one holding `later` comes."""
    tokens = attention.trace(model, text).tokens

    def at(char: int) -> int:
        return next(t.position for t in tokens if not t.is_special and t.start <= char < t.end)

    return at(text.index(later)) - at(text.index(first))


def test_02_the_recurrent_question_steps_the_state(loaded):
    asked = []
    for text, first, later, last in LONG_RANGE:
        d, shown = apart(loaded, text, first, last), apart(loaded, text, first, later)
        assert d == motivation.tokens_apart(loaded, text, first, last) and shown < d
        for keep in (0.5, 0.9, 0.99):
            options = questions_chapters_1_to_5.recurrent_options(d, shown, keep)
            expected = (
                stepped_share(d, keep),
                keep**d,  # the entry share left out
                stepped_share(d + 1, keep),  # one step more
                stepped_share(shown, keep),  # the word the page's metric names
            )
            assert np.allclose(options.values, expected, rtol=1e-9)
            assert len(set(np.round(np.log(options.values), 6))) == 4  # apart at every λ, λ = 0.5 too
            if keep == 0.9:
                asked.append(percents(options.values))
    assert asked[0] != asked[1]


def test_02_the_page_asks_it():
    at = run_page("pages/02_why_attention.py")
    assert not at.exception
    _first, second, third = questions(at)
    model = loaded_model(MODELS[0])
    text, first, later, last = LONG_RANGE[0]
    d, shown = apart(model, text, first, last), apart(model, text, first, later)
    expected = [stepped_share(d, 0.9), 0.9**d, stepped_share(d + 1, 0.9), stepped_share(shown, 0.9)]
    assert f"{d} tokens after it" in second.label
    assert sorted(second.options) == sorted(percents(expected))
    c, dh, e = attention.trace(model, text).n_tokens, model.config.d_head, model.config.d_model
    assert sorted(third.options) == sorted([f"({c}, {dh})", f"(1, {dh})", f"(1, {e})", f"({c}, {e})"])


# --- chapter 3: the distance between two real embeddings -------------------------------------------------------


def test_03_the_distance_question_measures_it(loaded):
    asked = []
    for text in SENTENCES:
        tr = attention.trace(loaded, text)
        i, j = words(tr.tokens)[0], words(tr.tokens)[-1]
        assert questions_chapters_1_to_5.two_words(tr.tokens) == (i, j)
        a, b = tr.embeddings[i].astype(np.float64), tr.embeddings[j].astype(np.float64)
        options = questions_chapters_1_to_5.distance_options(a, b)
        expected = (
            np.linalg.norm(a - b),
            np.linalg.norm(a + b),  # the sign of the dot product's term flipped
            np.sum((a - b) ** 2),  # no square root
            abs(np.linalg.norm(a) - np.linalg.norm(b)),  # the lengths subtracted
        )
        assert np.allclose(options.values, expected, rtol=1e-6)
        asked.append(written(expected))
    assert asked[0] != asked[1]


def test_03_the_page_asks_it():
    text = SENTENCES[0]
    at = run_page("pages/03_similarity.py", text=text, model="gemma3")
    assert not at.exception
    _first, second, third = questions(at)
    model = loaded_model("gemma3")
    tr = attention.trace(model, text)
    i, j = words(tr.tokens)[0], words(tr.tokens)[-1]
    a, b = tr.embeddings[i].astype(np.float64), tr.embeddings[j].astype(np.float64)
    expected = (
        np.linalg.norm(a - b),
        np.linalg.norm(a + b),
        np.sum((a - b) ** 2),
        abs(np.linalg.norm(a) - np.linalg.norm(b)),
    )
    assert f"$u \\cdot v$ = {a @ b:,.2f}".replace("-", "−") in second.label and tr.tokens[j].display in second.label
    assert sorted(second.options) == sorted(written(expected))
    c, e = tr.n_tokens, model.config.d_model
    assert sorted(third.options) == sorted([f"({c}, {c})", f"({e}, {e})", f"({c}, {e})"])


# --- chapter 4: where the two words' similarity falls most -------------------------------------------------------


def across_layers(model: attention.Model, pair: context.Pair) -> np.ndarray:
    """The word's two vectors compared layer by layer, each with the mean of every token of the four texts (the two
    sentences and the two reference words, special tokens left out) taken away first; where the model adds no start
    token, the reference words come after a line break and no text's first token counts in the mean."""
    bare = not model.config.start_token
    texts = [*pair.sentences, *(("\n" if bare else "") + r for r in pair.references)]
    traces = [attention.trace(model, t) for t in texts]
    kept = [[p for p in range(tr.n_tokens) if not tr.tokens[p].is_special and not (bare and p == 0)] for tr in traces]
    mean = np.concatenate([tr.hidden[:, k] for tr, k in zip(traces, kept, strict=True)], axis=1).mean(axis=1)

    def word_vectors(tr) -> np.ndarray:  # the token holding the word's last character
        end = tr.text.index(pair.word) + len(pair.word) - 1
        p = next(t.position for t in tr.tokens if not t.is_special and t.start <= end < t.end)
        return tr.hidden[:, p].astype(np.float64) - mean

    u, v = word_vectors(traces[0]), word_vectors(traces[1])
    return np.sum(u * v, axis=1) / (np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1))


def test_04_the_fall_question_finds_the_largest_fall(loaded):
    asked = []
    for code in ("en", "fr"):
        pair = context.PAIRS[code]
        across = across_layers(loaded, pair)
        shift = context.context_shift(loaded, pair.word, pair.sentences, pair.references)
        assert np.allclose(shift.across, across, atol=1e-4)
        layers = questions_chapters_1_to_5.fall_options(shift.across)
        falls = [across[layer] - across[layer + 1] for layer in range(len(across) - 1)]
        assert layers is not None and len(set(layers)) == 4 and all(0 <= layer < len(falls) for layer in layers)
        assert falls[layers[0]] == max(falls) and all(falls[layer] < max(falls) for layer in layers[1:])
        lowest = int(np.argmin(across)) - 1  # the step into the lowest point, where it is not the largest fall
        assert lowest == layers[0] or lowest in layers[1:]
        asked.append(layers)
    assert asked[0] != asked[1]


def test_04_the_page_asks_it():
    at = run_page("pages/04_context.py")
    assert not at.exception
    _first, second, third = questions(at)
    model = loaded_model(MODELS[0])
    across = across_layers(model, context.PAIRS["en"])
    falls = across[:-1] - across[1:]
    right = int(np.argmax(falls))
    assert f"from layer {right} to layer {right + 1}" in second.options
    assert all(o.startswith("from layer ") for o in second.options) and len(set(second.options)) == 4
    c, e = attention.trace(model, context.PAIRS["en"].sentences[0]).n_tokens, model.config.d_model
    assert sorted(third.options) == sorted(
        [
            f"W ({c}, {c}), x′ ({c}, {e})",
            f"W ({e}, {e}), x′ ({c}, {e})",
            f"W ({c}, {c}), x′ ({c}, {c})",
            f"W ({c}, {e}), x′ ({c}, {e})",
        ]
    )


# --- chapter 5: a score read in its row, not its column ----------------------------------------------------------


def score_cells(model: attention.Model, text: str, layer: int = 0, head: int = 0):
    """Of the word tokens, the pair (the later one's query, the earlier one's key) whose two scores for each other
    differ most, each score multiplied out from the trace's queries and keys; and the four options."""
    tr = attention.trace(model, text)
    lt = tr.layers[layer]
    q, k = lt.q[head].astype(np.float64), lt.k_shared[lt.kv_head_of(head)].astype(np.float64)
    best, pair = -1.0, None
    for i in words(tr.tokens):
        for j in words(tr.tokens):
            if j < i and abs(q[i] @ k[j] - q[j] @ k[i]) > best:
                best, pair = abs(q[i] @ k[j] - q[j] @ k[i]), (i, j)
    i, j = pair
    x = lt.x.astype(np.float64)
    return tr, pair, (q[i] @ k[j], q[j] @ k[i], q[i] @ k[j] / np.sqrt(q.shape[-1]), x[i] @ x[j])


def test_05_the_score_question_reads_the_row(loaded):
    asked = []
    for text in SENTENCES:
        tr, (i, j), expected = score_cells(loaded, text)
        lt = tr.layers[0]
        found = questions_chapters_1_to_5.score_pair(lt.scores[0], lt.x, lt.d_head, words(tr.tokens))
        assert (found.query, found.key) == (i, j)
        assert np.allclose(found.options.values, expected, rtol=1e-3, atol=1e-3)
        asked.append(written(expected))
    assert asked[0] != asked[1]


def test_05_the_page_asks_it():
    text = SENTENCES[1]
    at = run_page("pages/05_queries_keys.py", text=text, model="smollm2")
    assert not at.exception
    _first, second, third = questions(at)
    model = loaded_model("smollm2")
    tr, (i, j), expected = score_cells(model, text)
    assert f"`{tr.tokens[i].display}`'s query for `{tr.tokens[j].display}`'s key" in second.label
    assert sorted(second.options) == sorted(written(expected))
    cfg = model.config
    c, e, d = tr.n_tokens, cfg.d_model, cfg.d_head
    assert sorted(third.options) == sorted([f"({c}, {d})", f"({c}, {e})", f"({e}, {d})", f"({e}, {e})"])
