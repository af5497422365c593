"""The server's CPU per page: `python benchmarks/server_cpu.py [--sentences 5] [--paragraphs 3] [--sessions 5]
[--lang fr] [--model gemma3] [--baseline COMMIT]`.

Against one fresh `streamlit run app.py`, in Chromium at 1280×720: a warm-up session (the model loaded, the default
sentence traced); then N fresh sessions (new browser contexts) each opening the explorer; then, in one session, new
sentences of 11 words (13 tokens with [CLS] and [SEP]) typed into the sidebar's Sentence box one by one with
Ctrl+Enter, and paragraphs of 126 words (128 tokens). Before and after each, the server process's CPU seconds
(utime + stime of all its threads, from /proc/<pid>/stat): what that page cost the server, whatever else runs on
the machine. Wall times would measure the machine's other work as well; these do not.

Each sentence and paragraph is new to the server (no cache holds its trace). A page counts as done when its charts
are drawn, nothing is stale or running, the URL names the new sentence, and the page has then stayed idle for a
moment, so that any rerun it asks for (the first page reports its size) is counted with it. Figures, not a test.

--model smollm2 or gemma3: the explorer on that decoder (the model a French or Korean page opens on is Gemma 3), its
next word predicted for every sentence; the same words, which that model cuts into tokens of its own.

--baseline COMMIT: the same pages on this tree and on that commit (checked out with `git worktree` in a temporary
folder, removed at the end), two servers from the same Python, measured in turns (each sentence, paragraph and new
session on one, then on the other, the first of the two changing each turn), so that both meet the same machine;
then both columns and their ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import urlencode

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from baseline import checkout, in_turns, python  # benchmarks/baseline.py, beside this file
from browser import ANY_MODEL_COMPLETE as COMPLETE
from browser import VIEWPORT, print_table
from load import cpu_seconds

from app_driver.server import ROOT, chromium, streamlit_server, url_mark, wait_complete
from app_driver.sessions import WORDS
from attention import DEFAULT_MODEL
from attention.sources import GEMMA3, SMOLLM2
from ui.session.state import FLUFFY

TARGETS = {"new sentence, 13 tokens": 0.2, "first page of a new session": 0.3}  # server CPU seconds
SETTLE = 0.6  # s the page must stay idle after it is complete before the server's CPU is read


def held_out(seed: int, n_words: int) -> str:
    """n_words words of one token each, drawn with `seed`: a text no other benchmark or test sends. Its first
    three words spell the seed, so that no two texts open alike and the page shows which one it has."""
    n = len(WORDS)
    rng = np.random.default_rng(seed)
    head = [WORDS[seed % n], WORDS[seed // n % n], WORDS[seed // n // n % n]]
    return " ".join(head + [WORDS[k] for k in rng.integers(0, n, size=n_words - 3)])


def settled(page, timeout: float = 120.0, **expected) -> None:
    """Complete as app_driver.wait_complete tells it, and still complete after SETTLE seconds."""
    wait_complete(page, timeout=timeout, **expected)
    page.wait_for_timeout(SETTLE * 1000)
    wait_complete(page, timeout=timeout, **expected)


LAST_HEADING = "All heads at a glance"  # the explorer's last heading: a page that shows it is whole


def first_page(browser, url: str, pid: int, heading: str) -> float:
    """A new session's first page: from opening the explorer until it is complete (the size it reports redrawn)."""
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        before = cpu_seconds(pid)
        page.goto(url)
        page.wait_for_function(COMPLETE, polling=50, timeout=120_000)
        settled(page, shows=heading)
        return cpu_seconds(pid) - before
    finally:
        context.close()
        time.sleep(SETTLE)  # the closed session's clean-up is not counted with the next page


def new_text(page, text: str, pid: int, model: str = "minilm") -> float:
    """Type `text` into the sidebar's Sentence box, press Ctrl+Enter; the server's CPU until the page shows it."""
    box = page.get_by_role("textbox").first  # the sidebar's Sentence box, the explorer's only one
    box.fill(text)
    before = cpu_seconds(pid)
    box.press("Control+Enter")
    # the token chips' texts run together: MiniLM's three first words, a decoder's first (its chips mark spaces)
    chips = "".join(text.split()[:3]) if model == "minilm" else text.split()[0]
    settled(page, url_has=url_mark(text=text), first_chart_shows=chips)
    return cpu_seconds(pid) - before


def idle_rate(pid: int, seconds: float = 3.0) -> float:
    """The server's CPU seconds per second while no page asks for anything (its own housekeeping)."""
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return (cpu_seconds(pid) - before) / seconds


def warmed(browser, url: str, pid: int, heading: str, model: str) -> None:
    """A warm-up session: the model loaded, the default sentence traced, a first new sentence sent."""
    warm = browser.new_context(viewport=VIEWPORT)
    page = warm.new_page()
    page.goto(url)
    page.wait_for_function(COMPLETE, polling=50, timeout=180_000)
    settled(page, shows=heading)
    new_text(page, held_out(10_000, 11), pid, model)  # the first update of a server pays for imports of its own
    warm.close()


def session(browser, url: str, heading: str):
    """A session's page on the explorer, complete."""
    page = browser.new_context(viewport=VIEWPORT).new_page()
    page.goto(url)
    page.wait_for_function(COMPLETE, polling=50, timeout=120_000)
    settled(page, shows=heading)
    return page


