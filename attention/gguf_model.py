"""Reading a decoder from one GGUF file (llama.cpp's format): its sizes and tokenizer from the metadata, its
tensors under GGUF's names (`blk.3.attn_q.weight`), each (d_out, d_in). `ARCHITECTURES` maps the file's
general.architecture to the reader of its metadata; `decoder_model` builds the model from the tensors of either
family (Llama, Gemma 3), and a Hugging Face Llama folder reaches it too, its names turned into GGUF's.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from . import families
from .families import SUPPORTED
from .files import GGUF, QuantizedMatrix, QuantizedTable, WeightFileError, read_gguf
from .model import (
    EmbeddingWeights,
    LayerWeights,
    Model,
    ModelConfig,
    ModelUnavailableError,
    Norm,
    UnsupportedModelError,
    frozen,
)
from .sources import cache_folder

CONTROL, USER_DEFINED = 3, 4  # GGUF's token types: control tokens (<bos>, <|im_start|>), added words


class _Tensors:
    """A decoder's tensors under GGUF's names, each read checked against its config's sizes."""

    def __init__(self, config: ModelConfig, w: dict[str, np.ndarray]):
        self.config, self.w = config, w

    def stored(self, key: str, shape: tuple[int, int]) -> np.ndarray | QuantizedMatrix | QuantizedTable:
        """(d_out, d_in) as stored, checked against the config's sizes."""
        a = self.w[key]
        got = a.stored_shape if isinstance(a, QuantizedMatrix) else a.shape
        if tuple(got) != shape:
            raise UnsupportedModelError(
                f"'{self.config.name}': {key} is {got[0]} × {got[1]}, where its config says {shape[0]} × {shape[1]}."
            )
        return a

    def matrix(self, key: str, shape: tuple[int, int]) -> np.ndarray | QuantizedMatrix:
        """(d_in, d_out): the stored matrix's transpose, a read-only view (no copy: matmul reads it as it is);
        a matrix kept in its quantized blocks is one already."""
        a = self.stored(key, shape)
        if isinstance(a, QuantizedMatrix):
            return a
        out = a.T
        out.setflags(write=False)
        return out

    def gain(self, key: str, width: int | None = None) -> Norm:
        width = self.config.d_model if width is None else width
        if self.w[key].shape != (width,):
            raise UnsupportedModelError(
                f"'{self.config.name}': {key} has {self.w[key].shape} numbers, where it needs ({width},)."
            )
        return Norm(gamma=frozen(self.w[key]), beta=None)

    def bias(self, key: str, matrix: str, width: int) -> np.ndarray | None:
        """A linear layer's bias where the config says it adds one (and then it must be there); a bias in the file
        that the config does not name is refused, never dropped."""
        if not self.config.has_bias(matrix):
            if key in self.w:
                raise UnsupportedModelError(f"'{self.config.name}': {key} is a bias its family's config does not add.")
            return None
        if self.w[key].shape != (width,):
            raise UnsupportedModelError(
                f"'{self.config.name}': {key} has {self.w[key].shape} numbers, where it needs ({width},)."
            )
        return frozen(self.w[key])

    def layer(self, i: int) -> LayerWeights:
        """Block i's weights; the norms and biases its config's fields ask for (QK-norm, a sandwich's second norms,
        the biases of `biases`) must be there."""
        c, p = self.config, f"blk.{i}."
        d, d_q, d_kv, d_ff = c.d_model, c.n_heads * c.d_head, c.n_kv_heads * c.d_head, c.d_ff
        sandwich = c.norm_position == "sandwich"
        return LayerWeights(
            w_q=self.matrix(p + "attn_q.weight", (d_q, d)),
            b_q=self.bias(p + "attn_q.bias", "q", d_q),
            w_k=self.matrix(p + "attn_k.weight", (d_kv, d)),
            b_k=self.bias(p + "attn_k.bias", "k", d_kv),
            w_v=self.matrix(p + "attn_v.weight", (d_kv, d)),
            b_v=self.bias(p + "attn_v.bias", "v", d_kv),
            w_o=self.matrix(p + "attn_output.weight", (d, d_q)),
            b_o=self.bias(p + "attn_output.bias", "o", d),
            norm_attention=self.gain(p + "attn_norm.weight"),
            w_ff1=self.matrix(p + "ffn_up.weight", (d_ff, d)),
            b_ff1=self.bias(p + "ffn_up.bias", "mlp", d_ff),
            w_ff2=self.matrix(p + "ffn_down.weight", (d, d_ff)),
            b_ff2=self.bias(p + "ffn_down.bias", "mlp", d),
            norm_ffn=self.gain(p + "ffn_norm.weight"),
            w_gate=self.matrix(p + "ffn_gate.weight", (d_ff, d)),
            norm_attention_out=self.gain(p + "post_attention_norm.weight") if sandwich else None,
            norm_ffn_out=self.gain(p + "post_ffw_norm.weight") if sandwich else None,
            norm_q=self.gain(p + "attn_q_norm.weight", c.d_head) if c.qk_norm else None,
            norm_k=self.gain(p + "attn_k_norm.weight", c.d_head) if c.qk_norm else None,
        )


