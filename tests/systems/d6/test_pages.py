"""D6 through the generic pages: guided creation with D6's own code forms (the running total, each
refusal beside its box, everything typed kept), the sheet, the roll page with the exact chance, and
the GM's corrections. Nothing of it is a page of D6's own but the forms."""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters.models import Character
from play.models import Roll
from rules.systems import get
from rules.systems.base import Role
from rules.systems.d6.chance import opposed_chance, p_at_least
from rules.systems.d6.codes import DieCode
from tests.systems.d6.helpers import grant_url, judge_url, made, spend_url, started, stats_post, step_url

pytestmark = pytest.mark.django_db


def test_the_stats_step_shows_each_stat_and_the_dice_to_spend(client, d6_campaign, player) -> None:
    character = started(client, d6_campaign, player)
    page = client.get(step_url(character, "stats")).text
    for name in ("Dexterity", "Knowledge", "Mechanical", "Perception", "Strength", "Technical"):
        assert f">{name}</label>" in page
    assert "Spend 18d among the stats" in page
    assert 'data-running-total="stats"' in page
    assert "18d left" in page


def test_a_bad_code_is_refused_beside_its_box_and_everything_typed_is_kept(client, d6_campaign, player) -> None:
    character = started(client, d6_campaign, player)
    response = client.post(step_url(character, "stats"), stats_post(character, ["3d", "3d+3", "3d", "3d", "3d", "3d"]))
    assert response.status_code == 400
    assert "three pips make a die, so write 4d" in response.text
    assert 'value="3d+3"' in response.text
    character.refresh_from_db()
    assert all(stat.code is None for stat in character.document.stats)  # nothing saved


def test_every_stat_die_is_spent_before_the_skills(client, d6_campaign, player) -> None:
    character = started(client, d6_campaign, player)
    response = client.post(step_url(character, "stats"), stats_post(character, ["3d"] * 5 + ["2d+2"]))
    assert response.status_code == 400
    assert "Spend every stat die: 0d+1 left" in response.text
    assert 'value="2d+2"' in response.text
    limit = client.post(step_url(character, "stats"), stats_post(character, ["6d", "3d", "3d", "3d", "2d", "1d"]))
    assert limit.status_code == 400
    assert "a stat is 1d to 5d" in limit.text


def test_a_skill_above_the_cap_is_refused_by_its_box(client, d6_campaign, player) -> None:
    character = started(client, d6_campaign, player)
    client.post(step_url(character, "stats"), stats_post(character, ["3d"] * 6))
    character.refresh_from_db()
    dodge = next(s.id for s in character.document.skills if s.name == "Dodge")
    page = client.get(step_url(character, "skills")).text
    assert "Spend up to 7d raising skills" in page
    assert re.search(rf'name="skills.{dodge}.code"[^>]*value="3d"', page) or 'value="3d"' in page
    response = client.post(step_url(character, "skills"),
                           {"version": str(character.version), f"skills.{dodge}.code": "5d+1"})  # fmt: skip
    assert response.status_code == 400
    assert "at most 2d above Dexterity at creation: 5d at most" in response.text
    assert 'value="5d+1"' in response.text


def test_a_finished_character_has_its_codes_and_a_luck_point(client, d6_campaign, player) -> None:
    character = made(client, d6_campaign, player)
    assert character.status == "active"
    sheet = character.document
    assert sheet.luck_points == 1
    dodge = next(s for s in sheet.skills if s.name == "Dodge")
    assert dodge.code == "4d"
    page = client.get(reverse("characters:sheet", args=[character.pk])).text
    assert "Dexterity" in page
    assert "4d+1" in page  # Firearms, raised
    assert "(its stat’s)" in page  # a skill not raised
    assert "Luck points" in page


