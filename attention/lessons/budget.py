"""Where a transformer's parameters are, by component.

A GPT-style decoder is counted the way GPT-2 is built: a token embedding that is also the output
head (tied, so counted once), learned positions, in every block W_Q, W_K, W_V and W_O with their
biases, two LayerNorms and the MLP's two layers with theirs, then a final LayerNorm. Counted so,
GPT-2 small has exactly the 124,439,808 parameters of Hugging Face's gpt2, and GPT-3's sizes give
174.6 billion, the "175B" of its paper. 3Blue1Brown's tally (weight matrices only, the output head
counted apart) is here too, since the lesson notes follow it. The loaded model's arrays are counted
as they are.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from ..model import ALL_BIASES, Model, Norm


@dataclass(frozen=True)
class DecoderSizes:
    """A GPT-style decoder's sizes. d_model is n_heads × d_head by construction: the heads' outputs,
    side by side, are exactly one token's width, which W_O maps back onto the residual stream."""

    name: str
    n_layers: int
    n_heads: int
    d_head: int
    vocab: int
    context: int  # the longest text it reads, in tokens: the rows of the position table
    mlp_ratio: int = 4  # the MLP's hidden width, in multiples of d_model
    published: str = ""  # the count its authors give, as they write it ("124M", "175B")

    @property
    def d_model(self) -> int:
        return self.n_heads * self.d_head

    @property
    def d_ff(self) -> int:
        return self.mlp_ratio * self.d_model


# Radford et al. 2019 (GPT-2 small; Hugging Face's gpt2 has 124,439,808 parameters) and
# Brown et al. 2020, table 2.1 (GPT-3 175B).
GPT2_SMALL = DecoderSizes(
    "GPT-2 small", n_layers=12, n_heads=12, d_head=64, vocab=50257, context=1024, published="124M"
)
GPT3 = DecoderSizes("GPT-3 175B", n_layers=96, n_heads=96, d_head=128, vocab=50257, context=2048, published="175B")
PRESETS = {"gpt2": GPT2_SMALL, "gpt3": GPT3}
# The lesson notes give the embedding's dimension as 12288 and say it "is defined by the number of tokens": the
# number is right, the reason is not. 12,288 is GPT-3's width d_model (96 heads × 128), a choice of its designers;
# the number of tokens is another size: its vocabulary (50,257) or its context (2,048 tokens).
NOTES_EMBEDDING_WIDTH = 12288


def sizes_of(config) -> DecoderSizes:
    """A loaded model's sizes in the calculator's terms (the most tokens it reads as the context)."""
    return DecoderSizes(
        config.name,
        n_layers=config.n_layers,
        n_heads=config.n_heads,
        d_head=config.d_head,
        vocab=config.vocab_size,
        context=config.max_positions or config.max_tokens,
        mlp_ratio=config.d_ff // config.d_model,
    )


def rounded(total: int, unit: str) -> str:
    """A count written as papers write it: "124M", "175B" (unit "M" or "B", no decimals)."""
    return f"{total / {'M': 1e6, 'B': 1e9}[unit]:.0f}{unit}"


def head_count(n_layers: int, n_heads: int) -> int:
    """Every attention head of the model: n_heads in each of n_layers layers."""
    return n_layers * n_heads


def value_map_parameters(d_model: int, d_head: int) -> tuple[int, int]:
    """One head's value map written as a full d_model × d_model matrix, and as W_O⁽ʰ⁾ W_V⁽ʰ⁾ through d_head."""
    return d_model * d_model, 2 * d_model * d_head


@dataclass(frozen=True)
class Budget:
    rows: tuple[
        tuple[str, str, int], ...
    ]  # (component, group, parameters); group is attention, mlp, embedding or output

    @property
    def total(self) -> int:
        return sum(n for _, _, n in self.rows)

    def group(self, name: str) -> int:
        return sum(n for _, g, n in self.rows if g == name)

    def share(self, name: str) -> float:
        return self.group(name) / self.total