def decoder_model(config: ModelConfig, w: dict[str, np.ndarray], tokenizer) -> Model:
    """A decoder from its tensors under GGUF's names, each (d_out, d_in) as both GGUF and Hugging Face store them;
    `output.weight` is the output head when it is not tied to the embeddings."""
    t = _Tensors(config, w)
    word = t.stored("token_embd.weight", (config.vocab_size, config.d_model))  # (vocab_size, d_model): a row a token
    output = None if "output.weight" not in w else t.matrix("output.weight", (config.vocab_size, config.d_model))
    return with_added_tokens(
        Model(
            config=config,
            embeddings=EmbeddingWeights(
                word=word if isinstance(word, QuantizedTable) else frozen(word),
                position=None,
                token_type=None,
                norm=None,
            ),
            layers=tuple(t.layer(i) for i in range(config.n_layers)),
            final_norm=t.gain("output_norm.weight"),
            tokenizer=tokenizer,
            output=output,
        )
    )


def with_added_tokens(model: Model) -> Model:
    """The model with its config's start_token and end_token: what its tokenizer puts around a text."""
    from dataclasses import replace

    enc = model.tokenizer.encode("a")
    special = [t for t, s in zip(enc.tokens, enc.special_tokens_mask, strict=True) if s]
    start = enc.tokens[0] if enc.special_tokens_mask[0] else ""
    end = enc.tokens[-1] if enc.special_tokens_mask[-1] and len(special) > bool(start) else ""
    return Model(
        config=replace(model.config, start_token=start, end_token=end),
        embeddings=model.embeddings,
        layers=model.layers,
        final_norm=model.final_norm,
        tokenizer=model.tokenizer,
        output=model.output,
    )


