"""Browser benchmark: `python benchmarks/browser.py [--repeats N] [--cold N] [--cold-only] [--baseline COMMIT]`.

In Debian's Chromium at 1280×720, prints:

- cold starts: from `streamlit run app.py` until the first page is complete (its nine charts drawn, nothing stale or
  running, the sidebar's last button there), against the same for a bare Streamlit page of three heatmaps
  (benchmarks/bare_page.py). `--cold N` starts of each, alternating, so that both meet the machine in the same
  state; the ratio is taken per pair and its median reported with its spread. Both pages are polled inside the
  page every 10 ms. `--baseline COMMIT`: that commit's app too (a checkout of its own), started in the same turns.
- then, in one app session: a new sentence at 13 and 128 tokens; a head switch with the head buttons (in the
  browser), with the sidebar's Head box and with a click on the all-heads grid; new sentences on every decoder the
  server offers (SmolLM2, Gemma 3, GPT-2 where it is on the machine), one after the other; the server's resident
  memory then, its own peak (VmHWM) and what each of its caches held (its run log, ATTENTION_RUN_LOG). For
  calibration, the same timing on the bare page of 1 and 10 small line charts, in the same run.

Each of the latter is measured inside the page: from the key press or click event to the first animation frame at
which the view shows the change, polled every frame (the browser paints right after it). "first chart" is the
chosen head's four steps (the softmax weights among them) showing the new sentence or head; "whole view" is the
whole page in step: nothing stale, running or being drawn (ui/components/plot.js), no Plotly drawing pending, the URL updated.
Beside each, both ratios to the bare page's 10-chart update (its whole page in step), with the targets, how many
charts changed and how many times Plotly drew. Figures, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app_driver.server import ROOT, chromium, streamlit_server, url_mark, wait_complete
from attention import available_models
from benchmarks.baseline import checkout, python

VIEWPORT = {"width": 1280, "height": 720}  # a classroom projector
TARGETS = {"head switch, buttons": 0.5, "sentence update, 13 tokens": 1.5}  # first ÷ the bare page's 10 charts
WHOLE_TARGETS = {  # the whole page in step ÷ the bare page's 10 charts
    "sentence update, 13 tokens": 1.5,
    "sentence update, 128 tokens": 3.0,
    "head switch, buttons": 1.0,
    "head switch, sidebar box": 1.0,
    "head switch, grid click": 1.0,
}

# Counts Plotly's draws (Streamlit's chart draws with Plotly.react, the app's own with Plotly.newPlot), and keeps
# how many are under way (a draw is done when its promise resolves).
COUNT_DRAWS = """() => {
    if (window.__drawsReady) return;
    window.__drawsReady = true;
    window.__draws = [];
    window.__pending = 0;
    for (const name of ['react', 'newPlot']) {
        const draw = window.Plotly[name];
        window.Plotly[name] = function (gd, ...rest) {
            window.__draws.push(gd);
            window.__pending += 1;
            const done = () => { window.__pending -= 1; };
            const out = draw.call(this, gd, ...rest);
            Promise.resolve(out).then(done, done);
            return out;
        };
    }
}"""
DRAWS = "() => { const d = window.__draws; window.__draws = []; return [new Set(d).size, d.length]; }"

# Arms a timer: its start is the next key press or click (or now, with start=true); every animation frame it
# checks `first` and `whole` (JS expressions of `arg`) and keeps the time each first holds.
ARM = """([first, whole, arg, start]) => {
    const t = { start: start ? performance.now() : null, first: null, whole: null };
    window.__timer = t;
    const begin = (e) => { if (t.start === null) t.start = e.timeStamp; };
    window.addEventListener('keydown', begin, { capture: true, once: true });
    window.addEventListener('click', begin, { capture: true, once: true });
    const isFirst = new Function('arg', 'return (' + first + ')');
    const isWhole = new Function('arg', 'return (' + whole + ')');
    const tick = () => {
        if (t.start !== null) {
            const now = performance.now();
            try { if (t.first === null && isFirst(arg)) t.first = now - t.start; } catch (e) {}
            try { if (t.first !== null && t.whole === null && isWhole(arg)) t.whole = now - t.start; } catch (e) {}
        }
        if (t.whole === null) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
}"""

IDLE = """(!document.querySelector('[data-stale="true"], [data-drawing]') && !document.querySelector('[data-testid="stStatusWidget"]')
    && window.__pending === 0)"""
STEPS = """Array.from(document.querySelectorAll('.js-plotly-plot')).find(g => g.layout && g.layout.meta && g.layout.meta.first)"""
# the four steps show head `arg`: their weights' trace (the last of meta.traces) and their title say so
STEPS_SHOW_HEAD = f"""(() => {{ const g = {STEPS}; if (!g || !g._fullData) return false;
    const w = g._fullData[g.layout.meta.traces[3]];
    return w.hovertemplate.includes('head ' + arg + '<') && g.layout.title.text.includes('head ' + arg + ':'); }})()"""
# the four steps show sentence `arg`: their subtitle names it, and nothing of theirs is waiting to be drawn
STEPS_SHOW_TEXT = f"""(() => {{ const g = {STEPS}; return !!g && !!g._fullLayout && !g.closest('[data-stale="true"]')
    && (g.layout.title.subtitle && g.layout.title.subtitle.text || '').includes(arg); }})()"""


@dataclass(frozen=True)
class Run:
    first: float  # s
    whole: float  # s
    charts: int  # charts Plotly drew
    draws: int  # Plotly draws


COLOURS = ["red", "green", "pink", "gray", "white", "black", "brown", "purple", "orange", "yellow", "golden", "silver"]


def sentence_13(i: int) -> str:
    return f"a fluffy {COLOURS[i % len(COLOURS)]} creature roamed the verdant forest"  # 13 tokens with [CLS] and [SEP]


def sentence_128(i: int) -> str:
    return f"{COLOURS[i % len(COLOURS)]} creature " * 63  # 126 word tokens + [CLS] + [SEP]


def rss_mb(pid: int) -> tuple[float, float]:
    """(current, peak) resident memory of a process, from /proc."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def timed(page, first: str, whole: str, arg, act, start: bool = False) -> Run:
    """Arm the timer, act (a key press or a click), wait for both times; (first, whole) in seconds."""
    page.evaluate(DRAWS)
    page.evaluate(ARM, [first, whole, arg, start])
    act()
    page.wait_for_function("() => window.__timer.whole !== null", polling=50, timeout=120_000)
    t = page.evaluate("window.__timer")
    charts, draws = page.evaluate(DRAWS)
    return Run(t["first"] / 1000, t["whole"] / 1000, charts, draws)


def submit(page, text: str) -> Run:
    box = page.get_by_role("textbox", name="Sentence")
    box.fill(text)
    mark = " ".join(text.split()[:3])  # the subtitle quotes the sentence (cut after a word when long)
    whole = f"{IDLE} && location.search.includes({url_mark(text=text)!r}) && {STEPS_SHOW_TEXT}"
    return timed(page, STEPS_SHOW_TEXT, whole, mark, lambda: box.press("Control+Enter"))


def head_button(page, head: int) -> Run:
    """A click on the head buttons above the four steps: the switch is made in the browser."""
    button = page.locator('[data-testid="stBidiComponentIsolated"]').nth(1).locator(f'button[data-head="{head}"]')
    button.scroll_into_view_if_needed()
    whole = f"{IDLE} && location.search.includes('head={head}') && {STEPS_SHOW_HEAD}"
    # the click itself, in the page: no actionability checks of Playwright's in the timing
    return timed(page, STEPS_SHOW_HEAD, whole, head, lambda: button.evaluate("e => e.click()"))


def head_box(page, head: int) -> Run:
    """The sidebar's Head box: the server redraws the page."""
    box = page.get_by_test_id("stSidebar").get_by_role("combobox", name="Head")
    box.focus()
    box.press("ArrowDown")  # opens its list (a click on a box just redrawn by a rerun may only focus it)
    option = page.get_by_role("option", name=str(head), exact=True)
    whole = f"{IDLE} && location.search.includes('head={head}') && {STEPS_SHOW_HEAD}"
    return timed(page, STEPS_SHOW_HEAD, whole, head, lambda: option.click())


def grid_click(page, head: int) -> Run:
    """A click on a head of the all-heads grid: shown at once in the browser, then the server's rerun."""
    grid = page.locator(".js-plotly-plot").filter(has=page.locator(".gtitle", has_text="All "))
    grid.scroll_into_view_if_needed()
    x, y = page.evaluate(
        """([el, h]) => { const gd = el; const xa = gd._fullLayout['xaxis' + (h === 1 ? '' : h)];
            const ya = gd._fullLayout['yaxis' + (h === 1 ? '' : h)]; const box = gd.getBoundingClientRect();
            return [box.left + xa._offset + xa._length / 2, box.top + ya._offset + ya._length / 2]; }""",
        [grid.element_handle(), head],
    )
    whole = f"{IDLE} && location.search.includes('head={head}') && {STEPS_SHOW_HEAD}"
    return timed(page, STEPS_SHOW_HEAD, whole, head, lambda: page.mouse.click(x, y))


def bare_page_runs(browser, n_charts: int, repeats: int) -> list[Run]:
    """Submitting a text until the first and then every chart of the bare page shows it."""
    with streamlit_server(app=Path(__file__).with_name("bare_page.py")) as (url, _proc, _t0):
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(f"{url}/?charts={n_charts}")
        titles = "Array.from(document.querySelectorAll('.js-plotly-plot .gtitle'), e => e.textContent)"
        all_show = f"""(() => {{ const t = {titles}; return !document.querySelector('[data-stale="true"]')
            && t.length == {n_charts} && t.every(x => x.startsWith(arg + ' ')); }})()"""
        page.wait_for_function(f"arg => {all_show}", arg="start", timeout=60_000)
        page.evaluate(COUNT_DRAWS)
        first = f"({titles}).some(x => x.startsWith(arg + ' '))"
        box = page.get_by_role("textbox", name="Sentence")
        whole = f"{all_show} && window.__pending === 0"
        runs = []
        for i in range(repeats + 1):
            box.fill(f"text{i}")
            runs.append(timed(page, first, whole, f"text{i}", lambda: box.press("Enter")))
        page.close()
    return runs[1:]  # the first is a warm-up


def bare_cold_start(browser, n_heatmaps: int = 3) -> float:
    """From `streamlit run` of the bare page until its heatmaps are drawn: what any Streamlit page of a few
    charts costs to start on this machine, the cold start's calibration."""
    with streamlit_server(app=Path(__file__).with_name("bare_page.py")) as (url, _proc, t_launch):
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(f"{url}/?charts={n_heatmaps}&kind=heatmap")
        page.wait_for_function(
            f"""() => !document.querySelector('[data-stale="true"]')
                && document.querySelectorAll('.js-plotly-plot .heatmaplayer').length == {n_heatmaps}""",
            polling=10,
            timeout=60_000,
        )
        seconds = time.perf_counter() - t_launch
        page.close()
    return seconds


def _explorer_complete(charts: str, button: str) -> str:
    """The explorer's first page is complete: nothing stale or running, its charts drawn (`charts`, a test of their
    number g.length; the four steps among them) and the sidebar's last button, "Download all figures (N)" in any
    language (`button`, a test of its text t), there: the run has sent everything."""
    return f"""() => !document.querySelector('[data-stale="true"], [data-drawing]')
    && !document.querySelector('[data-testid="stStatusWidget"]')
    && !!{STEPS}
    && (() => {{ const g = document.querySelectorAll('.js-plotly-plot');
        return {charts} && Array.from(g).every(x => !!x._fullLayout); }})()
    && Array.from(document.querySelectorAll('[data-testid="stDownloadButton"] button'), b => b.textContent)
        .some(t => {button})"""


APP_COMPLETE = _explorer_complete("g.length === 9", "t.trim().endsWith('(9)')")  # MiniLM's nine charts
# on any model: a decoder's explorer draws one figure more (its next word)
ANY_MODEL_COMPLETE = _explorer_complete("g.length >= 9", "/\\(\\d+\\)$/.test(t.trim())")


def wait_app_page(page) -> float:
    """Until the explorer's first page is complete, polled in the page every 10 ms as for the bare page; then a
    check that it is the page expected. Returns the perf_counter() time it was complete at."""
    page.wait_for_function(APP_COMPLETE, polling=10, timeout=120_000)
    complete = time.perf_counter()
    wait_complete(page, "13 tokens", shows="All heads at a glance", timeout=5)
    return complete


def app_cold_start(browser, folder: Path = ROOT) -> tuple[float, float]:
    """From `streamlit run app.py` (`folder`'s) until the server answers, and until the first page is complete (s)."""
    with streamlit_server(app=folder / "app.py", cwd=folder, python=python(folder)) as (url, _proc, t_launch):
        up = time.perf_counter() - t_launch
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(url)
        seconds = wait_app_page(page) - t_launch
        page.close()
    return up, seconds


def print_table(columns: tuple[str, ...], table: list[tuple[str, ...]]) -> None:
    """A Markdown table: the first column to the left, the others to the right."""
    widths = [max(len(row[i]) for row in (columns, *table)) for i in range(len(columns))]
    for n, row in enumerate((columns, *table)):
        cells = (c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))
        print("| " + " | ".join(cells) + " |")
        if n == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")


