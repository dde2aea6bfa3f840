"""A D6 fight through the generic encounter pages: D6's NPC form and stat blocks, initiative from the
initiative stat, an attack against the target's dodge (a reaction counted as one more use) or a range
band's number with its exact chance, and a hit costing a wound level; an incapacitated fighter is
skipped and cannot attack."""

from __future__ import annotations

import random

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign
from characters.models import Character
from play.models import Combatant, Roll
from rules.systems import get
from rules.systems.base import CombatRefused, Fighter
from rules.systems.d6.chance import opposed_chance, p_at_least
from rules.systems.d6.codes import DieCode
from tests.systems.d6.helpers import made

pytestmark = pytest.mark.django_db
C = DieCode.parse


def url(name: str, campaign: Campaign) -> str:
    return reverse(f"play:{name}", args=[campaign.pk])


def test_a_d6_encounter_through_the_pages(client, monkeypatch, gm, player, d6_campaign) -> None:
    talia = made(client, d6_campaign, player)  # Firearms 4d+1 (her best attack), Dodge 4d, Perception 3d
    client.force_login(gm)
    assert client.post(url("encounter-start", d6_campaign), {"name": "Mutant Alley"}).status_code == 302
    page = client.get(url("encounter", d6_campaign)).text
    assert 'name="defence"' in page  # D6's own NPC form
    assert client.post(url("encounter-add-characters", d6_campaign), {"characters": talia.pk}).status_code == 302
    refused = client.post(url("encounter-add-npcs", d6_campaign), {"name": "Mutant", "count": 1, "attack": "3d+3",
                                                                   "initiative": "2d"})  # fmt: skip
    assert refused.status_code == 400
    assert "three pips make a die" in refused.text
    assert 'value="3d+3"' in refused.text  # kept as typed
    added = client.post(url("encounter-add-npcs", d6_campaign), {"name": "Mutant", "count": 2, "attack": "3d+1",
                                                                 "defence": "2d+2", "initiative": "2d",
                                                                 "weapon": "Pipe"})  # fmt: skip
    assert added.status_code == 302
    assert Combatant.objects.get(name="Talia").block == {
        "schema_version": 1, "attack": "4d+1", "defence": "4d", "initiative": "3d", "weapon": "Firearms",
        "wounds": None, "stunned": False, "ranged": True,
    }  # fmt: skip
    assert client.post(url("encounter-initiative", d6_campaign), {"group_rolls": "1"}).status_code == 302
    assert Roll.objects.filter(kind="initiative", system="d6").count() == 2

    talia_c, mutant = Combatant.objects.get(name="Talia"), Combatant.objects.get(name="Mutant 1")
    query = {"attacker": talia_c.pk, "target": mutant.pk, "against": "react", "uses": "2", "target_uses": "1"}
    preview = client.get(url("encounter", d6_campaign), query)
    assert preview.status_code == 200
    p = opposed_chance(C("3d+1"), C("1d+2")).p_attacker_wins  # two uses: −1d; the mutant's dodge one more: −1d
    assert f"{p.numerator}/{p.denominator}" in preview.text
    monkeypatch.setattr("play.encounter_views.secrets.SystemRandom", lambda: random.Random(11))
    assert client.post(url("encounter-attack", d6_campaign), query).status_code == 302
    attack = Roll.objects.get(kind="attack")
    assert (attack.system, attack.chance, attack.chance_of) == ("d6", f"{p.numerator}/{p.denominator}", "hit")
    mutant.refresh_from_db()
    assert mutant.block["wounds"] == (1 if attack.outcome["hit"] else 0)


def test_the_attack_form_offers_only_attack_skills(client, gm, player, d6_campaign) -> None:
    talia = made(client, d6_campaign, player)
    client.force_login(gm)
    client.post(url("encounter-start", d6_campaign), {"name": "Mutant Alley"})
    client.post(url("encounter-add-characters", d6_campaign), {"characters": talia.pk})
    client.post(url("encounter-add-npcs", d6_campaign), {"name": "Mutant", "count": 1, "attack": "3d",
                                                         "initiative": "2d"})  # fmt: skip
    client.post(url("encounter-initiative", d6_campaign), {"group_rolls": "1"})
    page = client.get(url("encounter", d6_campaign)).text
    assert "Talia: Firearms 4d+1" in page
    assert "Talia: Brawling 3d" in page
    for other in ("Languages", "Computers", "Climbing", "Dodge"):
        assert f"Talia: {other}" not in page
    talia_c, mutant = Combatant.objects.get(name="Talia"), Combatant.objects.get(name__startswith="Mutant")
    languages = next(s.id for s in talia.document.skills if s.name == "Languages")
    refused = client.post(url("encounter-attack", d6_campaign), {"attacker": talia_c.pk, "target": mutant.pk,
                                                                 "skill": f"{talia.pk}:{languages}"})  # fmt: skip
    assert refused.status_code == 400
    assert not Roll.objects.filter(kind="attack").exists()


