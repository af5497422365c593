"""A tiny GPT-2, built from nothing at test time, so decoder tests need no download.

Two layers, four heads, d_model 64, a byte-level BPE of a few hundred tokens trained on the sentences
below, and seeded random weights scaled so that attention rows have a visible shape instead of being
flat. Saved exactly as Hugging Face saves a model (config.json, model.safetensors, tokenizer.json), so
the engine and transformers read the same folder.

    python -m tests.tiny_gpt2 OUT_FOLDER    # build one by hand to look at
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

END_OF_TEXT = "<|endoftext|>"
VOCAB_SIZE = 400
N_POSITIONS = 64

CORPUS = [
    "a fluffy blue creature roamed the verdant forest",
    "the fluffy blue creature slept under a tall tree",
    "a small green creature walked through the forest",
    "the verdant forest was full of fluffy creatures",
    "blue birds sang above the quiet green forest",
    "a creature roamed the hills and the verdant valley",
    "the river ran through the forest to the sea",
    "we sat by the river bank and watched the water",
    "the bank by the river bank was closed on sunday",
    "an apple and an orange fell from the tree",
    "she ate an apple and he ate an orange",
    "an apple phone lay on the table",
    "the cat sat on the mat and looked at the dog",
    "the dog ran after the cat across the garden",
    "a bird flew over the garden and the house",
    "the old man walked to the market in the morning",
    "the children played in the park after school",
    "the sun rose over the mountains and the lake",
    "the moon shone on the lake at night",
    "rain fell on the roof of the little house",
    "the wind blew through the trees of the forest",
    "a fluffy cloud floated in the blue sky",
    "the blue sky turned red as the sun set",
    "the creature ate berries from a green bush",
    "the forest was quiet and the creature was happy",
    "attention lets each token look at the tokens before it",
    "the model predicts the next token from the tokens before it",
    "each head of attention learns a different pattern",
    "the query of one token meets the key of another",
    "the value of each token is mixed by the attention weights",
    "a transformer stacks layers of attention and feed forward networks",
    "In 1969, 3 astronauts flew 384,400 km to the Moon!",
    "Tokenisation splits unbelievably long words into pieces.",
    "The the THE the.",
    "Don't go insane, find the real identity of the reviewers.",
    "the quick brown fox jumps over the lazy dog",
    "she sells sea shells by the sea shore",
    "a bank holds money and a river bank holds water",
    "the train left the station at nine in the morning",
    "the teacher read a story to the children",
]


def train_tokenizer(sentences: list[str] = CORPUS, vocab_size: int = VOCAB_SIZE) -> Tokenizer:
    """GPT-2's tokenizer recipe: byte-level BPE, no prefix space, no special tokens added to the ids."""
    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=[END_OF_TEXT],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(sentences, trainer=trainer)
    return tokenizer


def _randomize(model: GPT2LMHeadModel, seed: int) -> None:
    """Seeded weights, large enough that softmax rows are peaked rather than uniform.

    The default initialisation (std 0.02) makes every q·k nearly zero, so every row of attention is
    1/n: a test would pass even if queries and keys were swapped. With c_attn at std 0.25 a query
    component has std ≈ 0.25·√64 = 2, and q·k/√d_head has std ≈ 2²·√16/4 = 4: rows with a clear peak.
    """
    generator = torch.Generator().manual_seed(seed)

    def normal(shape: torch.Size, std: float, mean: float = 0.0) -> torch.Tensor:
        return mean + std * torch.randn(shape, generator=generator)

    stds = {  # by the parameter's last name; every parameter of GPT-2 is one of these
        "wte.weight": 0.5,
        "wpe.weight": 0.3,
        "c_attn.weight": 0.25,
        "c_attn.bias": 0.2,
        "c_proj.weight": 0.1,  # attn.c_proj and mlp.c_proj: keep the residual stream from growing fast
        "c_proj.bias": 0.05,
        "c_fc.weight": 0.15,
        "c_fc.bias": 0.1,
    }
    with torch.no_grad():
        for name, parameter in model.transformer.named_parameters():  # lm_head is tied to wte
            key = ".".join(name.split(".")[-2:])
            if key.startswith("ln_"):  # ln_1, ln_2, ln_f: gains near one
                mean = 1.0 if name.endswith("weight") else 0.0
                parameter.copy_(normal(parameter.shape, 0.1, mean))
            else:
                parameter.copy_(normal(parameter.shape, stds[key]))


def build_tiny_gpt2(folder: Path, seed: int = 0) -> Path:
    """Train the tokenizer, make the model, and save both in Hugging Face's layout under `folder`."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = train_tokenizer()
    end_id = tokenizer.token_to_id(END_OF_TEXT)
    config = GPT2Config(
        vocab_size=tokenizer.get_vocab_size(),
        n_positions=N_POSITIONS,
        n_embd=64,
        n_layer=2,
        n_head=4,
        n_inner=None,
        bos_token_id=end_id,
        eos_token_id=end_id,
        tie_word_embeddings=True,
    )
    model = GPT2LMHeadModel(config)
    _randomize(model, seed)
    model.eval()
    assert model.lm_head.weight.data_ptr() == model.transformer.wte.weight.data_ptr(), "embeddings must be tied"
    model.save_pretrained(folder, safe_serialization=True)

    save_tokenizer(tokenizer, folder, N_POSITIONS)
    return folder


def save_tokenizer(tokenizer: Tokenizer, folder: Path, max_length: int) -> None:
    """Save the trained tokenizer as Hugging Face does (tokenizer.json and tokenizer_config.json), with
    <|endoftext|> as its beginning, end and unknown token."""
    wrapped = PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token=END_OF_TEXT,
        eos_token=END_OF_TEXT,
        unk_token=END_OF_TEXT,
        model_max_length=max_length,
    )
    wrapped.save_pretrained(folder)


def install_in_hf_cache(folder: Path, repo_id: str, cache_dir: Path) -> Path:
    """Lay `folder` out as huggingface_hub's cache holds a downloaded repo; return the snapshot folder.

    cache_dir/models--{owner--name}/blobs/<sha256>, snapshots/<revision>/<file> -> ../../blobs/<sha256>,
    refs/main = <revision>. The revision is a hash of the files, so the same model gives the same one.
    """
    files = sorted(p for p in Path(folder).iterdir() if p.is_file())
    digests = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    revision = hashlib.sha1("".join(f"{name}:{d}\n" for name, d in sorted(digests.items())).encode()).hexdigest()

    repo = Path(cache_dir) / f"models--{repo_id.replace('/', '--')}"
    blobs, snapshot, refs = repo / "blobs", repo / "snapshots" / revision, repo / "refs"
    for directory in (blobs, snapshot, refs):
        directory.mkdir(parents=True, exist_ok=True)
    for path in files:
        blob = blobs / digests[path.name]
        if not blob.exists():
            blob.write_bytes(path.read_bytes())
        link = snapshot / path.name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(os.path.relpath(blob, snapshot))
    (refs / "main").write_text(revision)  # no newline, as huggingface_hub writes it
    return snapshot


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tests.tiny_gpt2 OUT_FOLDER")
    print(build_tiny_gpt2(Path(sys.argv[1])))
