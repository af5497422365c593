"""Words about a model's tokens and embeddings: its special tokens, how its tokenizer spells pieces, the
embedding's scale and positions, e as the model computes it."""

from __future__ import annotations

from attention import ModelConfig
from ui.words.architecture.fields import _num, norm_latex, pick
from ui.words.i18n import _, n_


def special_tokens(cfg: ModelConfig) -> tuple[str, ...]:
    """What the tokenizer adds around a text, in order: ("[CLS]", "[SEP]"), ("<bos>",) or ()."""
    return tuple(t for t in (cfg.start_token, cfg.end_token) if t)


def specials_named(cfg: ModelConfig) -> str:
    """The added tokens for a label: "[CLS] and [SEP]", "<bos>", "" when there are none."""
    tokens = special_tokens(cfg)
    return _("{first} and {second}").format(first=tokens[0], second=tokens[1]) if len(tokens) == 2 else "".join(tokens)


def specials_aside(cfg: ModelConfig) -> str:
    """Why the tokenizer's own tokens are left out of the before-and-after picture unless asked for."""
    tokens = special_tokens(cfg)
    if not tokens:
        return ""
    return n_(
        "{tokens} is left out unless you show it here too: after a layer it lies far from the words (many heads "
        "park their weight there), which then crowd into a corner of the picture.",
        "{tokens} are left out unless you show them here too: after a layer they lie far from the words (many "
        "heads park their weight there), which then crowd into a corner of the picture.",
        len(tokens),
    ).format(tokens=specials_named(cfg))


def added_tokens_sentence(cfg: ModelConfig) -> str:
    tokens = special_tokens(cfg)
    if not tokens:
        return _("It adds no token of its own to the text.")
    if cfg.start_token and cfg.end_token:
        return _("It adds **{start}** at the start and **{end}** at the end.").format(
            start=cfg.start_token, end=cfg.end_token
        )
    if cfg.start_token:
        return _("It adds **{token}** at the start.").format(token=cfg.start_token)
    return _("It adds **{token}** at the end.").format(token=cfg.end_token)


def pieces_sentence(tokenizer_kind: str) -> str:
    """How its pieces show where words start, from the tokenizer's kind ("wordpiece", "byte_level",
    "sentencepiece"), which attention.tokens reads off the tokenizer."""
    if tokenizer_kind == "wordpiece":
        return _(
            "A word it does not know whole is cut into pieces, those marked **##** continuing the word before them."
        )
    if tokenizer_kind in ("byte_level", "sentencepiece"):
        return _(
            "A piece that starts with a space is marked ␣; a character it has no piece for is spelled by its UTF-8 "
            "bytes (‹E2›…)."
        )
    raise ValueError(f"No words for the tokenizer kind {tokenizer_kind!r}: add them to ui/words/architecture.py.")


def scale_sentence(cfg: ModelConfig) -> str:
    """What the embedding scale does, where there is one ("" where the rows are used as they are)."""
    if cfg.embedding_scale == 1.0:
        return ""
    scale = _(
        "Each row is multiplied by √{d} ≈ {scale} as it is looked up, so that it stands as tall as the numbers the "
        "layers add to it."
    ).format(d=cfg.d_model, scale=_num(cfg.embedding_scale, 2))
    return scale + (" " + _("The same rows serve the output head as they are.") if cfg.predicts_next_token else "")


def positions_sentence(cfg: ModelConfig) -> str:
    """How word order reaches the model, and what the first layer receives."""
    scale = f" {scale_sentence(cfg)}" if cfg.embedding_scale != 1.0 else ""
    if pick(cfg, "positions", {"learned": False, "rotary": True}):
        return (
            _("Nothing is added for the position: the token's vector is the embedding $e_i$ the first layer receives.")
            + scale
            + " "
            + _(
                "Word order enters inside every head instead, where each query and key is rotated by an angle that "
                "grows with its place (rotary positions)."
            )
        )
    if _embedding_norm(cfg):
        learned = _(
            "Each token's vector is added to a learned vector for its position and to $T_0$, the vector of the "
            "first segment (BERT can read two texts, segments 0 and 1; a single sentence is all segment 0), then "
            "normalised: that is the embedding $e_i$ the first layer receives."
        )
    else:
        learned = _(
            "Each token's vector is added to a learned vector for its position: that is the embedding $e_i$ the "
            "first layer receives."
        )
    return learned + scale


def _embedding_norm(cfg: ModelConfig) -> bool:
    """A post-norm encoder (BERT) normalises the summed embeddings before the first layer."""
    return pick(cfg, "norm_position", {"post": True, "pre": False, "sandwich": False})


def embedding_latex(cfg: ModelConfig) -> str:
    word = r"W_E[t_i]"
    if cfg.embedding_scale != 1.0:
        word = rf"\sqrt{{{cfg.d_model}}}\,W_E[t_i]"
    if cfg.positions == "rotary":
        note = _("positions: {q} and {k} rotated in every head").format(q="$q$", k="$k$")
        return rf"e_i = {word} \qquad (\text{{{note}}})"
    pick(cfg, "positions", {"learned": None})
    inner = rf"{word} + P_i" + (r" + T_0" if _embedding_norm(cfg) else "")
    return rf"e_i = {norm_latex(cfg)}\big({inner}\big)" if _embedding_norm(cfg) else rf"e_i = {inner}"
