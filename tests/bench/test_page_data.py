"""The bench's bulk-appended ledgers are what the app would have written: the adventure chart's
tallies (kept by the ledger's writers, ``characters.ledger``) agree with the entries, so the pages the
bench measures show every adventure."""

from __future__ import annotations

import pytest

from bench import page_data
from characters.models import AdventureTally

pytestmark = pytest.mark.django_db


def test_a_bulk_appended_ledger_has_the_tallies_its_writers_would_keep() -> None:
    people = page_data.cast("tally")
    where = page_data.campaign(people, "Tallied")
    hero = page_data.party(where, [people.players[0]], 1)[0]
    page_data.ledger_entries(hero, people.gm, 250)

    tallies = {t.adventure: (t.earned, t.spent) for t in AdventureTally.objects.filter(character=hero)}
    amounts = [12] + [1 + i % 5 for i in range(1, 250)]
    chapters = ["Chapter 0"] + [f"Chapter {i // 100}" for i in range(1, 250)]
    expected: dict[str, tuple[int, int]] = {}
    for chapter, amount in zip(chapters, amounts, strict=True):
        earned, spent = expected.get(chapter, (0, 0))
        expected[chapter] = (earned + amount, spent)
    assert tallies == expected
