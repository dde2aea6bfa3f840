"""The plans PostgreSQL makes for a character's and a campaign's pages when the tables are full of
other characters' and other campaigns' rows: each page reads its rows by the per-character or
per-campaign index and stops at the page's end. No whole table read (Seq Scan), and no walk of a
primary key backwards past everyone else's newer rows (what a page ordered by id did for a character
whose long ledger the planner took to be spread evenly along the table).

The queries are the pages' own: each page is requested with the test client, every query it makes
is captured and explained, so the test follows the code. The other rows are written with SQL
``generate_series`` (tens of thousands in well under a second), then ``ANALYZE`` gives the planner
the statistics a large installation would have. The character under test has a long ledger of its
own, written before everyone else's: the shape that led PostgreSQL to the primary key.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters import ledger
from characters.models import Character, LedgerEntry, SheetChange
from play import rolls
from play.models import Roll
from tests.characters.conftest import make_character

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

#: The tables filled here: none of them may be read whole by a page.
FILLED = {
    "characters_ledgerentry",
    "characters_adventuretally",
    "characters_sheetchange",
    "characters_reputationchange",
    "play_roll",
}
#: Other characters, each with entries, changes and rolls of its own.
OTHERS = 200


def nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", ()):
        yield from nodes(child)


def plans_of(client, url: str) -> list[tuple[str, list[dict[str, Any]]]]:
    """Each SELECT the page at ``url`` makes, with the nodes of the plans PostgreSQL makes for it: the one for
    its values, and the one a prepared statement of it settles on for any values (its generic plan), since a
    pooled connection prepares a statement it runs often (config/settings.py)."""
    run: list[tuple[str, Any]] = []

    def noted(execute, sql, params, many, context):
        run.append((sql, params))
        return execute(sql, params, many, context)

    with CaptureQueriesContext(connection) as captured, connection.execute_wrapper(noted):
        response = client.get(url)
    assert response.status_code == 200, url
    found = []
    with connection.cursor() as cursor:
        for query, (sql, params) in zip(captured.captured_queries, run, strict=True):
            if not query["sql"].startswith("SELECT"):
                continue
            cursor.execute(f"EXPLAIN (FORMAT JSON) {query['sql']}")
            found.append((query["sql"], list(nodes(loaded(cursor.fetchone()[0])[0]["Plan"]))))
            cursor.execute(f"PREPARE page_query AS {numbered(sql)}")
            cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
            execute = connection.ops.compose_sql(f"EXECUTE page_query ({', '.join(['%s'] * len(params))})", params)
            cursor.execute(f"EXPLAIN (FORMAT JSON) {execute if params else 'EXECUTE page_query'}")
            found.append((f"(generic) {sql}", list(nodes(loaded(cursor.fetchone()[0])[0]["Plan"]))))
            cursor.execute("RESET plan_cache_mode")
            cursor.execute("DEALLOCATE page_query")
    return found


def loaded(explained: Any) -> Any:
    return json.loads(explained) if isinstance(explained, str) else explained


def numbered(sql: str) -> str:
    """Django's SQL with PostgreSQL's own placeholders ($1, $2, …) for its ``%s``, as PREPARE takes it."""
    count = iter(range(1, 1_000))
    return re.sub(r"%%|%s", lambda match: "%" if match.group() == "%%" else f"${next(count)}", sql)


def assert_bounded(client, url: str, *indexes: str) -> None:
    """Every query of the page at ``url`` reads the filled tables by an index, none walks a primary
    key backwards, and each of ``indexes`` is used by one of them."""
    used = set()
    for sql, plan in plans_of(client, url):
        for node in plan:
            table, index = node.get("Relation Name"), node.get("Index Name", "")
            assert not (node["Node Type"] == "Seq Scan" and table in FILLED), f"{url}: reads {table} whole: {sql}"
            backward = node.get("Scan Direction") == "Backward" and index.endswith("_pkey")
            assert not (backward and table in FILLED), f"{url}: walks {index} backwards: {sql}"
            used.add(index)
    assert set(indexes) <= used, f"{url}: uses {sorted(used - {''})}, not {sorted(set(indexes) - used)}"


def analyze() -> None:
    with connection.cursor() as cursor:
        for table in sorted(FILLED | {"characters_character"}):
            cursor.execute(f"ANALYZE {table}")


@pytest.fixture
def crowd(gm) -> Campaign:
    """A second campaign of :data:`OTHERS` characters, to hold everyone else's rows."""
    elsewhere = Campaign.objects.create(name="Elsewhere", system="lucky13")
    Membership.objects.create(campaign=elsewhere, user=gm, role=Membership.Role.GM)
    with connection.cursor() as cursor:
        cursor.execute(
            """INSERT INTO characters_character (name, status, version, created_at, updated_at, campaign_id,
                   owner_id, section_versions, system, sheet, awaiting)
               SELECT 'Other ' || g, 'active', 1, now(), now(), %s, %s, '{}', 'lucky13', '{}', 0
               FROM generate_series(1, %s) g""",
            [elsewhere.pk, gm.pk, OTHERS],
        )
    return elsewhere


