"""A class's sessions in Chromium, for the deploy test and the load benchmarks alike: the test sentences, a page
waited on until every chart is drawn (and what it shows checked), a sentence typed and sent, and a student's
session that follows its own link through HAProxy and is drawn again by a live server when its own is lost."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import numpy as np

from app_driver.server import url_mark

# Each is one token of the model's vocabulary, in lower case, so the token chips show it whole
# and three of them in a row spell the sentence's mark.
WORDS = (
    "apple",
    "river",
    "stone",
    "cloud",
    "garden",
    "window",
    "silver",
    "orange",
    "bread",
    "music",
    "winter",
    "summer",
    "forest",
    "valley",
    "ocean",
    "mountain",
    "teacher",
    "student",
    "doctor",
    "pilot",
    "farmer",
    "singer",
    "writer",
    "painter",
    "little",
    "quiet",
    "bright",
    "gentle",
    "happy",
    "tired",
    "hungry",
    "brave",
    "walked",
    "jumped",
    "painted",
    "carried",
    "watched",
    "opened",
    "closed",
    "found",
    "lost",
    "kept",
    "under",
    "over",
    "near",
    "behind",
    "beside",
    "across",
    "morning",
    "evening",
    "night",
    "city",
    "village",
    "bridge",
    "castle",
    "island",
    "desert",
    "meadow",
    "candle",
    "mirror",
    "letter",
    "basket",
    "ladder",
    "horse",
)


FIRST_PAGE_MARK = "a fluffy blue"  # the default sentence, "a fluffy blue creature roamed the verdant forest"


VIEWPORT = {"width": 1400, "height": 1000}


# Read in one round trip: nothing stale, nothing running, and the explorer's four steps (the figure whose
# layout.meta.first is set: raw, scaled, masked and softmax weights) quoting the sentence in their subtitle.
PAGE_STATE = """([chips, weights, alert]) => {
    const plots = Array.from(document.querySelectorAll('.js-plotly-plot'));
    const title = p => p.querySelector('.gtitle')?.textContent || '';
    const steps = plots.find(g => g.layout && g.layout.meta && g.layout.meta.first && g._fullLayout);
    const subtitle = steps && steps.layout.title.subtitle ? steps.layout.title.subtitle.text || '' : '';
    return {
        plots: plots.length,
        stale: document.querySelectorAll('[data-stale="true"], [data-drawing]').length,
        running: document.querySelectorAll('[data-testid="stStatusWidget"]').length,
        exceptions: document.querySelectorAll('[data-testid="stException"]').length,
        exception_text: document.querySelector('[data-testid="stException"]')?.innerText.slice(0, 300) || '',
        titles: plots.map(title),
        chips: !chips || plots.some(p => p.textContent.includes(chips)),
        weights: steps !== undefined && (!weights || subtitle.includes(weights)),
        alert: !alert || Array.from(document.querySelectorAll('[data-testid="stAlert"]')).some(e => e.textContent.includes(alert)),
    };
}"""


class PageException(Exception):
    """The page shows a Python exception (st.exception's box)."""


def sentence(i: int) -> str:
    """The i-th test sentence, 8 to 12 words: its first three spell i in base 64, so no two of the first
    262,144 sentences open alike, and the rest come from a generator seeded with i."""
    rng = np.random.default_rng(i)
    n = len(WORDS)
    head = [WORDS[i % n], WORDS[i // n % n], WORDS[i // n // n % n]]
    return " ".join(head + [WORDS[k] for k in rng.integers(0, n, size=int(rng.integers(5, 10)))])


def mark(text: str) -> str:
    """What the token chips show for the text's first three words: the chips' texts run together."""
    return "".join(text.split()[:3])


async def wait_drawn(
    page,
    deadline: float,
    *,
    title: str | None = None,
    chips: str | None = None,
    weights: str | None = None,
    url_has: str | None = None,
    alert: str | None = None,
    poll: float = 0.05,
) -> dict:
    """Wait until the page is idle with every chart drawn and, if given, the first chart's title, the token
    chips' mark, a text in the weights chart, a piece of the URL and an alert's text as expected.

    As in driver.wait_complete, `chips` should be something only the new view has: elements turn stale as
    soon as a rerun starts, so once the mark is there and nothing is stale, every chart is the new one.
    Raises TimeoutError after `deadline` (a time.perf_counter() value), PageException when the page shows one."""
    while True:
        s = await page.evaluate(PAGE_STATE, [chips, weights, alert])
        if s["exceptions"]:
            raise PageException(" ".join(s["exception_text"].split())[:160])
        if (
            not s["stale"]
            and not s["running"]
            and s["plots"] > 0
            and s["chips"]
            and s["weights"]
            and s["alert"]
            and (title is None or any(t.startswith(title) for t in s["titles"]))
            and (url_has is None or url_has in page.url)
        ):
            return s
        if time.perf_counter() > deadline:
            raise TimeoutError(f"page not drawn: {s}")
        await asyncio.sleep(poll)


async def open_first_page(page, url: str, deadline: float) -> None:
    await page.goto(url, timeout=max(1.0, deadline - time.perf_counter()) * 1000)
    await wait_drawn(page, deadline, weights=FIRST_PAGE_MARK)


async def submit(page, text: str, deadline: float, poll: float = 0.05) -> float:
    """Type `text` into the sidebar's Sentence box, press Ctrl+Enter; seconds until every chart shows it."""
    await fill(page, text, deadline)
    asked, _ = await press(page)
    return await drawn(page, text, asked, deadline, poll)


async def fill(page, text: str, deadline: float) -> None:
    """Type `text` into the sidebar's Sentence box, not yet sent."""
    box = page.get_by_role("textbox", name="Sentence")
    await box.fill(text, timeout=max(1.0, deadline - time.perf_counter()) * 1000)


async def press(page) -> tuple[float, float]:
    """Ctrl+Enter in the Sentence box: the wall-clock times (time.time()) the press was asked for and done."""
    box = page.get_by_role("textbox", name="Sentence")
    asked = time.time()
    await box.press("Control+Enter")
    return asked, time.time()


async def drawn(page, text: str, pressed: float, deadline: float, poll: float) -> float:
    """Seconds from `pressed` (a time.time() value) until every chart shows `text`."""
    words = text.split()
    await wait_drawn(
        page, deadline, chips=mark(text), weights=" ".join(words[:3]), url_has=url_mark(text=text), poll=poll
    )
    return time.time() - pressed


class Session:
    """One student: a browser context of its own (its cookie jar), named in HAProxy's log by its User-Agent, on its
    own link (a sentence, a layer and a head of MiniLM's 6 × 12)."""

    def __init__(self, i: int):
        self.i = i
        self.agent = f"session-{i:02d} Mozilla/5.0 (X11; Linux x86_64) Chrome"
        self.text = sentence(1000 + i)
        self.layer = 2 + i % 5  # never layer 1 or head 1, the defaults, which the link leaves out
        self.head = 2 + (5 * i) % 11
        self.link = "/?" + url_mark(text=self.text, layer=self.layer, head=self.head)
        self.context = self.page = None
        self.server = ""  # the server its cookie names

    async def open(self, browser, url: str, timeout: float = 300.0) -> None:
        self.context = await browser.new_context(viewport=VIEWPORT, user_agent=self.agent)
        self.page = await self.context.new_page()
        await self.page.goto(url + self.link, timeout=timeout * 1000)

    async def own_view(self, deadline: float, text: str | None = None, poll: float = 0.2) -> None:
        """Wait until the page shows this session's view: its sentence in the token chips and the link, its layer
        and head in the figures' titles and the link, nothing stale or running. load.PageException on an error."""
        text = text or self.text
        await wait_drawn(
            self.page,
            deadline,
            title=f"Layer {self.layer} · head {self.head}",
            chips=mark(text),
            url_has=url_mark(text=text),
            poll=poll,
        )
        url = self.page.url + "&"
        if f"layer={self.layer}&" not in url or f"head={self.head}&" not in url:
            raise AssertionError(f"session {self.i}: another layer or head in {self.page.url}")

    async def cookie(self) -> str:
        self.server = next((c["value"] for c in await self.context.cookies() if c["name"] == "SRV"), "")
        return self.server


def runs_since(run_log: Path, since: float) -> set[str]:
    """The sentences of the runs the servers started after `since` (a time.time() value; app.py's ATTENTION_RUN_LOG)."""
    if not run_log.exists():
        return set()
    lines = run_log.read_text(encoding="utf-8").splitlines()
    return {run["text"] for run in map(json.loads, lines) if run["start"] >= since}


async def recover(s: Session, lost: str, killed_at: float, run_log: Path, timeout: float = 60.0) -> float:
    """Seconds from the kill (a time.time() value) until the session's own view is drawn again by a live server: its
    cookie names another server, that server has run this session's sentence since the kill, and the page shows it."""
    deadline = time.perf_counter() + timeout
    while True:
        if await s.cookie() not in ("", lost) and s.text in runs_since(run_log, killed_at):
            await s.own_view(deadline)
            return time.time() - killed_at
        if time.perf_counter() > deadline:
            raise TimeoutError(f"session {s.i} not drawn again by a live server (its cookie: {s.server!r})")
        await asyncio.sleep(0.2)


async def warm(browser, url: str, servers, timeout: float) -> None:
    """Each server's first page (the model's load), through HAProxy with that server's cookie."""
    for name in servers:
        context = await browser.new_context(viewport=VIEWPORT)
        try:
            await context.add_cookies([{"name": "SRV", "value": name, "url": url}])
            page = await context.new_page()
            await page.goto(url + "/", timeout=timeout * 1000)
            await wait_drawn(page, time.perf_counter() + timeout, weights=FIRST_PAGE_MARK)
        finally:
            await context.close()
