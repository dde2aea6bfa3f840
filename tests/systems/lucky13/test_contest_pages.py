"""Contests outside a fight ("Opposed rolls": "a battle of wills, a test of strength"): a character's
Ability + Skill against another character in play or against dice the GM names, with the exact chance
of each side before the roll, the roll recorded once, bad input refused with nothing rolled."""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse

from play.models import Roll
from rules.systems import get, lucky13
from rules.systems.base import Other, SpecError
from tests.campaigns.helpers import html, text
from tests.characters.conftest import FIGHTING, LONGSWORD_SPEC, TELEPORT, UNCLE_OTTO, brunella_sheet, make_character

pytestmark = pytest.mark.django_db


def url(character) -> str:
    return reverse("lucky13:contest", args=[character.pk])


@pytest.fixture
def otto(campaign, other_player):
    return make_character(campaign, other_player, name="Otto")


def seeded(monkeypatch, seed: int = 4) -> None:
    monkeypatch.setattr("games.lucky13.contest_views.secrets.SystemRandom", lambda: random.Random(seed))


def test_against_a_character_the_page_shows_each_sides_exact_chance(client, brunella, otto, player) -> None:
    client.force_login(player)
    response = client.get(url(brunella), {"skill": FIGHTING, "opponent": otto.pk})
    assert response.status_code == 200
    chance = lucky13.opposed_chance(lucky13.parse_opposed({
        "system": "lucky13", "roll": "opposed", "attacker": ["d10", "d10"], "defender": ["d10", "d10"],
        "weapon_die": "none", "explosion": "cinematic",
    }))  # fmt: skip
    assert chance.p_attacker_wins + chance.p_draw + chance.p_defender_wins == 1
    page = html(response)
    for p in (chance.p_attacker_wins, chance.p_draw, chance.p_defender_wins):
        assert f"{p.numerator}/{p.denominator}" in page
    assert "Reflex + Fighting against Otto (Reflex + Fighting)" in text(response)


def test_a_contest_is_rolled_once_and_the_log_says_who_won(client, monkeypatch, brunella, otto, player) -> None:
    client.force_login(player)
    seeded(monkeypatch)
    response = client.post(url(brunella), {"skill": FIGHTING, "opponent": otto.pk})
    assert response.status_code == 302
    roll = Roll.objects.get()
    assert roll.kind == "opposed"
    assert roll.spec["sheet"]["contest"] is True
    assert roll.spec["sheet"]["opponent"]["name"] == "Otto"
    assert roll.spec["weapon_die"] == "none"
    shown = text(client.get(response["Location"]))
    words = "Wins" if roll.outcome["hit"] else ("A draw" if roll.outcome["margin"] == 0 else "Loses")
    assert words in shown


def test_against_dice_the_gm_names(client, monkeypatch, brunella, gm) -> None:
    client.force_login(gm)
    query = {"skill": FIGHTING, "opponent_dice": "d12 + d8", "opponent_name": "the door guard"}
    response = client.get(url(brunella), query)
    assert response.status_code == 200
    assert "against the door guard (d12 + d8)" in text(response)
    seeded(monkeypatch)
    assert client.post(url(brunella), {**query, "secret": "on"}).status_code == 302
    roll = Roll.objects.get()
    assert roll.spec["defender"] == ["d12", "d8"]
    assert roll.secret  # the GM's contest, in secret


@pytest.mark.parametrize(("query", "message"), [
    ({"opponent_dice": "d7"}, "d7"),
    ({"opponent_dice": "d8 + d6", "opponent": "OTTO"}, "not both"),
    ({}, "name the other side"),
    ({"opponent": "OTTO", "opponent_skill": "Spellcasting", "opponent_dice": ""}, None),
])  # fmt: skip
def test_bad_input_is_refused_by_its_field_and_nothing_is_rolled(client, brunella, otto, player, query,
                                                                 message) -> None:  # fmt: skip
    client.force_login(player)
    query = {key: (otto.pk if value == "OTTO" else value) for key, value in query.items()}
    response = client.post(url(brunella), {"skill": FIGHTING, **query})
    if message is None:  # Otto has Spellcasting: a fine contest
        assert response.status_code == 302
        return
    assert response.status_code == 400
    assert message.lower() in text(response).lower()
    assert not Roll.objects.exists()


def test_the_sheets_link_opens_the_form_and_refuses_nothing_until_it_is_sent(client, brunella, otto, player) -> None:
    client.force_login(player)
    opened = client.get(url(brunella), {"skill": FIGHTING})  # the sheet's Contest link
    assert opened.status_code == 200
    assert "Name the other side" not in text(opened)
    assert "Cannot build this contest" not in text(opened)
    sent = client.get(url(brunella), {"skill": FIGHTING, "opponent": "", "opponent_dice": ""})  # Show the chances
    assert sent.status_code == 400
    assert "Name the other side" in text(sent)
    assert client.get(url(brunella), {"skill": "99"}).status_code == 400  # a bad skill is refused at once