MODELS = {"minilm": DEFAULT_MODEL, "smollm2": SMOLLM2, "gemma3": GEMMA3}
MEASURES = ("new sentence, 13 tokens", "new sentence, 128 tokens", "first page of a new session")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sentences", type=int, default=5, help="new sentences of 11 words (13 tokens)")
    parser.add_argument("--paragraphs", type=int, default=3, help="new paragraphs of 126 words (128 tokens)")
    parser.add_argument("--sessions", type=int, default=5, help="new sessions' first pages")
    parser.add_argument("--lang", default="en", help="the page's language; the model and sentences stay English's")
    parser.add_argument("--model", choices=MODELS, default="minilm", help="the model the explorer shows")
    parser.add_argument("--baseline", metavar="COMMIT", help="measure that commit too, in turns with this tree")
    args = parser.parse_args()
    from ui.words import i18n

    heading = i18n.gettext(args.lang, LAST_HEADING)
    sentences = [held_out(20_000 + i, 11) for i in range(args.sentences)]
    paragraphs = [held_out(30_000 + i, 126) for i in range(args.paragraphs)]

    with ExitStack() as stack:
        folders = {"this tree": ROOT}
        if args.baseline:
            folders[args.baseline] = stack.enter_context(checkout(args.baseline))
        browser = stack.enter_context(chromium())
        urls, pids, idle = {}, {}, {}
        for tree, folder in folders.items():
            root, proc, _t0 = stack.enter_context(
                streamlit_server(app=folder / "app.py", cwd=folder, python=python(folder))
            )
            # another language on the English page's model and sentence, so that only the words differ
            urls[tree] = (
                root
                if args.lang == "en" and args.model == "minilm"
                else f"{root}/?{urlencode(dict(lang=args.lang, model=MODELS[args.model], text=FLUFFY))}"
            )
            pids[tree] = proc.pid
            warmed(browser, urls[tree], pids[tree], heading, args.model)
        for tree in folders:
            idle[tree] = idle_rate(pids[tree])

        trees = list(folders)
        firsts = in_turns(trees, args.sessions, lambda t, _i: first_page(browser, urls[t], pids[t], heading))
        pages = {tree: session(browser, urls[tree], heading) for tree in trees}
        short = in_turns(trees, len(sentences), lambda t, i: new_text(pages[t], sentences[i], pids[t], args.model))
        long = in_turns(trees, len(paragraphs), lambda t, i: new_text(pages[t], paragraphs[i], pids[t], args.model))
        for page in pages.values():
            page.context.close()

    print(f"server CPU seconds (utime + stime of the server process, /proc/<pid>/stat), {os.cpu_count()} cores")
    print(
        f"pages in {args.lang}, on {args.model}; Chromium headless at {VIEWPORT['width']}×{VIEWPORT['height']}; idle server: "
        + ", ".join(f"{tree} {rate:.4f}" for tree, rate in idle.items())
        + " CPU s per s\n"
    )
    measured = dict(zip(MEASURES, (short, long, firsts), strict=True))
    if args.baseline:
        compared(measured, args.baseline)
    else:
        alone(measured["new sentence, 13 tokens"], measured["new sentence, 128 tokens"], measured[MEASURES[2]])
    return 0


def alone(short: dict, long: dict, firsts: dict) -> None:
    """This tree's table: each measure's median and range against its target."""
    short, long, firsts = short["this tree"], long["this tree"], firsts["this tree"]
    rows = []
    for label, runs in (
        ("new sentence, 13 tokens", short),
        ("new sentence, 128 tokens", long),
        ("first page of a new session", firsts),
    ):
        median = statistics.median(runs)
        target = TARGETS.get(label)
        rows.append(
            (
                label,
                f"{median:.3f}",
                f"{min(runs):.3f}–{max(runs):.3f}",
                str(len(runs)),
                f"≤ {target:g}" if target else "",
                ("yes" if median <= target else "no") if target else "",
            )
        )
    print_table(("measure", "median CPU (s)", "min–max", "runs", "target", "met"), rows)
    print(
        "\neach run (s): "
        + "; ".join(f"{k} {[round(x, 3) for x in v]}" for k, v in (("13", short), ("128", long), ("first", firsts)))
    )


def compared(measured: dict[str, dict[str, list[float]]], baseline: str) -> None:
    """Both trees' medians side by side, and this tree's over the baseline's; then the same for the means. /proc
    counts CPU in ticks of 10 ms, so a page's figure is a multiple of 10 ms and a median of them moves by 5 or 10 ms
    at a time (a sixteenth of a 13-token sentence's); the mean (all the pages' CPU over their number) is read to a
    tick over the number of pages."""
    rows = []
    for label, runs in measured.items():
        mine, theirs = runs["this tree"], runs[baseline]
        ratio = statistics.median(mine) / statistics.median(theirs)
        target = TARGETS.get(label)
        rows.append(
            (
                label,
                f"{statistics.median(theirs):.3f} ({min(theirs):.3f}–{max(theirs):.3f})",
                f"{statistics.median(mine):.3f} ({min(mine):.3f}–{max(mine):.3f})",
                f"{ratio:.2f}",
                f"{statistics.fmean(theirs):.4f}",
                f"{statistics.fmean(mine):.4f}",
                f"{statistics.fmean(mine) / statistics.fmean(theirs):.2f}",
                str(len(mine)),
                f"≤ {target:g}" if target else "",
            )
        )
    print_table(
        (
            "measure",
            f"{baseline[:12]}, median (min–max)",
            "this tree",
            "ratio",
            f"{baseline[:12]}, mean",
            "this tree",
            "ratio of means",
            "runs",
            "target",
        ),
        rows,
    )
    for tree in (baseline, "this tree"):
        print(
            f"\n{tree[:12]}, each run (s): "
            + "; ".join(f"{k} {[round(x, 3) for x in v[tree]]}" for k, v in measured.items())
        )


if __name__ == "__main__":
    raise SystemExit(main())
