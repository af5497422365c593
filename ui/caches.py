"""Caches bounded by bytes, not by entries: what the server keeps for its sessions (traces, figures, the pages'
other results) stays within a budget of memory whatever those sessions type or paste.

Each cache (`Bounded`) keeps the most recently used entries that fit in its budget, each entry measured in bytes
when it is kept (`nbytes`: its numpy arrays, its text; a figure also by the JSON it is sent as), and is shared by
every session of the server. `held` says what each one holds, for the tests and the benchmarks. The budgets
(ui/session/engine.py, ui/kit/chart.py) add up, with the server's own memory, to less than a small server's 600 MB.

Memory a run frees does not always go back to the system: glibc keeps freed blocks in its arenas, and a figure
dropped from a cache is freed only by Python's cycle collector where it holds cycles (a chapter's plotly Figure,
whose objects point back to it), which the server no longer runs after every run. `release`, after each run,
collects and hands the memory back once the process has grown by RELEASE_AFTER since it last did.

A collection walks every object the process holds, and most of them live as long as it does: the modules
imported (plotly's classes, Streamlit, the languages' data), some 140,000 objects once a page has run; a
collection took 90 ms, after every long paste. After the first page's run (a server: at its first quiet moment),
those are frozen (`gc.freeze`: left out of every collection, the collector's own ones too), and a collection walks
what came after them: 6 ms.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import dataclasses
import functools
import gc
import inspect
import os
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

import attention

MB = 2**20
RELEASE_AFTER = 32 * MB  # growth of the process since memory was last handed back that has it handed back again


class Bounded:
    """The most recently used entries that fit in `budget` bytes, shared by every session.

    size: an entry's bytes (by default `nbytes`). grows: for a value that grows after it is kept (a trace stacks
    its layers' weights the first time they are asked for), what tells that it did: the entry is measured again
    when it is read and that has changed. The newest entry is kept even where it alone is over the
    budget, since the page that asked for it is using it: a cache holds at most its budget or its largest entry.
    Before an entry is made, the oldest make room for one as large as the last one made, so that a paste that
    follows a paste does not hold two 256-token traces at once. Two sessions asking for the same missing entry
    make it once: the second waits for the first."""

    def __init__(
        self,
        name: str,
        budget: int,
        size: Callable[[Any], int] | None = None,
        grows: Callable[[Any], Hashable] | None = None,
    ):
        self.name, self.budget, self.size, self.grows = name, budget, size or nbytes, grows
        # oldest first: (value, its bytes, what `grows` said when it was measured)
        self._items: OrderedDict[Hashable, tuple[Any, int, Hashable]] = OrderedDict()
        self.used = 0
        self.last = 0  # the bytes of the entry made last
        self._lock = threading.Lock()
        self._making: dict[Hashable, threading.Lock] = {}

    def get(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """The value kept under `key`, else `make()`, kept (outside the lock: other keys need not wait for it)."""
        found, value = self._read(key)
        if found:
            return value
        with self._lock:
            making = self._making.setdefault(key, threading.Lock())
        try:
            with making:
                found, value = self._read(key)
                if not found:
                    self._make_room(self.last)
                    value = make()
                    self._keep(key, value)
                return value
        finally:
            with self._lock:
                if self._making.get(key) is making:
                    del self._making[key]

    def _read(self, key: Hashable) -> tuple[bool, Any]:
        with self._lock:
            kept = self._items.get(key)
            if kept is None:
                return False, None
            self._items.move_to_end(key)
        if self.grows is not None and self.grows(kept[0]) != kept[2]:
            self._keep(key, kept[0], again=True)
        return True, kept[0]

    def _make_room(self, size: int) -> None:
        with self._lock:
            while self._items and self.used + size > self.budget:
                _, (_, dropped, _) = self._items.popitem(last=False)
                self.used -= dropped

    def _keep(self, key: Hashable, value: Any, again: bool = False) -> None:
        """Keep the value, measured, and drop the oldest entries past the budget. again: measured again, if it is
        still kept."""
        size, grown = self.size(value), None if self.grows is None else self.grows(value)
        with self._lock:
            if again and key not in self._items:
                return
            old = self._items.pop(key, None)
            self.used += size - (old[1] if old else 0)
            self.last = size
            self._items[key] = (value, size, grown)
            while self.used > self.budget and len(self._items) > 1:
                _, (_, dropped, _) = self._items.popitem(last=False)
                self.used -= dropped

    def drop(self, unwanted: Callable[[Hashable], bool]) -> None:
        """Let go of every entry whose key is unwanted (a model's, once that model is no longer loaded)."""
        with self._lock:
            for key in [k for k in self._items if unwanted(k)]:
                self.used -= self._items.pop(key)[1]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self.used = 0

    def entries(self) -> list[tuple[Hashable, int]]:
        """(key, bytes) of every entry, oldest first."""
        with self._lock:
            return [(key, size) for key, (_, size, _) in self._items.items()]


_CACHES: dict[str, Bounded] = {}  # the server's caches, by name: one process, every session


def bounded(
    name: str, budget: int, size: Callable[[Any], int] | None = None, grows: Callable[[Any], Hashable] | None = None
) -> Bounded:
    """The server's cache of that name, made on first use (a module reloaded while the server runs finds its own
    again)."""
    cache = _CACHES.get(name)
    if cache is None:
        cache = _CACHES.setdefault(name, Bounded(name, budget, size, grows))
    cache.budget = budget
    return cache


def kept(cache: Bounded) -> Callable[[Callable], Callable]:
    """A function whose results are kept in `cache`, keyed by its name and its arguments (plain values), defaults
    filled in: f(x) and f(x, default) are one entry."""

    def wrap(fn: Callable) -> Callable:
        signature = inspect.signature(fn)

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            return cache.get((fn.__name__, *bound.arguments.values()), lambda: fn(*args, **kwargs))

        return call

    return wrap


@dataclasses.dataclass(frozen=True)
class Held:
    """What one cache holds."""

    entries: int
    bytes: int
    budget: int


def held() -> dict[str, Held]:
    """Every cache of the server: its entries and their bytes, against its budget."""
    return {name: Held(len(c.entries()), c.used, c.budget) for name, c in _CACHES.items()}


# --- sizes --------------------------------------------------------------------------------------------------


def nbytes(value: Any) -> int:
    """The bytes a cached value holds of its own: its numpy arrays (each counted once, however often it is
    pointed to), its text and numbers, and what its dataclasses, tuples, lists and dicts hold. An object that says
    its own size (a trace's `nbytes` leaves out the model's weights it points to) is taken at its word; a model,
    and any object that is not data (a tokenizer), is the server's, not the value's, and counts nothing."""
    return _nbytes(value, set())


def _nbytes(value: Any, seen: set[int]) -> int:
    if id(value) in seen or value is None or isinstance(value, attention.Model):
        return 0
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (str, bytes, int, float, complex, bool, np.generic)):
        return sys.getsizeof(value)
    if isinstance(value, dict):
        return sys.getsizeof(value) + sum(_nbytes(k, seen) + _nbytes(v, seen) for k, v in value.items())
    if isinstance(value, (tuple, list, set, frozenset)):
        return sys.getsizeof(value) + sum(_nbytes(v, seen) for v in value)
    own = getattr(type(value), "nbytes", None)
    if isinstance(own, property):
        return int(value.nbytes)
    if dataclasses.is_dataclass(value):
        return sys.getsizeof(value) + sum(_nbytes(getattr(value, f.name), seen) for f in dataclasses.fields(value))
    return 0


