"""transformers' own GPT-2 at any size, built on PyTorch's meta device: its parameters are there to count, none is
allocated (GPT-3's 175 billion take a fraction of a second). The reference for the lesson's parameter counts."""

from __future__ import annotations

import torch
from transformers import GPT2Config, GPT2LMHeadModel

# Which of transformers' parameter names make up each group of the lesson's budget.
GROUPS = {
    "attention": (".attn.", ".ln_1."),  # W_Q, W_K, W_V (one c_attn), W_O (c_proj), their biases, the LayerNorm before
    "mlp": (".mlp.", ".ln_2."),
    "embedding": ("wte.", "wpe."),  # the output head is wte itself
    "output": ("ln_f.",),  # the final LayerNorm, after the last block, as the loaded models count theirs
}


def gpt2_of_sizes(n_layers: int, n_heads: int, d_head: int, vocab: int, context: int) -> GPT2LMHeadModel:
    with torch.device("meta"):
        config = GPT2Config(
            n_layer=n_layers, n_head=n_heads, n_embd=n_heads * d_head, vocab_size=vocab, n_positions=context
        )
        return GPT2LMHeadModel(config)


def parameters_by_group(model: GPT2LMHeadModel) -> dict[str, int]:
    """The model's parameters counted in the lesson's groups; every parameter falls in exactly one."""
    counts = dict.fromkeys(GROUPS, 0)
    for name, p in model.named_parameters():
        (group,) = [g for g, parts in GROUPS.items() if any(part in name for part in parts)]
        counts[group] += p.numel()
    return counts
