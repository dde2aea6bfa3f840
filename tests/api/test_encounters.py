"""Encounters through the API: whole small fights in Lucky 13 and D6, a player attacking on their
turn, each role's refusals (players 403 on the GM's part, outsiders 404, an ended fight 409, bad values
400 naming the field, changing nothing), what players must not see, the ended list by key, the
schema, and the page and the API making the same fight from the same dice."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.urls import reverse

from characters.models import Character
from play import encounter_views, encounters
from play.models import Combatant, Encounter, Roll
from rules.systems.d6.chance import opposed_chance
from rules.systems.d6.codes import DieCode
from tests.characters.conftest import make_character
from tests.play.npcs import GOBLIN
from tests.systems.d6.helpers import made

pytestmark = pytest.mark.django_db


def dice(monkeypatch, seed: int) -> None:
    """The API's dice from ``random.Random(seed)``, each time it rolls."""
    monkeypatch.setattr("api.routers.encounters.secrets.SystemRandom", lambda: random.Random(seed))


def running(campaign) -> str:
    return f"/campaigns/{campaign.pk}/encounter"


def at(campaign, encounter_id: int, what: str) -> str:
    return f"/campaigns/{campaign.pk}/encounters/{encounter_id}/{what}"


def by_name(encounter: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in encounter["combatants"]}


@pytest.fixture
def brunella(campaign, player) -> Character:
    return make_character(campaign, player)


@pytest.fixture
def fight(campaign, gm, brunella):
    """A running Lucky 13 fight, initiative rolled: Brunella and a goblin."""
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush at the ford")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    (hero,) = encounters.add_characters(**ids, by=gm, character_ids=[brunella.pk])
    (goblin,) = encounters.add_npcs(**ids, by=gm, **GOBLIN)
    encounters.roll_initiative(**ids, by=gm, rng=random.Random(3))
    encounter.refresh_from_db()
    hero.refresh_from_db()
    goblin.refresh_from_db()
    return encounter, hero, goblin


def her_turn(gm, encounter: Encounter, hero: Combatant) -> None:
    """Pass turns until Brunella acts."""
    for _ in range(3):
        encounter.refresh_from_db()
        if encounter.turn == hero.order:
            return
        encounters.next_turn(campaign_id=encounter.campaign_id, encounter_id=encounter.pk, by=gm)
    raise AssertionError("Brunella never acts")


# --- Whole fights --------------------------------------------------------------------------------


