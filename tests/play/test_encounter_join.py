"""Joining a fight under way ("Initiative"): a character or NPCs added after initiative roll theirs
then and take the place it earns in the order as it stands; the turn stays with whoever acts, so a
newcomer placed after them acts later in this round and one placed before them from the next round.
The operations, the join step on the page (GM only; bad input beside its form) and the live order."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.operations import Refused
from characters.models import Character
from play import encounters
from play.models import Combatant, Encounter, Roll
from tests.characters.conftest import make_character
from tests.play.npcs import GOBLIN, npc
from tests.play.test_encounter_operations import Scripted, ids

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def encounter(campaign, gm) -> Encounter:
    return encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush at the ford")


@pytest.fixture
def brunella(campaign, player) -> Character:
    # Reflex d10, Fighting d10, Longsword d8/d8, Leather d4, d8 Pulse, 30 hp.
    return make_character(campaign, player)


@pytest.fixture
def fight(campaign, gm, encounter, brunella):
    """Brunella (7 on her d10) then a goblin (2 on its d6); Brunella acts."""
    (hero,) = encounters.add_characters(**ids(campaign, encounter), by=gm, character_ids=[brunella.pk])
    (goblin,) = encounters.add_npcs(**ids(campaign, encounter), by=gm, **GOBLIN)
    encounters.roll_initiative(**ids(campaign, encounter), by=gm, rng=Scripted(7, 2))
    return hero, goblin


def order_of(encounter: Encounter) -> list[str]:
    return list(encounter.combatants.filter(removed=False).order_by("order").values_list("name", flat=True))


def acting(encounter: Encounter) -> str:
    encounter.refresh_from_db()
    return encounter.combatants.get(order=encounter.turn).name


def test_a_newcomer_placed_after_the_one_acting_acts_later_this_round(campaign, gm, encounter, fight):
    # An orc (Reflex d8) rolls 5: after Brunella (7), before the goblin (2).
    (orc,) = encounters.add_npcs(**ids(campaign, encounter), by=gm, **npc("Orc", 4, 3, 3, 4, 2, 4), rng=Scripted(5))
    assert order_of(encounter) == ["Brunella", "Orc", "Goblin"]
    orc.refresh_from_db()
    assert (orc.initiative, orc.order) == (5, 1)
    assert acting(encounter) == "Brunella"
    encounters.next_turn(**ids(campaign, encounter), by=gm)
    assert acting(encounter) == "Orc"
    assert encounter.round == 1
    roll = Roll.objects.filter(kind="initiative").order_by("-seq").first()
    assert (roll.label, roll.total, roll.spec["for"]) == ("Initiative for Orc", 5, ["Orc"])
    assert roll.spec["encounter"] == encounter.pk


def test_a_newcomer_placed_before_the_one_acting_acts_from_the_next_round(campaign, gm, encounter, fight):
    encounters.next_turn(**ids(campaign, encounter), by=gm)
    assert acting(encounter) == "Goblin"
    # A wolf (Reflex d10) rolls 9: first in the order, but the goblin keeps its turn.
    encounters.add_npcs(**ids(campaign, encounter), by=gm, **npc("Wolf", 5, 2, 2, 2, 0, 2), rng=Scripted(9))
    assert order_of(encounter) == ["Wolf", "Brunella", "Goblin"]
    assert acting(encounter) == "Goblin"
    assert encounter.turn == 2
    encounters.next_turn(**ids(campaign, encounter), by=gm)
    assert acting(encounter) == "Wolf"
    assert encounter.round == 2


def test_a_character_joins_with_its_own_roll_logged_for_it(campaign, gm, player, encounter, fight):
    casimir = make_character(campaign, player, name="Casimir")
    (joined,) = encounters.add_characters(
        **ids(campaign, encounter), by=gm, character_ids=[casimir.pk], rng=Scripted(1)
    )
    assert order_of(encounter) == ["Brunella", "Goblin", "Casimir"]  # 1 on a d10: last
    roll = Roll.objects.filter(kind="initiative").order_by("-seq").first()
    assert (roll.character_id, roll.total) == (casimir.pk, 1)
    assert joined.block["combat"] == "d10"  # Fighting, the Fantasy list's skill that fights


def test_identical_npcs_join_with_one_roll_and_a_roll_off_among_them(campaign, gm, encounter, fight):
    # One roll of 4 for the three rats (d6); tied among themselves: they roll off 3, 1, 2.
    rats = encounters.add_npcs(
        **ids(campaign, encounter), by=gm, **npc("Rat", 2, 1, 1, 1, 0, 1), count=3, rng=Scripted(4, 3, 1, 2)
    )
    assert order_of(encounter) == ["Brunella", "Rat 1", "Rat 3", "Rat 2", "Goblin"]
    assert {r.group for r in rats} == {2}
    rolls = list(Roll.objects.filter(kind="initiative").order_by("-seq")[:4])
    assert rolls[-1].spec["for"] == ["Rat 1", "Rat 2", "Rat 3"]
    assert [r.outcome["place"] for r in rolls[:3]] == [4, 3, 2]  # each roll-off says the place it gave


def test_a_tie_with_someone_in_the_order_is_settled_by_reflex_then_a_roll_off(campaign, gm, encounter, fight):
    # A second goblin rolls 2, as the first did, on the same d6: a roll-off, 3 against 5: it goes after.
    encounters.add_npcs(**ids(campaign, encounter), by=gm, **npc("Sneak", 2, 1, 1, 1, 0, 1), rng=Scripted(2, 3, 5))
    assert order_of(encounter) == ["Brunella", "Goblin", "Sneak"]
    rolloff = Roll.objects.filter(kind="initiative").order_by("-seq").first()
    assert rolloff.label == "Initiative roll-off for Sneak against Goblin"
    assert rolloff.outcome == {"roll_offs": [3], "against_roll_offs": [5], "ahead": False, "place": 3}
    # A 2 on a d8 beats a 2 on the goblin's d6 without a roll-off.
    encounters.add_npcs(**ids(campaign, encounter), by=gm, **npc("Scout", 3, 1, 1, 1, 0, 1), rng=Scripted(2))
    assert order_of(encounter) == ["Brunella", "Scout", "Goblin", "Sneak"]


def test_places_stay_unique_and_those_who_left_keep_theirs(campaign, gm, encounter, fight):
    _, goblin = fight
    encounters.remove_combatant(**ids(campaign, encounter), by=gm, combatant_id=goblin.pk)
    encounters.add_npcs(**ids(campaign, encounter), by=gm, **npc("Orc", 4, 3, 3, 4, 2, 4), rng=Scripted(1))
    places = list(encounter.combatants.order_by("order").values_list("name", "order", "removed"))
    assert places == [("Brunella", 0, False), ("Goblin", 1, True), ("Orc", 2, False)]
    assert order_of(encounter) == ["Brunella", "Orc"]


def test_a_join_past_the_room_changes_nothing(campaign, gm, encounter, fight, monkeypatch):
    monkeypatch.setattr(encounters, "MAX_COMBATANTS", 3)
    before = Roll.objects.count()
    with pytest.raises(Refused):
        encounters.add_npcs(**ids(campaign, encounter), by=gm, **GOBLIN, count=2, rng=Scripted(3, 3))
    assert Combatant.objects.count() == 2
    assert Roll.objects.count() == before


# --- The join step on the page -----------------------------------------------------------------------


def url(name, campaign):
    return reverse(f"play:{name}", args=[campaign.pk])


def test_the_gm_opens_the_join_step_and_an_npc_joins_through_it(client, gm, campaign, encounter, fight):
    client.force_login(gm)
    page = client.get(url("encounter", campaign)).content.decode()
    assert f'href="{url("encounter-join", campaign)}"' in page
    assert "Someone joins the fight…" in page
    step = client.get(url("encounter-join", campaign))
    assert step.status_code == 200
    body = step.content.decode()
    assert "<html" in body
    assert "Each rolls initiative as they join" in body
    assert 'name="characters"' not in body  # Brunella is in the fight already: nobody left to add
    fragment = client.get(url("encounter-join", campaign), **HX).content.decode()
    assert fragment.lstrip().startswith('<div id="encounter-body"')
    fields = {"name": "Wolf", "count": "2", "reflex": "d8", "combat": "d6", "accuracy": "", "damage": "d6",
              "armor": "", "pulse": "d6", "hit_points": ""}  # fmt: skip
    response = client.post(url("encounter-add-npcs", campaign), fields, **HX)
    assert response.status_code == 200
    body = response.content.decode()
    assert "Initiative order" in body
    assert body.count('aria-current="true"') == 1
    assert {"Wolf 1", "Wolf 2"} <= set(order_of(encounter))
    assert Combatant.objects.filter(name__startswith="Wolf", initiative__isnull=False).count() == 2


def test_a_character_joins_through_the_step(client, gm, player, campaign, encounter, fight):
    casimir = make_character(campaign, player, name="Casimir")
    client.force_login(gm)
    assert f'name="characters" value="{casimir.pk}"' in client.get(url("encounter-join", campaign)).content.decode()
    response = client.post(url("encounter-add-characters", campaign), {"characters": [casimir.pk]})
    assert response.status_code == 302
    assert "Casimir" in order_of(encounter)


def test_bad_input_in_the_join_step_comes_back_beside_its_form(client, gm, campaign, encounter, fight):
    client.force_login(gm)
    before = Roll.objects.count()
    fields = {"name": "Wolf", "count": "2", "reflex": "d7", "combat": "", "accuracy": "", "damage": "d6",
              "armor": "", "pulse": "d6", "hit_points": "9"}  # fmt: skip
    response = client.post(url("encounter-add-npcs", campaign), fields, **HX)
    assert response.status_code == 400
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="encounter-body"')
    assert "Someone joins the fight" in body  # the join step, not a bare refusal
    assert '<div class="refusal" role="alert" id="refusal-add-npcs">' in body
    assert "Nothing was changed" in body
    # What was typed is kept.
    assert 'id="npc-name" name="name" required maxlength="100" value="Wolf"' in body
    assert 'value="9"' in body
    assert Roll.objects.count() == before
    assert Combatant.objects.count() == 2
    # Without JavaScript: the same step, as a whole page, at the same status.
    page = client.post(url("encounter-add-npcs", campaign), fields)
    assert page.status_code == 400
    assert "<html" in page.content.decode()
    assert "refusal-add-npcs" in page.content.decode()


def test_a_bad_search_in_the_join_step_is_a_400_beside_the_search(client, gm, campaign, encounter, fight):
    client.force_login(gm)
    response = client.get(url("encounter-join", campaign), {"add_name": "x" * 121})
    assert response.status_code == 400
    assert 'id="refusal-find"' in response.content.decode()


def test_before_initiative_the_join_step_is_the_encounter_page(client, gm, campaign, encounter):
    client.force_login(gm)
    response = client.get(url("encounter-join", campaign))
    assert response.status_code == 302
    assert response["Location"] == url("encounter", campaign)


@pytest.mark.parametrize(("who", "status"), [("player", 403), ("other_player", 403), ("outsider", 404)])
def test_only_the_gm_opens_the_join_step(client, request, campaign, encounter, fight, who, status):
    client.force_login(request.getfixturevalue(who))
    assert client.get(url("encounter-join", campaign)).status_code == status


def test_the_join_step_costs_the_same_with_more_in_the_fight(
    client, gm, campaign, encounter, fight, django_assert_num_queries
):
    _, goblin = fight
    Combatant.objects.bulk_create(
        Combatant(encounter=encounter, name=f"Rat {i}", block=goblin.block, group=9) for i in range(10)
    )
    client.force_login(gm)
    # The session with its user, the campaign, its members, the running encounter, who is in the fight, the
    # characters not yet in it.
    with django_assert_num_queries(6):
        assert client.get(url("encounter-join", campaign)).status_code == 200


# --- The live order ------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_join_reaches_every_dashboard_as_the_new_order(campaign, gm, player) -> None:
    from channels.db import database_sync_to_async

    from tests.play.test_live import joined, run

    hero = make_character(campaign, player)
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush")
    encounters.add_characters(**ids(campaign, encounter), by=gm, character_ids=[hero.pk])
    encounters.roll_initiative(**ids(campaign, encounter), by=gm, rng=Scripted(7))

    def join() -> None:
        encounters.add_npcs(**ids(campaign, encounter), by=gm, **npc("Orc", 4, 3, 3, 4, 2, 4), rng=Scripted(9))

    async def scenario() -> None:
        sockets = [await joined(campaign, gm), await joined(campaign, player)]
        await database_sync_to_async(join)()
        htmls = []
        for socket in sockets:
            message = await socket.receive_json_from(timeout=2)
            while message["type"] == "roll":  # the orc's initiative roll reaches the feed first
                message = await socket.receive_json_from(timeout=2)
            assert (message["type"], message["id"]) == ("fragment", "initiative")
            htmls.append(message["html"])
        assert htmls[0] == htmls[1]
        order = htmls[0]
        listed = order[order.index('<ol class="initiative">') :]
        assert listed.index("Orc") < listed.index("Brunella")  # a 9 before her 7
        assert order.count('aria-current="true"') == 1
        assert "<strong>Brunella</strong> acts" in order  # she keeps the turn; the orc acts next round
        for socket in sockets:
            assert await socket.receive_nothing(timeout=0.1)
            await socket.disconnect()

    run(scenario)
