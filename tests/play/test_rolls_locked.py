"""A roll for a character its caller has locked (a move, a roll that keeps something on the sheet) takes the
character's campaign and status from the locked row, read once, and refuses exactly what a roll for a
character read afresh refuses."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from campaigns.models import Campaign
from campaigns.operations import Conflict, NotFound
from characters import write
from characters.models import Character
from play import rolls
from play.models import Roll, RollKind
from tests.campaigns.helpers import make_character

pytestmark = pytest.mark.django_db


def record_locked(campaign, by, character_id: int) -> Roll:
    """A free roll for ``character_id``, recorded while the character is locked, as a move records it."""
    with transaction.atomic():
        locked = write.lock(character_id)
        return rolls.record_roll(
            campaign_id=campaign.pk, by=by, character_id=character_id, kind=RollKind.FREE,
            spec={"expression": "d6"}, dice=[{"label": "d6", "dice": [{"sides": 6, "faces": [4]}], "total": 4}],
            total=4, outcome={}, chance=Fraction(1, 2), chance_of="total ≥ 4", label="d6", locked=locked,
        )  # fmt: skip


def test_a_locked_characters_status_is_not_read_again(campaign, gm, character) -> None:
    with CaptureQueriesContext(connection) as captured:
        roll = record_locked(campaign, gm, character.pk)
    assert roll.character_id == character.pk
    statuses = [q for q in captured if q["sql"].startswith('SELECT "characters_character"."status"')]
    assert statuses == []


@pytest.mark.parametrize(
    ("status", "words"),
    [("draft", "A draft cannot roll until it is finished"), ("archived", "archived and no longer rolls")],
)
def test_a_locked_character_out_of_play_is_refused(campaign, gm, character, status, words) -> None:
    Character.objects.filter(pk=character.pk).update(status=status)
    with pytest.raises(Conflict, match=words):
        record_locked(campaign, gm, character.pk)
    assert not Roll.objects.exists()


def test_a_locked_character_of_another_campaign_is_refused(campaign, gm, player) -> None:
    other = Campaign.objects.create(name="The Drowned Bell", system="lucky13")
    elsewhere = make_character(other, player, "Casimir")
    with pytest.raises(NotFound, match="not in this campaign"):
        record_locked(campaign, gm, elsewhere.pk)
    assert not Roll.objects.exists()
