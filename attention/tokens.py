"""Text to tokens with the model's own tokenizer, keeping what each token is and where it came from."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .messages import N_

# Pastes longer than this are cut before tokenizing: far more than any model here can read
# (512 tokens are rarely more than 4,000 characters), and small enough to tokenize instantly.
MAX_CHARS = 100_000


@dataclass(frozen=True)
class Token:
    text: str  # as the tokenizer writes it: "[CLS]", "roam", "##ed"
    id: int
    position: int
    is_special: bool  # added by the tokenizer: [CLS], [SEP]
    is_continuation: bool  # a word piece that continues the previous token's word ("##ed")
    word: int | None  # index of the word of the text it belongs to; None for special tokens
    start: int  # character offsets into the text; (0, 0) for special tokens
    end: int
    display: str = ""  # how to show it: the text, or a byte-level piece decoded ("Ġforest" as "␣forest")

    def __post_init__(self) -> None:
        if not self.display:
            object.__setattr__(self, "display", self.text)


@dataclass(frozen=True)
class Tokenization:
    tokens: tuple[Token, ...]
    n_dropped: int  # tokens cut to fit the model's limit (0 when nothing was cut)
    chars_dropped: int  # characters cut before tokenizing, for pastes beyond MAX_CHARS

    @property
    def truncated(self) -> bool:
        return self.n_dropped > 0 or self.chars_dropped > 0

    def read_part(self, text: str) -> str:
        """The part of `text` (the text tokenized) the model reads: everything after the last kept token's end
        dropped where the tokenization was cut, the whole text otherwise."""
        if not self.truncated:
            return text
        return text[: max((t.end for t in self.tokens if not t.is_special), default=0)]


def check_text(text: object) -> str:
    """The text itself, or a ValueError a person can act on when there is nothing to read."""
    if not isinstance(text, str):
        raise ValueError(N_("The text must be a string."))
    if not text.strip():
        raise ValueError(N_("Type a sentence: the text is empty."))
    return text


WHITE_BYTES = {0x20: "␣", 0x0A: "↵", 0x09: "⇥"}  # a space, a newline, a tab among a piece's bytes: marked as elsewhere
BYTE_PIECE = re.compile(r"<0x([0-9A-Fa-f]{2})>")  # SentencePiece's byte fallback: one UTF-8 byte of a character


def spelling(tokenizer) -> str:
    """How the tokenizer spells its pieces: "wordpiece" (## continues a word), "byte_level" (GPT-2's bytes as
    letters, Ġ a space) or "sentencepiece" (▁ a space, <0xE2> a byte)."""
    if sentencepiece(tokenizer):
        return "sentencepiece"
    return "byte_level" if type(tokenizer.decoder).__name__ == "ByteLevel" else "wordpiece"


def sentencepiece(tokenizer) -> bool:
    """Whether the tokenizer spells spaces "▁" inside its pieces, as SentencePiece does (Gemma's)."""
    return type(tokenizer.decoder).__name__ in ("Sequence", "Metaspace")


def readable(tokenizer, piece: str, token_id: int) -> str:
    """A token as a person reads it. Byte-level tokenizers (GPT-2) spell a leading space "Ġ", a newline "Ċ",
    and the bytes of other characters as Latin letters: decode them, and mark spaces and newlines. SentencePiece
    (Gemma) spells a space "▁" and a byte it has no piece for "<0xE2>": mark the one, show the other's byte."""
    if sentencepiece(tokenizer):
        if BYTE_PIECE.fullmatch(piece):
            return f"‹{piece[3:5].upper()}›"
        return piece.replace("▁", "␣").replace("\n", "↵").replace("\t", "⇥")
    if type(tokenizer.decoder).__name__ != "ByteLevel":
        return piece
    text = tokenizer.decode([token_id], skip_special_tokens=False)
    if "\ufffd" in text:  # a piece of a character's UTF-8 bytes: show the bytes themselves, a space still marked
        return "".join((WHITE_BYTES.get(BYTE_OF[c]) or f"‹{BYTE_OF[c]:02X}›") if c in BYTE_OF else c for c in piece)
    return text.replace(" ", "␣").replace("\n", "↵").replace("\t", "⇥") or piece


def _byte_level_alphabet() -> dict[str, int]:
    """GPT-2's byte-level alphabet, read backwards: each of the 256 characters it spells a byte with."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[chr(b)] = b
        else:
            chars[chr(256 + extra)] = b
            extra += 1
    return chars


BYTE_OF = _byte_level_alphabet()


def tokenize(tokenizer, text: str, max_tokens: int) -> Tokenization:
    """Tokenize `text`, keeping at most `max_tokens` tokens (special tokens included).

    Raises ValueError with a message a person can act on when there is nothing to read.
    """
    check_text(text)
    chars_dropped = max(0, len(text) - MAX_CHARS)
    text = text[:MAX_CHARS]

    enc = tokenizer.encode(text)
    # each attribute of an Encoding builds a new list when read: read each once
    ids, pieces, offsets, word_ids, special = enc.ids, enc.tokens, enc.offsets, enc.word_ids, enc.special_tokens_mask
    n = len(ids)
    if all(special):
        raise ValueError(
            N_(
                "The tokenizer found nothing to read in this text (only spaces, control or unprintable characters): "
                "type a sentence with letters, digits or symbols."
            )
        )

    if sentencepiece(tokenizer):  # it reads the text as one word, its pieces holding the spaces: words from those
        word_ids = words_from_spaces(text, offsets, special)
    keep = list(range(n))
    n_dropped = 0
    if n > max_tokens:
        # keep the leading tokens and the closing special tokens ([SEP]), as the model's own truncation does
        n_tail = 0
        while n_tail < n and special[n - 1 - n_tail]:
            n_tail += 1
        keep = list(range(max_tokens - n_tail)) + list(range(n - n_tail, n))
        n_dropped = n - max_tokens

    tokens = []
    previous_word = None
    for position, i in enumerate(keep):
        word = None if special[i] else word_ids[i]
        start, end = offsets[i]
        tokens.append(
            Token(
                text=pieces[i],
                display=readable(tokenizer, pieces[i], int(ids[i])),
                id=int(ids[i]),
                position=position,
                is_special=bool(special[i]),
                is_continuation=word is not None and word == previous_word,
                word=word,
                start=int(start),
                end=int(end),
            )
        )
        previous_word = word
    return Tokenization(tokens=tuple(tokens), n_dropped=n_dropped, chars_dropped=chars_dropped)


def words_from_spaces(text: str, offsets: list[tuple[int, int]], special: list[int]) -> list[int | None]:
    """Each token's word, for a tokenizer that reads the whole text as one word and keeps the spaces in its pieces
    (Gemma's ▁chat): a word starts at the text's first token, at a token that holds its leading space, and after
    a space that no token holds. A lone space piece starts the word it stands before; the byte pieces of one
    character stay in one word."""
    words: list[int | None] = []
    word, previous = -1, None  # the previous token's span
    for (start, end), is_special in zip(offsets, special, strict=True):
        if is_special:
            words.append(None)
            continue
        if previous is None:
            word += 1
        elif previous != (start, end):  # not another byte of the same character
            after_space_piece = not text[previous[0] : previous[1]].strip()
            leading = text[start].isspace() if start < len(text) else False
            if (leading or (start > 0 and text[start - 1].isspace())) and not after_space_piece:
                word += 1
        words.append(word)
        previous = (start, end)
    return words


def _letters(text: str) -> str:
    """The text without case or accents, each character composed: "Déjà" -> "deja", 푸 stays 푸 (not its jamo)."""
    bare = "".join(c for c in unicodedata.normalize("NFD", text.casefold()) if unicodedata.category(c) != "Mn")
    return unicodedata.normalize("NFC", bare)


def unread_share(tokens: tuple[Token, ...], text: str) -> float:
    """The share of the text's words that the tokenizer could not read as characters: a word with an unknown piece
    ([UNK]), a byte piece (‹E2›), or a piece that is no part of the word (a Korean syllable cut into its jamo).
    Near 0 for a language the model reads; near 1 for one it shatters."""
    words: dict[int, bool] = {}
    for t in tokens:
        if t.is_special or t.word is None:
            continue
        core = t.display.removeprefix("##").translate({ord(c): None for c in "␣↵⇥Ġ"}).strip()
        span = text[t.start : t.end]
        unread = t.text == "[UNK]" or "‹" in t.display or (core and _letters(core) not in _letters(span))
        words[t.word] = words.get(t.word, False) or bool(unread)
    return sum(words.values()) / len(words) if words else 0.0


def read_prefix(tokenizer, text: str, max_tokens: int) -> tuple[str, bool]:
    """(the part of `text` the model reads at `max_tokens` tokens, whether anything was cut).

    Everything after the last kept token's end is dropped, so a huge paste costs no more to keep
    (in a cache key, a link) than what the model reads of it.
    """
    toks = tokenize(tokenizer, text, max_tokens)
    return toks.read_part(text), toks.truncated