def decoder_budget(sizes: DecoderSizes) -> Budget:
    """Every parameter of a GPT-2-style decoder of these sizes, by component."""
    n_layers, d_model, d_ff = sizes.n_layers, sizes.d_model, sizes.d_ff
    width = sizes.n_heads * sizes.d_head  # = d_model
    norm = 2 * d_model  # a LayerNorm's gain and bias
    return Budget(
        rows=(
            ("token embedding (also the output head)", "embedding", sizes.vocab * d_model),
            ("position embedding", "embedding", sizes.context * d_model),
            ("query W_Q, b_Q", "attention", n_layers * (d_model * width + width)),
            ("key W_K, b_K", "attention", n_layers * (d_model * width + width)),
            ("value W_V, b_V", "attention", n_layers * (d_model * width + width)),
            ("output W_O, b_O", "attention", n_layers * (width * d_model + d_model)),
            ("LayerNorm before attention", "attention", n_layers * norm),
            ("MLP up", "mlp", n_layers * (d_model * d_ff + d_ff)),
            ("MLP down", "mlp", n_layers * (d_ff * d_model + d_model)),
            ("LayerNorm before the MLP", "mlp", n_layers * norm),
            ("final LayerNorm", "output", norm),  # after the last block, as decoder_parts counts a loaded model's
        )
    )


def matrix_tally(sizes: DecoderSizes) -> Budget:
    """3Blue1Brown's tally, which the lesson notes follow: weight matrices only (no positions, biases or
    LayerNorms), and the output head counted as a matrix of its own."""
    n_layers, d_model, d_ff, vocab = sizes.n_layers, sizes.d_model, sizes.d_ff, sizes.vocab
    width = sizes.n_heads * sizes.d_head
    return Budget(
        rows=(
            ("embedding", "embedding", vocab * d_model),
            ("query W_Q", "attention", n_layers * d_model * width),
            ("key W_K", "attention", n_layers * d_model * width),
            ("value down (W_V)", "attention", n_layers * d_model * width),
            ("value up (W_O)", "attention", n_layers * width * d_model),
            ("MLP up", "mlp", n_layers * d_model * d_ff),
            ("MLP down", "mlp", n_layers * d_ff * d_model),
            ("unembedding", "embedding", vocab * d_model),
        )
    )


def model_budget(model: Model) -> Budget:
    """The loaded model's parameters, every array counted, one row per kind of array it has (none for a bias or
    a norm it does not have). A row's first entry is its key; ui/architecture.budget_row names it."""
    emb = model.embeddings

    def size(*arrays: np.ndarray | None) -> int:
        return sum(a.size for a in arrays if a is not None)

    def norm(n: Norm | None) -> int:
        return 0 if n is None else size(n.gamma, n.beta)

    def total(names: tuple[str, ...]) -> int:
        return sum(size(getattr(layer, name)) for layer in model.layers for name in names)

    def norms(name: str) -> int:
        return sum(norm(getattr(layer, name)) for layer in model.layers)

    rows = [
        ("word", "embedding", size(emb.word)),
        ("position", "embedding", size(emb.position)),
        ("token_type", "embedding", size(emb.token_type) + norm(emb.norm)),
        ("query", "attention", total(("w_q", "b_q"))),
        ("key", "attention", total(("w_k", "b_k"))),
        ("value", "attention", total(("w_v", "b_v"))),
        ("output", "attention", total(("w_o", "b_o"))),
        ("qk_norm", "attention", norms("norm_q") + norms("norm_k")),
        ("norm_attention", "attention", norms("norm_attention")),
        ("norm_attention_out", "attention", norms("norm_attention_out")),
        ("up", "mlp", total(("w_ff1", "b_ff1"))),
        ("gate", "mlp", total(("w_gate",))),
        ("down", "mlp", total(("w_ff2", "b_ff2"))),
        ("norm_ffn", "mlp", norms("norm_ffn")),
        ("norm_ffn_out", "mlp", norms("norm_ffn_out")),
        ("final_norm", "output", norm(model.final_norm)),  # after the last block, before the output head
        ("output_head", "output", size(model.output)),
    ]
    return Budget(rows=tuple(r for r in rows if r[2]))


