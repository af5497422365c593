"""Where a trace's time goes: `python benchmarks/steps.py [--tokens N] [--repeats N]`.

Times each step of the numpy trace (every intermediate, the derived ones included) while it runs on
a real text, and PyTorch's own operators (torch.profiler) in its eager forward with attentions and
hidden states on the same ids, step against step. Figures, not a test.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attention import ops
from benchmarks.engine import LONG_TEXT, full_numpy_trace

# Our steps and the operators PyTorch's BERT runs for the same work.
STEPS = (
    ("products with the weights (Q, K, V, W_O, feed-forward)", ("linear",), ("aten::addmm",)),
    ("q·kᵀ and the weighted sum of values", ("scores", "attend"), ("aten::bmm",)),
    ("÷√d_k", ("scale",), ("aten::mul",)),
    ("softmax", ("softmax",), ("aten::_softmax",)),
    ("GELU", ("gelu", "gelu_tanh"), ("aten::gelu",)),
    ("LayerNorm", ("layer_norm",), ("aten::native_layer_norm",)),
    ("each head's Δe (only the trace keeps it)", ("displacement",), ()),
)
TIMED = [name for _, ours, _ in STEPS for name in ours]


@contextmanager
def timed_steps(seconds: Counter):
    """Wrap the engine's step functions so that each call adds its time to `seconds[name]`.

    The trace calls them through the `ops` module (and `feed_forward` calls `linear` and `gelu` by
    their global names), so wrapping the module's attributes times every call."""
    originals = {name: getattr(ops, name) for name in TIMED}

    def timer(name, fn):
        def step(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                seconds[name] += time.perf_counter() - t0

        return step

    for name, fn in originals.items():
        setattr(ops, name, timer(name, fn))
    try:
        yield
    finally:
        for name, fn in originals.items():
            setattr(ops, name, fn)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/steps.py")
    parser.add_argument("--tokens", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)

    import torch
    from torch.profiler import ProfilerActivity, profile

    from attention import load_model
    from attention.reference import load_sentence_transformer

    st = load_sentence_transformer()
    model = load_model()
    auto = st[0].auto_model
    tr = full_numpy_trace(model, LONG_TEXT, args.tokens)
    ids = torch.tensor([[t.id for t in tr.tokens]])
    mask = torch.ones_like(ids)

    def run_torch():
        with torch.inference_mode():
            return auto(input_ids=ids, attention_mask=mask, output_attentions=True, output_hidden_states=True)

    for _ in range(3):
        full_numpy_trace(model, LONG_TEXT, args.tokens)
        run_torch()

    ours: Counter = Counter()
    with timed_steps(ours):
        t0 = time.perf_counter()
        for _ in range(args.repeats):
            full_numpy_trace(model, LONG_TEXT, args.tokens)
        numpy_total = (time.perf_counter() - t0) / args.repeats
    time.sleep(0.5)  # let OpenBLAS's worker threads go idle before PyTorch's start
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        t0 = time.perf_counter()
        for _ in range(args.repeats):
            run_torch()
        torch_total = (time.perf_counter() - t0) / args.repeats
    theirs = {e.key: e.self_cpu_time_total / 1e6 for e in prof.key_averages()}  # seconds, over every run

    def ms(seconds: float) -> str:
        return f"{seconds / args.repeats * 1e3:>9.2f}"

    print(
        f"{tr.n_tokens} tokens, mean of {args.repeats} runs (PyTorch under its profiler, which adds a little), "
        f"{torch.get_num_threads()} PyTorch threads\n"
    )
    print(f"| {'step':<54} | {'numpy ms':>9} | {'torch ms':>9} |")
    print(f"|{'-' * 56}|{'-' * 11}|{'-' * 11}|")
    for label, our_names, their_names in STEPS:
        their = ms(sum(theirs.get(k, 0.0) for k in their_names)) if their_names else f"{'-':>9}"
        print(f"| {label:<54} | {ms(sum(ours[k] for k in our_names))} | {their} |")
    rest_ours = numpy_total * args.repeats - sum(ours.values())
    rest_theirs = torch_total * args.repeats - sum(theirs.get(k, 0.0) for _, _, names in STEPS for k in names)
    print(f"| {'everything else (copies, adds, Python)':<54} | {ms(rest_ours)} | {ms(rest_theirs)} |")
    print(f"| {'whole forward':<54} | {ms(numpy_total * args.repeats)} | {ms(torch_total * args.repeats)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
