"""A tiny Llama, built from nothing at test time, so the Llama family's tests need no download.

Two layers, four query heads sharing two key/value heads (grouped-query attention), d_model 64, RMSNorm,
rotary positions and a SwiGLU MLP, with the byte-level BPE of tests/tiny_gpt2.py and seeded random weights
scaled so that attention rows have a visible shape instead of being flat. Saved exactly as Hugging Face
saves a model (config.json, model.safetensors, tokenizer.json), in float32 or in bfloat16, with the output
head tied to the embeddings or a matrix of its own, so the engine and transformers read the same folder.

    python -m tests.tiny_llama OUT_FOLDER    # build one by hand to look at
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from transformers import LlamaConfig, LlamaForCausalLM

from tests.tiny_gpt2 import END_OF_TEXT, save_tokenizer, train_tokenizer

N_POSITIONS = 128
ROPE_THETA = 10_000.0


STDS = {  # by the parameter's last names; every parameter of a Llama is one of these or a norm's gain
    "embed_tokens.weight": 0.5,
    "q_proj.weight": 0.25,
    "k_proj.weight": 0.25,
    "v_proj.weight": 0.25,
    "o_proj.weight": 0.1,  # o_proj and down_proj: keep the residual stream from growing fast
    "gate_proj.weight": 0.15,
    "up_proj.weight": 0.15,
    "down_proj.weight": 0.1,
    "lm_head.weight": 0.3,  # only when the head is not tied (a tied one is embed_tokens, listed once)
}


def randomize(model: torch.nn.Module, seed: int, stds: dict[str, float] = STDS) -> None:
    """Seeded weights, large enough that softmax rows are peaked rather than uniform.

    RMSNorm hands each layer rows of root mean square ≈ 1, so with q_proj and k_proj at std 0.25 a query
    component has std ≈ 0.25·√64 = 2, and q·k/√d_head has std ≈ 2²·√16/4 = 4: rows with a clear peak.
    stds: each parameter's, by its last two names; a norm's gains are drawn near one.
    """
    generator = torch.Generator().manual_seed(seed)

    def normal(shape: torch.Size, std: float, mean: float = 0.0) -> torch.Tensor:
        return mean + std * torch.randn(shape, generator=generator)

    with torch.no_grad():
        for name, parameter in model.named_parameters():
            key = ".".join(name.split(".")[-2:])
            if "norm" in key:  # input_layernorm, post_attention_layernorm, the final norm: gains near one
                parameter.copy_(normal(parameter.shape, 0.1, 1.0))
            else:
                parameter.copy_(normal(parameter.shape, stds[key]))


def build_tiny_llama(
    folder: Path,
    seed: int = 0,
    tied: bool = True,
    dtype: torch.dtype = torch.float32,
    rope_theta: float = ROPE_THETA,
) -> Path:
    """Train the tokenizer, make the model, and save both in Hugging Face's layout under `folder`.

    tied: the output head is the embeddings (SmolLM2's choice), or a matrix of its own (Llama 2's).
    dtype: how the weights are saved: float32, or bfloat16 as most Llama checkpoints ship.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer()
    end_id = tokenizer.token_to_id(END_OF_TEXT)
    config = LlamaConfig(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=N_POSITIONS,
        rms_norm_eps=1e-5,
        rope_theta=rope_theta,
        bos_token_id=end_id,
        eos_token_id=end_id,
        tie_word_embeddings=tied,
    )
    model = LlamaForCausalLM(config)
    randomize(model, seed)
    model.eval()
    shared = model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    assert shared == tied, "the output head must be tied exactly when asked"
    model.to(dtype).save_pretrained(folder, safe_serialization=True)

    save_tokenizer(tokenizer, folder, N_POSITIONS)
    return folder


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.tiny_llama OUT_FOLDER")
    print(build_tiny_llama(Path(sys.argv[1])))
