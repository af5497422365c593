"""Soak benchmark: `python benchmarks/soak.py [--sentences 200] [--pastes 20] [--paste-chars 1000000]`.

Against one fresh `streamlit run app.py`, ONE browser session submits that many distinct sentences one
after another, each waited for until every chart shows it, then that many distinct pastes of a million
characters (random words, a generator seeded per paste), each waited for until the app has drawn its
first 256 tokens and says the rest was left out. Samples the server's resident memory every 0.2 s and
prints it before, after the sentences, at its peak during the pastes, after the pastes and after the
browser has closed, the kernel's own peak for the server (VmHWM, which no sampling misses), what each of
the server's caches held after its last run (its run log, ATTENTION_RUN_LOG), and the goal line for the
whole run's peak. Progress every 20 steps on stderr. The memory check of a class's server:
`--sentences 0 --pastes 8 --paste-chars 400000`. Figures, not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from browser import rss_mb as rss_and_peak  # benchmarks/browser.py, beside this file

from app_driver.server import CHROMIUM, CHROMIUM_ARGS, streamlit_server
from app_driver.sessions import VIEWPORT, WORDS, mark, open_first_page, sentence, submit, wait_drawn
from benchmarks.load import Errors, RssSampler

GOAL_MB = 600
MAX_TOKENS = 256  # what the explorer draws of a long text
CUT_WARNING = "left out"  # the end of the explorer's warning that the text was cut
FIRST_SENTENCE = 10_000  # past the sentences load.py uses, though each run starts its own server


def paste(k: int, n_chars: int) -> str:
    """The k-th paste: exactly n_chars characters of words, opening with sentence k's three words (so no two
    pastes open alike) and going on with words from a generator seeded with k."""
    rng = np.random.default_rng(1_000_000 + k)
    head = " ".join(sentence(k).split()[:3])
    n_words = n_chars // 4 + 1  # WORDS average more than 3 letters and a space
    body = " ".join(WORDS[i] for i in rng.integers(0, len(WORDS), size=n_words))
    return (head + " " + body)[:n_chars]


async def timed_paste(page, text: str, deadline: float) -> float:
    """Fill the Sentence box with a long text, press Ctrl+Enter; seconds until the cut text is drawn and the
    warning says so. The URL is not checked: it carries the whole text."""
    box = page.get_by_role("textbox", name="Sentence")
    await box.fill(text, timeout=max(1.0, deadline - time.perf_counter()) * 1000)
    t0 = time.perf_counter()
    await box.press("Control+Enter")
    # not the weights chart's text either: at 256 tokens Plotly labels only some of its rows
    await wait_drawn(page, deadline, title=f"{MAX_TOKENS} tokens", chips=mark(text), alert=CUT_WARNING)
    return time.perf_counter() - t0


@dataclass
class Soak:
    rss_start: float = 0.0  # the server answering, before any page
    rss_before: float = 0.0  # after the first complete page
    rss_after_sentences: float = 0.0
    rss_peak_pastes: float = 0.0
    rss_after_pastes: float = 0.0
    rss_after_close: float = 0.0
    rss_peak: float = 0.0  # the whole run
    hwm: float = 0.0  # the kernel's peak resident memory of the server (VmHWM), before the browser closed
    caches: dict = field(default_factory=dict)  # what each cache held after the server's last run
    rss_per_paste: list[float] = field(default_factory=list)  # after each paste
    first_page: float | None = None
    sentence_times: list[float] = field(default_factory=list)
    paste_times: list[float] = field(default_factory=list)
    errors: Errors = field(default_factory=Errors)
    sentences_tried: int = 0
    pastes_tried: int = 0
    stopped: str = ""  # why the run stopped early, if it did


def step_deadline(end: float, step_timeout: float) -> float:
    return min(end, time.perf_counter() + step_timeout)


async def steps(label: str, count: int, run_one, end: float, result: Soak, times: list[float]) -> None:
    """Run `run_one(i)` for i in range(count), each bounded, the whole bounded by `end`; progress every 20."""
    t0 = time.perf_counter()
    for i in range(count):
        if time.perf_counter() > end:
            result.stopped = f"time limit reached during the {label}s, after {i} of {count}"
            return
        try:
            times.append(await run_one(i))
        except Exception as exc:  # a step that fails or never completes is counted; the soak goes on
            result.errors.add(exc)
        if (i + 1) % 20 == 0 or i + 1 == count:
            print(
                f"{label}s: {i + 1}/{count} in {time.perf_counter() - t0:.0f} s, errors so far: {result.errors}",
                file=sys.stderr,
            )


async def soak(
    n_sentences: int, n_pastes: int, paste_chars: int, timeout: float, step_timeout: float, settle: float
) -> Soak:
    from playwright.async_api import async_playwright

    result = Soak()
    end = time.perf_counter() + timeout
    run_log = Path(tempfile.mkdtemp()) / "runs.jsonl"
    env = {"ATTENTION_RUN_LOG": str(run_log)}
    with streamlit_server(env=env) as (url, proc, _t0), RssSampler(proc.pid) as rss:
        result.rss_start = rss.now()
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                context = await browser.new_context(viewport=VIEWPORT)
                page = await context.new_page()
                t0 = time.perf_counter()
                try:
                    await open_first_page(page, url, step_deadline(end, step_timeout))
                    result.first_page = time.perf_counter() - t0
                except Exception as exc:  # counted; the sentences may still draw
                    result.errors.add(exc)
                result.rss_before = rss.now()

                async def one_sentence(i: int) -> float:
                    result.sentences_tried += 1
                    return await submit(page, sentence(FIRST_SENTENCE + i), step_deadline(end, step_timeout))

                await steps("sentence", n_sentences, one_sentence, end, result, result.sentence_times)
                result.rss_after_sentences = rss.now()

                rss.reset_peak()

                async def one_paste(k: int) -> float:
                    result.pastes_tried += 1
                    text = paste(k, paste_chars)
                    try:
                        return await timed_paste(page, text, step_deadline(end, step_timeout))
                    finally:
                        result.rss_per_paste.append(rss.now())

                if not result.stopped:
                    await steps("paste", n_pastes, one_paste, end, result, result.paste_times)
                result.rss_peak_pastes = rss.peak()
                result.rss_after_pastes, result.hwm = rss_and_peak(proc.pid)
                with contextlib.suppress(OSError, ValueError, IndexError, KeyError):
                    result.caches = json.loads(run_log.read_text().splitlines()[-1]).get("caches", {})
                with contextlib.suppress(Exception):
                    await context.close()
            finally:
                await browser.close()
        await asyncio.sleep(settle)
        result.rss_after_close = rss.now()
        result.rss_peak = rss.run_peak()
    return result


def spread(times: list[float]) -> str:
    return f"median {statistics.median(times):.2f} s, max {max(times):.2f} s" if times else "none completed"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sentences", type=int, default=200)
    parser.add_argument("--pastes", type=int, default=20)
    parser.add_argument("--paste-chars", type=int, default=1_000_000)
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds for the whole run")
    parser.add_argument("--step-timeout", type=float, default=120.0, help="seconds allowed for one sentence or paste")
    parser.add_argument(
        "--settle", type=float, default=5.0, help="seconds after the browser closes before reading the memory"
    )
    args = parser.parse_args()
    if args.sentences < 0 or args.pastes < 0 or args.paste_chars < 100:
        parser.error("--sentences and --pastes must not be negative, --paste-chars at least 100")

    r = asyncio.run(soak(args.sentences, args.pastes, args.paste_chars, args.timeout, args.step_timeout, args.settle))

    first = f"{r.first_page:.1f} s" if r.first_page is not None else "did not complete"
    print(
        f"one headless Chromium session, 2 cores shared by server and browser; first page (with the model load) {first}\n"
    )
    print(f"sentences: {len(r.sentence_times)} of {r.sentences_tried} drawn, {spread(r.sentence_times)}")
    print(
        f"pastes of {args.paste_chars:,} characters: {len(r.paste_times)} of {r.pastes_tried} drawn, {spread(r.paste_times)}"
    )
    print(f"errors: {r.errors}")
    for m in r.errors.messages:
        print(f"  {m}")
    if r.stopped:
        print(f"stopped early: {r.stopped}")
    print("\nserver resident memory (sampled every 0.2 s):\n")
    print(f"| {'when':<44} | {'RSS (MB)':>8} |")
    print(f"|{'-' * 46}|{'-' * 10}|")
    rows = [
        ("server answering, before any page", r.rss_start),
        ("after the first page (model loaded)", r.rss_before),
        (f"after {len(r.sentence_times)} sentences", r.rss_after_sentences),
        ("peak during the pastes", r.rss_peak_pastes),
        (f"after {len(r.paste_times)} pastes", r.rss_after_pastes),
        (f"{args.settle:g} s after the browser closed", r.rss_after_close),
        ("peak of the whole run", r.rss_peak),
        ("the server's own peak (VmHWM), before the close", r.hwm),
    ]
    for label, mb in rows:
        print(f"| {label:<44} | {mb:>8.0f} |")
    if r.sentence_times:
        print(f"\ngrowth per sentence: {(r.rss_after_sentences - r.rss_before) / r.sentences_tried * 1024:+.0f} kB")
    if len(r.rss_per_paste) > 1:
        steps_mb = np.diff([r.rss_after_sentences, *r.rss_per_paste])
        print(
            f"growth per paste: median {np.median(steps_mb):+.1f} MB, first {steps_mb[0]:+.1f} MB, last {steps_mb[-1]:+.1f} MB; "
            f"after each: {' '.join(f'{mb:.0f}' for mb in r.rss_per_paste)} MB"
        )
    if r.caches:
        print("\nthe server's caches after its last run (ui/caches.py):\n")
        print(f"| {'cache':<10} | {'entries':>7} | {'MB':>6} | {'budget':>6} |")
        print(f"|{'-' * 12}|{'-' * 9}|{'-' * 8}|{'-' * 8}|")
        for name, (entries, held, budget) in r.caches.items():
            print(f"| {name:<10} | {entries:>7} | {held / 2**20:>6.1f} | {budget / 2**20:>6.0f} |")
    peak = max(r.rss_peak, r.hwm)
    print(
        f"\ngoal: under {GOAL_MB} MB: {'met' if peak < GOAL_MB else 'not met'} (peak of the whole run, {peak:.0f} MB)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
