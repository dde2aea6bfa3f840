"""``python -m bench.big [--rebuild] [--quick]``: a large installation of every rules system, on PostgreSQL,
and the empty installation it grew from, kept between runs for :mod:`bench.served`.

Two databases beside the configured one (``DATABASE_URL``): ``<name>_bench_empty`` and ``<name>_bench_big``.
Each is stamped with :data:`VERSION` and its :class:`Shape`, and is built again only when either changes or
``--rebuild`` is given (``--quick``: a tiny shape, in databases of their own, for the smoke test).

The empty installation (:func:`seed`) is what the bench measures: the demo campaign of every system
(``manage.py demo``, made through the creation steps and the operations the pages call) and, for every
system, a campaign of a GM and a party of eight, their characters' sheets those of the demo's finished
characters, a few awards through ``characters.ledger.award``, and a roll log whose first rolls are free
rolls through ``play.rolls.roll_free`` and whose others are the demo's rolls of that system (sheet rolls,
moves, cards) appended in turn, each chained and signed as :func:`play.rolls.record_roll` chains them.

The large installation is a copy of the empty one (``CREATE DATABASE … TEMPLATE``), so every page the bench
measures has the same ids in both, grown by :func:`grow` to the issue's size: :attr:`Shape.campaigns`
campaigns in all, :attr:`Shape.characters` characters, :attr:`Shape.rolls` rolls in the logs and
:attr:`Shape.ledger` ledger entries. The shapes are those of a real site: most campaigns small and a few
huge (the sizes fall as ``1 / rank``), the longest roll logs those of the measured campaigns (a deep page
there is a deep page of a huge log), and the big ledger spread over the characters of the other campaigns
(the measured characters keep their own few entries, as the issue's "300,000 ledger entries on other
characters"). Campaigns, users and characters go in with ``bulk_create``; rolls and ledger entries, the
million, by PostgreSQL's COPY (:func:`insert`: Django's INSERT of bound values costs a minute a hundred
thousand rows here), each the way the models keep it: a ledger entry carries its running balance and the
character's ``Balance`` the last; a roll its ``seq``, the previous roll's hash and its own signature
(:func:`play.chain.seal`). The measured campaigns' chains are verified whole (:func:`play.rolls.verify_chain`),
and one other campaign's of each system. On two busy cores the empty installation takes about a minute and
the large one about eleven (signing and verifying the rolls, a third of it each).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import timedelta
from itertools import islice
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from bench.pages import progress

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser
    from django.db.models import Field, Model

    from campaigns.models import Campaign
    from play.models import Roll

#: Bumped whenever what the generator writes changes: a database stamped with another is built again.
VERSION: Final = 1
#: Rows per INSERT.
BATCH: Final = 2000
#: The party of the measured campaign of each system (an award to a party of eight).
PARTY: Final = 8
#: Rolls in the log of each measured campaign of the empty installation: two pages and more of the log,
#: so that its first and a deep page are full pages in the empty installation too.
SEED_ROLLS: Final = 120
#: Ledger entries of each measured character (the first few through the award operation).
SEED_ENTRIES: Final = 30
SEED_AWARDS: Final = 3
#: Players of the site: the owners of the large installation's characters.
PLAYERS_PER_CAMPAIGN: Final = 6
#: The names of the measured campaign's GM and players (player 1 owns the first character).
GM: Final = "bench-gm"
PLAYER: Final = "bench-player-{}"
#: The table the stamp lives in, outside Django's models: a database without it is not one of ours.
STAMP: Final = "bench_stamp"


@dataclass(frozen=True, slots=True)
class Shape:
    """The size of the large installation: totals over every system, the empty installation's included."""

    campaigns: int
    characters: int
    rolls: int
    ledger: int


FULL: Final = Shape(campaigns=200, characters=10_000, rolls=1_000_000, ledger=100_000)
QUICK: Final = Shape(campaigns=12, characters=120, rolls=3_000, ledger=900)


