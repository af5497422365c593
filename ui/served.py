"""The server's door: Streamlit's own server (app.py's st.App), its files answered from memory after their first time.

A new session's first page asks the server for about 120 of Streamlit's files (its scripts, styles and fonts). Its
static handler reads each one through worker threads, 64 kB at a time, a thread hop for every step: that was half of
the server's CPU for a first page, more than the page's own run. Those files never change while the server runs
(Streamlit names them by their content's hash and marks them immutable), so the first answer to each is kept, as
Streamlit gave it (status, headers, bytes), and given again to every later request of that path in one piece.

Only what Streamlit itself marks `immutable` is kept: the page's HTML, the app's own files, the media and every other
route go to Streamlit each time. A request that asks for part of a file, or for it only if it changed, goes to
Streamlit too; so does one with a query string. Nothing is kept that depends on the request's other headers (an
answer with `Vary` or `Content-Encoding`), or that sets a cookie. What is kept is bounded by the files Streamlit
ships (26 MB in all, ~5 MB of them for a page).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import threading
from collections.abc import Callable
from contextlib import asynccontextmanager

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# request headers that ask for something else than the whole file as it is
_PARTIAL_OR_CONDITIONAL = frozenset({b"range", b"if-none-match", b"if-modified-since", b"if-range", b"if-match"})
# answer headers that make it depend on the request, or on the client
_NOT_SHARED = frozenset({b"vary", b"content-encoding", b"set-cookie"})


class KeptFiles:
    """ASGI middleware: an answer Streamlit marks immutable is kept on its first GET and given again from memory."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        # written and read on the server's event loop alone
        self.kept: dict[str, tuple[int, list[tuple[bytes, bytes]], bytes]] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not _whole_get(scope):
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        kept = self.kept.get(path)
        if kept is not None:
            status, headers, body = kept
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, self._keeping(path, send))

    def _keeping(self, path: str, send: Send) -> Send:
        """`send`, noting the answer as it goes out if it may be kept; kept once it is complete."""
        start: Message = {}
        parts: list[bytes] = []

        async def keeping(message: Message) -> None:
            if message["type"] == "http.response.start":
                if _may_keep(message):
                    start.update(message)
            elif message["type"] == "http.response.body" and start:
                parts.append(message.get("body", b""))
                if not message.get("more_body", False):
                    self.kept[path] = (start["status"], list(start.get("headers", [])), b"".join(parts))
            await send(message)

        return keeping


def _whole_get(scope: Scope) -> bool:
    """A plain GET of a whole path: no query string, no range, no condition."""
    if scope["type"] != "http" or scope["method"] != "GET" or scope.get("query_string"):
        return False
    return not any(name.lower() in _PARTIAL_OR_CONDITIONAL for name, _value in scope.get("headers", ()))


def _may_keep(start: Message) -> bool:
    """A complete 200 answer Streamlit marks immutable, and the same for any client."""
    if start.get("status") != 200:
        return False
    immutable = False
    for name, value in start.get("headers", ()):
        lowered = name.lower()
        if lowered in _NOT_SHARED:
            return False
        if lowered == b"cache-control" and b"immutable" in value.lower():
            immutable = True
    return immutable


# --- the server's start ------------------------------------------------------------------------------------------
# A cold server's first page waits for what the server does before it: so the server does, as it starts, only what
# that page needs, and leaves the rest for its first quiet moment.
POLL = 0.05  # seconds between two looks, on the event loop, for that moment
QUIET = 1.0  # seconds without a run, after the first page's runs, that make it

_imported = threading.Event()  # set while no import of the page's modules is under way: a run waits for it (warmed)
_imported.set()
_done = threading.Event()  # set while nothing is left for the first quiet moment (started)
_done.set()
_asked = threading.Event()  # a run, or a download, needs it done now
_waiting: set[int] = set()  # the runs waiting for it (their threads' idents): not runs under way
_waiting_lock = threading.Lock()


def starting(modules: tuple[str, ...], then: Callable[[], None] | None = None, quiet: Callable[[], None] | None = None):
    """The server's lifespan, in two steps.

    As it starts: `modules` imported, then `then()`, in a thread of their own while the server answers the first
    browser's requests (its page, Streamlit's files), rather than before it answers at all or in the first page's
    run. A page's run waits for the imports (warmed): two threads importing the same modules could each meet the
    other's half-made module.

    At its first quiet moment (no run under way for QUIET seconds, after the first page's), or as soon as a run asks
    for it (started), once no run is under way: `quiet()`, on the server's event loop, where runs are started, so none
    starts beside it: nothing runs beside `quiet()` but the runs that wait for it. So quiet() may import a
    module that a figure made in another thread would find half made (pandas: plotly looks it up in sys.modules)."""

    @asynccontextmanager
    async def lifespan(_app):
        _imported.clear()
        threading.Thread(target=_import, args=(modules, then), name="page modules", daemon=True).start()
        task = None
        if quiet is not None:
            _done.clear()
            task = asyncio.create_task(_at_first_quiet_moment(quiet))
        try:
            yield None
        finally:
            if task is not None:
                task.cancel()
            _done.set()

    return lifespan


def _import(modules: tuple[str, ...], then: Callable[[], None] | None) -> None:
    log = logging.getLogger(__name__)
    try:
        for name in modules:
            importlib.import_module(name)
    except Exception:  # the page's own import of it says what went wrong, on the page
        log.exception("importing the page's modules")
    finally:
        _imported.set()
    if then is not None:
        try:
            then()
        except Exception:  # the page's run does it again and says what went wrong, on the page
            log.exception("starting")


async def _at_first_quiet_moment(quiet: Callable[[], None]) -> None:
    from ui import internals

    loop = asyncio.get_running_loop()
    ran, quiet_since = False, None
    while True:
        await asyncio.sleep(POLL)
        if not _imported.is_set():
            continue
        if internals.runs_in_progress(_waiters()):
            ran, quiet_since = True, None
            continue
        quiet_since = quiet_since or loop.time()
        if not (_asked.is_set() or (ran and loop.time() - quiet_since >= QUIET)):
            continue
        # no run is under way, and none can start until quiet() returns: it runs on the event loop, which starts them
        try:
            quiet()
        except Exception:
            logging.getLogger(__name__).exception("at the server's first quiet moment")
        finally:
            _done.set()
        return


def _waiters() -> frozenset[int]:
    with _waiting_lock:
        return frozenset(_waiting)


def warmed(timeout: float = 120.0) -> None:
    """Once the page's modules are imported (at once where no server imports them: AppTest, a script)."""
    _imported.wait(timeout)


def started(timeout: float = 120.0) -> None:
    """Once the server has done what it leaves for its first quiet moment, asked for now (at once where no server
    leaves anything: AppTest, a script). For a run, or a download, that needs it: a page's table needs pandas."""
    if _done.is_set():
        return
    from ui import internals

    me = threading.get_ident() if internals.in_a_run() else None
    with _waiting_lock:
        if me is not None:
            _waiting.add(me)
    _asked.set()
    try:
        _done.wait(timeout)
    finally:
        with _waiting_lock:
            _waiting.discard(me)


def settled() -> bool:
    """Whether nothing is left for the server's first quiet moment (always, where no server leaves anything)."""
    return _done.is_set()


def middleware() -> list:
    """The middleware app.py's st.App puts in front of Streamlit's own."""
    from starlette.middleware import Middleware

    return [Middleware(KeptFiles)]
