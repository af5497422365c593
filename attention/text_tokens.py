"""Which tokens of a vocabulary write text, and which the tokenizer sets apart.

A decoder scores every token of its vocabulary as the next one, and some of those tokens write no word: the
tokenizer's control tokens (<bos>, <|endoftext|>, <|im_end|>, Gemma's <unused0>…), which mark a text's start or
end or a chat's turns, and the tags it keeps whole (Gemma's <h1>, <table>, <start_of_image>). A page that offers
"the next word" offers text tokens, and says what the others take.

The rule reads the tokenizer's own data, never a list of strings:
- CONTROL: a token the tokenizer adds as special (a GGUF file's control type, tokenizer.json's "special": true),
  and an id the tokenizer has no token for (an embedding row that no text is written with);
- MARKUP: a token the tokenizer adds whole without being special (a GGUF file's user-defined type) and spelled
  as a tag, <…> or […];
- TEXT: every other token: the vocabulary's own pieces and bytes, and the added runs of spaces and newlines.
"""

from __future__ import annotations

import re

import numpy as np

TEXT, CONTROL, MARKUP = 0, 1, 2
TAG = re.compile(r"<[^<>\s]+>|\[[^\[\]\s]+\]")  # <h1>, </table>, <start_of_image>, [multimodal]


def token_kinds(tokenizer, vocab_size: int) -> np.ndarray:
    """(vocab_size,) uint8: each token id's kind, TEXT, CONTROL or MARKUP, read from the tokenizer's added tokens."""
    kinds = np.full(vocab_size, TEXT, dtype=np.uint8)
    kinds[min(tokenizer.get_vocab_size(with_added_tokens=True), vocab_size) :] = CONTROL
    for i, added in tokenizer.get_added_tokens_decoder().items():
        if i >= vocab_size:
            continue
        if added.special:
            kinds[i] = CONTROL
        elif TAG.fullmatch(added.content.strip()):
            kinds[i] = MARKUP
    kinds.flags.writeable = False
    return kinds


def renormalised(probabilities: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """(..., vocab_size): the probabilities among text tokens only, each divided by the text tokens' total; 0 for a
    set-apart token. Their sum is 1 on every row, as a softmax over the text tokens' scores alone."""
    text = kinds == TEXT
    kept = np.where(text, probabilities, 0.0)
    return kept / kept.sum(axis=-1, keepdims=True)
