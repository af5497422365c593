"""The server's door (ui/served.py): what Streamlit marks immutable is answered from memory after its first time, and
nothing else; the real server's answers are the same from memory as from Streamlit (tests/e2e/test_reliability_browser.py
fetches them)."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ui import internals, served

ROOT = Path(__file__).resolve().parents[1]
IMMUTABLE = [(b"content-type", b"application/javascript"), (b"cache-control", b"public, immutable, max-age=31536000")]


class Streamlit:
    """A stand-in for Streamlit's server: answers every request with the given status and headers, its body in two
    parts; counts the requests it answered."""

    def __init__(self, status: int = 200, headers=IMMUTABLE, complete: bool = True) -> None:
        self.status, self.headers, self.complete, self.answered = status, list(headers), complete, 0

    async def __call__(self, scope, receive, send) -> None:
        self.answered += 1
        await send({"type": "http.response.start", "status": self.status, "headers": self.headers})
        await send({"type": "http.response.body", "body": b"part one, ", "more_body": True})
        if not self.complete:
            raise ConnectionError("the client went away")
        await send({"type": "http.response.body", "body": b"part two"})


def run(coroutine):
    """asyncio.run in a thread of its own: a browser test before this one in the same worker may have left an event
    loop running in this thread (Playwright's sync API)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def get(app, path: str = "/static/js/index.abc.js", method: str = "GET", query: bytes = b"", headers=(), kind="http"):
    """The messages `app` sends for one request."""
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": kind, "method": method, "path": path, "query_string": query, "headers": list(headers)}
    run(app(scope, receive, send))
    return sent


def answer(sent) -> tuple[int, list, bytes]:
    start = next(m for m in sent if m["type"] == "http.response.start")
    return start["status"], start["headers"], b"".join(m.get("body", b"") for m in sent[1:])


def test_an_immutable_answer_is_given_again_from_memory_whole():
    streamlit = Streamlit()
    door = served.KeptFiles(streamlit)
    first = get(door)
    again = [get(door) for _ in range(3)]
    assert streamlit.answered == 1
    assert len(first) == 3  # Streamlit's own answer went out as it was, in its parts
    for sent in again:
        assert len(sent) == 2 and answer(sent) == answer(first) == (200, IMMUTABLE, b"part one, part two")
    get(door, "/static/js/other.def.js")  # each path its own answer
    assert streamlit.answered == 2 and len(door.kept) == 2


@pytest.mark.parametrize(
    "headers",
    [
        [(b"cache-control", b"no-cache")],  # the page's HTML, the manifest
        [],  # no word on caching: the app's own files, media
        [*IMMUTABLE, (b"vary", b"Accept-Encoding")],
        [*IMMUTABLE, (b"content-encoding", b"gzip")],
        [*IMMUTABLE, (b"Set-Cookie", b"session=1")],
    ],
)
def test_an_answer_that_may_change_or_differ_between_clients_is_not_kept(headers):
    streamlit = Streamlit(headers=headers)
    door = served.KeptFiles(streamlit)
    assert answer(get(door)) == answer(get(door)) == (200, headers, b"part one, part two")
    assert streamlit.answered == 2 and not door.kept


@pytest.mark.parametrize(
    "request_",
    [
        {"method": "HEAD"},
        {"method": "POST"},
        {"query": b"v=2"},
        {"headers": [(b"Range", b"bytes=0-9")]},
        {"headers": [(b"if-none-match", b'"abc"')]},
        {"headers": [(b"if-modified-since", b"Sat, 28 Nov 2026 16:46:03 GMT")]},
    ],
)
def test_a_request_for_something_else_than_the_whole_file_goes_to_streamlit(request_):
    streamlit = Streamlit()
    door = served.KeptFiles(streamlit)
    get(door)  # kept
    get(door, **request_)
    assert streamlit.answered == 2
    # and is not kept in place of the whole file
    get(door)
    assert streamlit.answered == 2


def test_an_error_an_unfinished_answer_and_other_connections_are_not_kept():
    for streamlit in (Streamlit(status=404), Streamlit(status=500)):
        door = served.KeptFiles(streamlit)
        get(door), get(door)
        assert streamlit.answered == 2 and not door.kept
    unfinished = Streamlit(complete=False)
    door = served.KeptFiles(unfinished)
    with pytest.raises(ConnectionError):
        get(door)
    assert not door.kept
    seen = []

    async def websocket(scope, receive, send):
        seen.append(scope["type"])

    get(served.KeptFiles(websocket), kind="websocket")
    get(served.KeptFiles(websocket), kind="lifespan")
    assert seen == ["websocket", "lifespan"]


def test_streamlit_run_app_py_starts_the_server_app_py_names():
    """`streamlit run app.py` finds app.py's st.App (and so its door) by reading the file, as it does."""
    from streamlit.web.server.app_discovery import discover_asgi_app

    found = discover_asgi_app(ROOT / "app.py")
    assert found.is_asgi_app and found.import_string == "app:app"


def test_the_servers_lifespan_imports_the_pages_modules_and_a_run_waits_for_them(tmp_path, monkeypatch):
    """The server answers at once and imports the page's modules in a thread; a page's run waits for them (two threads
    importing one module could each meet the other's half-made one); what follows them comes after, in that thread."""
    import sys
    import time

    (tmp_path / "slow_to_import.py").write_text("import time\ntime.sleep(1.0)\nDONE = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    served.warmed(timeout=0)  # no server started: nothing to wait for
    after = []

    async def start_and_run_a_page() -> tuple[float, float]:
        async with served.starting(("json", "slow_to_import"), then=lambda: after.append(time.perf_counter()))(None):
            answered = time.perf_counter()
            await asyncio.to_thread(served.warmed)  # a page's run, in its own thread
            ran = time.perf_counter()
            await asyncio.sleep(0.1)
            return answered, ran

    t0 = time.perf_counter()
    answered, ran = run(start_and_run_a_page())
    assert answered - t0 < 1.0 <= ran - t0  # the server went on at once; the run waited for the module
    assert sys.modules["slow_to_import"].DONE
    assert len(after) == 1 and after[0] - t0 >= 1.0
    monkeypatch.delitem(sys.modules, "slow_to_import")


class Runs:
    """Threads named as Streamlit names a session's run (ui/internals.py), each lasting until it is ended."""

    def __init__(self) -> None:
        self.threads: list[tuple[threading.Thread, threading.Event]] = []

    def start(self, work=None) -> threading.Event:
        end = threading.Event()

        def run_():
            if work is not None:
                work()
            end.wait(10)

        thread = threading.Thread(target=run_, name=internals.SCRIPT_THREAD, daemon=True)
        self.threads.append((thread, end))
        thread.start()
        return end

    def end_all(self) -> None:
        for thread, end in self.threads:
            end.set()
            thread.join()


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setattr(served, "POLL", 0.01)
    monkeypatch.setattr(served, "QUIET", 0.2)
    runs = Runs()
    yield runs
    runs.end_all()


def server_with(quiet_moment, steps) -> None:
    """A server's lifespan around `steps` (an async function), with `quiet_moment` for its first quiet moment."""

    async def serve():
        async with served.starting((), quiet=quiet_moment)(None):
            assert not served.settled()
            await steps()

    run(serve())
    assert served.settled()  # and after the server, nothing is waited for


async def until(condition, seconds: float = 10.0) -> None:
    """Wait on the event loop until `condition()` holds (a loaded machine may take a while), at most `seconds`."""
    deadline = time.perf_counter() + seconds
    while not condition() and time.perf_counter() < deadline:
        await asyncio.sleep(0.01)


def test_the_first_quiet_moment_comes_after_a_run_and_not_while_one_is_under_way(quick):
    """Not before any page has run (a first page may be on its way); not during a run; once no run has been under
    way for QUIET seconds after one."""
    done = []

    async def steps():
        await asyncio.sleep(0.4)  # no run yet: a server nobody has opened
        assert done == []
        end = quick.start()  # a session's run
        await asyncio.sleep(0.4)
        assert done == []
        ended = time.perf_counter()
        end.set()
        await until(lambda: done)
        assert len(done) == 1 and done[0] - ended >= served.QUIET

    server_with(lambda: done.append(time.perf_counter()), steps)


def test_a_run_that_needs_it_asks_for_it_and_waits_while_other_runs_end(quick):
    """A run that needs what the quiet moment does (a table needs pandas) asks for it: it comes once the runs
    under way have ended (not the ones waiting for it), and no run runs beside it."""
    done, seen, waited = [], [], []

    def quiet_moment():
        seen.append(internals.runs_in_progress(served._waiters()))
        done.append(time.perf_counter())

    async def steps():
        end_other = quick.start()  # another session's run, under way
        quick.start(lambda: (served.started(timeout=10), waited.append(time.perf_counter())))  # a table's run
        await asyncio.sleep(0.3)
        assert done == [] and waited == []  # the other run is still under way
        ended = time.perf_counter()
        end_other.set()
        await until(lambda: waited)
        assert len(done) == 1 and ended <= done[0] <= waited[0]  # after the other run, before the waiting one goes on

    server_with(quiet_moment, steps)
    assert seen == [False]  # nothing ran beside it but the run that waited for it


def test_without_a_server_nothing_is_left_for_later():
    served.started(timeout=0)
    assert served.settled()


def test_the_modules_app_py_has_the_server_import_exist():
    import ast
    import importlib.util

    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    named = next(
        n.value for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "PAGE_MODULES"
    )
    modules = ast.literal_eval(named)
    assert "pandas" not in modules and len(modules) >= 10  # left for the server's first quiet moment
    assert all(importlib.util.find_spec(m) is not None for m in modules)
