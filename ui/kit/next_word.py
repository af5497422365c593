"""The words for the tokens a decoder's vocabulary sets apart, wherever a page offers "the next word".

A page ranks text tokens only, renormalised over them (attention.lessons.prediction.next_words), and says what
the others are and take: a control token or a tag is never offered as a word without its explanation.
"""

from __future__ import annotations

from collections.abc import Sequence

import attention
from attention.text_tokens import CONTROL, MARKUP
from attention.tokens import readable
from ui.figures.base import isolated
from ui.words import i18n
from ui.words.i18n import _, n_


def kind_words(kind: int) -> str:
    """What a set-apart token of this kind (attention.text_tokens) is, after "it is"."""
    if kind == CONTROL:
        return _(
            "a control token: a mark of the text's structure (its start or end, a turn of a chat), not a word of it"
        )
    if kind == MARKUP:
        return _(
            "a tag the tokenizer keeps whole: a mark around text (as HTML's `<h1>` is, or the place of an image), not "
            "a word of it"
        )
    raise ValueError(f"No words for a token of kind {kind}: it is text.")


def named(model: attention.Model, tokens: Sequence[attention.Prediction], digits: int = 1) -> str:
    """Each set-apart token, its probability and what it is: "<start_of_image> takes 98.2%: it is a tag…". One
    sentence per token, the explanation once per kind."""
    said, sentences = set(), []
    for p in tokens:
        kind = int(model.token_kinds[p.id])
        token, share = code(readable(model.tokenizer, p.token, p.id)), i18n.share(p.probability, digits)
        if kind in said:
            sentences.append(_("{token}, of the same kind, takes {share}.").format(token=token, share=share))
        else:
            sentences.append(
                _("{token} takes {share}: it is {what}.").format(token=token, share=share, what=kind_words(kind))
            )
        said.add(kind)
    return " ".join(sentences)


def code(token: str) -> str:
    """A token as Markdown code, so that "<h1>" is shown as typed: `<h1>` (``a`b`` where it holds a backtick)."""
    fence = "``" if "`" in token else "`"
    return f"{fence}{isolated(token)}{fence}" if fence == "`" else f"{fence} {isolated(token)} {fence}"


def which(model: attention.Model) -> str:
    """The kinds of set-apart token this vocabulary holds, named: "control tokens", "tags", or both ("a control
    token" where it holds only one, as GPT-2's <|endoftext|>)."""
    kinds = model.token_kinds
    control, markup = int((kinds == CONTROL).sum()), int((kinds == MARKUP).sum())
    if control and markup:
        return _("control tokens and tags")
    if markup:
        return n_("a tag", "tags", markup)
    return n_("a control token", "control tokens", control)


def text_only(model: attention.Model, share: float) -> str:
    """The rule in one sentence: text tokens ranked alone, what the others take together, renormalised."""
    n = int((model.token_kinds != 0).sum())
    return n_(
        "Ranked here: text tokens only. The vocabulary's {n} token that writes no text ({which}) takes {share}; each "
        "text token's probability is divided by what the text tokens take, so that they add up to 1.",
        "Ranked here: text tokens only. The vocabulary's {n} tokens that write no text ({which}) take {share} "
        "together; each text token's probability is divided by what the text tokens take, so that they add up to 1.",
        n,
    ).format(n=i18n.whole(n), which=which(model), share=i18n.share(share, 1))
