"""Deployment benchmark: `python benchmarks/deploy.py [--servers 1,2,3] [--sessions 30] [--held 12] [--timeout 300]`.

For each number of app servers, `bash deploy/serve --replicas N` (HAProxy in front, as a class reaches it), each
server's first page loaded once, then benchmarks/load.py's round through HAProxy: 30 browser sessions open the
explorer, type each its own sentence and press Ctrl+Enter together. Prints, per N:

- the lockstep burst: from the first key press until the servers finished the last of the thirty runs, timed at the
  servers (their run log, ATTENTION_RUN_LOG), and the browsers' own median and slowest;
- the servers' CPU per sentence (utime + stime from /proc, summed over the servers, over the burst, divided by the
  runs of the thirty sentences the servers logged): on this two-core machine the servers share the cores, so this is the figure that carries to a
  bigger machine, where each server has a core of its own;
- each server's peak resident memory (VmRSS from /proc, sampled every 0.2 s over the whole run) and its own
  kernel-kept peak (VmHWM);
- with two servers or more, the recovery after a kill: `--held` further sessions open their own links, the server
  holding the first of them is killed (SIGKILL), and each session it held is timed from the kill until its own view
  is drawn again by a live server (its cookie names another server, that server has run its sentence since the
  kill, and the page shows its sentence, layer and head with nothing stale).

The browsers run on the same two cores as the servers: their times are pessimistic. Figures, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app_driver.server import CHROMIUM, CHROMIUM_ARGS, deployment
from app_driver.sessions import Session, recover, warm
from benchmarks.browser import print_table
from benchmarks.load import Errors, RssSampler, median_max, per_page, run_round

SETTLE = 5.0  # s after a round's sessions close


async def kill_one(browser, d, run_log: Path, held_sessions: int, timeout: float) -> tuple[str, dict[int, object]]:
    """`held_sessions` sessions on their own links; the server of the first killed; each of its sessions' recovery
    (seconds, or the exception that ended the wait)."""
    sessions = [Session(i) for i in range(held_sessions)]
    try:
        deadline = time.perf_counter() + timeout
        await asyncio.gather(*(s.open(browser, d.url) for s in sessions))
        await asyncio.gather(*(s.own_view(deadline, poll=1.0) for s in sessions))  # fewer page reads meanwhile
        for s in sessions:
            await s.cookie()
        lost = sessions[0].server
        held = [s for s in sessions if s.server == lost]
        killed_at = time.time()
        os.kill(d.servers[lost][1], signal.SIGKILL)
        times = await asyncio.gather(*(recover(s, lost, killed_at, run_log) for s in held), return_exceptions=True)
        return lost, {s.i: t for s, t in zip(held, times, strict=True)}
    finally:
        for s in sessions:
            if s.context is not None:
                with contextlib.suppress(Exception):
                    await s.context.close()


@dataclass
class Deployed:
    servers: int
    burst: object  # load.Round
    rss_peak: dict[str, float]  # MB, sampled
    hwm: dict[str, float]  # MB, the kernel's VmHWM
    lost: str
    recovery: dict[int, object]
    errors: Errors


def vm_hwm(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def one_deployment(n: int, sessions: int, held: int, timeout: float) -> Deployed:
    from playwright.async_api import async_playwright

    run_log = Path(tempfile.mkdtemp()) / "runs.jsonl"
    with deployment(n, env={"ATTENTION_RUN_LOG": str(run_log)}) as d, contextlib.ExitStack() as stack:
        samplers = {name: stack.enter_context(RssSampler(pid)) for name, (_, pid) in d.servers.items()}
        pids = [pid for _, pid in d.servers.values()]
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                await warm(browser, d.url, d.servers, timeout)
                first = next(iter(samplers.values()))
                burst = await run_round(browser, d.url, pids, first, run_log, sessions, 1, timeout, SETTLE)
                hwm = {name: vm_hwm(pid) for name, (_, pid) in d.servers.items()}
                rss = {name: s.run_peak() for name, s in samplers.items()}
                lost, recovery = "", {}
                if n >= 2:
                    lost, recovery = await kill_one(browser, d, run_log, held, timeout)
            finally:
                await browser.close()
    print(f"{n} server(s): done", file=sys.stderr)
    return Deployed(n, burst, rss, hwm, lost, recovery, burst.errors)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", default="1,2,3", help="comma-separated numbers of app servers behind HAProxy")
    parser.add_argument("--sessions", type=int, default=30, help="browser sessions pressing Ctrl+Enter together")
    parser.add_argument("--held", type=int, default=12, help="sessions open when a server is killed")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds allowed per phase")
    args = parser.parse_args()
    counts = [int(s) for s in args.servers.split(",") if s.strip()]

    results = [asyncio.run(one_deployment(n, args.sessions, args.held, args.timeout)) for n in counts]

    print(
        f"deploy/serve with N app servers behind HAProxy, {args.sessions} sessions in one headless Chromium on the same "
        f"{os.cpu_count()} cores; each session's first page, then all press Ctrl+Enter on their own sentence together\n"
    )
    rows = []
    for r in results:
        b = r.burst
        # per sentence the servers drew (their run log), not per page a browser saw drawn: browsers on two busy cores
        # may time out on a page the servers have long finished
        cpu_update, per_core = per_page(b.cpu_updates, b.server_runs)
        cpu_first, _ = per_page(b.cpu_first, len(b.first_pages))
        rows.append(
            (
                str(r.servers),
                f"{b.server_runs}/{b.n}",
                f"{b.server_done:.2f}" if b.server_done is not None else "–",
                median_max(b.updates),
                cpu_update,
                per_core,
                cpu_first,
                str(r.errors),
                " ".join(f"{name} {mb:.0f}" for name, mb in r.rss_peak.items()),
                " ".join(f"{name} {mb:.0f}" for name, mb in r.hwm.items()),
            )
        )
    print_table(
        (
            "servers",
            "server runs",
            "burst: last run done after (s)",
            "browsers: drawn med / max (s)",
            "server CPU s / sentence",
            "sentences / s / core",
            "server CPU s / first page",
            "errors",
            "peak RSS per server (MB)",
            "VmHWM per server (MB)",
        ),
        rows,
    )
    for r in results:
        if not r.recovery:
            continue
        times = [t for t in r.recovery.values() if isinstance(t, float)]
        failed = {i: f"{type(t).__name__}: {t}"[:160] for i, t in r.recovery.items() if not isinstance(t, float)}
        each = ", ".join(f"{i}: {t:.2f}" if isinstance(t, float) else f"{i}: failed" for i, t in r.recovery.items())
        spread = f"median {statistics.median(times):.2f} s, max {max(times):.2f} s" if times else "none recovered"
        print(
            f"\n{r.servers} servers, {r.lost} killed (SIGKILL) holding {len(r.recovery)} of {args.held} sessions: "
            f"each one's own view drawn again by a live server after (s) {each}; {spread}"
        )
        for i, message in failed.items():
            print(f"  session {i}: {message}")
    messages = [m for r in results for m in r.errors.messages]
    if messages:
        print("\nfirst errors seen:")
        for m in dict.fromkeys(messages):
            print(f"  {m}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
