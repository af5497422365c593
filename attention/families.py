"""A family is one row of `FAMILIES`: a preset of architecture fields (what every model of it does) and the words
that say which models and files of it the app reads. A reader supplies the sizes it finds in the files (layers,
widths, heads, vocabulary), and `config` joins the two into a ModelConfig.

A fifth family is one more row here and a reader for its tensor names under the row's key (`folder.READERS` for a
Hugging Face folder, keyed by config.json's model_type; `gguf_model.ARCHITECTURES` for a GGUF file, keyed by its
general.architecture); only if it does something no field says yet, that field in model.py and its branch in
trace.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .model import ModelConfig, UnsupportedModelError

GEMMA3_LOCAL_ROPE_BASE = 10_000.0  # Gemma 3's local layers turn by this base; its files store the global one
GEMMA3_GLOBAL_EVERY = 6  # one global layer after every five local ones: layers 6, 12, 18 (counting from 1)

LLAMA: dict[str, Any] = dict(
    family="Llama decoder",
    norm="rms",
    norm_position="pre",
    positions="rotary",
    mlp="swiglu",
    native_mask="causal",
    predicts_next_token=True,
    biases=frozenset(),
)


@dataclass(frozen=True)
class Family:
    """A family's row: its preset, and the words for the models and files of it that the app reads."""

    preset: dict[str, Any]
    reads: str


FAMILIES: dict[str, Family] = {  # keyed as its readers are: config.json's model_type, a GGUF's architecture
    "bert": Family(
        dict(
            family="BERT encoder",
            norm="layer",
            norm_position="post",
            positions="learned",
            mlp="gelu",
            native_mask="none",
            predicts_next_token=False,
        ),
        reads="BERT-style encoders (all-MiniLM-L6-v2, bert-base-uncased…)",
    ),
    "gpt2": Family(
        dict(
            family="GPT-2 decoder",
            norm="layer",
            norm_position="pre",
            positions="learned",
            native_mask="causal",
            predicts_next_token=True,
        ),
        reads="GPT-2 decoders (gpt2, distilgpt2…)",
    ),
    "llama": Family(LLAMA, reads="Llama-family decoders (SmolLM2, TinyLlama…, in safetensors or GGUF)"),
    # a Llama whose queries, keys and values add a bias; nothing else does
    "qwen2": Family(
        LLAMA | dict(family="Qwen2 decoder", biases=frozenset(("q", "k", "v"))),
        reads="Qwen2 decoders (in safetensors)",
    ),
    "gemma3": Family(
        LLAMA
        | dict(
            family="Gemma 3 decoder",
            norm_position="sandwich",
            mlp="geglu",
            qk_norm=True,
            rope_base_local=GEMMA3_LOCAL_ROPE_BASE,
        ),
        reads="Gemma 3 decoders (in GGUF)",
    ),
}
_READS = [f.reads for f in FAMILIES.values()]
SUPPORTED = ", ".join(_READS[:-1]) + " and " + _READS[-1]


def config(kind: str, name: str, **sizes: Any) -> ModelConfig:
    """The family's preset with the sizes a reader found; a size that contradicts the preset is refused."""
    row = FAMILIES.get(kind)
    if row is None:
        raise UnsupportedModelError(f"'{name}' is a {kind}; this explainer reads {SUPPORTED}.")
    preset = row.preset
    clash = sorted(k for k in sizes if k in preset and sizes[k] != preset[k])
    if clash:
        raise UnsupportedModelError(f"'{name}' changes what every {preset['family']} does: {', '.join(clash)}.")
    n_heads, n_kv_heads = sizes["n_heads"], sizes.get("n_kv_heads") or sizes["n_heads"]
    if n_heads % n_kv_heads:
        raise UnsupportedModelError(f"'{name}': {n_heads} query heads cannot share {n_kv_heads} key/value heads.")
    return ModelConfig(name=name, **{**preset, **sizes, "n_kv_heads": n_kv_heads})


def gemma3_layer_kinds(n_layers: int) -> tuple[str, ...]:
    """Gemma 3's layers: five local (sliding window) for every global one."""
    return tuple("global" if (i + 1) % GEMMA3_GLOBAL_EVERY == 0 else "local" for i in range(n_layers))
