"""transformers' LlamaForCausalLM as the reference for a Llama-family model, and Gemma3ForCausalLM for Gemma 3: their
numbers read with hooks, and the engine's trace compared with them quantity by quantity. Shared by test_llama.py
(the tiny Llama), test_smollm2.py (the real SmolLM2-135M) and test_gemma3.py (the real Gemma 3 270M)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from unittest.mock import patch

import numpy as np
import torch
from filelock import FileLock
from gguf import GGUFReader
from safetensors.torch import save_model
from transformers import AutoTokenizer
from transformers.models.llama import modeling_llama

import attention
from attention import ops

TOLERANCES = {  # the largest difference from transformers each quantity may show
    "weights": 1e-5,  # every head's attention weights
    "hidden": 1e-4,  # each layer's hidden states, relative to that layer's largest magnitude
    "probabilities": 1e-5,  # the next-token probabilities, over the whole vocabulary
    "q": 1e-4,  # queries after the rotation, relative to their largest magnitude
    "k": 1e-4,  # keys after the rotation, the shared ones and as each query head reads them (relative)
    "v": 1e-4,  # values, likewise (relative)
    "displacement": 1e-4,  # each head's Δe, relative to its layer's largest
}


class Measurements:
    """The largest difference seen for each quantity, with its tolerance, to print as a table at the end."""

    def __init__(self) -> None:
        self.largest: dict[str, tuple[float, float]] = {}

    def record(self, name: str, value: float, tolerance: float) -> bool:
        """Keep `value` if it is the largest yet for `name`, and say whether it is within `tolerance`."""
        self.largest[name] = (max(self.largest.get(name, (0.0,))[0], float(value)), tolerance)
        return float(value) <= tolerance

    def table(self, title: str) -> str:
        rows = [f"  {name:<44} {value:9.2e}   tolerance {tol:g}" for name, (value, tol) in sorted(self.largest.items())]
        return "\n".join([title, *rows])


# --- the reference model, read from a GGUF file once per test run ------------------------------------


class PlainReader(GGUFReader):
    """The gguf package's reader over the file's bytes as a plain numpy array, not a numpy.memmap: the same fields and
    tensors (tests/test_smollm2.py compares the two), read in a third of the time. The reader cuts every text of a
    vocabulary out of the file (262,144 of them in Gemma 3's), and each cut of a memmap runs Python code of numpy's
    own (10.4 s a reading of Gemma 3's file, against 3.2 s); transformers reads the file for the config, the weights
    and the tokenizer."""

    @property
    def data(self) -> np.ndarray:
        return self._bytes

    @data.setter
    def data(self, value: np.ndarray) -> None:
        self._bytes = value.view(np.ndarray) if isinstance(value, np.memmap) else value  # the same mapped bytes


def from_gguf(cls, path: Path, shared: Path):
    """transformers' `cls` (LlamaForCausalLM, Gemma3ForCausalLM) reading the GGUF file at `path`, dequantized by the
    gguf package, eager, float32. Dequantizing takes transformers up to a minute; the first test process to ask does
    it and saves the model in `shared` (tests/conftest.py's `shared_dir`, one per test run), where every other
    process reads it back in seconds: the same tensors, the same config."""
    folder = shared / f"{cls.__name__}-{path.name}"
    with FileLock(f"{folder}.lock"):
        if not (folder / "config.json").exists():
            with patch("gguf.GGUFReader", PlainReader):
                model = cls.from_pretrained(
                    path.parent, gguf_file=path.name, attn_implementation="eager", dtype=torch.float32
                )
            # save_pretrained refuses a model read from GGUF: its weights are plain float32 tensors by now
            folder.mkdir()
            model.config.save_pretrained(folder)
            save_model(model, str(folder / "model.safetensors"))  # a tied head kept once, tied again on reading
            return model.eval()
    return cls.from_pretrained(folder, attn_implementation="eager", dtype=torch.float32).eval()


def tokenizer_from_gguf(path: Path, shared: Path):
    """transformers' tokenizer read from the GGUF file at `path` (about ten seconds), once per test run, as
    `from_gguf` does the model: saved in `shared` by the first test process, read back by the others."""
    folder = shared / f"tokenizer-{path.name}"
    with FileLock(f"{folder}.lock"):
        if not (folder / "tokenizer_config.json").exists():
            with patch("gguf.GGUFReader", PlainReader):
                tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
            tokenizer.save_pretrained(folder)
            return tokenizer
    return AutoTokenizer.from_pretrained(folder)


# --- the reference's numbers, read with hooks -------------------------------------------------------


@dataclass(frozen=True)
class ReferenceRun:
    attentions: np.ndarray  # (n_layers, n_heads, n, n)
    hidden: np.ndarray  # (n_layers + 1, n, d_model), the last after the final norm
    logits: np.ndarray  # (1, vocab_size): the last position's
    q: tuple[np.ndarray, ...]  # per layer, after the rotation: (n_heads, n, d_head)
    k: tuple[np.ndarray, ...]  # per layer, after the rotation: (n_kv_heads, n, d_head)
    v: tuple[np.ndarray, ...]  # per layer: (n_kv_heads, n, d_head)
    k_per_head: tuple[np.ndarray, ...]  # per layer, as transformers' repeat_kv hands them to each query head
    merged_heads: tuple[np.ndarray, ...]  # per layer, o_proj's input: (n, n_heads·d_head)
    attention_output: tuple[np.ndarray, ...]  # per layer, o_proj's output: (n, d_model)


def reference_run(reference, ids: list[int], first_position: int = 0, modeling=modeling_llama) -> ReferenceRun:
    """One forward pass. transformers rotates q and k inside the attention module, so they are read where it
    hands them to its eager attention function (`modeling`: the model's own module of transformers); o_proj's
    input and output are read with hooks."""
    q, k, v, k_per_head, merged, out = [], [], [], [], [], []
    eager = modeling.eager_attention_forward

    def recording(module, query, key, value, *args, **kwargs):
        q.append(query[0].numpy().copy())
        k.append(key[0].numpy().copy())
        v.append(value[0].numpy().copy())
        k_per_head.append(modeling.repeat_kv(key, module.num_key_value_groups)[0].numpy().copy())
        return eager(module, query, key, value, *args, **kwargs)

    hooks = []
    for layer in reference.model.layers:
        o_proj = layer.self_attn.o_proj
        hooks.append(o_proj.register_forward_pre_hook(lambda _m, i: merged.append(i[0][0].numpy().copy())))
        hooks.append(o_proj.register_forward_hook(lambda _m, _i, o: out.append(o[0].numpy().copy())))
    positions = torch.arange(first_position, first_position + len(ids))[None]
    try:
        with patch.object(modeling, "eager_attention_forward", recording), torch.inference_mode():
            result = reference(
                input_ids=torch.tensor([ids]),
                position_ids=positions,
                output_attentions=True,
                output_hidden_states=True,
                use_cache=False,
                logits_to_keep=1,  # only the last position predicts: the tests read no other
            )
    finally:
        for hook in hooks:
            hook.remove()
    return ReferenceRun(
        attentions=np.stack([a[0].numpy() for a in result.attentions]),
        hidden=np.stack([h[0].numpy() for h in result.hidden_states]),
        logits=result.logits[0].numpy(),
        q=tuple(q),
        k=tuple(k),
        v=tuple(v),
        k_per_head=tuple(k_per_head),
        merged_heads=tuple(merged),
        attention_output=tuple(out),
    )


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def relative(a: np.ndarray, b: np.ndarray) -> float:
    """The largest gap between a and the reference b, as a fraction of b's largest magnitude."""
    return float(np.abs(a - b).max() / np.abs(b).max())


def head_displacements(reference, run: ReferenceRun, layer: int) -> np.ndarray:
    """(n_heads, n, d_model): each head's part of o_proj's input times that head's columns of o_proj."""
    attn = reference.model.layers[layer].self_attn
    w = attn.o_proj.weight.detach().numpy()  # nn.Linear: (d_model, n_heads·d_head)
    d = attn.head_dim
    merged = run.merged_heads[layer]
    return np.stack([merged[:, h * d : (h + 1) * d] @ w[:, h * d : (h + 1) * d].T for h in range(w.shape[1] // d)])


def differences(model, reference, text: str, modeling=modeling_llama) -> dict[str, float]:
    """Every quantity the engine computes, against transformers on the same tokens: the largest gap of each."""
    tr = attention.trace(model, text)
    run = reference_run(reference, [t.id for t in tr.tokens], modeling=modeling)
    hidden = max(relative(mine, theirs) for mine, theirs in zip(tr.hidden, run.hidden, strict=True))  # layer by layer
    p = softmax(run.logits[-1].astype(np.float64))
    p_mine = softmax(tr.next_logits.astype(np.float64))
    out = {
        "weights": float(np.abs(tr.weights - run.attentions).max()),
        "hidden": hidden,
        "probabilities": float(np.abs(p_mine - p).max()),
        "q": max(relative(layer.q, q) for layer, q in zip(tr.layers, run.q, strict=True)),
        "k": max(
            max(relative(layer.k_shared, k), relative(layer.k, kh))
            for layer, k, kh in zip(tr.layers, run.k, run.k_per_head, strict=True)
        ),
        "v": max(relative(layer.v_shared, v) for layer, v in zip(tr.layers, run.v, strict=True)),
        "displacement": max(
            relative(layer.displacement, head_displacements(reference, run, i)) for i, layer in enumerate(tr.layers)
        ),
    }
    return out


def faithful(found: dict[str, float]) -> bool:
    return all(found[name] <= TOLERANCES[name] for name in TOLERANCES)


def rotary_scores(model, x: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Layer-0 q·k of a rotary model from what its heads read, with q and k turned for `positions`."""
    cfg, w = model.config, model.layers[0]
    q = ops.split_heads(ops.linear(x, w.w_q), cfg.n_heads)
    k = ops.split_heads(ops.linear(x, w.w_k), cfg.n_kv_heads)
    angles = ops.rope_angles(positions, cfg.d_head, cfg.rope_base)
    return ops.scores(ops.rope(q, angles), ops.share_kv(ops.rope(k, angles), cfg.n_heads))
