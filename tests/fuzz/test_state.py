"""The fingerprint the fuzzing compares sees what a refused request could change: a field of a kept row,
a row added to a log."""

from __future__ import annotations

import random

from characters.models import Character
from play import rolls
from tests.characters.conftest import make_character
from tests.fuzz.state import changes, fingerprint


def test_the_fingerprint_sees_a_changed_field_and_an_added_roll(db, campaign, player, gm) -> None:
    brunella = make_character(campaign, player)
    before = fingerprint()
    assert changes(before, fingerprint()) == []

    Character.objects.filter(pk=brunella.pk).update(name="Brunhild")
    renamed = fingerprint()
    assert changes(before, renamed) == ["characters.Character"]

    rolls.roll_free(campaign_id=campaign.pk, by=gm, text="1d6", explode=False, secret=False, rng=random.Random(1))
    assert "play.Roll" in changes(renamed, fingerprint())
