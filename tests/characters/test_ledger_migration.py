"""The ledger's move to currencies (characters.0007): each character's Adventure Points become a
``Balance`` in its system's currency and every entry says ``ap``; migrating back restores
``Character.ap_balance``. Balances and entries are identical after forward and back, from the
demo's data and from rows written before the migration. On PostgreSQL this also proves that the
migration updates no ledger row: the append-only trigger would refuse it."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.exceptions import IrreversibleError

from characters import ledger
from characters.ledger import Award, Order
from characters.models import Balance, Character
from games.lucky13 import demo as lucky13_demo  # its data: these migrations knew Lucky 13 only
from rules.systems import lucky13
from rules.systems.base import Currency
from tests.campaigns.helpers import make_character
from tests.migrations import latest, migrate

BEFORE = [("characters", "0006_drop_sheet_columns")]
ENTRIES = "characters_ledgerentry"


def table(name: str, *, without: tuple[str, ...] = ()) -> list[tuple[Any, ...]]:
    """Every row of a table, its columns in name order (so that SQLite's rebuilt tables compare)."""
    with connection.cursor() as cursor:
        described = connection.introspection.get_table_description(cursor, name)
        columns = sorted(c.name for c in described if c.name not in without)
        quoted = ", ".join(connection.ops.quote_name(c) for c in columns)
        cursor.execute(f"SELECT {quoted} FROM {name}")
        return sorted(cursor.fetchall(), key=repr)


def balances() -> list[tuple[int, str, int]]:
    return sorted(Balance.objects.values_list("character_id", "currency", "amount"))


def old_balances(apps: Any) -> dict[int, int]:
    return dict(apps.get_model("characters", "Character").objects.values_list("pk", "ap_balance"))


@pytest.mark.django_db(transaction=True)
def test_balances_and_entries_are_the_same_after_forward_and_back(campaign, gm, player, other_player) -> None:
    lucky13_demo.load()  # awards, a purchase, reputation: real-looking data
    brunella = make_character(campaign, player, "Brunella")
    tam = make_character(campaign, other_player, "Tam")
    make_character(campaign, player, "Draft", status="draft")  # nothing earned: no balance row
    award = ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 20), Award(tam.pk, 4)],
                         reason="Mission", by=gm).entries[1]  # fmt: skip
    skill = brunella.document.skills[0].id
    ledger.buy(character_id=brunella.pk, order=Order(f"specialization:{skill}", "Parry"), by=player)
    ledger.correct(character_id=tam.pk, entry_id=award.pk, reason="Wrong character", by=gm)  # Tam: 0, with entries
    kept_balances, kept_entries, names = balances(), table(ENTRIES), columns()
    assert {currency for _, currency, _ in kept_balances} == {"ap"}
    assert (brunella.pk, "ap", 16) in kept_balances
    assert (tam.pk, "ap", 0) in kept_balances
    assert len(kept_entries) >= 6
    held = {pk: amount for pk, _, amount in kept_balances}
    everyone = list(Character.objects.values_list("pk", flat=True))
    try:
        old = migrate(BEFORE)
        assert old_balances(old) == {pk: held.get(pk, 0) for pk in everyone}
        currency = names.index("currency")
        assert table(ENTRIES) == sorted((row[:currency] + row[currency + 1 :] for row in kept_entries), key=repr)

        migrate(latest())
        assert balances() == kept_balances
        assert table(ENTRIES) == kept_entries
    finally:
        migrate(latest())


def columns() -> list[str]:
    with connection.cursor() as cursor:
        return sorted(c.name for c in connection.introspection.get_table_description(cursor, ENTRIES))


@pytest.mark.django_db(transaction=True)
def test_rows_written_before_the_migration_get_their_balances(campaign, gm, player) -> None:
    try:
        old = migrate(BEFORE)
        OldCharacter = old.get_model("characters", "Character")
        OldEntry = old.get_model("characters", "LedgerEntry")
        made = {}
        for name, amount, entries in (("Rich", 7, [7]), ("Spent", 0, [4, -4]), ("Poor", 0, []), ("Gifted", 3, [])):
            character = OldCharacter.objects.create(
                campaign_id=campaign.pk, owner_id=player.pk, name=name, status="active", system="lucky13", sheet={},
                ap_balance=amount,
            )  # fmt: skip
            running = 0
            for step in entries:
                running += step
                OldEntry.objects.create(character=character, kind="award" if step > 0 else "spend", amount=step,
                                        balance=running, reason="Then", purchase={}, by_id=gm.pk)  # fmt: skip
            made[name] = character.pk
        before_entries = table(ENTRIES)
        before_balances = old_balances(old)

        migrate(latest())
        assert balances() == sorted([(made["Rich"], "ap", 7), (made["Spent"], "ap", 0), (made["Gifted"], "ap", 3)])
        assert table(ENTRIES, without=("currency",)) == before_entries
        assert {row[0] for row in table(ENTRIES, without=tuple(c for c in columns() if c != "currency"))} == {"ap"}

        assert old_balances(migrate(BEFORE)) == before_balances
        assert table(ENTRIES) == before_entries
    finally:
        migrate(latest())


@pytest.mark.django_db(transaction=True)
def test_a_second_currency_is_not_lost_by_migrating_back(campaign, gm, player, monkeypatch) -> None:
    monkeypatch.setattr(lucky13.SYSTEM, "currencies", (*lucky13.SYSTEM.currencies, Currency("gold", "Gold", "gp")))
    brunella = make_character(campaign, player, "Brunella")
    ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 30)], reason="Hoard", currency="gold", by=gm)
    kept_balances, kept_entries = balances(), table(ENTRIES)
    try:
        with pytest.raises(IrreversibleError, match=r"Character\.ap_balance cannot hold them"):
            migrate(BEFORE)
    finally:
        migrate(latest())
    assert balances() == kept_balances == [(brunella.pk, "gold", 30)]
    assert table(ENTRIES) == kept_entries
