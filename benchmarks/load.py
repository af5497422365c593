"""Load benchmark: `python benchmarks/load.py [--sessions 5,10,20,30] [--timeout 300] [--baseline COMMIT]`.

Against one fresh `streamlit run app.py`, for each N: N browser sessions at once (one Chromium, N
contexts) open the explorer and wait for its first complete page; then each types its own new sentence
and all N press Ctrl+Enter in the same moment, and each waits until every chart shows its sentence.
Prints, per N, the median and slowest time from Ctrl+Enter to the drawn page, the errors (timeouts,
exceptions shown on the page), and the server's own share: its CPU seconds per first page and per
sentence, read from /proc, and how many one core serves each second. For the burst of key presses, when
the server finished the last of the N runs, timed at the server (app.py writes each run's start and end
to ATTENTION_RUN_LOG), so that N browsers sharing the machine's cores cannot hide it. Then the server's
resident memory per round: before, peak during and after the sessions close. Figures, not a test.

--baseline COMMIT: that commit's app too (its own checkout, benchmarks/baseline.py), each round on a fresh server of
each tree in turns (the first of the two changing each round), then both trees' server CPU per first page and per
sentence and the burst's time at the server, side by side with their ratio.

The browsers run on the same cores as the server, so their times are pessimistic; the server's CPU per
page is the figure that carries over to a bigger machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app_driver.server import CHROMIUM, CHROMIUM_ARGS, ROOT, streamlit_server
from app_driver.sessions import (
    VIEWPORT,
    PageException,
    drawn,
    fill,
    open_first_page,
    press,
    sentence,
    submit,
)
from benchmarks.baseline import checkout, python
from benchmarks.browser import print_table

MAX_SESSIONS = 40
SERVER_TARGET = 7.0  # s: thirty sentences sent in the same second, all drawn by the server


def server_runs(log: Path, texts: set[str], since: float) -> list[tuple[float, float]]:
    """(start, end) of every run the server logged (app.py, ATTENTION_RUN_LOG) that drew one of `texts` and
    ended after `since`."""
    if not log.exists():
        return []
    runs = []
    for line in log.read_text(encoding="utf-8").splitlines():
        run = json.loads(line)
        if run["text"] in texts and run["end"] >= since:
            runs.append((run["start"], run["end"]))
    return runs


def error_kind(exc: BaseException) -> str:
    if isinstance(exc, TimeoutError) or type(exc).__name__ == "TimeoutError":
        return "timeout"  # ours, asyncio's and Playwright's
    if isinstance(exc, PageException):
        return "exception on page"
    return type(exc).__name__


class Errors:
    """Failures counted by kind, with the first few distinct messages kept for the report."""

    def __init__(self, keep: int = 3):
        self.counts: dict[str, int] = {}
        self.messages: list[str] = []
        self.keep = keep

    def add(self, exc: BaseException) -> None:
        kind = error_kind(exc)
        self.counts[kind] = self.counts.get(kind, 0) + 1
        message = f"{kind}: {' '.join(str(exc).split())[:200]}"
        if message not in self.messages and len(self.messages) < self.keep:
            self.messages.append(message)

    def __str__(self) -> str:
        return ", ".join(f"{v} {k}" for k, v in self.counts.items()) or "0"


# --- the server process, from /proc -------------------------------------------------------------------


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def cpu_seconds(pid: int | Sequence[int]) -> float:
    """User + system CPU time of the process itself (not its children); of several processes (the servers behind a
    load balancer, benchmarks/deploy.py), their sum."""
    if not isinstance(pid, int):
        return sum(cpu_seconds(one) for one in pid)
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()  # the name, in parentheses, may hold spaces
    utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of proc(5), counted from 1
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


class RssSampler:
    """Samples a process's resident memory every `every` seconds in a background thread."""

    def __init__(self, pid: int, every: float = 0.2):
        self.pid, self.every = pid, every
        self._peak = self._run_peak = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                mb = rss_mb(self.pid)
            except (OSError, RuntimeError):
                return  # the server has gone
            with self._lock:
                self._peak = max(self._peak, mb)
                self._run_peak = max(self._run_peak, mb)

    def now(self) -> float:
        return rss_mb(self.pid)

    def reset_peak(self) -> float:
        """Start a new window; returns the current RSS, which is also the window's first sample."""
        mb = rss_mb(self.pid)
        with self._lock:
            self._peak = mb
        return mb

    def peak(self) -> float:
        """The highest sample since the last reset_peak()."""
        with self._lock:
            return max(self._peak, rss_mb(self.pid))

    def run_peak(self) -> float:
        """The highest sample since the sampler started."""
        with self._lock:
            return self._run_peak