def test_the_roll_page_shows_the_exact_chance_and_rolls_on_the_server(client, monkeypatch, d6_campaign,
                                                                      player) -> None:  # fmt: skip
    character = made(client, d6_campaign, player)
    firearms = next(s.id for s in character.document.skills if s.name == "Firearms")
    url = reverse("play:sheet-roll", args=[character.pk])
    shown = client.get(url, {"item": firearms, "difficulty": 15})
    assert shown.status_code == 200
    p = p_at_least(DieCode.parse("4d+1"), 15)
    assert f"{p.numerator}/{p.denominator}" in shown.text
    monkeypatch.setattr("play.sheet_roll_views.secrets.SystemRandom", lambda: random.Random(5))
    response = client.post(url, {"item": firearms, "difficulty": 15})
    assert response.status_code == 302
    roll = Roll.objects.get()
    assert roll.system == "d6"
    assert roll.spec["code"] == "4d+1"
    assert roll.outcome["margin"] == roll.total - 15
    assert roll.dice[0]["label"] == "Wild die"
    assert roll.chance == f"{p.numerator}/{p.denominator}"


def test_a_wounded_character_rolls_one_die_less(client, d6_campaign, gm, player) -> None:
    character = made(client, d6_campaign, player)
    system = get("d6")
    wounded = system.edit(character.document, "conditions", {"wounds": 1}, role=Role.GM, options=d6_campaign.settings)
    firearms = next(s.id for s in wounded.skills if s.name == "Firearms")
    made_roll = system.sheet_roll(wounded, {"item": firearms, "difficulty": 10}, d6_campaign.settings)
    assert made_roll.spec["code"] == "3d+1"
    assert "wounded: −1d" in made_roll.steps


def test_the_roll_page_offers_the_stats_and_skills(client, d6_campaign, player) -> None:
    character = made(client, d6_campaign, player)
    dodge = next(s.id for s in character.document.skills if s.name == "Dodge")
    page = client.get(reverse("play:sheet-roll", args=[character.pk]), {"item": dodge, "band": "moderate",
                                                                        "difficulty": 12}).text  # fmt: skip
    assert '<optgroup label="Dexterity">' in page
    assert f'<option value="{dodge}" selected>Dodge 4d</option>' in page
    assert "Moderate (11–15)" in page
    refused = client.get(reverse("play:sheet-roll", args=[character.pk]), {"item": 99999, "difficulty": 12})
    assert refused.status_code == 400
    assert "99999 is not on the list" in refused.text


def test_an_opposed_roll_against_a_character_in_play_from_the_roll_page(client, monkeypatch, d6_campaign, player,
                                                                        other_player) -> None:  # fmt: skip
    jericho = made(client, d6_campaign, other_player, "Jericho")
    talia = made(client, d6_campaign, player)
    strength = next(s.id for s in talia.document.stats if s.name == "Strength")
    url = reverse("play:sheet-roll", args=[talia.pk])
    query = {"kind": "opposed", "item": strength, "opponent": jericho.pk}
    page = client.get(url, query)
    assert page.status_code == 200
    assert f'<option value="{jericho.pk}" selected>Jericho</option>' in page.text
    assert "Strength 3d against Jericho (Strength) (3d)" in page.text
    odds = opposed_chance(DieCode.parse("3d"), DieCode.parse("3d"))
    for words, p in (("Strength wins", odds.p_attacker_wins), ("A tie: the side that resists holds", odds.p_tie)):
        assert words in page.text
        assert f"{p.numerator}/{p.denominator}" in page.text
    monkeypatch.setattr("play.sheet_roll_views.secrets.SystemRandom", lambda: random.Random(3))
    assert client.post(url, query).status_code == 302
    roll = Roll.objects.get()
    assert roll.kind == "opposed"
    assert (roll.spec["attacker"], roll.spec["defender"]) == ("3d", "3d")


