"""Ended encounters: the list, newest first, and each one read-only, with who took part, how they ended
and every step from the roll log; for every member, never for an outsider."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership
from play import encounter_views, encounters, rolls
from play.models import Encounter, Roll
from tests.campaigns.helpers import assert_login_redirect
from tests.characters.conftest import make_character
from tests.play.npcs import GOBLIN

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


class Scripted(random.Random):
    """Dice that come up as listed, in order."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


def list_url(campaign) -> str:
    return reverse("play:encounters", args=[campaign.pk])


def history_url(campaign, encounter) -> str:
    return reverse("play:encounter-history", args=[campaign.pk, encounter.pk])


def ended(campaign, gm, name: str) -> Encounter:
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name=name)
    return encounters.end_encounter(campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm)


@pytest.fixture
def bridge(campaign, gm, player) -> Encounter:
    """A whole fight: Brunella (7) and two goblins (5, 3); she hits Goblin 1 for 11, the GM heals her
    after a fall, moves Goblin 2 up past Goblin 1, and Goblin 2 flees; then it ends."""
    brunella = make_character(campaign, player)
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="The bridge")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    (hero,) = encounters.add_characters(**ids, by=gm, character_ids=[brunella.pk])
    first, second = encounters.add_npcs(**ids, by=gm, **GOBLIN, count=2)
    encounters.roll_initiative(**ids, by=gm, rng=Scripted(7, 5, 3), group_rolls=False)
    # Brunella 5 + 6 + 4 = 15 (no specialization) against 2 + 2 = 4: margin 11, d8 damage 1: 12.
    encounters.attack(
        **ids,
        by=gm,
        attacker_id=hero.pk,
        target_id=first.pk,
        choices={"attacker_specialization": "none"},
        rng=Scripted(5, 6, 4, 2, 2, 1),
    )
    encounters.adjust(**ids, by=gm, combatant_id=hero.pk, amount=-4, reason="a fall")
    encounters.move_in_order(**ids, by=gm, combatant_id=second.pk, direction="up")
    rolls.roll_free(campaign_id=campaign.pk, by=player, text="d6", explode=False, secret=False, rng=random.Random(1))
    encounters.remove_combatant(**ids, by=gm, combatant_id=second.pk, reason="fled")
    return encounters.end_encounter(**ids, by=gm)


def test_the_list_shows_ended_encounters_newest_first(client, player, campaign, gm, bridge):
    later = ended(campaign, gm, "The ford")
    encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Still going")
    client.force_login(player)
    response = client.get(list_url(campaign))
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" in body
    assert body.index("The ford") < body.index("The bridge")
    assert "Still going" not in body
    assert history_url(campaign, bridge) in body
    assert history_url(campaign, later) in body
    assert "3 combatants · 1 round" in body
    assert "0 combatants · initiative never rolled" in body


def test_the_list_pages_by_keyset_and_as_an_htmx_fragment(client, player, campaign, gm, monkeypatch):
    monkeypatch.setattr(encounter_views, "PAGE_SIZE", 2)
    made = [ended(campaign, gm, f"Fight {i}") for i in range(1, 6)]
    client.force_login(player)
    first = client.get(list_url(campaign)).content.decode()
    assert [name in first for name in ("Fight 5", "Fight 4", "Fight 3")] == [True, True, False]
    assert f'href="?before={made[3].pk}"' in first
    response = client.get(list_url(campaign), {"before": made[3].pk}, **HX)
    body = response.content.decode()
    assert body.lstrip().startswith('<section id="encounter-list"')
    assert "<html" not in body
    assert [name in body for name in ("Fight 3", "Fight 2", "Fight 4")] == [True, True, False]
    assert "Newest encounters" in body
    last = client.get(list_url(campaign), {"before": made[1].pk}).content.decode()
    assert "Fight 1" in last
    assert "Older encounters" not in last


def test_the_list_when_nothing_has_ended(client, player, campaign):
    client.force_login(player)
    assert "No encounter has ended." in client.get(list_url(campaign)).content.decode()


@pytest.mark.parametrize("before", ["x", "0", "-3", "1" * 20])
def test_a_bad_page_is_a_400(client, player, campaign, bridge, before):
    client.force_login(player)
    assert client.get(list_url(campaign), {"before": before}).status_code == 400


def test_outsiders_and_anonymous_visitors(client, outsider, campaign, bridge):
    assert_login_redirect(client.get(list_url(campaign)))
    assert_login_redirect(client.get(history_url(campaign, bridge)))
    client.force_login(outsider)
    assert client.get(list_url(campaign)).status_code == 404
    assert client.get(history_url(campaign, bridge)).status_code == 404


def test_the_list_is_read_only(client, gm, campaign, bridge):
    client.force_login(gm)
    assert client.post(list_url(campaign)).status_code == 405
    assert client.post(history_url(campaign, bridge)).status_code == 405


