"""``python -m bench.load`` (and ``python -m bench``, ``make bench``): a light page stays fast however
much exact-chance work others ask for.

One ``uvicorn config.asgi:application`` process serves a throwaway database (as :mod:`bench.pages`
makes one), as ``make run`` starts it. A player's campaign page (a plain page) and a character sheet
are requested one after another, :data:`REQUESTS` times each, first with the server idle, then while
:data:`CLIENTS` clients hammer the most expensive requests anyone may send, each a different spec
from the last so that no cache spares the work: the public calculator's opposed roll with the
largest dice (anonymous), the chance API's opposed roll with the largest pools (signed in, a
token), and the free dice box with expressions near the engine's budget (signed in, a session).

Target: each page's 95th percentile under load is at most :data:`RATIO_BOUND` times its idle one.
Shown, not judged: the medians, and the heavy requests answered by status (200, or 503 when every
slot for exact-chance work was taken: ``web/heavy.py``) with their median time. The rate limits of
the API and the pages are lifted for the run: it measures the work, not the limits.

Exit status: 0 when the target is met, 1 when missed, 2 when the figures cannot be had (a server that
does not start, a light page that does not answer 200, data that cannot be built). ``--quick`` is a
smoke run: few requests and two clients, the ratio shown and not judged.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, TextIO
from urllib.parse import urlencode, urlsplit

from bench.pages import EXIT_BROKEN, EXIT_MISSED, progress, throwaway_database
from bench.servers import ROOT, BenchError, server
from bench.sockets import database_url
from web import limits

#: Heavy clients, and light requests per page and phase; and those of ``--quick``.
CLIENTS: Final = 8
REQUESTS: Final = 60
QUICK_CLIENTS: Final = 2
QUICK_REQUESTS: Final = 3
#: The 95th percentile of a light page under load, at most this many times its idle one.
RATIO_BOUND: Final = 3.0
#: Every rate limit, lifted for the run: the bench measures the work, not the limits.
UNLIMITED: Final = 10**9
#: Seconds the heavy clients run before the light pages are measured: the pool is full by then.
RAMP: Final = 1.0
#: Seconds a request may take before the run is broken.
TIMEOUT: Final = 60.0

#: The calculator's largest dice (d12+d12+d4 is the ladder's top) and the ways to roll them.
LADDER: Final = ("d10", "d12", "d12+d4", "d12+d6", "d12+d8", "d12+d10", "d12+d12", "d12+d12+d4")
ROLLS: Final = ("normal", "background", "impairment")


@dataclass(frozen=True, slots=True)
class Site:
    """What the clients need: the server, the light pages, a player's session and API token."""

    host: str
    port: int
    plain: str
    sheet: str
    dice_box: str
    session: str
    token: str


@dataclass
class Heavy:
    """The heavy requests answered, by status, and their times."""

    statuses: Counter[int] = field(default_factory=Counter)
    seconds: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, status: int, seconds: float) -> None:
        with self.lock:
            self.statuses[status] += 1
            self.seconds.append(seconds)


@dataclass(frozen=True, slots=True)
class Row:
    page: str
    idle: tuple[float, ...]
    loaded: tuple[float, ...]

    @property
    def ratio(self) -> float:
        return nearest_rank(sorted(self.loaded), 0.95) / nearest_rank(sorted(self.idle), 0.95)


# --- The data and the server ---------------------------------------------------------------------------


def build() -> tuple[str, str, str, str, str]:
    """A campaign with a player's character; the player's session and API token. Returns the plain
    page, the sheet and the dice box's paths, the session and the token."""
    from django.test import Client
    from django.urls import reverse

    from api import tokens
    from bench import page_data

    people = page_data.cast("load")
    where = page_data.campaign(people, "Load")
    hero = page_data.character(where, people.player, "Brunella")
    client = Client()
    client.force_login(people.player)
    _, token = tokens.create_token(user=people.player, name="load bench")
    return (
        reverse("campaigns:detail", args=[where.pk]),
        reverse("characters:sheet", args=[hero.pk]),
        reverse("play:free-roll", args=[where.pk]),
        client.cookies["sessionid"].value,
        token,
    )


# --- Requests --------------------------------------------------------------------------------------------

#: A CSRF secret of the bench's own, sent as the cookie and the header (Django accepts it unmasked).
CSRF: Final = "loadbenchloadbenchloadbenchload0"


