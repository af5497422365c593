"""Browser benchmark: `python benchmarks/browser.py [--repeats N]`.

In Debian's Chromium, against a fresh `streamlit run app.py`, prints: the cold start until the first
complete page; the time from submitting a new sentence until every chart shows it, at 13 and 128
tokens; the time to switch head; and the server's resident memory. Beside each, how many charts
changed and how many times Plotly drew them. For calibration, the same timing on a bare page of 1
and 10 small line charts (benchmarks/bare_page.py). Figures, not a test.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.driver import chromium, streamlit_server, url_mark, wait_complete

COUNT_DRAWS = """() => {
    window.__draws = [];
    const react = window.Plotly.react;
    window.Plotly.react = function (gd, ...rest) { window.__draws.push(gd); return react.call(this, gd, ...rest); };
}"""
DRAWS = "() => { const d = window.__draws; window.__draws = []; return [new Set(d).size, d.length]; }"

COLOURS = ["red", "green", "pink", "gray", "white", "black", "brown", "purple", "orange", "yellow", "golden", "silver"]
N_CHARTS = 12


def sentence_13(i: int) -> str:
    return f"a fluffy {COLOURS[i % len(COLOURS)]} creature roamed the verdant forest"  # 13 tokens with [CLS] and [SEP]


def sentence_128(i: int) -> str:
    return f"{COLOURS[i % len(COLOURS)]} creature " * 63  # 126 word tokens + [CLS] + [SEP]


def rss_mb(pid: int) -> tuple[float, float]:
    """(current, peak) resident memory of a process, from /proc."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def timed_submit(page, text: str, n_tokens: int) -> float:
    box = page.get_by_role("textbox", name="Sentence")
    box.fill(text)
    t0 = time.perf_counter()
    box.press("Control+Enter")
    mark = "".join(text.split()[1:4])  # the chips' texts run together: "fluffyredcreature", "creatureredcreature"
    wait_complete(page, f"{n_tokens} tokens", plots=N_CHARTS, url_has=url_mark(text=text), first_chart_shows=mark)
    return time.perf_counter() - t0


def timed_head(page, head: int, n_tokens: int) -> float:
    pill = page.locator('[data-testid="stButtonGroup"]').get_by_role("radio", name=str(head), exact=True)
    pill.scroll_into_view_if_needed()
    t0 = time.perf_counter()
    pill.evaluate("e => e.click()")  # the click itself, without Playwright's actionability checks in the timing
    wait_complete(
        page,
        f"{n_tokens} tokens",
        plots=N_CHARTS,
        url_has=f"head={head}",
        shows=f"Queries, keys and values (layer 1, head {head})",
    )
    return time.perf_counter() - t0


def bare_page_runs(browser, n_charts: int, repeats: int) -> list[tuple[float, tuple[int, int]]]:
    """(seconds from submitting a text until every chart of the bare page shows it, (charts changed, Plotly draws))."""
    with streamlit_server(app=Path(__file__).with_name("bare_page.py")) as (url, _proc, _t0):
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}/?charts={n_charts}")
        shows = """([text, n]) => { const titles = Array.from(document.querySelectorAll('.js-plotly-plot .gtitle'), e => e.textContent);
            return !document.querySelector('[data-stale="true"]') && titles.length == n && titles.every(t => t.startsWith(text + ' ')); }"""
        page.wait_for_function(shows, arg=["start", n_charts], timeout=60_000)
        page.evaluate(COUNT_DRAWS)
        runs = []
        for i in range(repeats + 1):
            box = page.get_by_role("textbox", name="Sentence")
            box.fill(f"text{i}")
            t0 = time.perf_counter()
            box.press("Enter")
            page.wait_for_function(shows, arg=[f"text{i}", n_charts], polling=10, timeout=60_000)
            runs.append((time.perf_counter() - t0, tuple(page.evaluate(DRAWS))))
        page.close()
    return runs[1:]  # the first is a warm-up


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    if not 1 <= args.repeats < len(COLOURS):
        parser.error(f"--repeats must be between 1 and {len(COLOURS) - 1}: each timed run needs a new sentence")
    with chromium() as browser, streamlit_server() as (url, proc, t_launch):
        up = time.perf_counter() - t_launch
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(url)
        wait_complete(page, "13 tokens", plots=N_CHARTS)
        cold = time.perf_counter() - t_launch

        page.evaluate(COUNT_DRAWS)

        def counted(run) -> tuple[float, tuple[int, int]]:
            page.evaluate(DRAWS)
            return run(), tuple(page.evaluate(DRAWS))

        rows = []
        for label, make, n in (
            ("sentence update, 13 tokens", sentence_13, 13),
            ("sentence update, 128 tokens", sentence_128, 128),
        ):
            timed_submit(page, make(args.repeats), n)  # warm-up, with a sentence the timed runs do not repeat
            runs = [counted(lambda: timed_submit(page, make(i), n)) for i in range(args.repeats)]  # noqa: B023
            rows.append((label, runs))
        timed_submit(page, sentence_13(0), 13)
        heads = [counted(lambda: timed_head(page, 2 + i % 11, 13)) for i in range(args.repeats)]  # noqa: B023
        rows.append(("head switch, 13 tokens", heads))
        rss, peak = rss_mb(proc.pid)
        bare = [
            (f"bare page, {n} line chart{'s' if n > 1 else ''}", bare_page_runs(browser, n, args.repeats))
            for n in (1, 10)
        ]

    print(f"median of {args.repeats} runs (min–max), Chromium headless, 2 cores\n")
    print(
        f"| {'measure':<28} | {'median (s)':>10} | {'min–max (s)':>13} | {'charts changed':>14} | {'Plotly draws':>12} |"
    )
    print(f"|{'-' * 30}|{'-' * 12}|{'-' * 15}|{'-' * 16}|{'-' * 14}|")
    print(f"| {'cold start: server answers':<28} | {up:>10.2f} | {'(one run)':>13} | {'':>14} | {'':>12} |")
    print(f"| {'cold start to full page':<28} | {cold:>10.2f} | {'(one run)':>13} | {'':>14} | {'':>12} |")
    for label, runs in rows + bare:
        times = [t for t, _ in runs]
        charts = statistics.median(c for _, (c, _) in runs)
        draws = statistics.median(d for _, (_, d) in runs)
        print(
            f"| {label:<28} | {statistics.median(times):>10.2f} | {min(times):>6.2f}–{max(times):<6.2f} | {charts:>14.0f} | "
            f"{draws:>12.0f} |"
        )
    print(f"\nserver resident memory after the runs: {rss:.0f} MB (peak {peak:.0f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
