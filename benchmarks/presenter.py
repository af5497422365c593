"""Presenter mode's switch: `python benchmarks/presenter.py [--repeats N]`.

In Debian's Chromium at 1280×720, against a fresh `streamlit run app.py`: from the click on the sidebar's
**Presenter mode** toggle until the last figure is drawn (Plotly's last draw, relayout or update under way has
finished, and the page then stays idle, laid out for its column, for QUIET seconds), switched on and off again
in turn (the first switch on, whose figures the server builds, apart). For calibration, in the same run, the bare Streamlit page's update of 10 line charts
(benchmarks/bare_page.py, as benchmarks/browser.py measures it): the ratio divides by its median. Figures, not a
test: nothing here fails on a slow machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app_driver.server import chromium, streamlit_server, wait_complete
from benchmarks.browser import IDLE, STEPS, VIEWPORT, bare_page_runs, print_table

QUIET = 1.5  # s without a draw, the page idle: the switch is over

# Every Plotly call that draws (a new figure, a head's matrices, a new width after the sidebar moves), the time
# the last one finished, and how many are under way.
TRACK_DRAWS = """() => {
    if (window.__tracked) return;
    window.__tracked = true;
    window.__pending = 0;
    window.__lastDraw = performance.now();
    window.__nDraws = 0;
    for (const name of ['react', 'newPlot', 'relayout', 'update', 'restyle']) {
        const draw = window.Plotly[name];
        window.Plotly[name] = function (...args) {
            window.__pending += 1;
            window.__nDraws += 1;
            const done = () => { window.__pending -= 1; window.__lastDraw = performance.now(); };
            const out = draw.apply(this, args);
            Promise.resolve(out).then(done, done);
            return out;
        };
    }
}"""
# The click's time, from the event itself (the time the browser received it)
ARM_CLICK = """() => { window.__clicked = null;
    window.addEventListener('click', e => { window.__clicked = e.timeStamp; }, { capture: true, once: true }); }"""
# The page shows the view asked for, idle, its four steps laid out for the column they are in
SETTLED = f"""on => {IDLE} && window.__clicked !== null
    && location.search.includes('presenter=1') === on
    && (() => {{ const g = {STEPS}; return !!g && !!g._fullLayout
        && Math.abs(g.layout.meta.canvas.width - g.getBoundingClientRect().width) <= 24; }})()"""


def sidebar_open(page) -> None:
    """The sidebar open (presenter mode may have folded it), with its toggle at hand."""
    if page.get_by_test_id("stSidebar").get_attribute("data-collapsed") == "true":
        page.get_by_test_id("stExpandSidebarButton").click()
        page.wait_for_function(
            "() => document.querySelector('[data-testid=\"stSidebar\"]').getAttribute('data-collapsed') === 'false'"
        )
        page.wait_for_timeout(1000)  # it slides in, and the page is redrawn for the narrower column
        wait_complete(page, shows="All heads at a glance")


def switch(page, on: bool) -> tuple[float, int]:
    """Click the toggle; (seconds from the click to the last draw, Plotly draws)."""
    sidebar_open(page)
    toggle = page.get_by_test_id("stSidebar").get_by_text("Presenter mode", exact=True)
    toggle.scroll_into_view_if_needed()
    page.evaluate("() => { window.__nDraws = 0; }")
    page.evaluate(ARM_CLICK)
    toggle.click()
    while True:
        page.wait_for_function(SETTLED, arg=on, polling=50, timeout=120_000)
        before = page.evaluate("() => window.__nDraws")
        page.wait_for_timeout(QUIET * 1000)
        if page.evaluate("() => window.__nDraws") == before and page.evaluate(SETTLED, on):
            break
    seconds = page.evaluate("() => (window.__lastDraw - window.__clicked) / 1000")
    return seconds, page.evaluate("() => window.__nDraws")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5, help="switches on (and as many off)")
    args = parser.parse_args()
    print(f"Chromium headless at {VIEWPORT['width']}×{VIEWPORT['height']}, {os.cpu_count()} cores\n")
    with chromium() as browser:
        bare = bare_page_runs(browser, 10, args.repeats)
        with streamlit_server() as (url, _proc, _t0):
            page = browser.new_page(viewport=VIEWPORT)
            page.goto(url)
            wait_complete(page, "13 tokens", shows="All heads at a glance")
            page.wait_for_timeout(1500)  # the page's size is reported once, and the page redrawn for it
            wait_complete(page, "13 tokens", shows="All heads at a glance")
            page.evaluate(TRACK_DRAWS)
            first_on = switch(page, True)  # the first: the server builds the presenter figures once
            switch(page, False)
            on, off = [], []
            for _ in range(args.repeats):
                on.append(switch(page, True))
                off.append(switch(page, False))
            page.close()
    calibration = statistics.median(r.whole for r in bare)
    print(f"median of {args.repeats}; ratio: ÷ the bare page's 10-chart update ({calibration:.3f} s), same run\n")
    rows = []
    for label, runs in (("presenter mode on", on), ("presenter mode off", off)):
        seconds = [s for s, _ in runs]
        median = statistics.median(seconds)
        rows.append(
            (
                label,
                f"{median:.2f}",
                f"{min(seconds):.2f}–{max(seconds):.2f}",
                f"{median / calibration:.1f}",
                f"{statistics.median(d for _, d in runs):.0f}",
            )
        )
    rows.append(
        (
            "presenter mode on, first time",
            f"{first_on[0]:.2f}",
            "",
            f"{first_on[0] / calibration:.1f}",
            f"{first_on[1]}",
        )
    )
    print_table(("switch", "click → last draw (s)", "min–max", "ratio", "Plotly draws"), rows)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