def test_a_lucky13_fight_through_the_api(api, gm, player, campaign, brunella, monkeypatch) -> None:
    gm_api = api(gm)
    assert gm_api.get(running(campaign)).json() is None
    started = gm_api.post(f"/campaigns/{campaign.pk}/encounters", {"name": "Ambush at the ford"})
    assert started.status_code == 201
    eid = started.json()["id"]
    assert started.json()["round"] == 0
    assert not started.json()["initiative_rolled"]

    added = gm_api.post(at(campaign, eid, "characters"), {"characters": [brunella.pk]})
    assert added.status_code == 200
    (hero,) = added.json()["combatants"]
    assert hero["character"] == brunella.pk
    track = hero["vitals"]["tracks"][0]
    assert (track["label"], track["value"], track["maximum"], track["unit"]) == ("Hit points", 30, 30, "hp")
    assert hero["vitals"]["condition"] == "up"
    assert hero["vitals"]["can_act"]
    npcs = gm_api.post(at(campaign, eid, "npcs"), {"name": "Goblin", "count": 2, "stats": GOBLIN["stats"]})
    assert npcs.status_code == 200
    goblins = by_name(npcs.json())
    assert set(goblins) == {"Brunella", "Goblin 1", "Goblin 2"}
    assert goblins["Goblin 1"]["block"]["hit_points"] == 10
    assert goblins["Goblin 1"]["character"] is None

    dice(monkeypatch, 3)
    rolled = gm_api.post(at(campaign, eid, "initiative"), {})
    assert rolled.status_code == 200
    order = rolled.json()
    assert order["round"] == 1
    assert order["initiative_rolled"]
    assert order["acting"] == order["combatants"][0]["id"]
    assert all(c["initiative"] is not None for c in order["combatants"])
    assert Roll.objects.filter(kind="initiative").count() >= 2  # Brunella's, the goblins' one roll

    hero_id, goblin_id = by_name(order)["Brunella"]["id"], by_name(order)["Goblin 1"]["id"]
    before = Roll.objects.count()
    chance = gm_api.post(at(campaign, eid, "attacks/chance"), {"attacker": hero_id, "target": goblin_id})
    assert chance.status_code == 200
    assert chance.json()["chance_of"] == "hit"
    assert Roll.objects.count() == before  # nothing rolled
    attack = gm_api.post(
        at(campaign, eid, "attacks"), {"attacker": hero_id, "target": goblin_id, "choices": chance.json()["choices"]}
    )
    assert attack.status_code == 201
    made_attack = attack.json()
    assert made_attack["chance"] == chance.json()["chance"]
    assert made_attack["rolls"][0]["kind"] == "attack"
    assert made_attack["rolls"][0]["chance"] == chance.json()["chance"]
    assert made_attack["encounter"]["last_attack"]["seq"] == made_attack["rolls"][0]["seq"]
    left = by_name(made_attack["encounter"])["Goblin 1"]["vitals"]["tracks"][0]["value"]
    assert left == 10 - made_attack["damage"]

    down = {"combatant": goblin_id, "amount": -max(left, 1), "reason": "falls in the river"}
    adjusted = gm_api.post(at(campaign, eid, "adjustments"), down)
    assert adjusted.status_code == 200
    assert by_name(adjusted.json())["Goblin 1"]["vitals"]["condition"] == "dying"
    actions = {a["key"]: a for a in adjusted.json()["actions"]}
    assert actions["minute"]["for_everyone"]
    assert actions["stabilize"]["combatants"] == [goblin_id]
    acted = gm_api.post(at(campaign, eid, "actions"), {"action": "stabilize", "combatant": goblin_id})
    assert acted.status_code == 200
    assert acted.json()["changed"] == [goblin_id]
    assert "stabilized" in by_name(acted.json()["encounter"])["Goblin 1"]["vitals"]["conditions"]

    acting = gm_api.post(at(campaign, eid, "next-turn")).json()["acting"]
    assert acting != order["acting"]
    first = order["combatants"][0]["id"]
    moved = gm_api.post(at(campaign, eid, "order"), {"combatant": first, "direction": "down"})
    assert moved.status_code == 200
    assert moved.json()["combatants"][1]["id"] == first
    goblin_2 = by_name(moved.json())["Goblin 2"]["id"]
    removed = gm_api.post(at(campaign, eid, f"combatants/{goblin_2}/remove"), {"reason": "flees"})
    assert removed.status_code == 200
    assert "Goblin 2" not in by_name(removed.json())

    ended = gm_api.post(at(campaign, eid, "end"))
    assert ended.status_code == 200
    assert ended.json()["taking_part"] == 3
    assert ended.json()["ended_at"]
    assert gm_api.get(running(campaign)).json() is None
    listed = gm_api.get(f"/campaigns/{campaign.pk}/encounters").json()
    assert [e["id"] for e in listed["encounters"]] == [eid]
    assert listed["next"] is None
    again = gm_api.post(at(campaign, eid, "next-turn"))
    assert again.status_code == 409
    assert again.json()["code"] == "conflict"