def test_a_contest_with_no_resisting_side_shows_the_draw_and_the_log_says_draw(
    client, monkeypatch, d6_campaign, player, other_player
) -> None:
    jericho = made(client, d6_campaign, other_player, "Jericho")
    talia = made(client, d6_campaign, player)
    strength = next(s.id for s in talia.document.stats if s.name == "Strength")
    url = reverse("play:sheet-roll", args=[talia.pk])
    query = {"kind": "opposed", "item": strength, "opponent": jericho.pk, "no_resisting_side": "on"}
    page = client.get(url, query)
    assert page.status_code == 200
    odds = opposed_chance(DieCode.parse("3d"), DieCode.parse("3d"))
    assert "A draw" in page.text
    assert "the side that resists holds" not in page.text
    assert f"{odds.p_tie.numerator}/{odds.p_tie.denominator}" in page.text
    seed = next(n for n in range(500) if _ties(n))
    monkeypatch.setattr("play.sheet_roll_views.secrets.SystemRandom", lambda: random.Random(seed))
    assert client.post(url, query).status_code == 302
    roll = Roll.objects.get()
    assert roll.spec["resisting"] is False
    assert roll.outcome["draw"] is True
    log = client.get(reverse("play:rolls", args=[d6_campaign.pk])).text
    assert ">A draw<" in log


def _ties(seed: int) -> bool:
    """Whether two 3d rolled from ``seed`` tie (the sheet roll rolls the attacker, then the defender)."""
    from rules.systems.d6.rolling import roll

    rng = random.Random(seed)
    return roll(DieCode.parse("3d"), rng).total == roll(DieCode.parse("3d"), rng).total


def test_the_sheets_roll_link_shows_a_band_at_both_ends_and_rolls_only_with_a_number(client, d6_campaign,
                                                                                     player) -> None:  # fmt: skip
    character = made(client, d6_campaign, player)
    sheet = client.get(reverse("characters:sheet", args=[character.pk])).text
    dodge = next(s.id for s in character.document.skills if s.name == "Dodge")
    link = f"/characters/{character.pk}/roll/?item={dodge}&amp;band=moderate"
    assert link in sheet
    page = client.get(link.replace("&amp;", "&"))
    assert page.status_code == 200
    low, high = p_at_least(DieCode.parse("4d"), 11), p_at_least(DieCode.parse("4d"), 15)
    assert "At 11, the low end of Moderate" in page.text
    assert f"{low.numerator}/{low.denominator}" in page.text
    assert f"{high.numerator}/{high.denominator}" in page.text
    assert 'id="roll-button"' not in page.text
    refused = client.post(reverse("play:sheet-roll", args=[character.pk]), {"item": dodge, "band": "moderate"})
    assert refused.status_code == 400
    assert "names the number" in refused.text
    assert not Roll.objects.exists()


def test_the_demo_has_a_d6_campaign_with_history() -> None:
    from django.core.management import call_command

    from characters.models import LedgerEntry
    from play.models import RollRequest

    call_command("demo")
    call_command("demo")  # made once, left alone after
    campaign = Campaign.objects.get(name="Ruins of the Ancients")
    assert campaign.system == "d6"
    party = {c.name: c for c in Character.objects.filter(campaign=campaign)}
    assert set(party) == {"Jericho", "Talia"}
    assert all(c.status == "active" and c.document.luck_points == 1 for c in party.values())
    firearms = next(s for s in party["Jericho"].document.skills if s.name == "Firearms")
    assert firearms.code == "6d"  # 5d+2 and a pip bought with the adventure's character points
    assert LedgerEntry.objects.filter(character__campaign=campaign).count() == 3  # two awards, one purchase
    rolls = Roll.objects.filter(campaign=campaign)
    assert rolls.count() == 5  # two calls answered, an opposed roll, and two uses of Jericho's round
    assert {r.kind for r in rolls} == {"check", "opposed"}
    assert RollRequest.objects.filter(campaign=campaign, closed_at__isnull=True).count() == 1
    # Jericho mid-round, as in the text: three shots declared, one fired, a dodge; two shots at 3d still to fire.
    from rules.systems.d6 import round_state

    plan = round_state.plan_of(party["Jericho"].document, campaign.settings)
    assert [str(use.code) for use in plan.uses] == ["4d", "1d", "3d", "3d"]
    assert [r.spec.get("code") for r in rolls.order_by("seq")][-2:] == ["4d", "1d"]