def unpermute_rotary(w: np.ndarray, n_heads: int) -> np.ndarray:
    """llama.cpp stores a Llama's W_Q and W_K rows per head with each rotated pair side by side (interleaved: x₀x₁,
    x₂x₃…); the engine's `rope` pairs the two halves of a head (x_i with x_{i + d_head/2}), as Hugging Face does.
    (n_heads × d_head, d_in) -> the same, each head's rows reordered: evens first, then odds."""
    rows, d_in = w.shape
    return w.reshape(n_heads, rows // n_heads // 2, 2, d_in).swapaxes(1, 2).reshape(rows, d_in)


# --- tokenizers, from the file's vocabulary -----------------------------------------------------------------


# How a byte-level vocabulary's text is cut before its merges, by the name the file gives it (tokenizer.ggml.pre), as
# llama.cpp cuts it (llama-vocab.cpp): GPT-2's expression alone, or each digit on its own first (SmolLM2's).
PRE_TOKENIZERS = {"default": "gpt2", "gpt-2": "gpt2", "gpt2": "gpt2", "smollm": "digits"}


def byte_level_tokenizer(meta: dict, path: Path):
    """A byte-level BPE tokenizer from a GGUF file's vocabulary and merges (GPT-2's scheme, which SmolLM2 uses):
    the text cut as the file says (PRE_TOKENIZERS), each piece's bytes spelled as characters, then merged pair by
    pair. A cut it does not know is refused: the same merges on other pieces are other tokens."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

    pre = meta.get("tokenizer.ggml.pre", "default")
    if pre not in PRE_TOKENIZERS:
        raise UnsupportedModelError(
            f"{path} cuts its text before BPE as '{pre}', which this explainer does not know; "
            f"it reads {', '.join(sorted(PRE_TOKENIZERS))}."
        )
    tokens, merges = meta["tokenizer.ggml.tokens"], meta["tokenizer.ggml.merges"]
    tokenizer = Tokenizer(
        models.BPE(vocab={t: i for i, t in enumerate(tokens)}, merges=[tuple(m.split(" ", 1)) for m in merges])
    )
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False)  # GPT-2's cut at word boundaries, then bytes
    tokenizer.pre_tokenizer = (
        pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), byte_level])
        if PRE_TOKENIZERS[pre] == "digits"
        else byte_level
    )
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=True)  # a word's offsets leave out its space
    return _added(tokenizer, tokens, meta["tokenizer.ggml.token_type"])


def sentencepiece_tokenizer(meta: dict, path: Path):
    """Gemma's SentencePiece BPE with byte fallback, from the file's vocabulary, as transformers builds it from the
    same file: spaces written ▁, the merges recovered from the vocabulary (the file has none) in the order its
    tokens come, an unknown character spelled by its UTF-8 bytes (<0xE2>…), <bos> before the text.

    Recovering half a million merges takes seconds, so the tokenizer is built once and kept beside the app's
    other built files (sources.cache_folder), named by the GGUF file's name and size."""
    from tokenizers import Tokenizer

    kept = cache_folder() / f"{path.stem}.{path.stat().st_size}.tokenizer.json"
    if kept.is_file():
        tokenizer = Tokenizer.from_file(str(kept))
        release_freed_memory()  # reading the 33 MB of JSON leaves 190 MB that the allocator keeps otherwise
        return tokenizer
    tokenizer = _build_sentencepiece(meta)
    try:
        kept.parent.mkdir(parents=True, exist_ok=True)
        partial = kept.with_suffix(f".{os.getpid()}.partial")
        tokenizer.save(str(partial))
        partial.replace(kept)
    except OSError:
        pass  # a read-only cache costs the next load the same seconds, nothing else
    release_freed_memory()
    return tokenizer


def _build_sentencepiece(meta: dict):
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

    # a token of spaces alone is stored with real spaces: the tokenizer looks it up as ▁▁
    tokens = ["▁" * len(t) if " " in t and not t.strip() else t for t in meta["tokenizer.ggml.tokens"]]
    vocab = {t: i for i, t in enumerate(tokens)}
    tokenizer = Tokenizer(
        models.BPE(
            vocab=vocab,
            merges=recovered_merges(tokens, vocab),
            unk_token="<unk>" if "<unk>" in vocab else tokens[meta.get("tokenizer.ggml.unknown_token_id", 0)],
            fuse_unk=True,
            byte_fallback=True,
        )
    )
    tokenizer.normalizer = normalizers.Replace(" ", "▁")
    tokenizer.pre_tokenizer = pre_tokenizers.Split(" ", behavior="merged_with_previous")
    tokenizer.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse()])
    bos = "<bos>" if "<bos>" in vocab else tokens[meta["tokenizer.ggml.bos_token_id"]]
    if meta.get("tokenizer.ggml.add_bos_token", True):
        tokenizer.post_processor = processors.TemplateProcessing(
            single=f"{bos} $A", pair=f"{bos} $A {bos} $B", special_tokens=[(bos, vocab[bos])]
        )
    return _added(tokenizer, tokens, meta["tokenizer.ggml.token_type"])