def test_a_d6_fight_through_the_api(client, api, gm, player, d6_campaign, monkeypatch) -> None:
    talia = made(client, d6_campaign, player)
    gm_api = api(gm)
    eid = gm_api.post(f"/campaigns/{d6_campaign.pk}/encounters", {"name": "Mutant Alley"}).json()["id"]
    assert gm_api.post(at(d6_campaign, eid, "characters"), {"characters": [talia.pk]}).status_code == 200
    refused = gm_api.post(at(d6_campaign, eid, "npcs"), {"name": "Mutant", "stats": {"attack": "3d+3",
                                                                                     "initiative": "2d"}})  # fmt: skip
    assert refused.status_code == 400
    assert "three pips make a die" in refused.json()["errors"]["attack"]
    assert Combatant.objects.count() == 1
    stats = {"attack": "3d+1", "defence": "2d+2", "initiative": "2d", "weapon": "Pipe"}
    added = gm_api.post(at(d6_campaign, eid, "npcs"), {"name": "Mutant", "stats": stats})
    assert added.status_code == 200
    mutant = by_name(added.json())["Mutant"]
    assert mutant["block"]["weapon"] == "Pipe"
    assert mutant["vitals"]["condition"] == by_name(added.json())["Talia"]["vitals"]["condition"]

    dice(monkeypatch, 11)
    order = gm_api.post(at(d6_campaign, eid, "initiative"), {"group_rolls": True}).json()
    assert Roll.objects.filter(kind="initiative", system="d6").count() == 2
    talia_id, mutant_id = by_name(order)["Talia"]["id"], by_name(order)["Mutant"]["id"]
    choices = {"against": "react", "uses": 2, "target_uses": 1}
    chance = gm_api.post(at(d6_campaign, eid, "attacks/chance"),
                         {"attacker": talia_id, "target": mutant_id, "choices": choices})  # fmt: skip
    assert chance.status_code == 200
    p = opposed_chance(DieCode.parse("3d+1"), DieCode.parse("1d+2")).p_attacker_wins
    assert chance.json()["chance"] == f"{p.numerator}/{p.denominator}"
    attack = gm_api.post(at(d6_campaign, eid, "attacks"), {"attacker": talia_id, "target": mutant_id,
                                                           "choices": chance.json()["choices"]})  # fmt: skip
    assert attack.status_code == 201
    rolled = Roll.objects.get(kind="attack")
    assert (rolled.system, rolled.chance) == ("d6", f"{p.numerator}/{p.denominator}")
    assert by_name(attack.json()["encounter"])["Mutant"]["block"]["wounds"] == (1 if rolled.outcome["hit"] else 0)
    actions = [a["key"] for a in attack.json()["encounter"]["actions"]]
    assert "round-over" in actions
    # Talia is fired upon: the attack waits for her answer, which her player chooses with each chance shown.
    waits = gm_api.post(at(d6_campaign, eid, "attacks"), {"attacker": mutant_id, "target": talia_id})
    assert waits.status_code == 202, waits.text
    waiting = waits.json()["encounter"]["waiting"]
    assert [a["label"] for a in waiting["answers"]] == [
        "No dodge or parry: the difficulty 10 stands",
        "Dodge 4d",
        "Melee parry 3d",
        "Brawling parry 3d",
    ]
    assert not Roll.objects.filter(kind="attack", spec__attacker="Mutant").exists()
    seen = api(player).get(f"/campaigns/{d6_campaign.pk}/encounter").json()["waiting"]
    assert (seen["decides"], seen["withdraws"]) == (True, False)
    assert api(player).post(at(d6_campaign, eid, "attacks/waiting/withdraw")).status_code == 403
    bad = api(player).post(at(d6_campaign, eid, "attacks/waiting/answer"), {"answer": "number-ish"})
    assert bad.status_code == 400
    dodge = waiting["answers"][1]
    answered = api(player).post(at(d6_campaign, eid, "attacks/waiting/answer"), {"answer": dodge["value"]})
    assert answered.status_code == 201, answered.text
    assert answered.json()["chance"] == dodge["chance"]  # rolled at the chance she chose by
    assert answered.json()["encounter"]["waiting"] is None
    assert api(player).post(at(d6_campaign, eid, "attacks/waiting/answer"), {"answer": "number"}).status_code == 409
    again = gm_api.post(at(d6_campaign, eid, "attacks"), {"attacker": mutant_id, "target": talia_id})
    assert again.status_code == 202
    assert gm_api.post(at(d6_campaign, eid, "attacks/waiting/withdraw")).json()["waiting"] is None
    assert gm_api.post(at(d6_campaign, eid, "actions"), {"action": "round-over"}).status_code == 200
    assert gm_api.post(at(d6_campaign, eid, "end")).json()["taking_part"] == 2


# --- Players -------------------------------------------------------------------------------------


