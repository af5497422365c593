"""Chapter 11: where a transformer's parameters are, by component.

For a GPT-style decoder the count follows 3Blue1Brown's tally (weight matrices only; biases and
LayerNorms add well under 0.1 %). For the loaded model every array is counted as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import Model, Norm


@dataclass(frozen=True)
class DecoderSizes:
    """A GPT-style decoder's published sizes: everything the lesson's counts are made from."""

    name: str
    n_layers: int
    d_model: int
    n_heads: int
    d_head: int
    d_ff: int  # the MLP's hidden width
    vocab: int
    context: int  # the longest text it reads, in tokens


# Brown et al. 2020, table 2.1 (175B), and Radford et al. 2019 (GPT-2 small, 124M).
GPT3 = DecoderSizes(
    "GPT-3 175B", n_layers=96, d_model=12288, n_heads=96, d_head=128, d_ff=4 * 12288, vocab=50257, context=2048
)
GPT2_SMALL = DecoderSizes(
    "GPT-2 small", n_layers=12, d_model=768, n_heads=12, d_head=64, d_ff=3072, vocab=50257, context=1024
)


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
    width = sizes.n_heads * sizes.d_head
    n_layers, d_model, d_ff, vocab = sizes.n_layers, sizes.d_model, sizes.d_ff, sizes.vocab
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
        return sum(getattr(layer, name).size for layer in model.layers for name in names)

    rows = [
        ("word embeddings", "embedding", size(emb.word)),
        ("position embeddings", "embedding", size(emb.position)),
    ]
    if emb.token_type is not None or emb.norm is not None:
        rows.append(("token-type embeddings + LayerNorm", "embedding", size(emb.token_type) + norm(emb.norm)))
    rows += [
        ("query W_Q, b_Q", "attention", total(("w_q", "b_q"))),
        ("key W_K, b_K", "attention", total(("w_k", "b_k"))),
        ("value W_V, b_V", "attention", total(("w_v", "b_v"))),
        ("output W_O, b_O", "attention", total(("w_o", "b_o"))),
        ("LayerNorm of the attention sub-layer", "attention", sum(norm(w.norm_attention) for w in model.layers)),
        ("feed-forward up", "mlp", total(("w_ff1", "b_ff1"))),
        ("feed-forward down", "mlp", total(("w_ff2", "b_ff2"))),
        ("LayerNorm of the feed-forward sub-layer", "mlp", sum(norm(w.norm_ffn) for w in model.layers)),
    ]
    if model.final_norm is not None:
        rows.append(("final LayerNorm", "embedding", norm(model.final_norm)))
    return Budget(rows=tuple(rows))
