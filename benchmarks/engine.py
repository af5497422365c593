"""The engine against PyTorch: `python benchmarks/engine.py [--repeats N]`.

Prints, for 13-, 64- and 256-token inputs, the full numpy trace (every intermediate, the derived
ones included; and, for reference, the `trace()` call alone, which stores all but the scaled and
masked scores and the per-head displacements) against PyTorch's eager forward with attentions and hidden states on the same ids,
their ratio and the peak memory each adds; then the model's load times. Figures, not a test:
nothing here fails on a slow machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FLUFFY = "a fluffy blue creature roamed the verdant forest"
LONG_TEXT = (
    "Attention lets every token of a sentence look at every other token and decide how much each one "
    "matters for its own meaning. A query asks a question, a key answers it, and the dot product of the "
    "two says how well they match; the softmax turns those matches into weights that sum to one, and the "
    "weighted values move the token's embedding toward what the context says it means. "
) * 12


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakRSS:
    """Samples the resident set size in a thread, to report the peak a call adds above where it began."""

    def __enter__(self):
        self.start = _rss_bytes()
        self.peak = self.start
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, _rss_bytes())
            time.sleep(0.0005)

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss_bytes())

    @property
    def added_mb(self) -> float:
        return (self.peak - self.start) / 2**20


def _median_seconds(fn, repeats: int) -> float:
    fn()  # warm up
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def full_numpy_trace(model, text: str, n_tokens: int):
    """The trace plus every derived intermediate, so nothing is left uncomputed."""
    from attention import trace

    tr = trace(model, text, max_tokens=n_tokens)
    for layer in tr.layers:
        layer.score_steps(), layer.displacement  # computing them is the point
    return tr


def load_in_a_fresh_process() -> tuple[float, float, bool]:
    """(seconds to import attention and load the model, peak MB, whether torch was imported), as a server starts."""
    code = (
        "import resource, sys, time\n"
        "t0 = time.perf_counter()\n"
        "import attention\n"
        "attention.load_model()\n"
        "print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 'torch' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), float(out[1]), out[2] == "True"


# the arrays a trace keeps for the pages, per layer
KEPT = ("x", "q", "k", "v", "scores", "weights", "head_outputs", "attention_output", "updated", "ffn_output", "output")


def _row(model, auto, text: str, n: int, repeats: int) -> None:
    """One line of the table: the numpy trace and PyTorch on the same n tokens, time and memory."""
    import torch

    from attention import trace

    tr = full_numpy_trace(model, text, n)
    assert tr.n_tokens == n, (tr.n_tokens, n)
    ids = torch.tensor([[t.id for t in tr.tokens]])
    mask = torch.ones_like(ids)

    def run_torch(ids=ids, mask=mask):
        with torch.inference_mode():
            return auto(input_ids=ids, attention_mask=mask, output_attentions=True, output_hidden_states=True)

    # each engine gets an idle machine: worker threads of the other one's thread pool (OpenBLAS's,
    # PyTorch's OpenMP) may still be spinning right after it ran
    time.sleep(0.5)
    t_np = _median_seconds(lambda text=text, n=n: full_numpy_trace(model, text, n), repeats)
    t_call = _median_seconds(lambda text=text, n=n: trace(model, text, max_tokens=n), repeats)
    time.sleep(0.5)
    t_pt = _median_seconds(run_torch, repeats)
    with PeakRSS() as np_mem:
        kept = full_numpy_trace(model, text, n)
    with PeakRSS() as pt_mem:
        run_torch()
    kept_mb = _kept_mb(kept)
    print(
        f"| {n:>6} | {t_np * 1e3:>16.2f} | {t_call * 1e3:>16.2f} | {t_pt * 1e3:>16.2f} | {t_np / t_pt:>5.2f} | "
        f"{np_mem.added_mb:>14.1f} | {pt_mem.added_mb:>14.1f} | {kept_mb:>13.1f} |"
    )


def _kept_mb(kept) -> float:
    """The megabytes a trace keeps: every array of every layer the pages read."""
    return sum(getattr(layer, a).nbytes for layer in kept.layers for a in KEPT) / 2**20


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/engine.py")
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args(argv)

    t_fresh, fresh_peak, fresh_torch = load_in_a_fresh_process()

    t0 = time.perf_counter()
    import torch

    from attention.reference import load_sentence_transformer

    t_imports = time.perf_counter() - t0
    from attention import load_model

    t0 = time.perf_counter()
    st = load_sentence_transformer()
    t_st = time.perf_counter() - t0
    t0 = time.perf_counter()
    model = load_model()
    t_numpy = time.perf_counter() - t0
    auto = st[0].auto_model

    print(
        f"model: {model.config.name}, {model.config.n_layers} layers × {model.config.n_heads} heads, "
        f"d_model {model.config.d_model}; torch {torch.__version__}, {torch.get_num_threads()} threads; "
        f"numpy {np.__version__}; median of {args.repeats} runs after one warm-up\n"
    )
    header = (
        f"| {'tokens':>6} | {'numpy trace (ms)':>16} | {'of which trace()':>16} | {'torch eager (ms)':>16} | {'ratio':>5} "
        f"| {'numpy peak +MB':>14} | {'torch peak +MB':>14} | {'trace kept MB':>13} |"
    )
    print(header)
    print("|" + "|".join("-" * (len(c)) for c in header.split("|")[1:-1]) + "|")
    for text, n in ((FLUFFY, 13), (LONG_TEXT, 64), (LONG_TEXT, 256)):
        _row(model, auto, text, n, args.repeats)

    print()
    print(
        f"a fresh process, as the app's server starts: import attention + load_model() {t_fresh:.2f} s, "
        f"peak {fresh_peak:.0f} MB, torch imported: {'yes' if fresh_torch else 'no'}"
    )
    print(f"load_model() again in this process (files cached): {t_numpy:.2f} s")
    print(
        f"for comparison, PyTorch's path: import torch + sentence-transformers {t_imports:.2f} s, SentenceTransformer {t_st:.2f} s"
    )
    print(f"process peak RSS: {_peak_rss_mb():.0f} MB")
    return 0


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    raise SystemExit(main())