def test_a_player_attacks_with_their_own_character_on_its_turn(api, gm, player, campaign, fight) -> None:
    encounter, hero, goblin = fight
    her_turn(gm, encounter, hero)
    player_api = api(player)
    seen = player_api.get(running(campaign)).json()
    assert seen["attackers"] == [hero.pk]
    assert seen["actions"] == []
    body = {"attacker": hero.pk, "target": goblin.pk}
    chance = player_api.post(at(campaign, encounter.pk, "attacks/chance"), body)
    assert chance.status_code == 200
    attack = player_api.post(at(campaign, encounter.pk, "attacks"), {**body, "choices": chance.json()["choices"]})
    assert attack.status_code == 201
    assert attack.json()["rolls"][0]["by"] == player.username
    assert Roll.objects.filter(kind="attack", by=player).count() == 1


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"secret": True}, 403),  # only the GM attacks in secret
        ({"choices": {"defender_roll": "background"}}, 403),  # the target's side is the GM's call
        ({"swap": True}, 403),  # with the goblin
    ],
)
def test_a_player_may_not_do_the_gms_part_of_an_attack(api, gm, player, campaign, fight, body, status) -> None:
    encounter, hero, goblin = fight
    her_turn(gm, encounter, hero)
    attacker, target = (goblin, hero) if body.get("swap") else (hero, goblin)
    body = {key: value for key, value in body.items() if key != "swap"}
    before = Roll.objects.count()
    response = api(player).post(at(campaign, encounter.pk, "attacks"),
                                {"attacker": attacker.pk, "target": target.pk, **body})  # fmt: skip
    assert response.status_code == status
    assert response.json()["code"] == "forbidden"
    assert Roll.objects.count() == before


def test_a_player_attacking_out_of_turn_is_a_409(api, gm, player, campaign, fight) -> None:
    encounter, hero, goblin = fight
    her_turn(gm, encounter, hero)
    encounters.next_turn(campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm)
    player_api = api(player)
    assert player_api.get(running(campaign)).json()["attackers"] == []
    before = Roll.objects.count()
    for what in ("attacks/chance", "attacks"):
        response = player_api.post(at(campaign, encounter.pk, what), {"attacker": hero.pk, "target": goblin.pk})
        assert response.status_code == 409
        assert "turn" in response.json()["message"]
    assert Roll.objects.count() == before


def test_a_secret_attack_reaches_only_the_gm(api, gm, player, campaign, fight) -> None:
    encounter, hero, goblin = fight
    made_attack = api(gm).post(
        at(campaign, encounter.pk, "attacks"), {"attacker": goblin.pk, "target": hero.pk, "secret": True}
    )
    assert made_attack.status_code == 201
    assert api(gm).get(running(campaign)).json()["last_attack"]["secret"]
    assert api(player).get(running(campaign)).json()["last_attack"] is None


# --- Refusals ------------------------------------------------------------------------------------


def gm_routes(campaign, encounter, hero, goblin) -> list[tuple[str, dict[str, Any] | None]]:
    eid = encounter.pk
    return [
        (f"/campaigns/{campaign.pk}/encounters", {"name": "Another"}),
        (at(campaign, eid, "characters"), {"characters": [hero.character_id]}),
        (at(campaign, eid, "npcs"), {"name": "Goblin", "stats": GOBLIN["stats"]}),
        (at(campaign, eid, "initiative"), {}),
        (at(campaign, eid, "next-turn"), None),
        (at(campaign, eid, "adjustments"), {"combatant": goblin.pk, "amount": -1, "reason": "a fall"}),
        (at(campaign, eid, "actions"), {"action": "minute"}),
        (at(campaign, eid, "order"), {"combatant": goblin.pk, "direction": "up"}),
        (at(campaign, eid, f"combatants/{goblin.pk}/remove"), {"reason": "flees"}),
        (at(campaign, eid, "end"), None),
    ]


def snapshot(encounter: Encounter) -> tuple[Any, ...]:
    encounter.refresh_from_db()
    combatants = list(Combatant.objects.order_by("pk").values_list("pk", "order", "block", "state", "removed"))
    return encounter.round, encounter.turn, encounter.ended_at, combatants, Roll.objects.count()


