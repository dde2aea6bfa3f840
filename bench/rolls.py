"""``python -m bench.rolls [--rolls N]``: the roll log page with a million rolls in the table.

Run by hand, not in the tests. Fills a database of its own (``var/bench_rolls.sqlite3``,
or the PostgreSQL database named by ``DATABASE_URL``: use a scratch one) with N rolls
in one campaign by bulk SQL, then times the log page through the real view: the first
page, a deep page (``?before=1000``), and both filters. Each figure is the median of
seven requests. Bulk executemany, not record_roll: the hashes are placeholders, since
this times reading the log, not writing it. Keyset pagination and the (campaign, seq) indexes should make a deep
page cost what the first one does.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rolls", type=int, default=1_000_000)
    args = parser.parse_args(argv)

    if not os.environ.get("DATABASE_URL"):
        (ROOT / "var").mkdir(exist_ok=True)
        target = ROOT / "var" / "bench_rolls.sqlite3"
        target.unlink(missing_ok=True)
        os.environ["DATABASE_URL"] = f"sqlite:///{target}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.test import Client
    from django.test.utils import setup_test_environment
    from django.urls import reverse

    from campaigns.models import Campaign, Membership
    from characters.models import Character
    from play.models import RollKind

    setup_test_environment()
    call_command("migrate", verbosity=0)
    user_model = get_user_model()
    gm = user_model.objects.create_user(f"bench-gm-{time.time_ns()}")
    campaign = Campaign.objects.create(name="Bench")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    # Drafts as their system starts them: a sheet document, as every character has.
    draft = campaign.rules.new_draft(campaign.settings).model_dump(mode="json")
    characters = [
        Character.objects.create(campaign=campaign, owner=gm, name=f"C{i}", sheet=draft, status="draft")
        for i in range(4)
    ]

    print(f"database: {connection.vendor}; inserting {args.rolls:,} rolls…", flush=True)
    kinds = RollKind.values
    die = '{"sides":6,"faces":[3,4],"value":7,"imploded":false,"exploded":false,"kept":true}'
    dice = f'[{{"label":"2d6","dice":[{die}],"total":7}}]'
    sql = (
        "INSERT INTO play_roll (campaign_id, by_id, character_id, kind, spec, dice, total, outcome, chance, "
        "chance_of, secret, created_at, seq, prev_hash, hash) VALUES "
        "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
    )
    started = time.perf_counter()
    chunk = 20_000
    base = time.time() - args.rolls
    with transaction.atomic(), connection.cursor() as cursor:
        for low in range(1, args.rolls + 1, chunk):
            rows = [
                (
                    campaign.pk,
                    gm.pk,
                    characters[seq % 5].pk if seq % 5 < 4 else None,
                    kinds[seq % len(kinds)],
                    '{"expression":"2d6+1"}',
                    dice,
                    8,
                    "{}",
                    "7/12",
                    "total ≥ 8",
                    seq % 50 == 0,
                    datetime.fromtimestamp(base + seq, UTC),
                    seq,
                    f"{seq - 1:064x}",
                    f"{seq:064x}",
                )
                for seq in range(low, min(low + chunk, args.rolls + 1))
            ]
            cursor.executemany(sql, rows)
    print(f"inserted in {time.perf_counter() - started:.1f} s", flush=True)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE play_roll")
    else:
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")

    client = Client()
    client.force_login(gm)
    url = reverse("play:rolls", args=[campaign.pk])
    cases = {
        "first page": url,
        "deep page (?before=1000)": f"{url}?before=1000",
        "character filter, first page": f"{url}?character={characters[1].pk}",
        "character filter, deep page": f"{url}?character={characters[1].pk}&before=5000",
        "kind filter, deep page": f"{url}?kind=free&before=5000",
    }
    for name, path in cases.items():
        times = []
        for _ in range(7):
            begun = time.perf_counter()
            response = client.get(path)
            times.append(time.perf_counter() - begun)
            assert response.status_code == 200, response.status_code
        print(f"{name:32} {statistics.median(times) * 1000:8.1f} ms  (median of 7)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