def d6_options_post(**changes) -> dict[str, object]:
    """The campaign form's POST for a new D6 campaign: the six stats as their rows, the defaults."""
    from rules.systems.d6.options import preset_stats
    from tests.campaigns.helpers import rows_post

    rows = changes.pop("rows", preset_stats("six"))
    data: dict[str, object] = {"name": "Mutant Alley", "description": "", "system": "d6", "save": "1",
                               "stat_preset": "six", "stat_dice": 18, "skill_dice": 7, "skill_cap": 2,
                               "stat_minimum": "1d", "stat_maximum": "5d", "starting_luck": 1, "pip_cost": 1,
                               "initiative_stat": ""}  # fmt: skip
    return data | rows_post("stats", rows) | changes


def _skill(name: str, combat: str = "", *, reaction: bool = False) -> dict[str, object]:
    return {"name": name, "reaction": reaction, "combat": combat}


def test_a_gm_makes_a_d6_campaign_with_its_own_stats(client, gm) -> None:
    client.force_login(gm)
    page = client.get(reverse("campaigns:create"), {"system": "d6"})
    assert page.status_code == 200
    rows = [{"name": "Might", "skills": [_skill("Lift"), _skill("Grapple", "brawling"), _skill("Duck", "dodge"),
                                         _skill("Brace", reaction=True)]},
            {"name": "Wits", "skills": [_skill("Notice")]}]  # fmt: skip
    response = client.post(reverse("campaigns:create"), d6_options_post(rows=rows, stat_dice=6))
    assert response.status_code == 302, response.text
    campaign = Campaign.objects.get(name="Mutant Alley")
    assert campaign.system == "d6"
    assert campaign.settings["stats"] == [
        {"name": "Might", "skills": [{"name": "Lift", "reaction": False, "combat": ""},
                                     {"name": "Grapple", "reaction": False, "combat": "brawling"},
                                     {"name": "Duck", "reaction": True, "combat": "dodge"},
                                     {"name": "Brace", "reaction": True, "combat": ""}]},
        {"name": "Wits", "skills": [{"name": "Notice", "reaction": False, "combat": ""}]},
    ]  # fmt: skip
    assert campaign.settings["stat_preset"] == "custom"
    edit = client.get(reverse("campaigns:settings", args=[campaign.pk])).text
    assert 'name="stats-0-skills-1-name" value="Grapple"' in edit
    assert '<option value="brawling" selected>Attacks bare-handed</option>' in edit
    assert 'name="stats-0-skills-3-reaction" id="id_stats-0-skills-3-reaction" checked' in edit


def test_a_skill_marked_with_a_role_the_rules_lack_is_refused_with_the_row_kept(client, gm) -> None:
    client.force_login(gm)
    rows = [{"name": "Might", "skills": [_skill("Kick", "kicking"), _skill("Shove", "melee", reaction=True)]}]
    response = client.post(reverse("campaigns:create"), d6_options_post(rows=rows, stat_dice=6))
    assert response.status_code == 400
    assert "Select a valid choice" in response.text or "is not on the list" in response.text
    assert 'name="stats-0-skills-0-name" value="Kick"' in response.text
    assert not Campaign.objects.filter(name="Mutant Alley").exists()
    rows = [{"name": "Might", "skills": [_skill("Shove", "melee", reaction=True)]}]
    response = client.post(reverse("campaigns:create"), d6_options_post(rows=rows, stat_dice=6))
    assert response.status_code == 400
    assert "Shove attacks, so it is declared with the round: it is not a reaction skill" in response.text
    assert not Campaign.objects.filter(name="Mutant Alley").exists()


