"""Exact chances of what users send, worked out off the path of everyone else's requests.

One server process answers every request, each in a thread of its own, and Python runs one
thread at a time: a thread working out the odds of a large opposed roll holds the interpreter
for a quarter of a second at a time, and a light page waits behind it. So the chance of a spec
that a user chose (the calculator, the chance API, the free dice box) is computed by
:func:`compute` in a small pool of worker *processes* (:data:`settings.CHANCE_WORKERS`; 0
computes in the calling thread, as the tests do), which run beside the server's own process
rather than in it: the request's thread only waits, and waiting holds nothing.

At most :data:`settings.CHANCE_SLOTS` computations are under way or queued at once; a request
that finds every slot taken waits :data:`settings.CHANCE_WAIT` seconds for one, then gets
:class:`Busy` (a 503 with ``Retry-After``) rather than pile up behind the others.

What was asked before is answered from an in-process LRU cache of :data:`CACHE_SIZE` results,
keyed by the function and its arguments (an engine's normalized spec: parsed dice, a canonical
JSON text), without a slot: only the engine's pure functions come here, so a result never goes
stale. The engine keeps caches of its own in each worker, which a repeated part of a new spec
reuses.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, TypeVar

from django.conf import settings

__all__ = ["CACHE_SIZE", "RESULTS", "Busy", "Results", "compute", "shut_down", "slots", "warm_up"]

T = TypeVar("T")

#: Results kept for specs asked again. The largest is an opposed roll's damage chart, a few hundred
#: fractions (about 100 KB): 256 of them stay within a few tens of megabytes.
CACHE_SIZE: Final = 256

#: What a refused request is told to wait, in seconds, before it asks again.
RETRY_AFTER: Final = 2


class Busy(Exception):
    """Every slot for exact-chance work is taken: the request may try again after ``retry_after`` s."""

    def __init__(self, retry_after: int = RETRY_AFTER, *, doing: str = "working out other odds") -> None:
        super().__init__(f"The server is busy {doing}; try again in {retry_after} s.")
        self.message = str(self)
        self.retry_after = retry_after


class Results:
    """A bounded least-recently-used map, safe to share between the server's threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[Hashable, Any] = OrderedDict()
        self.lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: Hashable) -> tuple[bool, Any]:
        with self.lock:
            if key in self.items:
                self.items.move_to_end(key)
                self.hits += 1
                return True, self.items[key]
            self.misses += 1
            return False, None

    def put(self, key: Hashable, value: Any) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.hits = self.misses = 0


RESULTS: Final = Results(CACHE_SIZE)

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_slots: threading.BoundedSemaphore | None = None
_slot_count = 0


#: How often, in seconds, a worker looks whether the server that started it is still there.
PARENT_CHECK: Final = 1.0


def _watch_parent(parent: int) -> None:
    """In each worker: exit as soon as the server process is gone, however it went (a kill leaves no
    one to stop the workers), rather than linger as an orphan."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK)
        os._exit(0)

    threading.Thread(target=watch, name="watch-server", daemon=True).start()


def _executor() -> ProcessPoolExecutor:
    """The worker processes, started on first use. "spawn": a fresh interpreter that imports the
    engine alone, never a copy of a server process in the middle of its threads' work."""
    global _pool
    with _lock:
        if _pool is None:
            context = multiprocessing.get_context("spawn")
            _pool = ProcessPoolExecutor(
                max_workers=settings.CHANCE_WORKERS,
                mp_context=context,
                initializer=_watch_parent,
                initargs=(os.getpid(),),
            )
            atexit.register(shut_down)
        return _pool


def _ready() -> bool:
    return True


def warm_up() -> None:
    """Start the worker processes now, in the background, so the first request does not wait for an
    interpreter to start (the server calls this as it starts; nothing waits for it)."""
    if settings.CHANCE_WORKERS:
        _executor().submit(_ready)


def slots() -> threading.BoundedSemaphore:
    """The slots for computations under way or queued, :data:`settings.CHANCE_SLOTS` of them."""
    global _slots, _slot_count
    with _lock:
        if _slots is None or _slot_count != settings.CHANCE_SLOTS:
            _slots, _slot_count = threading.BoundedSemaphore(settings.CHANCE_SLOTS), settings.CHANCE_SLOTS
        return _slots


def shut_down() -> None:
    """Stop the worker processes (the next :func:`compute` starts them again)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


def compute(function: Callable[..., T], *args: Hashable, key: Hashable = None) -> T:
    """``function(*args)``: from the cache, or in a worker process once a slot is free.

    ``function`` is an engine function (importable without Django, as a worker imports it) and
    ``args`` are hashable, picklable values; ``key`` replaces ``args`` as the cache's key where they
    are not hashable (a spec as a dict: give its canonical JSON). Raises :class:`Busy` when no slot
    frees up within :data:`settings.CHANCE_WAIT` seconds; whatever ``function`` raises is raised here.
    """
    cache_key = (function.__module__, function.__qualname__, args if key is None else key)
    found, value = RESULTS.get(cache_key)
    if found:
        return value  # type: ignore[no-any-return]
    free = slots()
    if not free.acquire(timeout=settings.CHANCE_WAIT):
        raise Busy()
    try:
        value = _run(function, args)
    finally:
        free.release()
    RESULTS.put(cache_key, value)
    return value


def _run(function: Callable[..., T], args: tuple[Any, ...]) -> T:
    if settings.CHANCE_WORKERS == 0:
        return function(*args)
    try:
        return _executor().submit(function, *args).result()
    except BrokenProcessPool:  # a worker died (killed, out of memory): start afresh for the next request
        shut_down()
        raise Busy() from None