def test_players_get_403_and_outsiders_404_on_the_gms_part(api, player, other_player, outsider, campaign,
                                                          fight) -> None:  # fmt: skip
    encounter, hero, goblin = fight
    before = snapshot(encounter)
    for user, status, code in ((player, 403, "forbidden"), (other_player, 403, "forbidden"),
                               (outsider, 404, "not_found"), (None, 401, "unauthorized")):  # fmt: skip
        client = api(user)
        for path, body in gm_routes(campaign, encounter, hero, goblin):
            response = client.post(path, body)
            assert (path, response.status_code, response.json()["code"]) == (path, status, code)
    assert snapshot(encounter) == before


def test_outsiders_see_nothing_and_attack_nothing(api, outsider, campaign, fight) -> None:
    encounter, hero, goblin = fight
    client = api(outsider)
    assert client.get(running(campaign)).status_code == 404
    assert client.get(f"/campaigns/{campaign.pk}/encounters").status_code == 404
    for what in ("attacks/chance", "attacks"):
        response = client.post(at(campaign, encounter.pk, what), {"attacker": hero.pk, "target": goblin.pk})
        assert response.status_code == 404
    assert not Roll.objects.filter(kind="attack").exists()


def test_a_fight_that_ended_meanwhile_is_a_409(api, gm, campaign, fight) -> None:
    encounter, hero, goblin = fight
    encounters.end_encounter(campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm)
    before = snapshot(encounter)
    gm_api = api(gm)
    for path, body in gm_routes(campaign, encounter, hero, goblin)[1:]:
        response = gm_api.post(path, body)
        assert (path, response.status_code) == (path, 409)
    for what in ("attacks/chance", "attacks"):
        response = gm_api.post(at(campaign, encounter.pk, what), {"attacker": hero.pk, "target": goblin.pk})
        assert response.status_code == 409
        assert response.json()["message"] == "This encounter has ended."
    assert snapshot(encounter) == before


def test_another_campaigns_encounter_is_a_404(api, gm, campaign, fight, d6_campaign) -> None:
    encounter, _, _goblin = fight
    response = api(gm).post(at(d6_campaign, encounter.pk, "next-turn"))
    assert response.status_code == 404
    response = api(gm).post(at(campaign, encounter.pk, "adjustments"),
                            {"combatant": 10**9, "amount": -1, "reason": "a fall"})  # fmt: skip
    assert response.status_code == 404


def test_only_one_encounter_runs_at_a_time(api, gm, campaign, fight) -> None:
    response = api(gm).post(f"/campaigns/{campaign.pk}/encounters", {"name": "Second"})
    assert response.status_code == 409
    assert Encounter.objects.count() == 1


@pytest.mark.parametrize(
    ("what", "body", "field"),
    [
        ("start", {"name": "   "}, "name"),
        ("characters", {"characters": []}, "characters"),
        ("npcs", {"name": "Goblin", "count": 0, "stats": GOBLIN["stats"]}, "count"),
        ("npcs", {"name": " ", "stats": GOBLIN["stats"]}, "name"),
        ("npcs", {"name": "Goblin", "stats": {**GOBLIN["stats"], "reflex": "d7"}}, "reflex"),
        ("npcs", {"name": "Goblin", "stats": {**GOBLIN["stats"], "hit_points": 999}}, "hit_points"),
        ("npcs", {"name": "Goblin", "stats": {**GOBLIN["stats"], "pulse": "d6\n"}}, "pulse"),
        ("adjustments", {"combatant": "goblin", "amount": 0, "reason": "a fall"}, "amount"),
        ("adjustments", {"combatant": "goblin", "amount": -1001, "reason": "a fall"}, "amount"),
        ("adjustments", {"combatant": "goblin", "amount": -1, "reason": "  "}, "reason"),
        ("actions", {"action": "fly"}, "action"),
        ("actions", {"action": "stabilize"}, "combatant"),
        ("attacks", {"choices": {"wepon": "sword"}}, "wepon"),
        ("attacks", {"choices": {"step_1_name": "Cover", "step_1_steps": 9}}, "step_1_steps"),
        ("attacks/chance", {"choices": {"attacker_roll": "lucky"}}, "attacker_roll"),
    ],
)
def test_bad_values_are_a_400_naming_the_field(api, gm, campaign, fight, what, body, field) -> None:
    encounter, hero, goblin = fight
    if what == "start":
        encounters.end_encounter(campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm)
        path = f"/campaigns/{campaign.pk}/encounters"
    else:
        path = at(campaign, encounter.pk, what)
    if body.get("combatant") == "goblin":
        body = {**body, "combatant": goblin.pk}
    if what.startswith("attacks"):
        body = {"attacker": hero.pk, "target": goblin.pk, **body}
    before = (snapshot(encounter), Encounter.objects.count())
    response = api(gm).post(path, body)
    assert response.status_code == 400, response.json()
    assert field in response.json()["errors"]
    assert response.json()["message"]
    assert (snapshot(encounter), Encounter.objects.count()) == before