def gpt_count(
    n_layers: int,
    d: int,
    width: int,
    kv_width: int,
    d_ff: int,
    vocab: int,
    positions: int,
    biases: Collection[str],
    norm_size: int,
    norms_per_layer: int,
    gated: bool,
    extra_per_layer: int = 0,
    output: int = 0,
) -> int:
    """A decoder's parameters counted from its structure: the token table (tied to the output head unless
    `output` counts one apart), learned positions, per layer W_Q and W_O (d × width), W_K and W_V (d × kv_width),
    the MLP's matrices (a gated one has three), the biases of the layers in `biases` (q, k, v, o, mlp), its norms (norm_size numbers each, one per layer
    norms_per_layer times, and one final), and any other per-layer numbers (QK-norm's gains)."""
    added = {"q": width, "k": kv_width, "v": kv_width, "o": d, "mlp": d_ff + d}  # each bias's numbers
    attention = 2 * d * width + 2 * d * kv_width + sum(added[m] for m in ("q", "k", "v", "o") if m in biases)
    mlp = (3 if gated else 2) * d * d_ff + (added["mlp"] if "mlp" in biases else 0)
    per_layer = attention + mlp + norms_per_layer * norm_size + extra_per_layer
    return vocab * d + positions * d + n_layers * per_layer + norm_size + output


def calculator_gap(model: Model) -> tuple[tuple[str, int], ...]:
    """Why the calculator's count (GPT-2's structure at the model's sizes) differs from the model's arrays: the
    calculator's assumptions replaced by the model's own one at a time, each with the change in the count it makes.
    The changes add up to the arrays' count minus the calculator's; an assumption the model keeps makes none and is
    left out. Keys: width (d_model is not n_heads × d_head), positions, biases, norm (gains only), kv_heads, d_ff,
    gated, norms (more norms per layer), qk_norm, output_head (not tied)."""
    cfg = model.config
    sizes = sizes_of(cfg)
    norm_size = sum(a.size for a in (model.final_norm.gamma, model.final_norm.beta) if a is not None)
    n_norms = sum(
        1
        for name in ("norm_attention", "norm_ffn", "norm_attention_out", "norm_ffn_out")
        if getattr(model.layers[0], name) is not None
    )
    qk = sum(n.gamma.size for n in (model.layers[0].norm_q, model.layers[0].norm_k) if n is not None)
    structure = dict(
        n_layers=cfg.n_layers,
        d=sizes.d_model,
        width=sizes.d_model,
        kv_width=sizes.d_model,
        d_ff=sizes.d_ff,
        vocab=cfg.vocab_size,
        positions=sizes.context,
        biases=ALL_BIASES,
        norm_size=2 * sizes.d_model,
        norms_per_layer=2,
        gated=False,
    )
    steps = [
        (
            "width",
            dict(
                d=cfg.d_model,
                width=cfg.n_heads * cfg.d_head,
                kv_width=cfg.n_heads * cfg.d_head,
                norm_size=2 * cfg.d_model,
            ),
        ),
        ("positions", dict(positions=0 if model.embeddings.position is None else model.embeddings.position.shape[0])),
        ("biases", dict(biases=cfg.biases)),
        ("norm", dict(norm_size=norm_size)),
        ("kv_heads", dict(kv_width=cfg.n_kv_heads * cfg.d_head)),
        ("d_ff", dict(d_ff=cfg.d_ff)),
        ("gated", dict(gated=model.layers[0].w_gate is not None)),
        ("norms", dict(norms_per_layer=n_norms)),
        ("qk_norm", dict(extra_per_layer=qk)),
        ("output_head", dict(output=0 if model.output is None else model.output.size)),
    ]
    out, count = [], gpt_count(**structure)
    for key, change in steps:
        structure |= change
        new = gpt_count(**structure)
        if new != count:
            out.append((key, new - count))
        count = new
    return tuple(out)


