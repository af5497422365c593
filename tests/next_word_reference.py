"""The next word a page offers, checked against what is read here independently: the set-apart tokens from the GGUF
file through the `gguf` package (not the engine's reader), the full softmax from transformers' own forward pass.

A control token (GGUF type 3), an unused one (5) or an added token that is not whitespace (4: Gemma's <h1>,
<start_of_image>) writes no word; every other token is text. The offered words must be text tokens only, each with
the reference's probability divided by the text tokens' total.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

CONTROL, USER_DEFINED, UNUSED = 3, 4, 5  # GGUF's token types (llama.cpp's gguf-py: TokenType)


def set_apart_ids(path: Path) -> np.ndarray:
    """The ids of a GGUF file's tokens that write no text, read with the gguf package's reader (over a plain array of
    the file's bytes: tests/llama_reference.PlainReader)."""
    from tests.llama_reference import PlainReader

    reader = PlainReader(path)
    kinds_field, tokens_field = reader.fields["tokenizer.ggml.token_type"], reader.fields["tokenizer.ggml.tokens"]
    kinds = np.array([int(kinds_field.parts[i][0]) for i in kinds_field.data])
    tokens = [bytes(tokens_field.parts[i]).decode("utf-8", "replace") for i in tokens_field.data]
    apart = [
        i
        for i, (kind, token) in enumerate(zip(kinds, tokens, strict=True))
        if kind in (CONTROL, UNUSED) or (kind == USER_DEFINED and token.strip())
    ]
    return np.array(apart)


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits.astype(np.float64)
    p = np.exp(z - z.max())
    return p / p.sum()


def check_next_words(words, p: np.ndarray, apart: np.ndarray, said: bool = True) -> None:
    """words (prediction.NextWords) against the reference's full distribution p and the set-apart ids; said: that
    every set-apart token among the model's own likeliest is named beside them."""
    text = np.ones(p.size, dtype=bool)
    text[apart] = False
    offered = [w.id for w in words.text]
    assert not set(offered) & set(apart.tolist()), [w.token for w in words.text]
    renormalised = p[offered] / p[text].sum()
    assert np.abs(np.array([w.probability for w in words.text]) - renormalised).max() < 1e-4
    best_text = np.sort(np.where(text, p, 0))[::-1][: len(offered)] / p[text].sum()
    assert np.abs(renormalised - best_text).max() < 1e-4  # the likeliest text tokens, in order
    assert abs(words.set_apart_share - p[apart].sum()) < 1e-4
    if not said:
        return
    own_top = np.argsort(-p)[: len(offered)]
    named = {w.id for w in words.set_apart}
    assert {int(i) for i in own_top if not text[i] and p[i] > 1e-3} <= named  # none of the model's own left unsaid
