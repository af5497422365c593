"""A tiny Qwen2, built from nothing at test time, so the Qwen2 family's tests need no download.

Qwen2 is a Llama whose queries, keys and values add a bias (its output projection and its MLP add none): two layers,
four query heads sharing two key/value heads, d_model 64, RMSNorm, rotary positions, a SwiGLU MLP, the byte-level
BPE of tests/tiny_gpt2.py, and seeded random weights (tests/tiny_llama.py's), its biases large enough to move
every score. Saved as Hugging Face saves a model (config.json, model.safetensors, tokenizer.json), with the output
head tied to the embeddings or a matrix of its own, so that the engine and transformers read the same folder.

    python -m tests.tiny_qwen2 OUT_FOLDER    # build one by hand to look at
"""

from __future__ import annotations

import sys
from pathlib import Path

from transformers import Qwen2Config, Qwen2ForCausalLM

from tests.tiny_gpt2 import END_OF_TEXT, save_tokenizer, train_tokenizer
from tests.tiny_llama import STDS, randomize

N_POSITIONS = 128
ROPE_THETA = 10_000.0
# q's and k's biases at 0.5 move a score by about as much as the matrices do (tests/tiny_llama.py's arithmetic)
BIAS_STDS = {"q_proj.bias": 0.5, "k_proj.bias": 0.5, "v_proj.bias": 0.5}


def build_tiny_qwen2(folder: Path, seed: int = 0, tied: bool = True) -> Path:
    """Train the tokenizer, make the model, and save both in Hugging Face's layout under `folder`.

    tied: the output head is the embeddings (Qwen2.5-0.5B's choice), or a matrix of its own (Qwen2-7B's)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer()
    end_id = tokenizer.token_to_id(END_OF_TEXT)
    config = Qwen2Config(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=N_POSITIONS,
        rms_norm_eps=1e-6,
        rope_theta=ROPE_THETA,
        bos_token_id=end_id,
        eos_token_id=end_id,
        tie_word_embeddings=tied,
    )
    model = Qwen2ForCausalLM(config)
    randomize(model, seed, STDS | BIAS_STDS)
    model.eval()
    shared = model.lm_head.weight.data_ptr() == model.model.embed_tokens.weight.data_ptr()
    assert shared == tied, "the output head must be tied exactly when asked"
    model.save_pretrained(folder, safe_serialization=True)
    save_tokenizer(tokenizer, folder, N_POSITIONS)
    return folder


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.tiny_qwen2 OUT_FOLDER")
    print(build_tiny_qwen2(Path(sys.argv[1])))
