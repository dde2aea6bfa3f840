"""A coroutine run at once, in the caller's turn of the event loop, as far as it goes without waiting: what
Python 3.12's eager tasks do (``asyncio.eager_task_factory``), for the Python 3.11 we run on.

A live socket's frame goes out this way (:meth:`play.consumers.GroupsConsumer.take`): the server's
``send`` of a frame almost never waits (only when the page reads more slowly than the server writes and
the socket's buffer is full), so a roll heard by 250 sockets of one process is sent to all of them by the
task that read it, with no task woken for each socket; a send that does have to wait goes on in a task of
its own, and the socket's next frame waits for it.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Coroutine
from typing import Any


def start(coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
    """Run ``coroutine`` now, up to where it first waits: None when it finished without waiting (an error it
    raised is raised here), else the task that runs the rest of it (its outcome is that task's)."""
    try:
        waiting = coroutine.send(None)
    except StopIteration:
        return None
    return asyncio.ensure_future(_rest(coroutine, waiting))


async def _rest(coroutine: Coroutine[Any, Any, None], waiting: Any) -> None:
    """The rest of a coroutine that stopped at ``waiting`` (what it yielded: the future it awaits, or None
    for a bare turn of the loop), stepped as a task steps it: once the future is done the coroutine goes on
    and reads its outcome itself (its ``await`` returns the result or raises the error). This task's
    cancellation is raised in the coroutine where it waits, as a task of its own would have it."""
    while True:
        try:
            if waiting is None:
                await asyncio.sleep(0)
            else:
                await asyncio.wait([waiting])  # (not ``await waiting``: the coroutine awaits it)
        except asyncio.CancelledError as cancelled:
            step = functools.partial(coroutine.throw, cancelled)
        else:
            step = functools.partial(coroutine.send, None)
        try:
            waiting = step()
        except StopIteration:
            return
