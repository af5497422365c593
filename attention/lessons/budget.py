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

from dataclasses import dataclass

import numpy as np

from ..model import Model, Norm


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


def short(total: int) -> str:
    """A count in a few digits: "174.6 B", "124.4 M", "22.6 M", "129.8 k"."""
    for size, unit in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if total >= size:
            return f"{total / size:.1f} {unit}"
    return str(total)


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
    rows: tuple[tuple[str, str, int], ...]  # (component, group, parameters); group is attention, mlp or embedding

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
            ("final LayerNorm", "embedding", norm),
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
    """The loaded model's parameters, every array counted (biases and LayerNorms included)."""
    emb = model.embeddings

    def size(*arrays: np.ndarray | None) -> int:
        return sum(a.size for a in arrays if a is not None)

    def norm(n: Norm | None) -> int:
        return 0 if n is None else size(n.gamma, n.beta)

    def total(names: tuple[str, ...]) -> int:
        return sum(size(getattr(layer, name)) for layer in model.layers for name in names)

    norm_name = "RMSNorm" if model.config.norm == "rms" else "LayerNorm"
    rows = [("word embeddings", "embedding", size(emb.word))]
    if emb.position is not None:
        rows.append(("position embeddings", "embedding", size(emb.position)))
    if emb.token_type is not None or emb.norm is not None:
        rows.append(("token-type embeddings + LayerNorm", "embedding", size(emb.token_type) + norm(emb.norm)))
    rows += [
        ("query W_Q, b_Q", "attention", total(("w_q", "b_q"))),
        ("key W_K, b_K", "attention", total(("w_k", "b_k"))),
        ("value W_V, b_V", "attention", total(("w_v", "b_v"))),
        ("output W_O, b_O", "attention", total(("w_o", "b_o"))),
        (f"{norm_name} of the attention sub-layer", "attention", sum(norm(w.norm_attention) for w in model.layers)),
        (
            "feed-forward up" + (" and gate" if model.config.mlp == "swiglu" else ""),
            "mlp",
            total(("w_ff1", "b_ff1", "w_gate")),
        ),
        ("feed-forward down", "mlp", total(("w_ff2", "b_ff2"))),
        (f"{norm_name} of the feed-forward sub-layer", "mlp", sum(norm(w.norm_ffn) for w in model.layers)),
    ]
    if model.final_norm is not None:
        rows.append((f"final {norm_name}", "embedding", norm(model.final_norm)))
    if model.output is not None:
        rows.append(("output head (not tied to the embeddings)", "embedding", size(model.output)))
    return Budget(rows=tuple(rows))


@dataclass(frozen=True)
class Part:
    """One box of the model's diagram: what it is, its sizes, and its parameters (in one layer, for a block's)."""

    key: str  # tokens, embedding, norm_attention, attention, add_attention, norm_mlp, mlp, add_mlp, final_norm, output
    name: str
    detail: str
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
    """Tokens → embeddings → n_layers × (attention and MLP, each with its residual and LayerNorm) → output.

    BERT normalizes after each residual sum, GPT-2 before each sub-layer and once more at the end; the
    boxes come in the model's own order. Parameter counts are read from the arrays of the first layer
    (every layer has the same shapes)."""
    cfg, emb, first = model.config, model.embeddings, model.layers[0]

    def size(*arrays: np.ndarray | None) -> int:
        return int(sum(a.size for a in arrays if a is not None))

    def norm(n: Norm | None) -> int:
        return 0 if n is None else size(n.gamma, n.beta)

    d, ff = cfg.d_model, cfg.d_ff
    norm_name = "RMSNorm" if cfg.norm == "rms" else "LayerNorm"
    norm_detail = f"{d} gains" if cfg.norm == "rms" else f"{d} gains and {d} biases"
    if emb.position is not None:
        embedding_detail = f"{cfg.vocab_size:,} tokens × {d} + {emb.position.shape[0]:,} positions × {d}"
    else:
        embedding_detail = f"{cfg.vocab_size:,} tokens × {d}; positions rotate q and k instead"
    if emb.token_type is not None:
        embedding_detail += ", then LayerNorm"
    heads = f"{cfg.n_heads} heads × d_head {cfg.d_head} = {d}"
    if cfg.n_kv_heads != cfg.n_heads:
        heads = f"{cfg.n_heads} query heads, {cfg.n_kv_heads} key/value heads, d_head {cfg.d_head}"
    attention_part = Part(
        "attention",
        "Multi-head attention" + (" (rotary)" if cfg.positions == "rotary" else ""),
        f"{heads}: W_Q, W_K, W_V, W_O",
        size(first.w_q, first.b_q, first.w_k, first.b_k, first.w_v, first.b_v, first.w_o, first.b_o),
        True,
    )
    mlp_part = Part(
        "mlp",
        "MLP (SwiGLU)" if cfg.mlp == "swiglu" else "MLP (feed-forward)",
        f"{d} → {ff:,} (×2: gate and up) → {d}" if cfg.mlp == "swiglu" else f"{d} → {ff:,} → {d}",
        size(first.w_ff1, first.b_ff1, first.w_gate, first.w_ff2, first.b_ff2),
        True,
    )
    norm_attention = norm(first.norm_attention)
    norm_mlp = norm(first.norm_ffn)
    parts = [
        Part("tokens", "Tokens", f"a vocabulary of {cfg.vocab_size:,}", 0, False),
        Part(
            "embedding",
            "Embeddings",
            embedding_detail,
            size(emb.word, emb.position, emb.token_type) + norm(emb.norm),
            False,
        ),
    ]
    if cfg.norm_position == "pre":
        parts += [
            Part("norm_attention", norm_name, norm_detail, norm_attention, True),
            attention_part,
            Part("add_attention", "Residual: x + attention(x)", "adds, learns nothing", 0, True),
            Part("norm_mlp", norm_name, norm_detail, norm_mlp, True),
            mlp_part,
            Part("add_mlp", "Residual: x + MLP(x)", "adds, learns nothing", 0, True),
        ]
    if cfg.predicts_next_token:
        output = (
            (f"× W_Eᵀ: {d} → {cfg.vocab_size:,}, the embedding reused", 0)
            if model.output is None
            else (f"× W_out: {d} → {cfg.vocab_size:,}", size(model.output))
        )
        parts += [
            Part("final_norm", f"Final {norm_name}", norm_detail, norm(model.final_norm), False),
            Part("output", "Next-token scores", *output, False),
        ]
    if cfg.norm_position == "post":
        parts += [
            attention_part,
            Part(
                "add_attention",
                "Add & LayerNorm",
                f"x + attention(x), then {d} gains and {d} biases",
                norm_attention,
                True,
            ),
            mlp_part,
            Part("add_mlp", "Add & LayerNorm", f"x + MLP(x), then {d} gains and {d} biases", norm_mlp, True),
        ]
    if not cfg.predicts_next_token:
        parts.append(Part("output", "Sentence embedding", _pooling(cfg.pooling, cfg.normalize, d), 0, False))
    return Architecture(name=cfg.name, arch=cfg.family, n_layers=cfg.n_layers, parts=tuple(parts))


def _pooling(pooling: str, normalize: bool, d_model: int) -> str:
    how = {"cls": "the [CLS] token's vector", "max": "the largest value of each coordinate"}.get(
        pooling, "the mean of the tokens' vectors"
    )
    return f"{how}, {d_model} wide" + (", scaled to length 1" if normalize else "")
