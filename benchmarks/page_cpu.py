"""The script's CPU per page, headless: `python benchmarks/page_cpu.py [--model gemma3] [--pages 02,05,11,12,00]
[--texts 3] [--baseline COMMIT]`.

Each page runs in Streamlit's AppTest (the script a server runs for a session, in this process, with no browser):
once to load the model and fill what is computed once per model, then with N sentences no run has seen, each a
new trace. For each run, the process's CPU seconds (time.process_time) with one BLAS thread: what that page costs
a server for a new sentence, its drawing in the browser aside (benchmarks/server_cpu.py measures the explorer's
with Chromium). The chapters that trace a text many times over (distances, shuffles, shifts) are where a decoder's
page costs most.

--baseline COMMIT: the same runs on that commit (a temporary `git worktree`), in a child process each, in turns
with this tree; both columns and their ratio. Figures, not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEXTS = (
    "the old keeper climbed the stairs to light the lamp",
    "a quiet river ran past the mill at night",
    "the young fox watched the hens from the tall grass",
    "two sailors mended the nets before the storm came",
    "my aunt baked bread for the whole street on sundays",
)
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def page_files(numbers: str) -> list[str]:
    """`02,05,00` → the pages' files (00: the explorer, app.py's first page)."""
    out = []
    for n in numbers.split(","):
        found = sorted((ROOT / "pages").glob(f"{int(n):02d}_*.py"))
        if not found:
            raise SystemExit(f"no page {n} in pages/")
        out.append("app.py" if found[0].name.startswith("00_") else f"pages/{found[0].name}")
    return out


def measure(model: str, pages: list[str], n_texts: int) -> dict[str, list[float]]:
    """In this process, from the current folder's tree: {page: CPU seconds of each new sentence's run}."""
    sys.path[0] = os.getcwd()  # not this file's folder: the tree measured may be another commit's
    from app_driver.apptest import run_page

    run_page("app.py", model=model)  # the model loaded
    out = {}
    for page in pages:
        run_page(page, model=model)  # what the page computes once per model
        cpu = []
        for text in TEXTS[:n_texts]:
            t0 = time.process_time()
            at = run_page(page, model=model, text=f"{text} {Path(page).stem}")
            cpu.append(time.process_time() - t0)
            if at.exception:
                raise SystemExit(f"{page}: {at.exception[0].message}")
        out[page] = cpu
    return out


def in_child(tree: Path, args) -> dict[str, list[float]]:
    """`measure` in a fresh Python with that tree as its current folder."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--model", args.model, "--pages", args.pages]
    cmd += ["--texts", str(args.texts)]
    done = subprocess.run(cmd, cwd=tree, env=os.environ | ONE_THREAD, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{tree}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="gemma3", help="the model, as a link's model= names it (smollm2, gemma3)")
    parser.add_argument("--pages", default="02,05,11,12,00", help="the pages' numbers (00: the explorer)")
    parser.add_argument("--texts", type=int, default=3, help=f"new sentences per page (at most {len(TEXTS)})")
    parser.add_argument("--turns", type=int, default=2, help="with --baseline: runs of each tree, alternating")
    parser.add_argument("--baseline", metavar="COMMIT", help="measure that commit too, in turns with this tree")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    pages = page_files(args.pages)
    if args.child:  # the app imported from the current folder's tree alone
        print(json.dumps(measure(args.model, pages, args.texts)))
        return 0
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from baseline import checkout, in_turns
    from browser import print_table  # benchmarks/browser.py, beside this file

    trees = {"this tree": ROOT}
    with checkout(args.baseline) if args.baseline else contextlib.nullcontext() as folder:
        if folder is not None:
            trees = {args.baseline: folder, "this tree": ROOT}
        turns = in_turns(list(trees), args.turns if args.baseline else 1, lambda name, _i: in_child(trees[name], args))
        runs = {name: {p: [cpu for turn in done for cpu in turn[p]] for p in pages} for name, done in turns.items()}
    print(f"script CPU seconds per new sentence, {args.model}, AppTest, one BLAS thread; median (min–max)\n")
    columns = ("page", *(f"{name}" for name in trees), *(("ratio",) if args.baseline else ()))
    table = []
    for page in pages:
        cells = [
            f"{statistics.median(runs[n][page]):.2f} ({min(runs[n][page]):.2f}–{max(runs[n][page]):.2f})" for n in trees
        ]
        if args.baseline:
            base, now = (statistics.median(runs[n][page]) for n in trees)
            cells.append(f"{now / base:.2f}")
        table.append((Path(page).stem, *cells))
    print_table(columns, table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