def test_a_dying_opponent_does_not_contest(client, brunella, campaign, other_player, player) -> None:
    dying = make_character(campaign, other_player, name="Dying", hit_points=0)
    client.force_login(player)
    response = client.get(url(brunella), {"skill": FIGHTING, "opponent": dying.pk})
    assert response.status_code == 400
    assert "dying" in text(response)


def test_where_the_gm_calls_the_rolls_a_player_sees_the_odds_only(client, campaign, brunella, otto, player) -> None:
    campaign.players_call_rolls = False
    campaign.save(update_fields=["players_call_rolls"])
    client.force_login(player)
    page = client.get(url(brunella), {"skill": FIGHTING, "opponent": otto.pk})
    assert "the GM calls for rolls" in text(page)
    assert client.post(url(brunella), {"skill": FIGHTING, "opponent": otto.pk}).status_code == 403
    assert not Roll.objects.exists()


def test_the_engine_builds_the_contest_from_both_sheets() -> None:
    system = get("lucky13")
    options = system.validate_options({})
    sheet = system.read_sheet(brunella_sheet())
    wounded = Other("Otto", system.read_sheet(brunella_sheet(hit_points=12)))  # Pulse d8: 11-20 is d6
    made = system.sheet_roll(sheet, {"skill": FIGHTING, "opponent": 7, "opponent_skill": "Sneaking"}, options,
                             lambda pk: wounded if pk == 7 else None)  # fmt: skip
    assert made.kind == "opposed"
    assert made.spec["attacker"] == ["d10", "d10"]
    assert made.spec["defender"] == ["d10", "d8"]  # Otto's Reflex + Sneaking
    with pytest.raises(SpecError, match="not a contest"):
        system.sheet_roll(sheet, {"skill": FIGHTING, "reaction": True, "opponent_dice": ["d6"]}, options)
    with pytest.raises(SpecError, match="another character"):
        system.sheet_roll(sheet, {"skill": FIGHTING, "opponent": 99}, options)


def test_an_asset_steps_the_skill_die_in_a_contest_as_in_a_check() -> None:
    """ "Equipment / assets": "the skill die steps up based on the level of the asset", in a contest too
    (the text's door steps Pulse, an ability; we follow the assets section, as checks do)."""
    system = get("lucky13")
    options = system.validate_options({})
    sheet = system.read_sheet(brunella_sheet())
    plain = system.sheet_roll(sheet, {"skill": FIGHTING, "opponent_dice": ["d10", "d10"]}, options)
    helped = system.sheet_roll(sheet, {"skill": FIGHTING, "asset": UNCLE_OTTO, "opponent_dice": ["d10", "d10"]},
                               options)  # fmt: skip
    assert plain.spec["attacker"] == ["d10", "d10"]
    assert helped.spec["attacker"] == ["d10", "d12+d6"]  # Uncle Otto, level 3: Fighting d10 three steps up
    better = lucky13.opposed_chance(lucky13.parse_opposed(helped.spec)).p_attacker_wins
    assert better > lucky13.opposed_chance(lucky13.parse_opposed(plain.spec)).p_attacker_wins


def orc_in_a_fight(campaign, gm, hit_points: int | None = None):
    """A running encounter with an orc: Reflex d8, Combat d6, Pulse d10 (50 hp unless wounded)."""
    from play import encounters
    from tests.play.npcs import npc

    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="The bridge")
    stats = npc("Orc", 3, 2, 2, 3, 2, 4, hit_points)
    (orc,) = encounters.add_npcs(campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm, **stats)
    return orc


def test_the_gm_opposes_a_contest_with_an_npc_of_the_encounter(client, monkeypatch, brunella, campaign, gm) -> None:
    orc = orc_in_a_fight(campaign, gm)
    client.force_login(gm)
    opened = client.get(url(brunella), {"skill": FIGHTING})
    offered = re.findall(r'<option value="([^"]*)"', html(opened).split('name="opponent_npc"')[1].split("</select>")[0])
    assert offered == ["", f"{orc.pk}:reflex_combat", f"{orc.pk}:reflex", f"{orc.pk}:pulse_combat", f"{orc.pk}:pulse"]
    assert "Orc: Reflex + Combat (d8 + d6)" in text(opened)
    shown = client.get(url(brunella), {"skill": FIGHTING, "opponent_npc": f"{orc.pk}:reflex_combat"})
    assert shown.status_code == 200
    assert "against Orc (d8 + d6)" in text(shown)
    seeded(monkeypatch)
    response = client.post(url(brunella), {"skill": FIGHTING, "opponent_npc": f"{orc.pk}:pulse"})
    assert response.status_code == 302
    roll = Roll.objects.get()
    assert roll.spec["defender"] == ["d10"]
    assert roll.spec["sheet"]["opponent"]["name"] == "Orc"