def request(
    site: Site, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> int:
    connection = http.client.HTTPConnection(site.host, site.port, timeout=TIMEOUT)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def signed_in(site: Site) -> dict[str, str]:
    return {"Cookie": f"sessionid={site.session}; csrftoken={CSRF}"}


def light(site: Site, path: str) -> float:
    start = time.perf_counter()
    status = request(site, "GET", path, headers=signed_in(site))
    took = time.perf_counter() - start
    if status != 200:
        raise BenchError(f"{path} answered {status}, not 200")
    return took


def opposed_side(rng: random.Random) -> list[str]:
    return [rng.choice(LADDER[3:]) for _ in range(3)]


def calculator_query(rng: random.Random) -> str:
    attacker, defender = opposed_side(rng), opposed_side(rng)
    query = {
        "attacker_ability": attacker[0], "attacker_skill": attacker[1], "attacker_accuracy": attacker[2],
        "defender_ability": defender[0], "defender_skill": defender[1], "defender_armor": defender[2],
        "weapon_damage": rng.choice(LADDER), "attacker_roll": rng.choice(ROLLS), "defender_roll": rng.choice(ROLLS),
        "explosion": "cinematic",
    }  # fmt: skip
    return urlencode(query)


def api_spec(rng: random.Random) -> dict[str, object]:
    """An opposed roll of 12 dice a side, the most a spec may roll: four stepped dice of three."""
    return {
        "system": "lucky13", "roll": "opposed", "explosion": "cinematic",
        "attacker": [rng.choice(("d12+d12+d4", "d12+d12+d6", "d12+d12+d8")) for _ in range(4)],
        "defender": [rng.choice(("d12+d12+d4", "d12+d12+d6", "d12+d12+d8")) for _ in range(4)],
        "weapon_die": rng.choice(LADDER), "attacker_roll": rng.choice(ROLLS), "defender_roll": rng.choice(ROLLS),
    }  # fmt: skip


def expression(rng: random.Random) -> str:
    """A free expression near the engine's budget for exact work (rules/expressions.py)."""
    return rng.choice(
        (
            f"20d10kh{rng.randint(1, 9)}+3d500+5d10kh3+20d10kh5",
            f"2d200kh1+30d10+{rng.randint(1, 99)}",
            f"5d10+5d1000+1d10+1d2+{rng.randint(1, 99)}",
            f"3d500+8d500+1d2+{rng.randint(1, 99)}",
            f"1d100+12d6+3d500+20d20+1d20kh1+8d100-{rng.randint(1, 99)}",
        )
    )


def hammer(site: Site, which: int, stop: threading.Event, heavy: Heavy) -> None:
    """One heavy client: the calculator, the chance API or the dice box by turns, a new spec each time."""
    from django.urls import reverse

    calculator = reverse("lucky13:opposed")
    rng = random.Random(which)
    turn = which
    while not stop.is_set():
        kind = turn % 3
        turn += 1
        start = time.perf_counter()
        if kind == 0:
            status = request(site, "GET", f"{calculator}?{calculator_query(rng)}")
        elif kind == 1:
            body = json.dumps(api_spec(rng)).encode()
            headers = {"Authorization": f"Bearer {site.token}", "Content-Type": "application/json"}
            status = request(site, "POST", "/api/v1/chance", body, headers)
        else:
            body = urlencode({"expression": expression(rng)}).encode()
            headers = {**signed_in(site), "X-CSRFToken": CSRF, "Content-Type": "application/x-www-form-urlencoded"}
            headers["HX-Request"] = "true"
            status = request(site, "POST", site.dice_box, body, headers)
        heavy.add(status, time.perf_counter() - start)


def measure(site: Site, *, clients: int, requests: int) -> tuple[list[Row], Heavy]:
    """Each light page ``requests`` times idle, then as many under load; the heavy clients' answers."""
    pages = (("plain page (campaign)", site.plain), ("character sheet", site.sheet))
    for _, path in pages:  # warm-up: templates compiled, connections opened
        light(site, path)
    idle = {name: tuple(light(site, path) for _ in range(requests)) for name, path in pages}
    stop, heavy = threading.Event(), Heavy()
    workers = [threading.Thread(target=hammer, args=(site, n, stop, heavy), daemon=True) for n in range(clients)]
    for worker in workers:
        worker.start()
    try:
        time.sleep(RAMP)
        loaded = {name: tuple(light(site, path) for _ in range(requests)) for name, path in pages}
    finally:
        stop.set()
        for worker in workers:
            worker.join(TIMEOUT)
    return [Row(name, idle[name], loaded[name]) for name, _ in pages], heavy


# --- Report ----------------------------------------------------------------------------------------------


def nearest_rank(ordered: Sequence[float], share: float) -> float:
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3g} ms"


