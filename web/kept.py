"""What a server process keeps of what it drew or read, by a key that names everything it depends on:
the table's fragments (``play.templatetags.kept``), the sheets read and the sheet pages' regions
(``characters.sheets``). Each :class:`Kept` holds a bounded number, the least recently used dropped first;
:func:`forget_all` empties every one of the process, for a measure of what a first view costs."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

V = TypeVar("V")

#: Every :class:`Kept` of the process, for :func:`forget_all`.
_every: weakref.WeakSet[Kept[Any]] = weakref.WeakSet()


class Kept(Generic[V]):
    """Values by key, the least recently used dropped first beyond ``limit`` of them."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._values: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()
        _every.add(self)

    def get(self, key: Hashable | None, make: Callable[[], V]) -> V:
        """The value kept for ``key``, or ``make()`` kept under it; ``key`` None: made and not kept. Two
        threads may make the same value at once: both are the same, and the last one made is kept."""
        if key is None:
            return make()
        kept = self.peek(key)
        if kept is not None:
            return kept
        made = make()
        self.put(key, made)
        return made

    def peek(self, key: Hashable) -> V | None:
        """The value kept for ``key``, or None (nothing is made)."""
        with self._lock:
            kept = self._values.get(key)
            if kept is not None:
                self._values.move_to_end(key)
            return kept

    def put(self, key: Hashable, value: V) -> None:
        """``value`` kept for ``key``, in the place of the one kept before, if any."""
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > self.limit:
                self._values.popitem(last=False)

    def forget(self, key: Hashable) -> None:
        """No value kept for ``key`` any more."""
        with self._lock:
            self._values.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._values.clear()

    def __len__(self) -> int:
        return len(self._values)


def forget_all() -> None:
    """Keep nothing: the next page of every kind draws and reads everything afresh, as a process just started."""
    for kept in list(_every):
        kept.clear()