@dataclass(frozen=True)
class Part:
    """One box of the model's diagram: which step it is, and its parameters (in one layer, for a block's). What a
    page calls it is ui/words/architecture/'s business (it knows the words for each field's value)."""

    key: str  # tokens, embedding, norm_attention, attention, norm_attention_out, add_attention, norm_mlp, mlp,
    # norm_mlp_out, add_mlp (a sum, or a sum then a norm, after the sub-layer), final_norm, output
    parameters: int
    in_block: bool  # repeated in every layer


@dataclass(frozen=True)
class Architecture:
    """The loaded model as boxes, in the order a token goes through them, read from its weights."""

    name: str
    arch: str
    n_layers: int
    parts: tuple[Part, ...]

    @property
    def total(self) -> int:
        """Every parameter: the parts outside the block once, the block's parts once per layer."""
        return sum(p.parameters * (self.n_layers if p.in_block else 1) for p in self.parts)

    def part(self, key: str) -> Part:
        return next(p for p in self.parts if p.key == key)


def architecture(model: Model) -> Architecture:
    """Tokens → embeddings → n_layers × (attention and MLP, each with its residual and its norms) → output, in the
    model's own order (config.norm_position): a norm after each residual sum (post), before each sub-layer (pre), or
    both before it and on its output (sandwich). A model that predicts the next token ends with its final norm and
    output head (no parameters of its own when the head is W_Eᵀ); an encoder ends with an output of no parameters.
    Parameter counts are read from the arrays of the first layer (every layer has the same shapes), a matrix kept in
    its quantized blocks counting its numbers, not its bytes; QK-norm's gains count with attention."""
    cfg, emb, first = model.config, model.embeddings, model.layers[0]

    def size(*arrays: np.ndarray | None) -> int:
        return int(sum(a.size for a in arrays if a is not None))

    def norm(n: Norm | None) -> int:
        return 0 if n is None else size(n.gamma, n.beta)

    attention = Part(
        "attention",
        size(first.w_q, first.b_q, first.w_k, first.b_k, first.w_v, first.b_v, first.w_o, first.b_o)
        + norm(first.norm_q)
        + norm(first.norm_k),
        True,
    )
    mlp = Part("mlp", size(first.w_ff1, first.b_ff1, first.w_gate, first.w_ff2, first.b_ff2), True)
    parts = [
        Part("tokens", 0, False),
        Part("embedding", size(emb.word, emb.position, emb.token_type) + norm(emb.norm), False),
    ]
    if cfg.norm_position == "post":
        parts += [
            attention,
            Part("add_attention", norm(first.norm_attention), True),
            mlp,
            Part("add_mlp", norm(first.norm_ffn), True),
        ]
    elif cfg.norm_position in ("pre", "sandwich"):
        sandwich = cfg.norm_position == "sandwich"
        parts += [Part("norm_attention", norm(first.norm_attention), True), attention]
        parts += [Part("norm_attention_out", norm(first.norm_attention_out), True)] if sandwich else []
        parts += [Part("add_attention", 0, True), Part("norm_mlp", norm(first.norm_ffn), True), mlp]
        parts += [Part("norm_mlp_out", norm(first.norm_ffn_out), True)] if sandwich else []
        parts += [Part("add_mlp", 0, True)]
    else:
        raise ValueError(f"Unknown norm position '{cfg.norm_position}'.")
    if cfg.predicts_next_token:
        parts += [
            Part("final_norm", norm(model.final_norm), False),
            Part("output", 0 if model.output is None else size(model.output), False),
        ]
    else:
        parts.append(Part("output", 0, False))
    return Architecture(name=cfg.name, arch=cfg.family, n_layers=cfg.n_layers, parts=tuple(parts))