def test_bad_d6_options_are_refused_beside_their_fields_with_everything_kept(client, gm) -> None:
    client.force_login(gm)
    rows = [{"name": "Might", "skills": [_skill("Lift"), _skill("Might")]}]
    response = client.post(reverse("campaigns:create"), d6_options_post(rows=rows, stat_maximum="5d+4"))
    assert response.status_code == 400
    assert "three pips make a die" in response.text
    assert 'value="5d+4"' in response.text
    assert 'name="stats-0-skills-1-name" value="Might"' in response.text
    assert not Campaign.objects.filter(name="Mutant Alley").exists()
    fixed = client.post(reverse("campaigns:create"), d6_options_post(rows=rows))
    assert fixed.status_code == 400
    assert "two stats or skills are called might" in fixed.text.lower()


def test_the_options_form_loads_the_preset_and_adds_rows(client, gm) -> None:
    client.force_login(gm)
    rows = [{"name": "Might", "skills": []}]
    data = d6_options_post(rows=rows, fill_stat_preset="1", stat_preset="six")
    page = client.post(reverse("campaigns:create"), data)
    assert page.status_code == 200
    assert 'name="stats-0-skills-0-name" value="Dodge"' in page.text
    assert '<option value="ranged" selected>Attacks at range</option>' in page.text
    more = client.post(reverse("campaigns:create"), d6_options_post(rows=rows, **{"more_stats-0-skills": "1"}))
    assert 'name="stats-0-skills-TOTAL_FORMS" value="4"' in more.text  # one blank, three more
    assert 'name="stats-TOTAL_FORMS" value="3"' in more.text  # Might and two blank stats


def test_the_player_spends_the_gm_judges_and_a_dramatic_spend_comes_back_with_one_more(
    client, d6_campaign, gm, player
) -> None:
    from characters import ledger
    from characters.models import SheetChange

    talia = made(client, d6_campaign, player)
    page = client.get(spend_url(talia))
    assert page.status_code == 200
    assert "Talia has <strong>1</strong> luck point" in page.text
    assert re.search(r'value="double"[^>]* checked', page.text)  # the page starts from doubling, the usual spend
    assert 'name="heroism"' not in page.text  # how heroic it was is the GM's call, not the player's
    response = client.post(spend_url(talia), {"version": "0", "kind": "escape",
                                              "explanation": "Dove into the subway as the tower fell."})  # fmt: skip
    assert response.status_code == 302
    talia.refresh_from_db()
    assert talia.document.luck_points == 0
    assert [(s.id, s.heroism) for s in talia.document.luck_spends] == [(1, None)]
    history = SheetChange.objects.filter(character=talia).latest("pk")
    assert "escaped certain death: Dove into the subway" in history.what
    sheet = client.get(reverse("characters:sheet", args=[talia.pk])).text
    assert "awaiting the GM’s call" in sheet
    assert judge_url(talia) not in sheet  # the player cannot judge it
    refused = client.post(judge_url(talia), {"version": str(talia.version), "spend": "1", "heroism": "dramatic"})
    assert refused.status_code == 403
    none_left = client.post(spend_url(talia), {"version": str(talia.version), "kind": "double"})
    assert none_left.status_code in (200, 400)
    assert "Nothing was spent" in none_left.text or "No luck point left" in none_left.text

    client.force_login(gm)  # the GM judges it heroic, changes it to dramatic, grants one more, ends the adventure
    judge = judge_url(talia)
    assert judge in client.get(reverse("characters:sheet", args=[talia.pk])).text
    assert client.post(judge, {"version": str(talia.version), "spend": "1", "heroism": "heroic"}).status_code == 302
    talia.refresh_from_db()
    assert client.post(judge, {"version": str(talia.version), "spend": "1", "heroism": "dramatic"}).status_code == 302
    talia.refresh_from_db()
    assert [(s.id, s.heroism) for s in talia.document.luck_spends] == [(1, "dramatic")]
    bad = client.post(judge, {"version": str(talia.version), "spend": "1", "heroism": "brave"})
    assert bad.status_code == 400
    missing = client.post(judge, {"version": str(talia.version), "spend": "7", "heroism": "heroic"})
    assert missing.status_code == 400
    granted = client.post(grant_url(talia), {"version": str(talia.version), "spend": "1", "granted": "1"})
    assert granted.status_code == 302
    ledger.award(campaign_id=d6_campaign.pk, awards=[ledger.Award(talia.pk, 3)], reason="Finished",
                 ends_adventure=True, by=gm)  # fmt: skip
    talia.refresh_from_db()
    assert talia.document.luck_points == 2  # the point back, and one more
    assert talia.document.luck_spends == ()