def fighters(campaign, character: Character) -> tuple[Fighter, Fighter]:
    combat = get("d6").combat
    hero = Fighter(1, character.name, combat.joins(character.document, campaign.settings), character.document, {}, 7)
    npc = Fighter(2, "Mutant", combat.npc({"attack": "3d", "initiative": "2d"}, campaign.settings))
    return hero, npc


def test_an_attack_against_a_range_band_number_and_wounds_to_incapacitated(client, d6_campaign, player) -> None:
    combat = get("d6").combat
    talia = made(client, d6_campaign, player)
    hero, npc = fighters(d6_campaign, talia)
    plan = combat.plan_attack(hero, npc, {}, d6_campaign.settings)  # the mutant cannot dodge: 10 by default
    assert plan.chance == p_at_least(C("4d+1"), 10)
    short = combat.plan_attack(hero, npc, {"against": "number", "difficulty": "8"}, d6_campaign.settings)
    assert short.chance == p_at_least(C("4d+1"), 8)
    hurt = combat.harm(npc, -2, d6_campaign.settings)
    assert hurt.outcome == {"before": 3, "after": 1, "was": "unhurt", "condition": "incapacitated"}
    down = Fighter(2, "Mutant", hurt.block)
    assert not combat.vitals(down, d6_campaign.settings).can_act
    with pytest.raises(CombatRefused, match="incapacitated"):
        combat.plan_attack(down, hero, {}, d6_campaign.settings)
    wounded = combat.harm(hero, -1, d6_campaign.settings)
    assert wounded.sheet.wounds == 1
    hurt_hero = Fighter(1, "Talia", hero.block, wounded.sheet, {}, 7)
    assert combat.plan_attack(hurt_hero, npc, {}, d6_campaign.settings).details["code"] == "3d+1"  # −1d wounded


def test_initiative_rolls_the_initiative_stat_and_orders_by_total(client, d6_campaign, player) -> None:
    combat = get("d6").combat
    talia = made(client, d6_campaign, player)
    hero, npc = fighters(d6_campaign, talia)
    rolled = combat.initiative([[hero], [npc]], d6_campaign.settings, random.Random(3))
    assert sorted(rolled.order) == [1, 2]
    assert rolled.values[rolled.order[0]] >= rolled.values[rolled.order[1]]
    assert [entry.spec["code"] for entry in rolled.logged] == ["3d", "2d"]  # Perception 3d; the mutant's 2d


def test_the_gm_ends_the_round_for_everyone_in_a_fight(client, gm, player, d6_campaign) -> None:
    """A luck point's doubling lasts the round: the GM's "The round is over" ends every character's kept round."""
    from play import encounters
    from play.models import Encounter
    from rules.systems.d6 import round_state

    talia = made(client, d6_campaign, player)
    firearms = next(s.id for s in talia.document.skills if s.name == "Firearms")
    client.post(reverse("play:move", args=[talia.pk, "spend-luck"]), {"version": "0", "kind": "double"})
    talia.refresh_from_db()
    declaration = {"action": "declare", "version": str(talia.version), "action-0-item": firearms,
                   "action-0-difficulty": "8"}  # fmt: skip
    declared = client.post(reverse("d6:round", args=[talia.pk]), declaration)
    assert declared.status_code == 302
    talia.refresh_from_db()
    assert talia.document.round.declared
    assert round_state.doubled_now(talia.document)
    client.force_login(gm)
    client.post(url("encounter-start", d6_campaign), {"name": "Mutant Alley"})
    client.post(url("encounter-add-characters", d6_campaign), {"characters": talia.pk})
    client.post(url("encounter-add-npcs", d6_campaign), {"name": "Mutant", "count": 1, "attack": "3d+1",
                                                         "defence": "2d+2", "initiative": "2d"})  # fmt: skip
    encounter = Encounter.objects.get(campaign=d6_campaign)
    page = client.get(url("encounter", d6_campaign)).text
    assert "The round is over" in page
    changed = encounters.act(campaign_id=d6_campaign.pk, encounter_id=encounter.pk, by=gm, action="round-over")
    assert [c.name for c in changed] == ["Talia"]  # the mutant keeps no round
    talia.refresh_from_db()
    assert talia.document.round is None
    assert not round_state.doubled_now(talia.document)
    assert talia.document.luck_points == 0  # spent: it comes back at the adventure’s end if the GM judges it heroic