def test_a_value_of_the_wrong_shape_is_a_422(api, gm, campaign, fight) -> None:
    encounter, _, goblin = fight
    response = api(gm).post(at(campaign, encounter.pk, "adjustments"),
                            {"combatant": goblin.pk, "amount": "ten", "reason": "a fall"})  # fmt: skip
    assert response.status_code == 422
    assert "amount" in response.json()["errors"]
    response = api(gm).post(at(campaign, encounter.pk, "order"), {"combatant": goblin.pk, "direction": "sideways"})
    assert response.status_code == 422
    assert "direction" in response.json()["errors"]


# --- The ended list ------------------------------------------------------------------------------


def test_the_ended_encounters_page_by_key(api, gm, player, campaign, monkeypatch) -> None:
    monkeypatch.setattr(encounter_views, "PAGE_SIZE", 2)
    ids = []
    for name in ("First", "Second", "Third"):
        started = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name=name)
        encounters.end_encounter(campaign_id=campaign.pk, encounter_id=started.pk, by=gm)
        ids.append(started.pk)
    encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Running")
    client = api(player)
    first = client.get(f"/campaigns/{campaign.pk}/encounters").json()
    assert [e["name"] for e in first["encounters"]] == ["Third", "Second"]
    assert first["next"] == ids[1]
    rest = client.get(f"/campaigns/{campaign.pk}/encounters", data={"before": first["next"]}).json()
    assert [e["name"] for e in rest["encounters"]] == ["First"]
    assert rest["next"] is None
    assert client.get(f"/campaigns/{campaign.pk}/encounters", data={"before": 0}).status_code == 422


# --- The page and the API agree ------------------------------------------------------------------


def made_fight(campaign) -> list[tuple[Any, ...]]:
    """The running fight as it stands: each combatant's name, initiative and place, and every roll of
    its log (kind, label, dice, total, chance)."""
    encounter = Encounter.objects.filter(campaign=campaign).running().get()
    order = list(Combatant.objects.filter(encounter=encounter).order_by("order").values_list("name", "initiative",
                                                                                           "order"))  # fmt: skip
    log = list(Roll.objects.of_encounter(encounter).order_by("seq").values_list("kind", "label", "dice", "total",
                                                                                 "chance"))  # fmt: skip
    return [*order, *log]


