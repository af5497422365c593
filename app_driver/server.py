"""Drive the real app in Debian's Chromium: start `streamlit run app.py` (or deploy/serve's several servers behind
HAProxy), open pages, wait for complete redraws.

Used by the browser tests (tests/e2e) and the benchmarks alike, so it sits beside app.py rather than inside
either. Never downloads a browser.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",  # CI runs as root
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # this machine's network is closed: without these Chromium keeps trying to reach Google's hosts
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOGS = ROOT / "artifacts" / "logs"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(
    timeout: float = 120.0,
    app: Path = ROOT / "app.py",
    env: dict[str, str] | None = None,
    as_a_class: bool = False,
    cwd: Path = ROOT,
    python: str = sys.executable,
):
    """`streamlit run app.py` (or another script) on a free loopback port; yields (url, process, start time).

    cwd: the folder the server runs in: another checkout's (with its own app.py), to measure that one.
    python: the interpreter to run it with: another checkout's own (benchmarks/baseline.py), or this one.

    as_a_class: nothing on the command line but the port and address, as a class starts it: headless mode, no
    usage statistics and no file watcher must then come from the repository's .streamlit/config.toml."""
    port = free_port()
    cmd = [
        python,
        "-m",
        "streamlit",
        "run",
        str(app),
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
    ]
    if not as_a_class:
        cmd += ["--server.headless", "true", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    LOGS.mkdir(parents=True, exist_ok=True)
    log_path = LOGS / f"streamlit-{'class-' if as_a_class else ''}{port}.log"
    # a file, not a pipe: a pipe nobody reads fills up and stalls the server
    with open(log_path, "w") as log:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, text=True, env=os.environ | (env or {})
        )
        url = f"http://127.0.0.1:{port}"
        try:
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"streamlit exited: {log_path.read_text()}")
                try:
                    with urllib.request.urlopen(url + "/_stcore/health", timeout=1) as r:
                        if r.status == 200:
                            break
                except OSError:
                    pass
                if time.perf_counter() - t0 > timeout:
                    raise TimeoutError("streamlit did not answer")
                time.sleep(0.1)
            yield url, proc, t0
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()


@contextmanager
def chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


PAGE_STATE = """() => ({
    plots: document.querySelectorAll('.js-plotly-plot').length,
    stale: document.querySelectorAll('[data-stale="true"], [data-drawing], [data-fitting]').length
      + Object.keys(document.documentElement.dataset).filter(k => k.startsWith('pending')).length
      + (document.fonts && document.fonts.status === 'loading' ? 1 : 0),
    running: document.querySelectorAll('[data-testid="stStatusWidget"]').length,
    titles: Array.from(document.querySelectorAll('.js-plotly-plot .gtitle')).map(e => e.textContent),
    exceptions: document.querySelectorAll('[data-testid="stException"]').length,
})"""


def url_mark(**params) -> str:
    """How a parameter appears in the app's URL (spaces as +, as the browser writes them)."""
    return urlencode(params)


MAIN_SHOWS = """t => (document.querySelector('[data-testid="stMain"]') || document.body).textContent.includes(t)"""


FIRST_CHART_SHOWS = """t => (document.querySelector('.js-plotly-plot')?.textContent || '').includes(t)"""


def page_state(page) -> dict:
    return page.evaluate(PAGE_STATE)


POLL_MS = 20  # how often wait_complete looks, inside the page
# The page's state (PAGE_STATE) once it is complete as `e` expects, or once it shows an exception; false till then.
COMPLETE = f"""e => {{
    const s = ({PAGE_STATE})();
    const ok = !s.stale && !s.running && (s.plots > 0 || !e.charts)
      && (e.firstTitle === null || (s.titles.length > 0 && s.titles[0] === e.firstTitle))
      && (e.plots === null || s.plots === e.plots)
      && (e.urlHas === null || location.href.includes(e.urlHas))
      && (e.shows === null || ({MAIN_SHOWS})(e.shows))
      && (e.firstChartShows === null || ({FIRST_CHART_SHOWS})(e.firstChartShows))
      && (e.titled === null || s.titles.some(t => t.startsWith(e.titled)));
    return ok || s.exceptions ? s : false;
}}"""


def frames(page, n: int = 2) -> None:
    """Let the page draw `n` frames: after a change of the window's size, its resize observers have run (they run
    in the frame that follows), and what they start is marked for wait_complete."""
    page.evaluate(
        "n => new Promise(done => { const next = k => k ? requestAnimationFrame(() => next(k - 1)) : done(); next(n); })",
        n,
    )