def test_jericho_fires_three_times_dodges_and_the_fight_keeps_his_one_round(client, monkeypatch, gm, player,
                                                                            d6_campaign) -> None:  # fmt: skip
    """The rules text's example (and the README, "The round is one"), played through a fight: Jericho (a
    blaster of 4d+2, a dodge of 4d) declares three shots; they go at 2d+2. He fires once, is fired upon and
    dodges: four uses, the dodge at 1d; his last two shots at 1d+2. Every use is recorded in his round, which
    the round's page and the roll page then see; the target's own dodge is a use of the target's round."""
    from characters import write
    from rules.systems.d6 import round_state

    jericho = made(client, d6_campaign, player)
    ids = {s.name: s.id for s in jericho.document.skills}
    codes = {str(ids["Firearms"]): "4d+2", str(ids["Dodge"]): "4d"}
    sheet = jericho.document
    sheet = sheet.model_copy(
        update={
            "skills": tuple(
                s.model_copy(update={"code": codes[str(s.id)]}) if str(s.id) in codes else s for s in sheet.skills
            )
        }
    )
    jericho = write.write(write.lock(jericho.pk), sheet, by=gm, what="Jericho's blaster", sections=["codes"])
    client.force_login(gm)
    client.post(url("encounter-start", d6_campaign), {"name": "Ancients' ruins"})
    client.post(url("encounter-add-characters", d6_campaign), {"characters": jericho.pk})
    client.post(url("encounter-add-npcs", d6_campaign), {"name": "Mutant", "count": 1, "attack": "3d",
                                                         "defence": "3d", "initiative": "2d"})  # fmt: skip
    client.post(url("encounter-initiative", d6_campaign), {"group_rolls": "1"})
    me, mutant = Combatant.objects.get(name=jericho.name), Combatant.objects.get(name="Mutant")
    monkeypatch.setattr("play.encounter_views.secrets.SystemRandom", lambda: random.Random(5))
    blaster = f"{jericho.pk}:{ids['Firearms']}"

    def attack(**query):
        response = client.post(url("encounter-attack", d6_campaign), query)
        assert response.status_code == 302, response.content.decode()[:2000]
        return Roll.objects.filter(kind="attack").order_by("-seq").first()

    first = attack(attacker=me.pk, target=mutant.pk, skill=blaster, uses="3", against="number", difficulty="10")
    assert (first.spec["code"], first.chance) == ("2d+2", str(p_at_least(C("2d+2"), 10)))
    # The mutant fires on him: the attack waits for Jericho's player, who sees each answer's chance first.
    waits = client.post(url("encounter-attack", d6_campaign), {"attacker": mutant.pk, "target": me.pk,
                                                               "difficulty": "10"})  # fmt: skip
    assert waits.status_code == 302
    assert not Roll.objects.filter(kind="attack", spec__attacker="Mutant").exists()
    refused = client.post(url("encounter-attack", d6_campaign), {"attacker": me.pk, "target": mutant.pk})
    assert refused.status_code == 409
    assert "waits for" in refused.content.decode()
    player_client = Client()
    player_client.force_login(player)
    choosing = player_client.get(url("encounter", d6_campaign)).content.decode()
    assert "is attacked: choose how to answer" in choosing
    mutant.refresh_from_db()
    fires = C("2d" if mutant.block["wounds"] else "3d")  # wounded by the first shot or not
    dodge_at_1d = opposed_chance(fires, C("1d")).p_attacker_wins
    assert f"exactly {dodge_at_1d.numerator}/{dodge_at_1d.denominator}" in choosing
    stands = p_at_least(fires, 10)
    assert f"exactly {stands.numerator}/{stands.denominator}" in choosing
    gms_page = client.get(url("encounter", d6_campaign)).content.decode()
    assert "is attacked: choose how to answer" in gms_page  # the GM may answer for anyone
    assert "Withdraw the attack" in gms_page
    assert "Withdraw the attack" not in choosing  # the attack is the GM's, not the defender's, to withdraw
    wrong = player_client.post(url("encounter-defend", d6_campaign), {"answer": "nonsense"})
    assert wrong.status_code == 400
    answered = player_client.post(url("encounter-defend", d6_campaign), {"answer": f"{jericho.pk}:{ids['Dodge']}"})
    assert answered.status_code == 302
    dodged = Roll.objects.filter(kind="attack").latest("seq")
    assert dodged.spec["defence"] == "1d"  # "now he's using four skills this round … 1d for Dodge"
    assert (dodged.by_id, dodged.chance) == (gm.pk, str(dodge_at_1d))  # the attacker's roll, its chance first
    second = attack(attacker=me.pk, target=mutant.pk, skill=blaster, against="number", difficulty="10")
    assert second.spec["code"] == "1d+2"  # "his last two blaster shots are at 1d+2"
    jericho.refresh_from_db()
    steps = jericho.document.round.steps
    assert [(s.what, s.roll) for s in steps] == [("attempt", first.seq), ("reaction", dodged.seq),
                                                 ("attempt", second.seq)]  # fmt: skip
    plan = round_state.plan_of(jericho.document, d6_campaign.settings)
    assert [str(u.code) for u in plan.uses] == ["2d+2", "1d", "1d+2", "1d+2"]
    # The roll page rolls the last declared shot, at the same code, and records it in the same round.
    page = client.get(reverse("play:sheet-roll", args=[jericho.pk]), {"item": ids["Firearms"], "difficulty": 10})
    assert "1d+2 against" in page.text
    assert 'name="actions"' not in page.text  # the declared round sets the uses
    # The mutant's dodge answers his next shot: the NPC's reaction on top of the uses the GM gives.
    preview = client.get(url("encounter", d6_campaign), {"attacker": me.pk, "target": mutant.pk, "skill": blaster,
                                                          "against": "react", "difficulty": "10"})  # fmt: skip
    mutant.refresh_from_db()
    p = opposed_chance(C("1d+2"), C("2d" if mutant.block["wounds"] else "3d")).p_attacker_wins
    assert f"{p.numerator}/{p.denominator}" in preview.text
    assert "No dodge or parry: the difficulty 10 stands" in preview.text  # both chances, before the roll