def everyone_else(cursor, gm, others: list[int], *, versions_from: int) -> None:
    """20,000 ledger entries (a hundred adventures to each of ``others``), 10,000 sheet changes (versions
    from ``versions_from`` on) and 5,000 reputation changes, spread over ``others``."""
    cursor.execute(
        """INSERT INTO characters_ledgerentry (kind, amount, balance, reason, adventure, purchase, created_at,
               by_id, character_id, currency)
           SELECT 'award', 1, g, 'Bounty ' || g, 'Adventure ' || g / 4, '{}', now(), %s,
                  (%s::bigint[])[1 + g %% %s], 'ap'
           FROM generate_series(1, 20000) g""",
        [gm.pk, others, len(others)],
    )
    cursor.execute(
        """INSERT INTO characters_sheetchange (version, what, sections, before, after, created_at, by_id,
               character_id)
           SELECT %s + g / %s, 'Notes', '["notes"]', '{}', '{}', now(), %s, (%s::bigint[])[1 + g %% %s]
           FROM generate_series(0, 9999) g""",
        [versions_from, len(others), gm.pk, others, len(others)],
    )
    cursor.execute(
        """INSERT INTO characters_reputationchange (change, reputation, reason, adventure, created_at, by_id,
               character_id)
           SELECT 1, 1, 'Deed', '', now(), %s, (%s::bigint[])[1 + g %% %s] FROM generate_series(1, 5000) g""",
        [gm.pk, others, len(others)],
    )