def test_a_wounded_npc_opposes_with_its_current_pulse_and_a_dying_one_not_at_all() -> None:
    combat = get("lucky13").combat
    options = get("lucky13").validate_options({})
    block = {"reflex": "d8", "combat": None, "pulse": "d10", "hit_points": 15}
    pools = lucky13_pools(combat.read_block(block), options)
    assert pools == {"reflex": ["d8"], "pulse": ["d6"]}  # 15 hp of a d10 Pulse reach d6; no Combat die
    assert lucky13_pools(combat.read_block({**block, "hit_points": 0}), options) == {}


def lucky13_pools(block, options) -> dict[str, list[str]]:
    from rules.systems.lucky13.encounter import contest_pools

    return {key: [die.label for die in dice] for key, _, dice in contest_pools(block, options)}


def test_players_are_not_offered_the_npcs_and_one_side_only(client, brunella, campaign, gm, otto, player) -> None:
    orc = orc_in_a_fight(campaign, gm)
    client.force_login(player)
    page = client.get(url(brunella), {"skill": FIGHTING})
    assert 'name="opponent_npc"' not in html(page)
    refused = client.get(url(brunella), {"skill": FIGHTING, "opponent_npc": f"{orc.pk}:reflex"})
    assert refused.status_code == 400  # a player names no NPC: the other side is missing
    client.force_login(gm)
    both = client.post(url(brunella), {"skill": FIGHTING, "opponent_npc": f"{orc.pk}:reflex", "opponent": otto.pk})
    assert both.status_code == 400
    assert "Name one other side" in text(both)
    stale = client.post(url(brunella), {"skill": FIGHTING, "opponent_npc": "999999:reflex"})
    assert stale.status_code == 400
    assert "999999" in text(stale)  # the refused value is named beside the field
    assert not Roll.objects.exists()


# --- Each side takes what a check takes; who a draw goes to (README, "Contests outside combat") -------


def _sheets():
    system = get("lucky13")
    party = {
        7: Other("Otto", system.read_sheet(brunella_sheet())),
        8: Other("Carl", system.read_sheet(brunella_sheet())),
        9: Other("Dying", system.read_sheet(brunella_sheet(hit_points=-1))),
    }
    return system, system.validate_options({}), system.read_sheet(brunella_sheet()), party.get


def test_the_other_character_rolls_what_a_check_takes() -> None:
    """Otto (Reflex d10, Fighting d10) with a background, Longsword 1, Uncle Otto (level 3), Carl's Reflex
    d10 helping his Reflex (4 steps) and the GM's +1 Ability, −1 Skill: Reflex 5 steps up, Fighting 3."""
    system, options, sheet, others = _sheets()
    situation = {"skill": FIGHTING, "opponent": 7, "opponent_ability_roll": "background",
                 "opponent_specialization": LONGSWORD_SPEC, "opponent_asset": UNCLE_OTTO, "opponent_helper": 8,
                 "opponent_help_with": "ability", "opponent_ability_steps": 1, "opponent_skill_steps": -1}  # fmt: skip
    made = system.sheet_roll(sheet, situation, options, others)
    assert made.spec["defender"] == ["d12+d10", "d12+d6"]
    assert made.spec["defender_roll"] == "background"
    assert made.details["opponent"]["specialization"] == {"id": LONGSWORD_SPEC, "name": "Longsword", "level": 1}
    assert made.details["opponent"]["assist"]["name"] == "Carl"
    assert "against Otto (Reflex + Fighting (Longsword 1))" in made.label
    assert "Otto: Carl helps (d10): Ability +4" in made.steps
    # Brunella's side takes the same: her specialization and a helper.
    ours = system.sheet_roll(sheet, {"skill": FIGHTING, "specialization": LONGSWORD_SPEC, "helper": 8,
                                     "opponent_dice": ["d10", "d10"]}, options, others)  # fmt: skip
    assert ours.spec["attacker"] == ["d10", "d12+d10"]  # Fighting d10: 1 + Carl's Fighting d10 (4) = 5 up


@pytest.mark.parametrize(("changes", "field"), [
    ({"opponent_specialization": TELEPORT}, "opponent_specialization"),  # not of Otto's Fighting
    ({"opponent_asset": 999}, "opponent_asset"),
    ({"opponent_helper": 9}, "opponent_helper"),  # dying: neither acts nor helps
    ({"helper": 7}, "helper"),  # the other side cannot help this one
    ({"helper": 8, "opponent_helper": 8}, "opponent_helper"),  # nor one helper both
    ({"opponent": None, "opponent_dice": ["d8"], "opponent_asset": UNCLE_OTTO}, "opponent_asset"),  # dice have no sheet
    ({"resists": "both"}, "resists"),
])  # fmt: skip
def test_what_a_side_cannot_take_is_refused_by_its_field(changes, field) -> None:
    system, options, sheet, others = _sheets()
    situation = {"skill": FIGHTING, "opponent": 7, **changes}
    with pytest.raises(SpecError) as refused:
        system.sheet_roll(sheet, {k: v for k, v in situation.items() if v is not None}, options, others)
    assert refused.value.field == field


