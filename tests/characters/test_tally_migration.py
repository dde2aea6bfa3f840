"""The ledger's adventure tallies (characters.0012) are counted from the entries already written:
after migrating back and forward again they are the tallies the ledger's writers had kept, entry by
entry (a correction counted as what it reverses), and no ledger entry has changed."""

from __future__ import annotations

import pytest
from django.db import connection

from characters import ledger
from characters.ledger import Award, Order
from characters.ledger_views import adventure_totals
from characters.models import AdventureTally
from tests.campaigns.helpers import make_character
from tests.characters.test_ledger_migration import ENTRIES, table
from tests.migrations import latest, migrate

BEFORE = [("characters", "0011_arrival")]


def tallies() -> list[tuple[int, int, str, str, int, int, int]]:
    fields = ("character_id", "campaign_id", "currency", "adventure", "began", "earned", "spent")
    return sorted(AdventureTally.objects.values_list(*fields))


@pytest.mark.django_db(transaction=True)
def test_the_tallies_are_counted_from_the_entries_already_written(campaign, gm, player, other_player) -> None:
    brunella = make_character(campaign, player, "Brunella")
    tam = make_character(campaign, other_player, "Tam")
    award = ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 20), Award(tam.pk, 4)],
                         reason="Mission", adventure="The Drowned Bell", by=gm).entries[1]  # fmt: skip
    skill = brunella.document.skills[0].id
    spend = ledger.buy(character_id=brunella.pk, order=Order(f"specialization:{skill}", "Parry"), by=player)
    ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 3)], reason="Clever", adventure="Ashfall", by=gm)
    ledger.correct(character_id=tam.pk, entry_id=award.pk, reason="Wrong character", by=gm)
    ledger.correct(character_id=brunella.pk, entry_id=spend.pk, reason="Bought by mistake", by=gm)
    kept, entries = tallies(), table(ENTRIES)
    assert [(t.adventure, t.earned, t.spent) for t in adventure_totals(brunella, limit=5)] == [
        ("The Drowned Bell", 20, 0),
        ("No adventure named", 0, 0),
        ("Ashfall", 3, 0),
    ]
    try:
        migrate(BEFORE)
        assert "characters_adventuretally" not in connection.introspection.table_names()
        migrate(latest())
        assert tallies() == kept
        assert table(ENTRIES) == entries
    finally:
        migrate(latest())
