"""A baseline commit measured beside the working tree, in the same run: its checkout, and the turns both take.

The machines this app is measured on differ up to 4× in speed, so a speed is only ever given beside a baseline's,
taken in one run on one machine (server_cpu.py, page_cpu.py, browser.py --baseline)."""

from __future__ import annotations

import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@contextmanager
def checkout(commit: str):
    """That commit's tree in a temporary folder (a detached `git worktree`), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="baseline-"))
    subprocess.run(
        ["git", "worktree", "add", "--detach", str(folder), commit], cwd=ROOT, check=True, capture_output=True
    )
    try:
        yield folder
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(folder)], cwd=ROOT, check=False)


def in_turns(trees: list[str], n: int, measure) -> dict[str, list[float]]:
    """measure(tree, i) for i < n on every tree, tree after tree, the first of them changing each turn."""
    runs: dict[str, list[float]] = {tree: [] for tree in trees}
    for i in range(n):
        for tree in trees if i % 2 == 0 else trees[::-1]:
            runs[tree].append(measure(tree, i))
    return runs