def release_freed_memory() -> None:
    """Hand the memory freed by a large parse back to the system (glibc keeps it for the process otherwise)."""
    import ctypes
    import ctypes.util

    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to hand back this way
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)


def recovered_merges(tokens: list[str], vocab: dict[str, int]) -> list[tuple[str, str]]:
    """The merges a BPE vocabulary implies: every split of a token into two tokens, best first. A merge's rank is
    its result's place in the vocabulary (Gemma lists its tokens in merge order), then the shorter left part."""
    merges = []
    ranks = {t: i for i, t in enumerate(tokens)}  # a token listed twice counts once, at its last place
    for token, rank in ranks.items():
        local = [(token[:i], token[i:]) for i in range(1, len(token)) if token[:i] in vocab and token[i:] in vocab]
        local.sort(key=lambda pair: (vocab[pair[0]], vocab[pair[1]]))
        merges.extend((rank, len(left), len(right), left, right) for left, right in local)
    merges.sort(key=lambda m: (-m[0], m[1], m[2]), reverse=True)
    return [(m[3], m[4]) for m in merges]


def _added(tokenizer, tokens: list[str], kinds: list[int]):
    """The file's control tokens kept whole as special tokens, its user-defined ones as plain added tokens."""
    from tokenizers import AddedToken

    tokenizer.add_special_tokens(
        [AddedToken(t, special=True, normalized=False) for t, k in zip(tokens, kinds, strict=True) if k == CONTROL]
    )
    user = [
        AddedToken(t, special=False, normalized=False) for t, k in zip(tokens, kinds, strict=True) if k == USER_DEFINED
    ]
    if user:
        tokenizer.add_tokens(user)
    return tokenizer


# --- each architecture's metadata ---------------------------------------------------------------------------


def llama_gguf(g: GGUF, name: str, path: Path) -> tuple[ModelConfig, dict, object]:
    """A Llama-family file: sizes under llama.*, a byte-level BPE tokenizer; the MLP kept in its 4-bit blocks."""
    meta = g.metadata
    if meta.get("tokenizer.ggml.model") != "gpt2":
        raise UnsupportedModelError(
            f"{path} holds a Llama with a {meta.get('tokenizer.ggml.model', 'unknown')} tokenizer; "
            f"this explainer reads {SUPPORTED}."
        )
    n_heads = meta["llama.attention.head_count"]
    kinds = sorted({t.type_name for n, t in g.tensors.items() if n.endswith(".weight") and len(t.shape) == 2})
    config = families.config(
        "llama",
        name,
        n_layers=meta["llama.block_count"],
        n_heads=n_heads,
        n_kv_heads=meta.get("llama.attention.head_count_kv") or n_heads,
        d_model=meta["llama.embedding_length"],
        d_head=meta["llama.embedding_length"] // n_heads,
        d_ff=meta["llama.feed_forward_length"],
        max_tokens=meta.get("llama.context_length", 2048),
        vocab_size=meta.get("llama.vocab_size", len(meta["tokenizer.ggml.tokens"])),
        norm_eps=float(meta["llama.attention.layer_norm_rms_epsilon"]),
        rope_base=float(meta.get("llama.rope.freq_base", 10_000.0)),
        weights_note="4-bit, as shipped" if "Q4_1" in kinds else ", ".join(kinds),
    )
    # the MLP's matrices stay in their 4-bit blocks (QuantizedMatrix): 50 MB where float32 would take 318 MB
    w = {n: g.quantized(n) if ".ffn_" in n and g.blocks(n) is not None else g.array(n) for n in g.tensors}
    for i in range(config.n_layers):
        p = f"blk.{i}."
        if p + "attn_q.weight" in w and p + "attn_k.weight" in w:
            w[p + "attn_q.weight"] = unpermute_rotary(w[p + "attn_q.weight"], config.n_heads)
            w[p + "attn_k.weight"] = unpermute_rotary(w[p + "attn_k.weight"], config.n_kv_heads)
    return config, w, byte_level_tokenizer(meta, path)