def test_the_sheet_shows_a_doubling_waiting_for_its_round_and_how_long_a_stun_lasts(
    client, d6_campaign, gm, player
) -> None:
    talia = made(client, d6_campaign, player)
    sheet_url = reverse("characters:sheet", args=[talia.pk])
    assert "doubles every code" not in client.get(sheet_url).text
    assert client.post(spend_url(talia), {"version": "0", "kind": "double"}).status_code == 302
    page = client.get(sheet_url).text
    assert "A luck point doubles every code of the next round declared." in page
    client.force_login(gm)
    round_url = reverse("d6:round", args=[talia.pk])
    talia.refresh_from_db()
    assert client.post(round_url, {"version": str(talia.version), "action": "stunned"}).status_code == 302
    talia.refresh_from_db()
    assert talia.document.stunned
    assert "Stunned</span> −1d to every roll until the end of the next round" in client.get(sheet_url).text


def test_the_luck_page_names_only_what_is_on_the_pages(client, d6_campaign, player) -> None:
    talia = made(client, d6_campaign, player)
    page = client.get(spend_url(talia)).text
    assert "A luck point spent this round" not in page  # no such box: the round's page holds the doubling
    assert reverse("d6:round", args=[talia.pk]) in page
    assert "How heroic it was is the GM’s call" in page


def test_spending_luck_is_refused_plainly_and_changes_nothing(client, d6_campaign, player, other_player) -> None:
    talia = made(client, d6_campaign, player)
    escape = client.post(spend_url(talia), {"version": "0", "kind": "escape", "explanation": ""})
    assert escape.status_code == 400
    assert "explain how the character got away" in escape.text
    bad = client.post(spend_url(talia), {"version": "0", "kind": "reroll"})
    assert bad.status_code == 400
    assert "reroll is not on the list" in bad.text
    no_version = client.post(spend_url(talia), {"kind": "double"})
    assert no_version.status_code == 400
    talia.refresh_from_db()
    assert talia.document.luck_points == 1
    client.force_login(other_player)
    assert client.post(spend_url(talia), {"version": "0", "kind": "double"}).status_code == 403
    client.force_login(player)
    assert client.post(grant_url(talia), {"version": "0", "spend": "1"}).status_code == 403
    stale_version = str(talia.version)
    assert client.post(spend_url(talia), {"version": stale_version, "kind": "double"}).status_code == 302
    stale = client.post(spend_url(talia), {"version": stale_version, "kind": "double"})
    assert stale.status_code == 409  # the luck points changed since that page was opened


@pytest.mark.parametrize("viewer", ["gm", "player", "other_player"])
def test_the_d6_sheet_costs_three_queries_and_prints(
    client, d6_campaign, player, request, viewer, django_assert_num_queries
) -> None:
    talia = made(client, d6_campaign, player)
    client.force_login(request.getfixturevalue(viewer))
    # the session with its user, the character (its sheet on the row) with its campaign, owner, the viewer's role,
    # its balances, its newest ledger entry and whether a decision waits on it: drawn afresh, then kept
    for _ in range(2):
        with django_assert_num_queries(2):
            sheet = client.get(reverse("characters:sheet", args=[talia.pk]))
    assert sheet.status_code == 200
    assert "Stats and skills" in sheet.text
    printed = client.get(reverse("characters:print", args=[talia.pk]))
    assert printed.status_code == 200
    assert "Firearms" in printed.text
    assert "4d+1" in printed.text