def wait_complete(
    page,
    first_title: str | None = None,
    plots: int | None = None,
    url_has: str | None = None,
    shows: str | None = None,
    first_chart_shows: str | None = None,
    titled: str | None = None,
    timeout: float = 120.0,
    charts: bool = True,
) -> dict:
    """Wait until the app is idle with every chart drawn: nothing stale or being drawn (ui/components/plot.js marks a
    figure on its way, and one fitted again to a new width), no size measured and not yet drawn for (the page's
    width and the explorer's canvas, ui/components/page_width.js and ui/components/head_switch.js), the page settled for the keyboard
    (ui/components/access.js), no font loading, nothing running and, if given, the
    first chart's title, the number of charts, a piece of the URL, a text in the main area, a text in
    the first chart (the token chips, whose texts run together) and the start of some chart's title as
    expected.

    Streamlit shows its "running" widget only some time after a run starts, so a page that has just opened
    can look idle with half its charts: on a first load, name something the complete page has.

    After a change, `shows` should name something only the new view contains (the new sentence's word,
    the new head's heading): elements turn stale as soon as a rerun starts, so once that text is there
    and nothing is stale, every chart is the new one. charts=False: a page that may draw none (a page already
    complete, settling again after a change of the window's size). Returns the page state."""
    expected = {
        "firstTitle": first_title,
        "plots": plots,
        "urlHas": url_has,
        "shows": shows,
        "firstChartShows": first_chart_shows,
        "titled": titled,
        "charts": charts,
    }
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        # polled inside the page, every POLL_MS: a poll from here was a round trip through Playwright each time
        done = page.wait_for_function(COMPLETE, arg=expected, polling=POLL_MS, timeout=timeout * 1000)
    except PlaywrightTimeout:
        raise TimeoutError(f"page not complete: {page_state(page)}, url {page.url}") from None
    return done.json_value()


@dataclass
class Deployment:
    """`bash deploy/serve` running: HAProxy's address, each app server's name, port and process id, and its files."""

    url: str
    launcher: subprocess.Popen
    servers: dict[str, tuple[int, int]]  # name ("s1") → (port, process id)
    haproxy_pid: int
    haproxy_log: Path
    socket: Path  # HAProxy's runtime API


@contextmanager
def deployment(replicas: int, timeout: float = 300.0, env: dict[str, str] | None = None):
    """`bash deploy/serve --replicas N` on a free loopback port, as a class starts it; yields a Deployment once
    HAProxy serves, and stops it all with SIGTERM (as Ctrl+C does) at the end."""
    port = free_port()
    LOGS.mkdir(parents=True, exist_ok=True)
    out_path = LOGS / f"deploy-serve-{port}.log"
    cmd = [
        "bash",
        str(ROOT / "deploy" / "serve"),
        "--replicas",
        str(replicas),
        "--port",
        str(port),
        "--address",
        "127.0.0.1",
    ]
    with open(out_path, "w") as out:
        launcher = subprocess.Popen(cmd, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env=os.environ | (env or {}))
        try:
            t0 = time.perf_counter()
            while "serving on" not in (said := out_path.read_text()):
                if launcher.poll() is not None:
                    raise RuntimeError(f"deploy/serve exited: {said}")
                if time.perf_counter() - t0 > timeout:
                    raise TimeoutError(f"deploy/serve did not start: {said}")
                time.sleep(0.2)
            servers = {
                name: (int(p), int(pid))
                for name, p, pid in re.findall(r"^server (s\d+): port (\d+), process (\d+)", said, re.M)
            }
            haproxy = re.search(r"^HAProxy: process (\d+), log (\S+)", said, re.M)
            yield Deployment(
                url=f"http://127.0.0.1:{port}",
                launcher=launcher,
                servers=servers,
                haproxy_pid=int(haproxy.group(1)),
                haproxy_log=Path(haproxy.group(2)),
                socket=Path(re.search(r"socat stdio (\S+)", said).group(1)),
            )
        finally:
            if launcher.poll() is None:
                launcher.terminate()
                try:
                    launcher.wait(30)
                except subprocess.TimeoutExpired:
                    launcher.kill()


def haproxy_command(socket_path: Path, command: str) -> str:
    """One command to HAProxy's runtime API (what `echo COMMAND | socat stdio SOCKET` does); its answer."""
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(socket_path))
        s.sendall(command.encode() + b"\n")
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    return answer.decode()
