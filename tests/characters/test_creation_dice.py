"""Creation rolls stick: a draft deleted and started again rolls nothing anew. The server's dice of a
creation step stay with the player and the campaign (``characters.creation_dice``), for Lucky 13's
own creation pages and for any system's rolled step through the generic ones."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters import creation_dice, drafting
from characters.models import Character, CreationDice
from tests.systems.lucky13 import drafts as creation

pytestmark = pytest.mark.django_db


def lucky13_campaign(gm, player, **options) -> Campaign:
    campaign = Campaign.objects.create(name="Test", system="lucky13", options=options)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    return campaign


def fresh_rolls(seed: int) -> tuple[int, ...]:
    dice = random.Random(seed)
    return tuple(dice.randint(1, 100) for _ in range(5))


def rolled_abilities(campaign, player, seed: int) -> tuple[Character, tuple[int, ...]]:
    character = creation.start_character(campaign=campaign, owner=player, name="Brunella")
    creation.roll_abilities(character_id=character.pk, rng=random.Random(seed), by=player)
    character.refresh_from_db()
    return character, tuple(character.document.creation.ability_rolls)


def test_deleting_a_draft_and_starting_again_does_not_roll_the_abilities_again(gm, player) -> None:
    campaign = lucky13_campaign(gm, player)
    first, rolls = rolled_abilities(campaign, player, seed=1)
    for seed in (2, 3, 4, 5):  # four fresh starts, each with other dice on offer
        drafting.delete_draft(character_id=first.pk, by=player)
        first, again = rolled_abilities(campaign, player, seed=seed)
        assert again == rolls
    kept = CreationDice.objects.get(campaign=campaign, owner=player, step="abilities")
    assert kept.character_id == first.pk
    drafting.delete_draft(character_id=first.pk, by=player)
    assert CreationDice.objects.get(pk=kept.pk).character_id is None  # the rolls stay with the player


def test_random_skills_stick_as_the_abilities_do(gm, player) -> None:
    campaign = lucky13_campaign(gm, player, skill_method="random")

    def skills_rolled(seed: int) -> tuple[Character, list[int]]:
        character, _ = rolled_abilities(campaign, player, seed=seed)
        creation.set_skills(character_id=character.pk, rng=random.Random(seed))
        character.refresh_from_db()
        return character, [skill.rolled for skill in character.document.skills]

    first, skills = skills_rolled(10)
    drafting.delete_draft(character_id=first.pk, by=player)
    assert skills_rolled(11)[1] == skills


def test_a_second_character_of_the_player_rolls_its_own_dice(gm, player) -> None:
    campaign = lucky13_campaign(gm, player)
    _, rolls = rolled_abilities(campaign, player, seed=1)
    _, second = rolled_abilities(campaign, player, seed=2)  # the first is still here: its dice are its own
    assert second == fresh_rolls(2)
    assert second != rolls


def test_another_players_or_campaigns_fresh_start_rolls_anew(gm, player, other_player) -> None:
    campaign = lucky13_campaign(gm, player)
    Membership.objects.create(campaign=campaign, user=other_player, role=Membership.Role.PLAYER)
    elsewhere = lucky13_campaign(gm, player)
    first, _ = rolled_abilities(campaign, player, seed=1)
    drafting.delete_draft(character_id=first.pk, by=player)
    fresh = fresh_rolls(2)
    assert rolled_abilities(campaign, other_player, seed=2)[1] == fresh
    assert rolled_abilities(elsewhere, player, seed=2)[1] == fresh


def test_the_generic_creation_pages_keep_a_rolled_step_too(client, coin_campaign, player) -> None:
    client.force_login(player)

    def flipped() -> Character:
        client.post(reverse("characters:create", args=[coin_campaign.pk]), {"name": "Flip"})
        draft = Character.objects.get(campaign=coin_campaign, name="Flip")
        url = reverse("characters:create-step", args=[draft.pk, "nerve"])
        assert client.post(url, {"version": str(draft.version), "action": "roll"}).status_code == 302
        draft.refresh_from_db()
        return draft

    draft = flipped()
    nerve = draft.document.nerve
    for _ in range(6):  # a 1-in-3 flip: a fresh roll would differ within a few tries
        drafting.delete_draft(character_id=draft.pk, by=player)
        draft = flipped()
        assert draft.document.nerve == nerve


def test_kept_dice_replay_draw_for_draw_then_draw_anew() -> None:
    first = creation_dice.KeptDice(random.Random(1), [])
    rolled = [first.randint(1, 100) for _ in range(3)] + [first.choice("abcdef")]
    again = creation_dice.KeptDice(random.Random(99), first.draws)
    assert [again.randint(1, 100) for _ in range(3)] + [again.choice("abcdef")] == rolled
    assert again.draws == first.draws
    extra = again.randint(1, 100)  # past the kept draws: from the source
    assert len(again.draws) == len(first.draws) + 1
    assert 1 <= extra <= 100