def test_the_page_and_the_api_make_the_same_fight_from_the_same_dice(client, api, gm, campaign, brunella,
                                                                     monkeypatch) -> None:  # fmt: skip
    stats = GOBLIN["stats"]
    client.force_login(gm)
    monkeypatch.setattr("play.encounter_views.secrets.SystemRandom", lambda: random.Random(7))
    client.post(reverse("play:encounter-start", args=[campaign.pk]), {"name": "Bridge"})
    client.post(reverse("play:encounter-add-characters", args=[campaign.pk]), {"characters": [brunella.pk]})
    client.post(reverse("play:encounter-add-npcs", args=[campaign.pk]), {"name": "Wolf", "count": "3", **stats})
    client.post(reverse("play:encounter-initiative", args=[campaign.pk]), {"group_rolls": "1"})
    on_the_page = made_fight(campaign)
    page_encounter = Encounter.objects.running().get()
    hero, wolf = (Combatant.objects.get(encounter=page_encounter, name=n) for n in ("Brunella", "Wolf 1"))
    preview = client.get(reverse("play:encounter", args=[campaign.pk]), {"attacker": hero.pk, "target": wolf.pk})
    encounters.end_encounter(campaign_id=campaign.pk, encounter_id=page_encounter.pk, by=gm)

    gm_api = api(gm)
    dice(monkeypatch, 7)
    eid = gm_api.post(f"/campaigns/{campaign.pk}/encounters", {"name": "Bridge"}).json()["id"]
    gm_api.post(at(campaign, eid, "characters"), {"characters": [brunella.pk]})
    gm_api.post(at(campaign, eid, "npcs"), {"name": "Wolf", "count": 3, "stats": stats})
    seen = gm_api.post(at(campaign, eid, "initiative"), {"group_rolls": True}).json()
    through_the_api = made_fight(campaign)

    assert len(on_the_page) > 4  # four combatants, and their rolls
    assert through_the_api == on_the_page
    assert [c["name"] for c in seen["combatants"]] == [row[0] for row in on_the_page[:4]]
    # What the page shows of each, the API gives: its vitals in the system's words.
    page = client.get(reverse("play:encounter", args=[campaign.pk])).text
    for combatant in seen["combatants"]:
        track = combatant["vitals"]["tracks"][0]
        assert f"{track['value']} of {track['maximum']} {track['unit']}" in page
    names = by_name(seen)
    chance = gm_api.post(at(campaign, eid, "attacks/chance"),
                         {"attacker": names["Brunella"]["id"], "target": names["Wolf 1"]["id"]})  # fmt: skip
    assert chance.json()["chance"] in preview.text


# --- The schema -----------------------------------------------------------------------------------

COMMON = {"401", "422", "429"}
CHANGES = {"400", "403", "404", "409", "413"}


@pytest.mark.parametrize(
    ("path", "method", "statuses"),
    [
        ("/campaigns/{id}/encounter", "get", {"200", "404"}),
        ("/campaigns/{id}/encounters", "get", {"200", "404"}),
        ("/campaigns/{id}/encounters", "post", {"201", *CHANGES}),
        ("/campaigns/{id}/encounters/{eid}/characters", "post", {"200", *CHANGES}),
        ("/campaigns/{id}/encounters/{eid}/npcs", "post", {"200", *CHANGES}),
        ("/campaigns/{id}/encounters/{eid}/initiative", "post", {"200", *CHANGES}),
        ("/campaigns/{id}/encounters/{eid}/next-turn", "post", {"200", "403", "404", "409"}),
        ("/campaigns/{id}/encounters/{eid}/attacks/chance", "post", {"200", *CHANGES}),
        ("/campaigns/{id}/encounters/{eid}/attacks", "post", {"201", "202", *CHANGES}),
        ("/campaigns/{id}/encounters/{eid}/attacks/waiting/answer", "post", {"201", *CHANGES}),
        ("/campaigns/{id}/encounters/{eid}/attacks/waiting/withdraw", "post", {"200", "403", "404", "409"}),
        ("/campaigns/{id}/encounters/{eid}/adjustments", "post", {"200", *CHANGES}),
        ("/campaigns/{id}/encounters/{eid}/actions", "post", {"200", *CHANGES}),
        ("/campaigns/{id}/encounters/{eid}/order", "post", {"200", *CHANGES}),
        ("/campaigns/{id}/encounters/{eid}/combatants/{cid}/remove", "post", {"200", *CHANGES}),
        ("/campaigns/{id}/encounters/{eid}/end", "post", {"200", "403", "404", "409"}),
    ],
)
def test_the_schema_documents_every_status_of_the_encounter_endpoints(client, path, method, statuses) -> None:
    operation = client.get("/api/v1/openapi.json").json()["paths"]["/api/v1" + path][method]
    assert set(operation["responses"]) == statuses | COMMON
    assert operation["tags"] == ["Encounters"]


def test_the_schema_says_the_running_encounter_may_be_null(client) -> None:
    schemas = client.get("/api/v1/openapi.json").json()
    ok = schemas["paths"]["/api/v1/campaigns/{id}/encounter"]["get"]["responses"]["200"]["content"]["application/json"]
    assert {"type": "null"} in ok["schema"]["anyOf"]
    combatant = schemas["components"]["schemas"]["CombatantOut"]["properties"]
    assert {"vitals", "block", "initiative", "acting"} <= set(combatant)