def test_aiming_in_a_fight_gives_one_attack_next_round_its_die_once(client, monkeypatch, gm, player,
                                                                   d6_campaign) -> None:  # fmt: skip
    """Rules text, "game time": "You do nothing at all during one round and in the next, you make your skill roll,
    but get to add 1d"; the README: "Aiming (preparing) gives +1d to one roll of the prepared skill in the next
    round, once". Running in a fight costs every use of the round a die."""
    talia = made(client, d6_campaign, player)  # Firearms 4d+1
    client.force_login(gm)
    client.post(url("encounter-start", d6_campaign), {"name": "Mutant Alley"})
    client.post(url("encounter-add-characters", d6_campaign), {"characters": talia.pk})
    client.post(url("encounter-add-npcs", d6_campaign), {"name": "Mutant", "count": 1, "attack": "3d",
                                                         "initiative": "2d", "ranged": "on"})  # fmt: skip
    client.post(url("encounter-initiative", d6_campaign), {"group_rolls": "1"})
    me, mutant = Combatant.objects.get(name="Talia"), Combatant.objects.get(name="Mutant")
    assert mutant.block["ranged"] is True
    monkeypatch.setattr("play.encounter_views.secrets.SystemRandom", lambda: random.Random(2))
    refused = client.post(url("encounter-act", d6_campaign), {"action": "aim", "combatant": mutant.pk})
    assert refused.status_code == 409
    assert client.post(url("encounter-act", d6_campaign), {"action": "aim", "combatant": me.pk}).status_code == 302
    talia.refresh_from_db()
    firearms = next(s.id for s in talia.document.skills if s.name == "Firearms")
    assert (talia.document.prepared, talia.document.round) == (firearms, None)
    target = {"attacker": me.pk, "target": mutant.pk, "against": "number", "difficulty": "10"}
    assert client.post(url("encounter-attack", d6_campaign), target).status_code == 302
    aimed = Roll.objects.filter(kind="attack").latest("seq")
    assert (aimed.spec["code"], aimed.chance) == ("5d+1", str(p_at_least(C("5d+1"), 10)))
    assert client.post(url("encounter-act", d6_campaign), {"action": "round-over"}).status_code == 302
    talia.refresh_from_db()
    assert talia.document.prepared is None  # spent by the one attack that took it
    running = {**target, "running": "on"}
    assert client.post(url("encounter-attack", d6_campaign), running).status_code == 302
    assert Roll.objects.filter(kind="attack").latest("seq").spec["code"] == "3d+1"  # no aim now; running −1d
