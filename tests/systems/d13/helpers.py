"""D13 characters made as a player makes them, for the tests of D13 and for the generic tests that need one:
a campaign of D13 with the cast (the GM, two players), and ``made`` through the creation operations (Maud:
Brawn 2, Grace 3, Wits 4, Will 3; Occult 4, Investigation 3, Stealth 2, Athletics 1)."""

from __future__ import annotations

import random
from typing import Any

from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters import drafting
from characters.models import Character
from play import moves, sheet_rolls
from rules.systems import d13

ABILITIES = {"brawn": 2, "grace": 3, "wits": 4, "will": 3}
SKILLS = {"Occult": 4, "Investigation": 3, "Stealth": 2, "Athletics": 1}


def campaign_of(gm: Any, *players: Any, **options: Any) -> Campaign:
    """A D13 campaign run by ``gm`` with ``players``, its options the defaults with ``options``; the GM calls
    the rolls, as the text has the host do."""
    made = Campaign.objects.create(name="The Hollow Parish", system="d13",
                                   options={**d13.SYSTEM.default_options(), **options})  # fmt: skip
    Membership.objects.create(campaign=made, user=gm, role=Membership.Role.GM)
    for player in players:
        Membership.objects.create(campaign=made, user=player, role=Membership.Role.PLAYER)
    return made


def made(campaign: Campaign, owner: Any, name: str = "Maud", skills: dict[str, int] | None = None) -> Character:
    """A finished character, through the creation operations a page calls."""
    character = drafting.start(campaign=campaign, owner=owner, name=name)
    character = drafting.fill(character_id=character.pk, version=character.version, step="abilities",
                              value=ABILITIES, by=owner)  # fmt: skip
    ratings = skills if skills is not None else SKILLS
    value = {"skills": [{"id": s.id, "rating": ratings.get(s.name, 0)} for s in character.document.skills]}
    character = drafting.fill(character_id=character.pk, version=character.version, step="skills", value=value,
                              by=owner)  # fmt: skip
    return drafting.finish(character_id=character.pk, version=character.version, by=owner)


def fresh(character: Character) -> Character:
    return Character.objects.select_related("campaign").get(pk=character.pk)


def skill(character: Character, name: str) -> int:
    return next(s.id for s in character.document.skills if s.name == name)


def move_url(character: Character, key: str) -> str:
    return reverse("play:move", args=[character.pk, key])


def roll(character: Character, situation: dict[str, Any], by: Any) -> None:
    """A task rolled as the roll page rolls it: built from the sheet, made by its move (``d13-roll``)."""
    now = fresh(character)
    gm = Membership.objects.filter(campaign=now.campaign, user=by, role=Membership.Role.GM).exists()
    sheet_rolls.roll(now, sheet_rolls.build(now, [], situation, gm=gm), by=by, rng=random.SystemRandom())


def make(character: Character, key: str, given: dict[str, Any], by: Any) -> moves.Done:
    """The move ``key`` made through the one pipeline, from the sheet as it stands."""
    now = fresh(character)
    return moves.make(character_id=now.pk, key=key, version=moves.made_from(now, moves.move_of(now, key)),
                      given=given, by=by)  # fmt: skip