# --- one round of N sessions ---------------------------------------------------------------------------


@dataclass
class Round:
    n: int
    first_pages: list[float]
    updates: list[float]
    errors: Errors
    cpu_first: float  # server CPU seconds over the first-page phase
    cpu_updates: float  # and over the update phase
    press_spread: float  # s from the first session's Ctrl+Enter asked for to the last one's done
    server_done: float | None  # s from the first Ctrl+Enter to the end of the server's last run of these sentences
    server_runs: int  # runs of these sentences the server logged
    rss_before: float
    rss_peak: float
    rss_after: float
    wall: float


async def timed(coro) -> float | Exception:
    """Seconds the coroutine took (or the float it returns), or the exception it raised: one session's
    failure is a counted error, not the end of the benchmark."""
    t0 = time.perf_counter()
    try:
        result = await coro
    except Exception as exc:
        return exc
    return result if isinstance(result, float) else time.perf_counter() - t0


async def run_round(
    browser,
    url: str,
    pid: int | Sequence[int],
    rss: RssSampler,
    run_log: Path,
    n: int,
    first_sentence: int,
    timeout: float,
    settle: float,
) -> Round:
    """N sessions: all open the first page, then (once all have) each types its own sentence, and all press
    Ctrl+Enter at once. The phases are kept apart so that the server's CPU time of each can be read; the server's
    own log (app.py's ATTENTION_RUN_LOG) says when it finished the last of the N runs."""
    t_start = time.perf_counter()
    deadline = t_start + timeout
    rss_before = rss.reset_peak()
    errors = Errors()
    contexts, loads, updates, pressed, runs, spread = [], [], [], [], [], 0.0
    cpu0 = cpu1 = cpu2 = cpu_seconds(pid)
    try:
        contexts = [await browser.new_context(viewport=VIEWPORT) for _ in range(n)]
        pages = [await c.new_page() for c in contexts]
        poll = 0.05 * max(1, n // 10)  # fewer page evaluations in Chromium, which shares the cores with the server

        cpu0 = cpu_seconds(pid)
        loads = await asyncio.gather(*(timed(open_first_page(p, url, deadline)) for p in pages))
        cpu1 = cpu_seconds(pid)
        ready = [p for p, done in zip(pages, loads, strict=True) if isinstance(done, float)]
        texts = [sentence(first_sentence + i) for i in range(len(ready))]
        await asyncio.gather(*(fill(p, t, deadline) for p, t in zip(ready, texts, strict=True)))
        cpu1 = cpu_seconds(pid)
        presses = await asyncio.gather(*(press(p) for p in ready))  # every session's Ctrl+Enter at once
        pressed = [asked for asked, _ in presses]
        spread = max(done for _, done in presses) - min(pressed)
        updates = await asyncio.gather(
            *(timed(drawn(p, t, at, deadline, poll)) for p, t, at in zip(ready, texts, pressed, strict=True))
        )
        cpu2 = cpu_seconds(pid)
        runs = server_runs(run_log, set(texts), min(pressed))
    except Exception as exc:  # the browser itself failed: the round reports it and the next one runs
        errors.add(exc)
    finally:
        for c in contexts:
            with contextlib.suppress(Exception):  # a context that will not close must not hide the round's result
                await c.close()
    for done in list(loads) + list(updates):
        if isinstance(done, Exception):
            errors.add(done)
    rss_peak = rss.peak()
    await asyncio.sleep(settle)
    return Round(
        n=n,
        first_pages=[t for t in loads if isinstance(t, float)],
        updates=[t for t in updates if isinstance(t, float)],
        errors=errors,
        cpu_first=cpu1 - cpu0,
        cpu_updates=cpu2 - cpu1,
        press_spread=spread,
        server_done=max(end for _, end in runs) - min(pressed) if runs and pressed else None,
        server_runs=len(runs),
        rss_before=rss_before,
        rss_peak=rss_peak,
        rss_after=rss.now(),
        wall=time.perf_counter() - t_start,
    )


async def warm_up(browser, url: str, timeout: float) -> str:
    """One session's first page and one update: loads the model and caches the default sentence's trace."""
    t0 = time.perf_counter()
    context = await browser.new_context(viewport=VIEWPORT)
    try:
        page = await context.new_page()
        await open_first_page(page, url, t0 + timeout)
        await submit(page, sentence(0), t0 + timeout)
    except Exception as exc:  # reported; the rounds still run and count their own errors
        return f"failed after {time.perf_counter() - t0:.1f} s ({error_kind(exc)}: {' '.join(str(exc).split())[:200]})"
    finally:
        await context.close()
    return f"{time.perf_counter() - t0:.1f} s"


async def run(sessions: list[int], timeout: float, settle: float, folder: Path = ROOT) -> tuple[str, list[Round]]:
    """Every round on one fresh server of `folder`'s app."""
    from playwright.async_api import async_playwright

    run_log = Path(tempfile.mkdtemp()) / "runs.jsonl"
    env = {"ATTENTION_RUN_LOG": str(run_log)}
    server = streamlit_server(env=env, app=folder / "app.py", cwd=folder, python=python(folder))
    with server as (url, proc, _t0), RssSampler(proc.pid) as rss:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                warm = await warm_up(browser, url, timeout)
                rounds = []
                next_sentence = 1
                for n in sessions:
                    # the round's own deadline is inside; this one only catches a hang outside any wait
                    round_ = run_round(browser, url, proc.pid, rss, run_log, n, next_sentence, timeout, settle)
                    try:
                        r = await asyncio.wait_for(round_, timeout + settle + 60)
                    except TimeoutError:
                        print(f"N={n}: the round hung past its time limit; later rounds skipped", file=sys.stderr)
                        break
                    next_sentence += n
                    rounds.append(r)
                    print(f"N={n}: done in {r.wall:.0f} s", file=sys.stderr)
            finally:
                await browser.close()
    return warm, rounds


def median_max(times: list[float]) -> str:
    return f"{statistics.median(times):.2f} / {max(times):.2f}" if times else "– / –"


def per_page(cpu: float, pages: int) -> tuple[str, str]:
    """(server CPU seconds per page, pages per second one core serves)."""
    if not pages or cpu <= 0:
        return "–", "–"
    each = cpu / pages
    return f"{each:.3f}", f"{1 / each:.1f}"


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--sessions", default="5,10,20,30", help="comma-separated numbers of concurrent sessions, each at most 40"
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds allowed per round (and for the warm-up)")
    parser.add_argument(
        "--settle", type=float, default=5.0, help="seconds after the sessions close before reading the memory"
    )
    parser.add_argument(
        "--baseline", metavar="COMMIT", help="that commit's app too, each round in turns with this tree's"
    )
    args = parser.parse_args()
    try:
        args.sessions = [int(s) for s in args.sessions.split(",") if s.strip()]
    except ValueError:
        parser.error("--sessions takes numbers separated by commas: 5,10,20")
    if not args.sessions or not all(1 <= n <= MAX_SESSIONS for n in args.sessions):
        parser.error(f"each number of sessions must be between 1 and {MAX_SESSIONS}")
    return args


def _print_pages(rounds) -> None:
    rows = []
    for r in rounds:
        cpu_first, first_per_core = per_page(r.cpu_first, len(r.first_pages))
        cpu_update, per_core = per_page(r.cpu_updates, len(r.updates))
        rows.append(
            (
                str(r.n),
                median_max(r.first_pages),
                median_max(r.updates),
                f"{len(r.updates)}/{r.n}",
                str(r.errors),
                cpu_first,
                first_per_core,
                cpu_update,
                per_core,
            )
        )
    print_table(
        (
            "N",
            "first page med / max (s)",
            "update med / max (s)",
            "updated",
            "errors",
            "server CPU s / first page",
            "first pages / s / core",
            "server CPU s / update",
            "updates / s / core",
        ),
        rows,
    )


def _print_burst(rounds) -> None:
    print(
        "\nAll N pressing Ctrl+Enter at once, timed at the server: its own log of each run (app.py, ATTENTION_RUN_LOG); "
        f"target for N = 30: the last run done within {SERVER_TARGET:g} s of the first key press\n"
    )
    rows = []
    for r in rounds:
        cpu_update, per_core = per_page(r.cpu_updates, len(r.updates))
        rows.append(
            (
                str(r.n),
                f"{r.press_spread:.2f}",
                f"{r.server_runs}/{r.n}",
                f"{r.server_done:.2f}" if r.server_done is not None else "–",
                f"≤ {SERVER_TARGET:g}" if r.n == 30 else "",
                cpu_update,
                per_core,
                median_max(r.updates),
            )
        )
    print_table(
        (
            "N",
            "presses spread (s)",
            "server runs",
            "server done after (s)",
            "target",
            "server CPU s / sentence",
            "sessions / s / core",
            "browsers: drawn med / max (s)",
        ),
        rows,
    )


def _print_memory_and_errors(rounds, settle: float) -> None:
    print("\nserver resident memory (sampled every 0.2 s):")
    for r in rounds:
        print(
            f"  N={r.n:<3} before {r.rss_before:.0f} MB, peak during {r.rss_peak:.0f} MB, "
            f"{settle:g} s after the sessions closed {r.rss_after:.0f} MB"
        )
    messages = [m for r in rounds for m in r.errors.messages]
    if messages:
        print("\nfirst errors seen:")
        for m in dict.fromkeys(messages):
            print(f"  {m}")


def _print_rounds(warm: str, rounds: list[Round], settle: float) -> None:
    print(
        f"N sessions at once in one headless Chromium, each: first page, then its own new sentence (8–12 words); "
        f"2 cores shared by server and browser; warm-up (model load, first page, one update) {warm}\n"
    )
    _print_pages(rounds)
    _print_burst(rounds)
    _print_memory_and_errors(rounds, settle)


def _per(cpu: float, pages: list) -> float | None:
    return cpu / len(pages) if pages and cpu > 0 else None


def _print_against(baseline: str, theirs: list[Round], ours: list[Round]) -> None:
    """Both trees' server figures per round, and this tree's ÷ the baseline's."""
    rows = []
    for a, b in zip(theirs, ours, strict=True):
        for name, x, y in (
            ("server CPU s / first page", _per(a.cpu_first, a.first_pages), _per(b.cpu_first, b.first_pages)),
            ("server CPU s / sentence", _per(a.cpu_updates, a.updates), _per(b.cpu_updates, b.updates)),
            ("burst: server done after (s)", a.server_done, b.server_done),
        ):
            ratio = f"{y / x:.2f}" if x and y else "–"
            rows.append((str(a.n), name, f"{x:.3f}" if x else "–", f"{y:.3f}" if y else "–", ratio))
    print(f"\nthis tree beside {baseline}, each round on a fresh server of each, in turns")
    print_table(("N", "measure", baseline, "this tree", "ratio"), rows)


def main() -> int:
    args = _arguments()
    if not args.baseline:
        warm, rounds = asyncio.run(run(args.sessions, args.timeout, args.settle))
        _print_rounds(warm, rounds, args.settle)
    else:
        with checkout(args.baseline) as folder:
            trees = {"this tree": ROOT, args.baseline: folder}
            runs: dict[str, tuple[list[str], list[Round]]] = {tree: ([], []) for tree in trees}
            for i, n in enumerate(args.sessions):
                for tree in list(trees) if i % 2 == 0 else list(trees)[::-1]:
                    warm, rounds = asyncio.run(run([n], args.timeout, args.settle, trees[tree]))
                    runs[tree][0].append(warm)
                    runs[tree][1].extend(rounds)
        for tree, (warms, rounds) in runs.items():
            print(f"\n## {tree}\n")
            _print_rounds(", ".join(warms), rounds, args.settle)
        _print_against(args.baseline, runs[args.baseline][1], runs["this tree"][1])
    print(
        "\nserver CPU per page: the server process's user + system time over the phase, divided by the pages completed "
        "in it; pages / s / core = 1 / that. Closed sessions stay in the server for server.disconnectedSessionTTL (120 s)."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