def test_how_an_encounter_went(client, player, campaign, bridge):
    client.force_login(player)
    response = client.get(history_url(campaign, bridge))
    assert response.status_code == 200
    body = response.content.decode()
    assert "<h1>The bridge</h1>" in body
    assert "by gm, ended" in body
    assert "in round 1." in body
    # The order as it stood at the end: Brunella, Goblin 2 (moved up, then fled), Goblin 1 (dying).
    roster = body[body.index('id="roster-heading"') : body.index('id="log-heading"')]
    assert roster.index("Brunella") < roster.index("Goblin 2") < roster.index("Goblin 1")
    assert "ended at 26 of 30 hp" in roster  # Brunella, from the log: her sheet may have moved on
    assert "ended at -2 of 10 hp" in roster  # Goblin 1
    assert "Dying" in roster
    assert roster.count("Left the fight") == 1
    log = body[body.index('id="log-heading"') :]
    steps = [
        "Initiative for Brunella.",
        "Initiative for Goblin 1.",
        "Initiative for Goblin 2.",
        "Brunella attacks Goblin 1.",
        "Goblin 1 takes 12: 10 → -2 hit points.",
        "Brunella, a fall: 30 → 26 hit points.",
        "The GM moved Goblin 2 up the initiative order, past Goblin 1, to place 2.",
        "The GM took Goblin 2 out of the fight (fled), at 10 hit points.",
    ]
    positions = [log.index(step) for step in steps]
    assert positions == sorted(positions)  # oldest first
    assert "<code>d6</code>" not in log  # the free roll made meanwhile is not the encounter's
    # Every entry says what was rolled, in the words it was rolled with.
    for label in (
        "Initiative for Brunella",
        "Brunella attacks Goblin 1",
        "Damage to Goblin 1",
        "Hit points of Brunella: a fall",
        "Goblin 2 moves up the initiative order",
        "Goblin 2 leaves the fight",
    ):
        assert f'<span class="roll-label">{label}</span>' in log
    assert "Reveal" not in log


def test_only_this_encounters_steps(client, gm, player, campaign, bridge):
    other = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Later")
    ids = {"campaign_id": campaign.pk, "encounter_id": other.pk}
    encounters.add_npcs(**ids, by=gm, **GOBLIN)
    encounters.roll_initiative(**ids, by=gm, rng=Scripted(4))
    other = encounters.end_encounter(**ids, by=gm)
    client.force_login(player)
    body = client.get(history_url(campaign, other)).content.decode()
    assert body.count('class="roll-entry') == 1
    assert (other.log_after, other.log_until) == (bridge.log_until, bridge.log_until + 1)


def test_an_encounter_from_before_the_log_range_still_reads(client, player, campaign, bridge):
    Encounter.objects.filter(pk=bridge.pk).update(log_after=None, log_until=None)
    client.force_login(player)
    body = client.get(history_url(campaign, bridge)).content.decode()
    assert "The GM took Goblin 2 out of the fight (fled)" in body
    assert "<code>d6</code>" not in body


def test_the_log_range_is_set_when_an_encounter_starts_and_ends(campaign, gm, player):
    rolls.roll_free(campaign_id=campaign.pk, by=player, text="d4", explode=False, secret=False, rng=random.Random(2))
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Quick")
    assert (encounter.log_after, encounter.log_until) == (1, None)
    encounter = encounters.end_encounter(campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm)
    assert encounter.log_until == 1
    assert list(Roll.objects.of_encounter(encounter)) == []


def test_the_running_encounter_goes_to_its_live_page(client, player, campaign, gm):
    running = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Now")
    client.force_login(player)
    response = client.get(history_url(campaign, running))
    assert response.status_code == 302
    assert response["Location"] == reverse("play:encounter", args=[campaign.pk])


def test_another_campaigns_encounter_is_a_404(client, gm, campaign, outsider):
    elsewhere = Campaign.objects.create(name="Elsewhere", system="lucky13")
    Membership.objects.create(campaign=elsewhere, user=outsider, role=Membership.Role.GM)
    theirs = ended(elsewhere, outsider, "Theirs")
    client.force_login(gm)
    assert client.get(history_url(campaign, theirs)).status_code == 404
    assert client.get(reverse("play:encounter-history", args=[campaign.pk, 999999])).status_code == 404


def test_the_encounter_page_and_the_campaign_page_link_to_them(client, player, campaign, gm, bridge):
    client.force_login(player)
    body = client.get(reverse("play:encounter", args=[campaign.pk])).content.decode()
    assert "Ended encounters" in body
    assert history_url(campaign, bridge) in body
    assert list_url(campaign) in body
    assert list_url(campaign) in client.get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()


def test_the_query_counts_do_not_grow_with_the_fight(client, player, campaign, gm, bridge, django_assert_num_queries):
    for i in range(30):
        ended(campaign, gm, f"Skirmish {i}")
    client.force_login(player)
    # The session with its user, campaign, its members, the page of encounters with how many took part.
    with django_assert_num_queries(4):
        assert client.get(list_url(campaign)).status_code == 200
    # The session with its user, campaign, its members, the encounter, its combatants with their characters, its log.
    with django_assert_num_queries(6):
        assert client.get(history_url(campaign, bridge)).status_code == 200