# --- memory handed back -----------------------------------------------------------------------------------------


def resident() -> int | None:
    """The process's resident memory in bytes (Linux's /proc), None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@functools.cache
def _libc() -> Any:
    """glibc, whose malloc_trim hands freed memory back to the system; None elsewhere (musl, macOS)."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    return None


_released = {"at": 0, "frozen": False}  # the resident bytes after memory was last handed back; frozen yet
_releasing = threading.Lock()


def release(force: bool = False, freezing: bool = True) -> bool:
    """Hand freed memory back to the system, once the process has grown by RELEASE_AFTER since it last did (or
    when forced): collect garbage cycles, then malloc_trim. A run that drew a short sentence grows the process by
    a few hundred kB, so this costs it nothing; it runs after a long paste. True if it did.

    freezing: what the process holds after its first run (its modules, a model) frozen then, once (see above). A
    server freezes it at its first quiet moment instead (app.py), off the first page's way."""
    if freezing and not _released["frozen"]:
        freeze()
    now = resident()
    if now is None or (not force and now < _released["at"] + RELEASE_AFTER):
        return False
    if not _releasing.acquire(blocking=False):  # another session's run is at it
        return False
    try:
        gc.collect()
        libc = _libc()
        if libc is not None:
            libc.malloc_trim(0)
        _released["at"] = resident() or now
        return True
    finally:
        _releasing.release()


def freeze() -> None:
    """Leave what the process holds now out of every garbage collection from here on (once): collected first, so that
    no garbage is kept for good. What is frozen is still freed when nothing refers to it any more (a cache's
    entry it dropped that holds no cycle: a trace, an explorer's figure); a cycle frozen is kept: only the first
    run's own, a page's worth."""
    with _releasing:
        if _released["frozen"]:
            return
        gc.collect()
        gc.freeze()
        _released["frozen"] = True
