"""The server processes the benches measure: uvicorn started as ``make run`` starts it (or on another
command line), on a free port, waited for until ``/healthz`` answers, and stopped at the end.

The command is read from the Makefile's ``run`` target at run time (:func:`run_command`), so an option
added there (a faster parser or loop, the sockets' compression) is what the benches measure.
"""

from __future__ import annotations

import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent
MAKEFILE: Final = ROOT / "Makefile"
#: Seconds for a server to answer once started, and to exit once asked to (SIGTERM) before it is killed.
START_WAIT: Final = 60.0
STOP_WAIT: Final = 10.0
#: What a server's log must not hold after a clean shutdown.
UNCLEAN: Final = ("Exception in ASGI application", "Traceback")


class BenchError(Exception):
    """The benchmark cannot give a figure: a server did not start, a socket did not open."""


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]
    log: Path
    #: Seconds from SIGTERM to the process's exit; None while running, or when it had to be killed.
    stopped_in: float | None = None

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://", 1)

    def unclean_lines(self) -> list[str]:
        return [line for line in self.log.read_text(errors="replace").splitlines() if any(u in line for u in UNCLEAN)]

    @property
    def finished(self) -> bool:
        return "Finished server process" in self.log.read_text(errors="replace")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def plain_command(port: int) -> list[str]:
    """uvicorn with its defaults, on ``port``."""
    return [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port)]


def run_command(port: int, makefile: Path = MAKEFILE) -> list[str]:
    """The command of the Makefile's ``run`` target that starts uvicorn, with this Python and ``port``:
    so that an option added there (a faster parser or loop) is what the bench measures. The target may
    be named on several lines (its variables, ``run: export NAME = value``, and its rule): the recipe
    follows the rule's line."""
    lines = makefile.read_text().splitlines()
    rules = [i for i, line in enumerate(lines) if re.match(r"^run\s*:", line) and not TARGET_VARIABLE.match(line)]
    if not rules:
        raise BenchError(f"{makefile} has no run target")
    for line in lines[rules[-1] + 1 :]:
        if not line.startswith("\t"):
            break
        if " uvicorn " in f" {line} " or "-m uvicorn" in line:
            command = line.strip().lstrip("@-")
            command = command.replace("$(PY)", sys.executable).replace("$(PORT)", str(port))
            if "$(" in command:
                raise BenchError(f"the run target's command has a variable the bench does not know: {command}")
            words = shlex.split(command)
            if "--host" not in words:
                words += ["--host", "127.0.0.1"]
            return words
    raise BenchError(f"the run target of {makefile} starts no uvicorn")


#: A target-specific variable of the Makefile: ``run: export NAME = value`` (or ``:=``, without ``export``).
TARGET_VARIABLE: Final = re.compile(r"^run\s*:\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*:?=\s*(.*?)\s*$")


def run_exports(makefile: Path = MAKEFILE) -> dict[str, str]:
    """The environment the Makefile's ``run`` target sets for its server, whose values are plain (such as
    ``STATIC_HASHED = true``); one made of other Make variables (``STATIC_ROOT``) is the bench's to give."""
    found = (TARGET_VARIABLE.match(line) for line in makefile.read_text().splitlines())
    return {m[1]: m[2] for m in found if m is not None and "$(" not in m[2]}


def wait_until_up(server: Server) -> None:
    deadline = time.monotonic() + START_WAIT
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise BenchError(f"the server at {server.url} exited: {server.log.read_text(errors='replace')[-2000:]}")
        try:
            with urllib.request.urlopen(f"{server.url}/healthz", timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise BenchError(f"the server at {server.url} did not start within {START_WAIT:g} s")


@contextmanager
def server(
    environment: dict[str, str], log: Path, command_for: Callable[[int], list[str]] = plain_command
) -> Iterator[Server]:
    """One server process on a free port (``command_for(port)``: its command line), its output in ``log``,
    once it answers; at the end, if still running, asked to stop and killed after :data:`STOP_WAIT`."""
    port = free_port()
    with log.open("w") as out:
        process = subprocess.Popen(command_for(port), cwd=ROOT, env=environment, stdout=out, stderr=subprocess.STDOUT)
    running = Server(f"http://127.0.0.1:{port}", process, log)
    try:
        wait_until_up(running)
        yield running
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(STOP_WAIT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