def cold_starts(browser, repeats: int, baseline: str | None = None) -> None:
    """The app's cold start against the bare page's, alternating so that both meet the same machine; with a
    baseline commit, that commit's app started in the same turns (its own checkout), after this tree's or before."""
    folders = {"this tree": ROOT}
    with ExitStack() as stack:
        if baseline:
            folders[baseline] = stack.enter_context(checkout(baseline))
        runs: dict[str, list[tuple[float, float, float]]] = {tree: [] for tree in folders}
        for i in range(repeats):
            bare = bare_cold_start(browser)
            for tree in folders if i % 2 == 0 else list(folders)[::-1]:
                runs[tree].append((bare, *app_cold_start(browser, folders[tree])))
    print(f"cold starts, {repeats} of each page in turns; median, min–max (s)")
    print("ratio: the app's full page ÷ the bare page of 3 heatmaps started in the same turn\n")

    def spread(xs: list[float]) -> str:
        return f"{min(xs):.2f}–{max(xs):.2f}"

    table = []
    for tree, measured in runs.items():
        up, full = [r[1] for r in measured], [r[2] for r in measured]
        ratios = [f / b for b, _, f in measured]
        name = "app" if len(runs) == 1 else f"app ({tree})"
        table += [
            (f"{name}: server answers", f"{statistics.median(up):.2f}", spread(up), "", "", ""),
            (
                f"{name}: first page complete",
                f"{statistics.median(full):.2f}",
                spread(full),
                f"{statistics.median(ratios):.2f}",
                spread(ratios),
                "≤ 1.3",
            ),
        ]
    bare = [r[0] for r in runs["this tree"]]
    table.append(("bare page of 3 heatmaps", f"{statistics.median(bare):.2f}", spread(bare), "", "", ""))
    print_table(("measure", "median", "min–max", "ratio", "ratios min–max", "target"), table)
    if baseline:
        now, then = (statistics.median(r[2] for r in runs[t]) for t in folders)
        print(f"\nfirst page complete, this tree ÷ {baseline}: {now / then:.2f}")