def test_a_characters_pages_read_by_its_indexes_whatever_the_rest_holds(client, campaign, gm, player, crowd) -> None:
    hero = make_character(campaign, player)
    for adventure in ("The Drowned Bell", "Ashfall", ""):
        ledger.award(
            campaign_id=campaign.pk, awards=[ledger.Award(hero.pk, 5)], reason="Deed", adventure=adventure, by=gm
        )
    others = list(Character.objects.filter(campaign=crowd).values_list("pk", flat=True))
    # Everyone else's rows before the hero's and after them, so that a deep page of the hero's is deep
    # in the table too; the hero's own long ledger (3,000 entries over 60 adventures) and history
    # (500 changes) in between.
    with connection.cursor() as cursor:
        everyone_else(cursor, gm, others, versions_from=2)
        cursor.execute(
            """INSERT INTO characters_ledgerentry (kind, amount, balance, reason, adventure, purchase, created_at,
                   by_id, character_id, currency)
               SELECT 'award', 1, 15 + g, 'Bounty ' || g, 'Chapter ' || g / 50, '{}', now(), %s, %s, 'ap'
               FROM generate_series(1, 3000) g""",
            [gm.pk, hero.pk],
        )
        cursor.execute(
            """INSERT INTO characters_sheetchange (version, what, sections, before, after, created_at, by_id,
                   character_id)
               SELECT 1 + g, 'Notes', '["notes"]', '{}', '{}', now(), %s, %s FROM generate_series(1, 500) g""",
            [player.pk, hero.pk],
        )
        everyone_else(cursor, gm, others, versions_from=2 + 10000 // len(others))
    ledger.recount_adventures([hero.pk, *others])
    analyze()
    mine = list(LedgerEntry.objects.filter(character=hero).order_by("pk").values_list("pk", flat=True))
    changes = list(SheetChange.objects.filter(character=hero).order_by("pk").values_list("pk", flat=True))
    client.force_login(player)

    ledger_page = reverse("characters:ledger", args=[hero.pk])
    assert_bounded(client, ledger_page, "characters_ledger_by_character", "characters_tally_latest")
    deep = f"{ledger_page}?before={mine[len(mine) // 2]}&reputation_before=2000000"
    assert_bounded(client, deep, "characters_ledger_by_character", "characters_reputation_recent")
    assert_bounded(client, reverse("characters:sheet", args=[hero.pk]), "characters_ledger_by_character")
    history = reverse("characters:history", args=[hero.pk])
    assert_bounded(client, history, "characters_sheetchange_recent")
    assert_bounded(client, f"{history}?before={changes[len(changes) // 2]}", "characters_sheetchange_recent")
    client.force_login(gm)  # the award form suggests the adventures the campaign named last
    assert_bounded(client, reverse("characters:award", args=[campaign.pk]), "characters_tally_campaign")


def test_the_roll_log_reads_by_the_campaigns_indexes_whatever_the_rest_holds(
    client, campaign, gm, player, crowd
) -> None:
    hero = make_character(campaign, player)
    rng = random.Random(5)
    for _ in range(3):
        rolls.roll_free(campaign_id=campaign.pk, by=player, text="2d6", explode=False, secret=False, rng=rng)
    like = Roll.objects.filter(campaign=campaign).order_by("seq").first()
    others = list(Character.objects.filter(campaign=crowd).values_list("pk", flat=True))
    copy = """INSERT INTO play_roll (kind, spec, dice, total, outcome, chance, chance_of, secret, created_at, seq,
                  prev_hash, hash, by_id, campaign_id, character_id, system, label, follows, key_id)
              SELECT CASE WHEN g %% 4 = 0 THEN 'check' ELSE r.kind END, r.spec, r.dice, r.total, r.outcome, r.chance,
                     r.chance_of, g %% 10 = 0, now(), %s + g, r.prev_hash, r.hash, r.by_id, %s, {character}, r.system,
                     r.label, NULL, r.key_id
              FROM generate_series(1, %s) g, play_roll r WHERE r.id = %s"""
    with connection.cursor() as cursor:
        # 5,000 more rolls of this campaign, a third of them the hero's; then 60,000 of another campaign's.
        cursor.execute(
            copy.format(character="CASE WHEN g %% 3 = 0 THEN %s::bigint END"), [3, campaign.pk, hero.pk, 5000, like.pk]
        )
        cursor.execute(
            copy.format(character="(%s::bigint[])[1 + g %% %s]"), [0, crowd.pk, others, len(others), 60000, like.pk]
        )
    analyze()
    client.force_login(gm)
    log = reverse("play:rolls", args=[campaign.pk])

    assert_bounded(client, log, "play_roll_unique_seq")
    assert_bounded(client, f"{log}?before=2500", "play_roll_unique_seq")
    assert_bounded(client, f"{log}?character={hero.pk}", "play_roll_character_idx")
    assert_bounded(client, f"{log}?character={hero.pk}&before=2500", "play_roll_character_idx")
    assert_bounded(client, f"{log}?kind=check&before=2500", "play_roll_kind_idx")
    assert_bounded(client, reverse("play:dashboard", args=[campaign.pk]), "play_roll_unique_seq")


def test_the_dashboard_looks_its_partys_players_up_by_key_however_many_users_there_are(
    client, campaign, gm, crowd
) -> None:
    """A party of twelve, each played by another of 5,000 users: the dashboard reads each player by the
    users' primary key, for its one page and as a prepared statement, never every user (what PostgreSQL's
    default planner settings chose, a hash join over the whole table; config/settings.py)."""
    with connection.cursor() as cursor:
        cursor.execute(
            """INSERT INTO auth_user (username, password, is_superuser, first_name, last_name, email, is_staff,
                   is_active, date_joined)
               SELECT 'user ' || g, '!', false, '', '', '', false, true, now() FROM generate_series(1, 5000) g"""
        )
        cursor.execute("ANALYZE auth_user")
    players = get_user_model().objects.order_by("-pk")[:12]
    for n, player in enumerate(players):
        Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
        make_character(campaign, player, name=f"Hero {n}")
    analyze()
    client.force_login(gm)
    dashboard = reverse("play:dashboard", args=[campaign.pk])
    party_read = False
    for sql, plan in plans_of(client, dashboard):
        # Every user never; every character not for the party (the feed of an empty log may join them so).
        party = sql.removeprefix("(generic) ").startswith('SELECT "characters_character"."id"')
        party_read |= party
        for node in plan:
            table = node.get("Relation Name")
            whole = node["Node Type"] == "Seq Scan" and table in {"auth_user", *(["characters_character"] * party)}
            assert not whole, f"reads {table} whole: {sql}"
    assert party_read
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('random_page_cost'), current_setting('plan_cache_mode')")
        assert cursor.fetchone() == ("1.1", "force_generic_plan")
