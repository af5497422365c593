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

import importlib
import logging
import threading
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


# Set while no import of the page's modules is under way: the page's run waits for it (warmed)
_imported = threading.Event()
_imported.set()


def importing(modules: tuple[str, ...]):
    """The server's lifespan: `modules` imported in a thread of their own as it starts, while it answers the first
    browser's requests (its page, Streamlit's files), rather than before it answers at all or in the first page's run.
    Until they are, a page's run waits for them (warmed): two threads importing the same modules could each meet
    the other's half-made module (pandas half imported made plotly fail)."""

    @asynccontextmanager
    async def lifespan(_app):
        _imported.clear()
        threading.Thread(target=_import, args=(modules,), name="page modules", daemon=True).start()
        yield None

    return lifespan


def _import(modules: tuple[str, ...]) -> None:
    try:
        for name in modules:
            importlib.import_module(name)
    except Exception:  # the page's own import of it says what went wrong, on the page
        logging.getLogger(__name__).exception("importing the page's modules")
    finally:
        _imported.set()


def warmed(timeout: float = 120.0) -> None:
    """Once the page's modules are imported (at once where no server imports them: AppTest, a script)."""
    _imported.wait(timeout)


def middleware() -> list:
    """The middleware app.py's st.App puts in front of Streamlit's own."""
    from starlette.middleware import Middleware

    return [Middleware(KeptFiles)]