def warm_runs(browser, repeats: int) -> None:
    """Sentence updates and head switches in one app session, against the bare page's updates."""
    bare = {n: bare_page_runs(browser, n, repeats) for n in (1, 10)}
    run_log = Path(tempfile.mkdtemp()) / "runs.jsonl"
    decoders = [c.name for c in available_models() if c.available and c.native_mask == "causal"]
    with streamlit_server(env={"ATTENTION_RUN_LOG": str(run_log)}) as (url, proc, _t_launch):
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(url)
        wait_app_page(page)
        page.wait_for_timeout(1500)  # the page's size is reported once, and the page redrawn for it
        wait_complete(page, "13 tokens", shows="All heads at a glance")
        page.evaluate(COUNT_DRAWS)

        rows: list[tuple[str, list[Run]]] = []
        for label, make in (
            ("sentence update, 13 tokens", sentence_13),
            ("sentence update, 128 tokens", sentence_128),
        ):
            submit(page, make(repeats))  # warm-up, with a sentence the timed runs do not repeat
            rows.append((label, [submit(page, make(i)) for i in range(repeats)]))
        submit(page, sentence_13(0))
        # each series starts on another head than the last one shown
        heads = [[2 + (i + shift) % 11 for i in range(repeats)] for shift in (0, 5, 3)]
        rows.append(("head switch, buttons", [head_button(page, h) for h in heads[0]]))
        rows.append(("head switch, sidebar box", [head_box(page, h) for h in heads[1]]))
        rows.append(("head switch, grid click", [grid_click(page, h) for h in heads[2]]))
        # every decoder, one after the other (the server keeps one beside the encoder): SmolLM2's 30 layers of 9
        # heads, its MLP unpacked from 4 bits on every trace; Gemma 3's 18 layers of 4, its 262,144-token table
        for name in decoders:
            page.goto(f"{url}/?model={name}")
            wait_complete(page, shows="All heads at a glance", timeout=300)
            page.wait_for_timeout(1500)
            page.evaluate(COUNT_DRAWS)  # a new page: count its draws again
            submit(page, sentence_13(repeats))  # warm-up
            runs = [submit(page, sentence_13(i)) for i in range(repeats)]
            rows.append((f"sentence update, {name} (same texts)", runs))
        rss, peak = rss_mb(proc.pid)
        held = json.loads(run_log.read_text().splitlines()[-1]).get("caches", {})

    calibration = statistics.median(r.whole for r in bare[10])
    print(f"median of {repeats} runs")
    print("first: the four steps (their weights) show the change; whole: the whole page in step")
    print(f"ratios: ÷ the bare page's 10-chart update, the whole page in step ({calibration:.3f} s), same run\n")
    table = []
    labelled = rows + [(f"bare page, {n} line chart{'s' if n > 1 else ''}", runs) for n, runs in bare.items()]
    for label, runs in labelled:
        first = statistics.median(r.first for r in runs)
        whole = statistics.median(r.whole for r in runs)
        table.append(
            (
                label,
                f"{first:.3f}",
                f"{first / calibration:.2f}",
                f"≤ {TARGETS[label]:g}" if label in TARGETS else "",
                f"{whole:.3f}",
                f"{whole / calibration:.2f}",
                f"≤ {WHOLE_TARGETS[label]:g}" if label in WHOLE_TARGETS else "",
                f"{min(r.whole for r in runs):.3f}–{max(r.whole for r in runs):.3f}",
                f"{statistics.median(r.charts for r in runs):.0f}",
                f"{statistics.median(r.draws for r in runs):.0f}",
            )
        )
    columns = ("measure", "first (s)", "ratio", "target", "whole (s)", "ratio", "target", "whole min–max", "charts")
    print_table((*columns, "draws"), table)
    models = ", ".join(["the encoder", *decoders])
    print(f"\nserver resident memory after the runs ({models}): {rss:.0f} MB (its peak, VmHWM, {peak:.0f} MB)")
    for name, (entries, kept, budget) in held.items():
        print(f"  {name}: {entries} entries, {kept / 2**20:.1f} MB of {budget / 2**20:.0f} MB")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7, help="timed updates and head switches of each kind")
    parser.add_argument("--cold", type=int, default=5, help="cold starts of each page (0: none)")
    parser.add_argument("--cold-only", action="store_true", help="measure the cold starts alone")
    parser.add_argument("--baseline", metavar="COMMIT", help="that commit's cold starts too, in turns with this tree's")
    args = parser.parse_args()
    if not 1 <= args.repeats < len(COLOURS):
        parser.error(f"--repeats must be between 1 and {len(COLOURS) - 1}: each timed run needs a new sentence")
    print(f"Chromium headless at {VIEWPORT['width']}×{VIEWPORT['height']}, {os.cpu_count()} cores\n")
    with chromium() as browser:
        if args.cold:
            cold_starts(browser, args.cold, args.baseline)
            print()
        if not args.cold_only:
            warm_runs(browser, args.repeats)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