# --- The databases ----------------------------------------------------------------------------------------


def admin_url() -> str:
    """The configured PostgreSQL server, at its ``postgres`` database (to create and drop the others)."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        raise SystemExit("bench.big needs PostgreSQL: set DATABASE_URL=postgres://…")
    return urlsplit(url)._replace(path="/postgres").geturl()


def url_of(name: str) -> str:
    return urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{name}").geturl()


def names(*, quick: bool) -> tuple[str, str]:
    """The empty and the large installation's databases: ``<name>_bench_empty`` and ``<name>_bench_big``
    (``--quick``: ``<name>_bench_quick_…_<pid>``, dropped by the caller)."""
    base = urlsplit(os.environ["DATABASE_URL"]).path.lstrip("/") or "dicehall"
    if quick:
        return f"{base}_bench_quick_empty_{os.getpid()}"[:63], f"{base}_bench_quick_big_{os.getpid()}"[:63]
    return f"{base}_bench_empty"[:63], f"{base}_bench_big"[:63]


def admin(sql: str, *params: Any) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(admin_url(), autocommit=True) as connection:
        cursor = connection.execute(sql, params or None)
        return cursor.fetchall() if cursor.description else []


def exists(name: str) -> bool:
    return bool(admin("SELECT 1 FROM pg_database WHERE datname = %s", name))


def drop(name: str) -> None:
    from psycopg import sql

    admin(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)).as_string(None))


def create(name: str, template: str | None = None) -> None:
    """A new database, empty or a copy of ``template`` (file by file: a large one is copied in seconds)."""
    from psycopg import sql

    query = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name))
    if template:
        query = sql.SQL("{} TEMPLATE {} STRATEGY FILE_COPY").format(query, sql.Identifier(template))
    admin(query.as_string(None))


@contextmanager
def copies(*kept: str) -> Iterator[list[str]]:
    """A copy of each database for one run (``<name>_run``), dropped at the end: what a run writes (the rolls
    it posts, its awards and moves) never reaches the installations kept between runs."""
    made = [f"{name[:59]}_run" for name in kept]
    try:
        for name, copy in zip(kept, made, strict=True):
            drop(copy)
            create(copy, template=name)
        yield made
    finally:
        for copy in made:
            drop(copy)


def stamp_of(name: str) -> dict[str, Any] | None:
    """The stamp of database ``name`` (version, shape, manifest), or None when it has none."""
    import psycopg

    if not exists(name):
        return None
    with psycopg.connect(url_of(name), autocommit=True) as connection:
        found = connection.execute("SELECT to_regclass(%s)", (STAMP,)).fetchone()
        if found is None or found[0] is None:
            return None
        row = connection.execute(f"SELECT stamp FROM {STAMP}").fetchone()
    return None if row is None else row[0]


def write_stamp(name: str, stamp: dict[str, Any]) -> None:
    import psycopg
    from psycopg.types.json import Jsonb

    with psycopg.connect(url_of(name), autocommit=True) as connection:
        connection.execute(f"CREATE TABLE IF NOT EXISTS {STAMP} (stamp jsonb NOT NULL)")
        connection.execute(f"DELETE FROM {STAMP}")
        connection.execute(f"INSERT INTO {STAMP} (stamp) VALUES (%s)", (Jsonb(stamp),))


@contextmanager
def connected(name: str) -> Iterator[None]:
    """Django's connection pointed at database ``name`` for the block (Django set up already). On
    PostgreSQL the process's pool of connections (config/settings.py) is closed on the way in and out:
    it was opened on the database named when it started, and its idle connections would keep a
    database from being copied (``CREATE DATABASE … TEMPLATE``) or dropped."""
    from django.db import connection

    def let_go() -> None:
        connection.close()
        if connection.vendor == "postgresql":
            connection.close_pool()

    let_go()
    before = connection.settings_dict["NAME"]
    connection.settings_dict["NAME"] = name
    try:
        yield
    finally:
        let_go()
        connection.settings_dict["NAME"] = before


def django_setup() -> None:
    """Django on the configured database, ``DEBUG`` off as in production (the bench's own setup)."""
    os.environ["DEBUG"] = "false"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def ensure(*, quick: bool, rebuild: bool, template: str | None = None) -> tuple[str, str, dict[str, Any]]:
    """The empty and the large installation's databases, built or rebuilt when their stamps do not match
    (or ``rebuild``); with the manifest of what the bench measures. Django must be set up. ``template``: a
    migrated database to start the empty installation from (a test's own), for a quick start."""
    empty, big = names(quick=quick)
    shape = QUICK if quick else FULL
    wanted = {"version": VERSION, "shape": asdict(shape)}
    stamp = stamp_of(empty)
    fresh_empty = rebuild or stamp is None or {k: stamp.get(k) for k in wanted} != wanted
    if fresh_empty:
        started = time.perf_counter()
        drop(empty)
        create(empty, template=template)
        migrate(empty)
        with connected(empty):
            manifest = seed()
        stamp = {**wanted, "manifest": manifest}
        write_stamp(empty, stamp)
        progress(f"big: the empty installation {empty} built in {time.perf_counter() - started:.1f} s")
    else:
        migrate(empty)
        progress(f"big: the empty installation {empty} reused (generator version {VERSION})")
    assert stamp is not None
    big_stamp = stamp_of(big)
    if fresh_empty or big_stamp is None or big_stamp != stamp:
        started = time.perf_counter()
        drop(big)
        create(big, template=empty)
        write_stamp(big, {**stamp, "growing": True})  # a grow cut short leaves a stamp that does not match
        with connected(big):
            grow(shape, stamp["manifest"])
        write_stamp(big, stamp)
        progress(f"big: the large installation {big} built in {time.perf_counter() - started:.1f} s")
    else:
        migrate(big)
        progress(f"big: the large installation {big} reused (generator version {VERSION})")
    for name in (empty, big):
        analyze(name)
    return empty, big, stamp["manifest"]


def analyze(name: str) -> None:
    """The planner's statistics of database ``name`` gathered now, as autovacuum gathers them on a running
    site: without them a page's query is planned for the table as it was when it was made (empty), and the
    bench would measure the plans of a site that never ran, not those of the code."""
    from django.db import connection

    with connected(name), connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def migrate(name: str) -> None:
    """Database ``name`` brought to the schema of the code measured: an index added since it was built is
    there too, without building it again."""
    from django.core.management import call_command

    with connected(name):
        call_command("migrate", verbosity=0)


# --- The empty installation --------------------------------------------------------------------------------


def seed() -> dict[str, Any]:
    """The demo campaigns and, for every system, a measured campaign (see the module's docstring).
    Returns the manifest: per system, the campaign's id, its characters' ids, and the users' names."""
    import logging

    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from campaigns.models import Campaign, Membership
    from characters import ledger
    from characters.models import Character
    from play import rolls
    from rules import systems

    logging.getLogger("axes").setLevel(logging.WARNING)
    call_command("demo", stdout=open(os.devnull, "w"))  # noqa: SIM115 (closed with the process)
    users = get_user_model().objects
    gm = users.create_user(GM)
    players = [users.create_user(PLAYER.format(n)) for n in range(1, PARTY + 1)]
    manifest: dict[str, Any] = {"gm": GM, "players": [p.get_username() for p in players], "systems": {}}
    rng = random.Random(27)
    for key in systems.KEYS:
        demo = Campaign.objects.filter(system=key).order_by("pk").first()
        if demo is None:
            raise RuntimeError(f"no demo campaign of {key}: the bench copies its characters and rolls")
        sheets = [c.sheet for c in Character.objects.active().filter(campaign=demo).order_by("pk")]
        where = Campaign.objects.create(
            name=f"Bench {demo.rules.name}", system=key, options=demo.options, players_call_rolls=True
        )
        Membership.objects.create(campaign=where, user=gm, role=Membership.Role.GM)
        Membership.objects.bulk_create(
            [Membership(campaign=where, user=p, role=Membership.Role.PLAYER) for p in players]
        )
        party = [
            Character.objects.create(
                campaign=where,
                owner=players[i],
                name=f"{demo.rules.name} hero {i + 1}",
                status=Character.Status.ACTIVE,
                sheet=sheets[i % len(sheets)],
            )
            for i in range(PARTY)
        ]
        for n in range(SEED_AWARDS):
            ledger.award(
                campaign_id=where.pk,
                awards=[ledger.Award(c.pk, 3 + n) for c in party],
                reason=f"Session {n + 1}",
                adventure="The first adventure",
                by=gm,
            )
        for hero in party:
            entries(hero.pk, gm.pk, where.rules.currencies[0].key, SEED_ENTRIES - SEED_AWARDS, rng)
        for n in range(3):
            rolls.roll_free(campaign_id=where.pk, by=players[n], text="2d6+1", explode=False, secret=False, rng=rng)
        append_rolls(where, templates(demo, where, party, gm), SEED_ROLLS)
        if rolls.verify_chain(where) is not None:
            raise RuntimeError(f"the roll log of {where} does not verify")
        manifest["systems"][key] = {
            "campaign": where.pk,
            "characters": [c.pk for c in party],
            "demo": demo.pk,
        }
    return manifest


# --- Rows the way the models keep them ----------------------------------------------------------------------


def entries(character_id: int, by_id: int, currency: str, n: int, rng: random.Random) -> int:
    """Append ``n`` awards to the character's ledger after the entries it has, twenty to a chapter, each with
    its running balance, and set the character's balance to the last. Returns the rows written."""
    from bench.rows import Award, append_awards
    from characters.models import LedgerEntry

    awards = [Award(rng.randint(1, 12), f"Session {i + 1}", f"Chapter {i // 20 + 1}") for i in range(n)]
    return append_awards(character_id, by_id, currency, awards, lambda rows: insert(LedgerEntry, rows))


def templates(demo: Campaign, where: Campaign, party: Sequence[Any], gm: AbstractBaseUser) -> list[Roll]:
    """The demo campaign's rolls, each moved to ``where``: its character the party's in the same place
    (by the order of the demo's characters), made by that character's owner, or by the GM when the demo's
    GM made it. These are rolls of every kind the system writes, as the app wrote them."""
    from characters.models import Character
    from play.models import Roll

    demo_characters = list(Character.objects.filter(campaign=demo).order_by("pk").values_list("pk", flat=True))
    gm_of_demo = demo.memberships.get(role="gm").user_id
    moved = []
    for roll in Roll.objects.filter(campaign=demo).order_by("seq"):
        hero = None
        if roll.character_id is not None:
            hero = party[demo_characters.index(roll.character_id) % len(party)]
        by = gm.pk if roll.by_id == gm_of_demo or hero is None else hero.owner_id
        roll.campaign_id, roll.character_id, roll.by_id = where.pk, hero.pk if hero else None, by
        roll.follows = None if roll.follows is None else roll.seq - roll.follows  # kept as a distance
        moved.append(roll)
    if not moved:
        raise RuntimeError(f"the demo campaign of {demo.system} has no rolls to copy")
    return moved


def append_rolls(where: Campaign, like: Sequence[Roll], upto: int, *, chunk: int = BATCH) -> int:
    """Append copies of ``like`` in turn to the campaign's log until it holds ``upto`` rolls, each chained
    to the one before and signed as ``record_roll`` does. Returns the rolls written."""
    from django.utils import timezone

    from bench.rows import chained_rolls
    from play import chain
    from play.models import Roll

    last = Roll.objects.filter(campaign=where).order_by("-seq").first()
    seq, prev_hash = (last.seq, last.hash) if last is not None else (0, chain.GENESIS)
    start = last.created_at if last is not None else timezone.now() - timedelta(days=365)
    made = chained_rolls(where.pk, like, range(seq + 1, upto + 1), prev_hash=prev_hash, start=start)
    written = 0
    while batch := list(islice(made, chunk)):
        insert(Roll, batch)
        written += len(batch)
    return written


def insert(model: type[Model], rows: Sequence[Model]) -> None:
    """``rows`` appended as ``bulk_create`` would append them, by PostgreSQL's COPY: the same columns and
    values (JSON as Django's field writes it), without building an INSERT statement of a million values."""
    from django.db import connection

    fields = [f for f in model._meta.concrete_fields if not f.primary_key]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor, cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row([copy_value(f, row) for f in fields])


def copy_value(field: Field[Any, Any], row: Model) -> Any:
    from django.db.models import JSONField

    value = getattr(row, field.attname)
    if isinstance(field, JSONField):
        return json.dumps(value)
    return value


# --- The large installation ---------------------------------------------------------------------------------


def shares(total: int, weights: Sequence[float], floor: int = 0) -> list[int]:
    """``total`` split in proportion to ``weights``, each at least ``floor``, the parts adding up exactly."""
    left = total - floor * len(weights)
    if left < 0:
        raise ValueError(f"{total} cannot give {len(weights)} parts at least {floor} each")
    whole = sum(weights)
    parts = [floor + int(left * w / whole) for w in weights]
    for i in range(total - sum(parts)):
        parts[i % len(parts)] += 1
    return parts


def grow(shape: Shape, manifest: dict[str, Any]) -> None:
    """The empty installation grown to ``shape`` (see the module's docstring)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    from campaigns.models import Campaign, Membership
    from characters.models import Character
    from play import rolls
    from play.models import Roll
    from rules import systems

    started = time.perf_counter()
    rng = random.Random(1_000_000)
    keys = list(systems.KEYS)
    measured = {key: Campaign.objects.get(pk=m["campaign"]) for key, m in manifest["systems"].items()}
    demos = {key: Campaign.objects.get(pk=m["demo"]) for key, m in manifest["systems"].items()}
    extra = shape.campaigns - Campaign.objects.count()
    characters_left = shape.characters - Character.objects.count()
    if extra < len(keys) or characters_left < extra:
        raise ValueError(f"{shape} is smaller than the empty installation")

    # The campaigns, by rank: sizes fall as 1 / rank, at least two characters each.
    sizes = shares(characters_left, [1 / (rank + 1) for rank in range(extra)], floor=2)
    players_needed = sum(min(size, PLAYERS_PER_CAMPAIGN) for size in sizes) + extra
    unusable = make_password(None)
    user_model = get_user_model()
    made_users = user_model.objects.bulk_create(
        (user_model(username=f"bench-user-{n}", password=unusable) for n in range(players_needed)), batch_size=BATCH
    )
    users = iter(made_users)
    campaigns = Campaign.objects.bulk_create(
        Campaign(
            name=f"Campaign {rank + 1}",
            system=keys[rank % len(keys)],
            options=demos[keys[rank % len(keys)]].options,
            players_call_rolls=rank % 2 == 0,
        )
        for rank in range(extra)
    )
    memberships, owners = [], {}
    for where, size in zip(campaigns, sizes, strict=True):
        memberships.append(Membership(campaign=where, user=next(users), role=Membership.Role.GM))
        owners[where.pk] = [next(users) for _ in range(min(size, PLAYERS_PER_CAMPAIGN))]
        memberships += [Membership(campaign=where, user=u, role=Membership.Role.PLAYER) for u in owners[where.pk]]
    Membership.objects.bulk_create(memberships, batch_size=BATCH)
    sheets = {
        key: [c.sheet for c in Character.objects.active().filter(campaign=demos[key]).order_by("pk")] for key in keys
    }
    Character.objects.bulk_create(
        (
            Character(
                campaign=where,
                owner=owners[where.pk][i % len(owners[where.pk])],
                name=f"Hero {i + 1}",
                status=Character.Status.ACTIVE,
                system=where.system,
                sheet=sheets[where.system][i % len(sheets[where.system])],
            )
            for where, size in zip(campaigns, sizes, strict=True)
            for i in range(size)
        ),
        batch_size=BATCH,
    )
    progress(
        f"  {len(campaigns)} campaigns ({sizes[0]} characters the largest, {sizes[-1]} the smallest), "
        f"{sum(sizes)} characters, {len(made_users)} users: {time.perf_counter() - started:.1f} s"
    )

    # The roll logs: the measured campaigns' the longest, the others' falling with their rank.
    logs = [*measured.values(), *campaigns]
    have = Roll.objects.count()
    lengths = shares(shape.rolls - have, [1 / (rank + 1) for rank in range(len(logs))], floor=1)
    gm_of = dict(Membership.objects.filter(role="gm").values_list("campaign_id", "user_id"))
    for n, (where, length) in enumerate(zip(logs, lengths, strict=True)):
        party = list(Character.objects.filter(campaign=where).order_by("pk"))
        like = templates(demos[where.system], where, party, user_model(pk=gm_of[where.pk]))
        if where in measured.values():
            length += Roll.objects.filter(campaign=where).count()
        append_rolls(where, like, length)
        if n % 20 == 0:
            progress(f"  roll logs: {n + 1} of {len(logs)}; {time.perf_counter() - started:.0f} s")
    for where in [*measured.values(), *campaigns[: len(keys)]]:
        if rolls.verify_chain(where) is not None:
            raise RuntimeError(f"the roll log of {where} does not verify")
    progress(f"  {shape.rolls - have} rolls, chains verified: {time.perf_counter() - started:.1f} s")

    # The ledger: spread over the characters of the large campaigns, a few with long ledgers.
    from characters.models import LedgerEntry

    skipped = {pk for m in manifest["systems"].values() for pk in m["characters"]}
    holders = list(
        Character.objects.filter(campaign__in=campaigns)
        .exclude(pk__in=skipped)
        .order_by("campaign_id", "pk")
        .values_list("pk", "campaign_id", "system")[: max(1, shape.characters // 4)]
    )
    counts = shares(shape.ledger - LedgerEntry.objects.count(), [1 / (r + 1) ** 0.5 for r in range(len(holders))])
    currency = {key: systems.get(key).currencies[0].key for key in keys}
    for (pk, campaign_id, key), count in zip(holders, counts, strict=True):
        entries(pk, gm_of[campaign_id], currency[key], count, rng)
    progress(f"  ledger entries over {len(holders)} characters: {time.perf_counter() - started:.1f} s")
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def summary(name: str) -> dict[str, int]:
    """What a database holds, counted (Django connected to it)."""
    from campaigns.models import Campaign
    from characters.models import Character, LedgerEntry
    from play.models import Roll

    with connected(name):
        return {
            "campaigns": Campaign.objects.count(),
            "characters": Character.objects.count(),
            "rolls": Roll.objects.count(),
            "ledger": LedgerEntry.objects.count(),
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.big", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rebuild", action="store_true", help="build both databases again, whatever their stamps")
    parser.add_argument("--quick", action="store_true", help="a tiny installation, in databases of its own, kept")
    args = parser.parse_args(argv)
    admin_url()
    django_setup()
    empty, big, _ = ensure(quick=args.quick, rebuild=args.rebuild)
    for name in (empty, big):
        print(f"{name}: {json.dumps(summary(name))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