def report(rows: list[Row], heavy: Heavy, *, clients: int, requests: int, judged: bool, out: TextIO) -> bool:
    """Print the figures; True when every judged target is met."""
    table = [("", "idle: median", "p95", "under load: median", "p95", "p95 ratio", "target", "result")]
    met = True
    for row in rows:
        ok = row.ratio <= RATIO_BOUND
        met = met and ok
        table.append(
            (
                row.page,
                ms(statistics.median(row.idle)),
                ms(nearest_rank(sorted(row.idle), 0.95)),
                ms(statistics.median(row.loaded)),
                ms(nearest_rank(sorted(row.loaded), 0.95)),
                f"{row.ratio:.2f}×",
                f"≤ {RATIO_BOUND:g}×",
                ("PASS" if ok else "FAIL") if judged else "-",
            )
        )
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    print(file=out)
    print(
        f"Load: {requests} requests of each light page, idle and while {clients} clients ask for the most "
        "expensive exact chances allowed (calculator, chance API, dice box), on one server process.",
        file=out,
    )
    for line in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip(), file=out)
    answered = ", ".join(f"{count} × {status}" for status, count in sorted(heavy.statuses.items()))
    median = ms(statistics.median(heavy.seconds)) if heavy.seconds else "-"
    print(f"heavy requests answered: {answered or 'none'}; median {median}", file=out)
    if not judged:
        print("--quick: few requests and clients; the ratio is shown, not judged.", file=out)
    return met or not judged


# --- The command -----------------------------------------------------------------------------------------


def run(*, clients: int, requests: int, quick: bool, out: TextIO | None = None) -> int:
    """Build, serve, measure and report; the exit status."""
    try:
        with throwaway_database() as vendor, tempfile.TemporaryDirectory(prefix="dicehall-bench-load-") as logs:
            progress(f"load: a throwaway {vendor} database, one server, {clients} heavy clients")
            plain, sheet, dice_box, session, token = build()
            # The limits are lifted for the run: it measures the work, not the limits (a big number, not
            # a switch, so a limit added later is lifted the same way where it reads its own setting).
            lifted = ",".join(f"{limit.name}={UNLIMITED}/{UNLIMITED}" for limit in limits.ALL)
            environment = {
                **os.environ,
                "DATABASE_URL": database_url(),
                "API_RATE_LIMIT": str(UNLIMITED),
                "RATE_LIMITS": lifted,
            }
            with server(environment, Path(logs) / "server.log") as running:
                address = urlsplit(running.url)
                site = Site(address.hostname or "", address.port or 80, plain, sheet, dice_box, session, token)
                rows, heavy = measure(site, clients=clients, requests=requests)
                log = running.log.read_text(errors="replace").splitlines()
                # A heavy request that failed (its status is in the table): what the server said, for the reader.
                for line in [n for n, text in enumerate(log) if "Traceback" in text][:3]:
                    print("\n".join(log[line : line + 40]), file=sys.stderr)
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BROKEN
    except Exception:  # the data could not be built, a request failed: no figure, and not a missed target
        traceback.print_exc()
        return EXIT_BROKEN
    judged = not quick
    ok = report(rows, heavy, clients=clients, requests=requests, judged=judged, out=out or sys.stdout)
    return 0 if ok else EXIT_MISSED


def load_main(*, quick: bool, clients: int | None = None, requests: int | None = None) -> int:
    """The load part of ``python -m bench``: its exit status. It runs in a Python process of its own, as
    the sockets part does, so its server's settings are its own."""
    options = ["--quick"] if quick else []
    for name, value in (("clients", clients), ("requests", requests)):
        if value is not None:
            options += [f"--{name}", str(value)]
    return in_own_process("bench.load", options)


def in_own_process(module: str, options: list[str]) -> int:
    """``python -m <module> <options>``, a part of ``python -m bench`` in a Python process of its own: its exit
    status, where anything but one of the bench's (a crash, a signal) is a broken part."""
    status = subprocess.run([sys.executable, "-m", module, *options], cwd=ROOT, check=False).returncode
    return status if status in (0, EXIT_MISSED, EXIT_BROKEN) else EXIT_BROKEN


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: few requests and clients, not judged")
    parser.add_argument(
        "--clients", type=int, metavar="N", help=f"heavy clients (default {CLIENTS}; --quick {QUICK_CLIENTS})"
    )
    parser.add_argument(
        "--requests", type=int, metavar="N", help=f"requests of each light page a phase (default {REQUESTS})"
    )
    args = parser.parse_args(argv)
    for name in ("clients", "requests"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    return run(
        clients=args.clients or (QUICK_CLIENTS if args.quick else CLIENTS),
        requests=args.requests or (QUICK_REQUESTS if args.quick else REQUESTS),
        quick=args.quick,
    )


if __name__ == "__main__":
    sys.exit(main())