@pytest.mark.parametrize(("resists", "draw"), [(None, "defender"), ("them", "defender"), ("us", "attacker"),
                                               ("neither", "none")])  # fmt: skip
def test_the_side_that_resists_takes_a_draw_and_a_race_has_its_own(resists, draw) -> None:
    system, options, sheet, others = _sheets()
    situation = {"skill": FIGHTING, "opponent_dice": ["d10", "d10"], **({"resists": resists} if resists else {})}
    made = system.sheet_roll(sheet, situation, options, others)
    assert made.spec["draw"] == draw
    chance = lucky13.opposed_chance(lucky13.parse_opposed(made.spec))
    drawn = {"attacker": (1, 0), "defender": (0, 1), "none": (0, 0)}[draw]
    assert chance.p_attacker_prevails == chance.p_attacker_wins + drawn[0] * chance.p_draw
    assert chance.p_defender_prevails == chance.p_defender_wins + drawn[1] * chance.p_draw
    # Otto rolls the same dice: 3 and 4 each, a draw; it goes as the side that resists says.
    faces = iter([3, 4, 3, 4])
    rolled = lucky13.roll_opposed(lucky13.parse_opposed(made.spec), Faces(faces))
    assert (rolled.margin, rolled.winner) == (0, {"attacker": "attacker", "defender": "defender", "none": ""}[draw])


class Faces(random.Random):
    def __init__(self, faces) -> None:
        super().__init__(0)
        self.faces = faces

    def randint(self, a: int, b: int) -> int:
        return next(self.faces)


def test_a_race_on_the_page_shows_the_draw_and_each_sides_dilemma(client, monkeypatch, brunella, otto, gm) -> None:
    client.force_login(gm)
    query = {"skill": FIGHTING, "opponent": otto.pk, "resists": "neither", "opponent_ability_roll": "impairment"}
    response = client.get(url(brunella), query)
    assert response.status_code == 200
    made = response.context["made"]
    chance = lucky13.opposed_chance(lucky13.parse_opposed(made.spec))
    page = html(response)
    assert "A draw (a race: neither side wins)" in text(response)
    for p in (chance.p_draw, chance.p_attacker_dilemma, chance.p_defender_dilemma):
        assert f"{p.numerator}/{p.denominator}" in page
    assert made.spec["defender_roll"] == "impairment"
    monkeypatch.setattr("games.lucky13.contest_views.secrets.SystemRandom", lambda: Faces(iter([3, 4, 3, 3, 4])))
    shown = client.post(url(brunella), query, follow=True)
    roll = Roll.objects.get()
    assert (roll.outcome["winner"], roll.outcome["margin"]) == ("", 0)
    assert "A draw" in text(shown)
    assert "the other side holds" not in text(shown)


def test_a_player_gives_neither_side_the_gms_steps(client, brunella, otto, player) -> None:
    client.force_login(player)
    page = client.get(url(brunella), {"skill": FIGHTING, "opponent": otto.pk})
    assert 'name="opponent_skill_steps"' not in page.text
    assert 'name="opponent_specialization"' in page.text
    response = client.post(url(brunella), {"skill": FIGHTING, "opponent": otto.pk, "opponent_skill_steps": "2"})
    assert response.status_code == 400
    assert "Only the GM can add extra steps" in text(response)
    assert not Roll.objects.exists()


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_in_a_browser_the_gm_sets_up_both_sides_and_a_race(live_server, page, problems, campaign, gm, other_player):
    from django.test import Client
    from playwright.sync_api import expect

    brunella = make_character(campaign, gm, name="Brunella")
    otto = make_character(campaign, other_player, name="Otto")
    client = Client()
    client.force_login(gm)
    page.context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                               "url": live_server.url}])  # fmt: skip
    page.goto(f"{live_server.url}{url(brunella)}?skill={FIGHTING}&opponent={otto.pk}")
    page.get_by_label("Their specialization").select_option(str(LONGSWORD_SPEC))
    page.get_by_label("Who resists (a draw holds for them)").select_option("neither")
    page.get_by_role("button", name="Show the chances").click()
    chances = page.locator("#contest-chance")
    expect(chances).to_contain_text("A draw (a race: neither side wins)")
    expect(chances).to_contain_text("A dilemma for Otto")
    expect(chances).to_contain_text("against Otto (Reflex + Fighting (Longsword 1))")
    assert problems == []