def gemma3_gguf(g: GGUF, name: str, path: Path) -> tuple[ModelConfig, dict, object]:
    """A Gemma 3 file: sizes under gemma3.*, a SentencePiece tokenizer. Its norms' gains are read as the file stores
    them, 1 + w (Gemma scales by 1 + w, and llama.cpp's converter adds the 1). The token table stays in its
    8-bit blocks, read in place, and the MLP's, W_Q's and W_K's in theirs; the rest is dequantized once."""
    meta = g.metadata
    n_layers, d_model = meta["gemma3.block_count"], meta["gemma3.embedding_length"]
    d_head = meta.get("gemma3.attention.key_length", 256)
    if meta.get("gemma3.attention.value_length", d_head) != d_head:
        raise UnsupportedModelError(f"{path}: keys and values of different widths; this explainer reads {SUPPORTED}.")
    config = families.config(
        "gemma3",
        name,
        n_layers=n_layers,
        n_heads=meta["gemma3.attention.head_count"],
        n_kv_heads=meta.get("gemma3.attention.head_count_kv"),
        d_model=d_model,
        d_head=d_head,
        d_ff=meta["gemma3.feed_forward_length"],
        max_tokens=meta.get("gemma3.context_length", 32_768),
        vocab_size=len(meta["tokenizer.ggml.tokens"]),
        norm_eps=float(meta["gemma3.attention.layer_norm_rms_epsilon"]),
        rope_base=float(meta.get("gemma3.rope.freq_base", 1_000_000.0)),
        embedding_scale=float(np.float32(d_model**0.5)),
        sliding_window=int(meta.get("gemma3.attention.sliding_window", 512)),
        layer_kinds=families.gemma3_layer_kinds(n_layers),
        weights_note="4- to 8-bit, as shipped (Q4_K_M)",
    )
    # the MLP's matrices and W_Q, W_K stay in their blocks, as signed bytes and a scale per group (101 MB where
    # float32 takes 342); W_V is sliced per head by the lessons, and W_O is Q4_K: both are dequantized once
    packed = ("ffn_up.weight", "ffn_gate.weight", "ffn_down.weight", "attn_q.weight", "attn_k.weight")

    def read(name: str):
        if name == "token_embd.weight":
            return g.table(name)
        if name.endswith(packed) and g.blocks(name) is not None:
            return g.quantized(name)
        return g.array(name)

    w = {n: read(n) for n in g.tensors}
    return config, w, sentencepiece_tokenizer(meta, path)


ARCHITECTURES: dict[str, Callable[[GGUF, str, Path], tuple[ModelConfig, dict, object]]] = {
    "llama": llama_gguf,
    "gemma3": gemma3_gguf,
}


def read_gguf_model(path: Path, name: str) -> Model:
    """A decoder from one GGUF file: sizes and tokenizer from its metadata, its tensors read by its architecture."""
    try:
        g = read_gguf(path)
    except (WeightFileError, OSError) as exc:
        raise ModelUnavailableError(f"{path} could not be read as a GGUF file ({exc}). Reinstall it.") from exc
    arch = g.metadata.get("general.architecture")
    if arch not in ARCHITECTURES:
        raise UnsupportedModelError(
            f"{path} holds a {arch or 'model of unknown architecture'}; this explainer reads {SUPPORTED}."
        )
    try:
        config, w, tokenizer = ARCHITECTURES[arch](g, name, path)
    except WeightFileError as exc:
        raise ModelUnavailableError(f"{path} could not be read: {exc}.") from exc
    except KeyError as exc:
        raise UnsupportedModelError(f"{path} lacks {exc}; this explainer reads {SUPPORTED}.") from exc
    try:
        model = decoder_model(config, w, tokenizer)
    except KeyError as exc:
        raise UnsupportedModelError(f"{path} lacks the tensor {exc}; this explainer reads {SUPPORTED}.") from exc
    g.let_go_of_pages()
    return model