def test_the_dashboard_shows_d6_vitals_luck_and_conditions(client, d6_campaign, gm, player) -> None:
    from rules.systems.base import Role

    talia = made(client, d6_campaign, player)
    system = get("d6")
    wounded = system.edit(talia.document, "conditions", {"wounds": 1}, role=Role.GM, options=d6_campaign.settings)
    Character.objects.filter(pk=talia.pk).update(sheet=wounded.model_dump(mode="json"))
    client.force_login(gm)
    page = client.get(reverse("play:dashboard", args=[d6_campaign.pk]))
    assert page.status_code == 200
    assert "Luck points" in page.text
    assert "wounded" in page.text


def test_the_roll_page_draws_the_totals_before_the_roll(client, d6_campaign, player) -> None:
    from rules.systems.d6.chance import distribution

    talia = made(client, d6_campaign, player)
    dodge = next(s.id for s in talia.document.skills if s.name == "Dodge")
    page = client.get(reverse("play:sheet-roll", args=[talia.pk]), {"item": dodge, "difficulty": 14})
    assert "Chance of each total; the highlighted bars reach 14." in page.text
    totals = distribution(DieCode.parse("4d")).totals
    assert page.text.count('class="bar') == len(totals)
    p = dict(totals)[14]
    assert f"{p.numerator}/{p.denominator}" in page.text


@pytest.mark.parametrize("status", ["draft", "active", "archived", "archived draft"])
def test_a_d6_character_exports_and_imports_as_it_was(client, d6_campaign, gm, player, status) -> None:
    from characters import exchange
    from tests.characters.test_exchange import approved, comparable, export

    second = Campaign.objects.create(name="The Long Road", system="d6")
    Membership.objects.create(campaign=second, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=second, user=player, role=Membership.Role.PLAYER)
    talia = started(client, d6_campaign, player) if status.endswith("draft") else made(client, d6_campaign, player)
    status = status.partition(" ")[0]
    if status == "archived":
        Character.objects.filter(pk=talia.pk).update(status="archived")
        talia.refresh_from_db()
    document = export(talia)
    assert document["system"] == "d6"
    imported = approved(exchange.import_character(campaign=second, owner=player, document=document))
    imported.refresh_from_db()
    assert (imported.name, imported.status) == (talia.name, status)
    assert imported.document == talia.document
    assert comparable(export(imported)) == comparable(document)


@pytest.mark.parametrize("party", [1, 3])
def test_the_d6_dashboard_costs_the_same_queries_for_any_party(client, d6_campaign, gm, player, party,
                                                               django_assert_num_queries) -> None:  # fmt: skip
    for i in range(party):
        made(client, d6_campaign, player, f"Hero {i}")
    client.force_login(gm)
    # As Lucky 13's dashboard: the session with its user, the GM's membership with its campaign (and whether
    # each of the GM's lists has anything: here none), the page of characters (and the GM's call form's),
    # and the feed's rolls.
    with django_assert_num_queries(4):
        page = client.get(reverse("play:dashboard", args=[d6_campaign.pk]))
    assert page.status_code == 200
    assert page.text.count("Luck points") >= party


