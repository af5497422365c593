"""Chapter 11: where a transformer's parameters are, by component.

For a GPT-style decoder the count follows 3Blue1Brown's tally (weight matrices only; biases and
LayerNorms add well under 0.1 %). For the loaded model every array is counted as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from .model import EmbeddingWeights, Model

GPT3 = dict(d_model=12288, n_layers=96, n_heads=96, d_head=128, vocab=50257, d_ff=4 * 12288)


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


def decoder_budget(d_model: int, n_layers: int, n_heads: int, d_head: int, vocab: int, d_ff: int | None = None) -> Budget:
    d_ff = 4 * d_model if d_ff is None else d_ff
    width = n_heads * d_head
    return Budget(rows=(
        ("embedding", "embedding", vocab * d_model),
        ("query W_Q", "attention", n_layers * d_model * width),
        ("key W_K", "attention", n_layers * d_model * width),
        ("value down (W_V)", "attention", n_layers * d_model * width),
        ("value up (W_O)", "attention", n_layers * width * d_model),
        ("MLP up", "mlp", n_layers * d_model * d_ff),
        ("MLP down", "mlp", n_layers * d_ff * d_model),
        ("unembedding", "embedding", vocab * d_model),
    ))


def model_budget(model: Model) -> Budget:
    """The loaded model's parameters, every array counted (biases and LayerNorms included)."""
    emb = model.embeddings
    size = {f.name: getattr(emb, f.name).size for f in fields(EmbeddingWeights)}

    def total(names: tuple[str, ...]) -> int:
        return sum(getattr(layer, name).size for layer in model.layers for name in names)

    return Budget(rows=(
        ("word embeddings", "embedding", size["word"]),
        ("position embeddings", "embedding", size["position"]),
        ("token-type embeddings + LayerNorm", "embedding", size["token_type"] + size["ln_gamma"] + size["ln_beta"]),
        ("query W_Q, b_Q", "attention", total(("w_q", "b_q"))),
        ("key W_K, b_K", "attention", total(("w_k", "b_k"))),
        ("value W_V, b_V", "attention", total(("w_v", "b_v"))),
        ("output W_O, b_O", "attention", total(("w_o", "b_o"))),
        ("LayerNorm after attention", "attention", total(("ln1_gamma", "ln1_beta"))),
        ("feed-forward up", "mlp", total(("w_ff1", "b_ff1"))),
        ("feed-forward down", "mlp", total(("w_ff2", "b_ff2"))),
        ("LayerNorm after feed-forward", "mlp", total(("ln2_gamma", "ln2_beta"))),
    ))

