"""What the heads page costs: `python benchmarks/head_roles.py [--repeats N]`.

For MiniLM and SmolLM2, warm (model loaded, the sentence's trace cached as the app caches it): the role map of
every head (the measures on the cached trace, plus the induction run over repeated random tokens it needs), and one
knock-out against one trace of the same sentence. Then the heads in each role. Medians of N runs. Figures, not a
test; the targets are the role map in ≤ 0.3 s on MiniLM and ≤ 1 s on SmolLM2.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import attention
from attention.lessons.head_roles import head_roles, induction_scores
from attention.lessons.knockouts import knockout_effect

MODELS = (  # (name, sentence, knocked-out head, target for the role map in seconds)
    (None, "a fluffy blue creature roamed the verdant forest", (3, 5), 0.3),
    ("smollm2", "The capital of France is", (18, 6), 1.0),
)


def median_seconds(run, repeats: int) -> tuple[float, float]:
    """(the median wall-clock time of `run`, the median CPU time of this process): on a shared machine the wall
    clock also counts the other processes' turns, the CPU time only ours (numpy's threads added up)."""
    run()  # warm: first-call costs (caches of unpacked weights, imports) are not the page's
    wall, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        run()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall), statistics.median(cpu)


def row(what: str, seconds: tuple[float, float], note: str = "") -> str:
    return f"  {what:<38} {seconds[0] * 1000:8.1f} ms   cpu {seconds[1] * 1000:8.1f} ms   {note}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    counts = {}
    for name, text, (layer, head), target in MODELS:
        model = attention.load_model(name)
        cached = attention.trace(model, text)
        label = model.config.name
        n = model.config.n_layers * model.config.n_heads
        print(f"{label} ({n} heads, {cached.n_tokens} tokens), median of {args.repeats}, wall clock and CPU:")
        print(row("measures on the cached trace", median_seconds(lambda: head_roles(cached), args.repeats)))  # noqa: B023
        role_map = median_seconds(lambda: head_roles(cached, induction_scores(model)), args.repeats)  # noqa: B023
        verdict = "within" if role_map[0] <= target else "OVER"
        print(row("role map, induction run included", role_map, f"({verdict} the {target} s target)"))
        one_trace = median_seconds(lambda: attention.trace(model, text), args.repeats)  # noqa: B023
        print(row("one trace", one_trace))
        knockout = median_seconds(
            lambda: knockout_effect(model, text, layer, head, "zero", before=cached),  # noqa: B023
            args.repeats,
        )
        ratio = f"({knockout[0] / one_trace[0]:.2f}× a trace, cpu {knockout[1] / one_trace[1]:.2f}×)"
        print(row(f"one knock-out (layer {layer}, head {head})", knockout, ratio))
        counts[label] = head_roles(cached, induction_scores(model)).counts
    print("\nHeads in each role:")
    roles = list(next(iter(counts.values())))
    print(f"  {'role':<16}" + "".join(f"{label:>20}" for label in counts))
    for role in roles:
        print(f"  {role:<16}" + "".join(f"{c[role]:>20}" for c in counts.values()))


if __name__ == "__main__":
    main()