def test_an_import_into_another_campaign_leaves_the_round_and_its_rolls_behind(client, d6_campaign, gm, player) -> None:
    """A round in play names rolls of its campaign's log by number: imported into the campaign it came
    from it comes back as it was; into another, it waits for the GM without the round."""
    from characters import exchange
    from tests.characters.test_exchange import approved, export

    second = Campaign.objects.create(name="The Long Road", system="d6")
    Membership.objects.create(campaign=second, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=second, user=player, role=Membership.Role.PLAYER)
    talia = made(client, d6_campaign, player)
    firearms = next(s.id for s in talia.document.skills if s.name == "Firearms")
    sheet = talia.document.model_dump(mode="json")
    sheet["round"] = {"declared": True, "actions": [{"item": firearms}, {"item": firearms}], "running": True,
                      "steps": [{"what": "attempt", "action": 0, "roll": 7}]}  # fmt: skip
    sheet["prepared"] = firearms
    Character.objects.filter(pk=talia.pk).update(sheet=talia.rules.read_sheet(sheet).model_dump(mode="json"))
    document = export(talia)
    assert document["sheet"]["round"]["steps"][0]["roll"] == 7

    at_home = exchange.import_character(campaign=d6_campaign, owner=player, document=document)
    assert at_home.document.round == talia.rules.read_sheet(sheet).round

    held = exchange.import_character(campaign=second, owner=player, document=document)
    assert (held.document.round, held.document.prepared) == (None, None)
    assert held.arrival["left"] == [
        "no round in play (the round and its rolls stay with the campaign it was played in)",
        "no +1d prepared for a next round",
    ]
    assert held.arrival["differs"] == []  # the same stats and skills, matched by name
    imported = approved(held)
    assert (imported.status, imported.document.round, imported.document.prepared) == ("active", None, None)
    assert imported.document.stats == talia.document.stats


def test_a_d6_sheet_says_what_differs_in_a_campaign_with_other_skills(client, d6_campaign, player) -> None:
    import copy as copy_

    talia = made(client, d6_campaign, player)
    options = copy_.deepcopy(d6_campaign.settings)
    options["stats"][0]["skills"][0]["name"] = "Evade"
    assert talia.rules.differences(talia.document, options) == (
        "Dodge is not a skill here",
        "the sheet has no Evade, a skill here",
    )
    assert talia.rules.differences(talia.document, d6_campaign.settings) == ()


def test_a_d6_import_matches_stats_and_skills_by_name_on_the_gms_approval(client, d6_campaign, gm, player) -> None:
    """Another campaign spells Dodge and Perception its own way and lists Climbing as a reaction skill under
    Dexterity: the arrival says each change; approved, the sheet takes them, and its history says so."""
    import copy as copy_

    from characters import exchange
    from characters.models import SheetChange
    from tests.characters.test_exchange import approved, export

    stats = copy_.deepcopy(d6_campaign.settings["stats"])
    stats[0]["skills"][0]["name"] = "DODGE"
    stats[3]["name"] = "Per-ception"
    climbing = next(s for s in stats[4]["skills"] if s["name"] == "Climbing")
    stats[4]["skills"].remove(climbing)
    stats[0]["skills"].append({**climbing, "reaction": True})
    second = Campaign.objects.create(
        name="The Long Road", system="d6", options={"stat_preset": "custom", "stats": stats, "initiative_stat": ""}
    )
    Membership.objects.create(campaign=second, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=second, user=player, role=Membership.Role.PLAYER)
    talia = made(client, d6_campaign, player)

    held = exchange.import_character(campaign=second, owner=player, document=export(talia))

    assert held.arrival["differs"] == [
        "Perception takes this campaign's spelling, Per-ception",
        "Dodge takes this campaign's spelling, DODGE",
        "Climbing belongs to Dexterity here (Strength on the sheet) and is a reaction skill here",
    ]
    imported = approved(held)
    names = {skill.name: skill for skill in imported.document.skills}
    dexterity = next(stat for stat in imported.document.stats if stat.name == "Dexterity")
    assert ("DODGE" in names, "Dodge" in names) == (True, False)
    assert (names["Climbing"].stat, names["Climbing"].reaction) == (dexterity.id, True)
    assert [stat.name for stat in imported.document.stats][3] == "Per-ception"
    assert SheetChange.objects.filter(character=imported).latest("version").what == (
        "Approved by the GM (an export of Ruins of the Ancients): Perception now Per-ception; Dodge now DODGE; "
        "Climbing under Dexterity, a reaction skill"
    )
