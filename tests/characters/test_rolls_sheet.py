"""Rolling from the sheet: who may look and roll, the dice built from the sheet, the chance
shown, the roll recorded once in the log, bad input refused, and a browser run."""

from __future__ import annotations

import random
from fractions import Fraction
from urllib.parse import parse_qsl

import pytest
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Page, expect

from campaigns.models import Campaign, Membership
from characters.models import Character
from games.lucky13.roll_views import ROLL_SESSION_KEY, SheetRollForm
from play.models import Roll
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13 import AbilityRoll, Check, Explosion
from rules.systems.lucky13.record import check_roll_view
from tests.characters.conftest import (
    FIGHTING,
    HEALING,
    LONGSWORD_SPEC,
    OLD_MAP,
    SCHOLARSHIP,
    SNEAKING,
    SPELLCASTING,
    TELEPORT,
    UNCLE_OTTO,
    make_character,
)

pytestmark = pytest.mark.django_db

D = StepDie.parse
HX = {"HTTP_HX_REQUEST": "true"}


def url(character: Character) -> str:
    return reverse("play:sheet-roll", args=[character.pk])


def built(character: Character, data: dict, *, gm: bool = False, helpers: list[Character] | None = None):
    """The check the view would build for ``data`` (the same form, the same sheet)."""
    from django.http import QueryDict

    query = QueryDict(mutable=True)
    query.update({k: str(v) for k, v in data.items()})
    form = SheetRollForm(query, character=character, helpers=helpers or [], gm=gm)
    assert form.is_valid(), form.errors
    return form.built


def seeded(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    monkeypatch.setattr("games.lucky13.roll_views.secrets.SystemRandom", lambda: random.Random(seed))


@pytest.fixture
def otto(campaign, other_player) -> Character:
    """Another active character of the party, who can assist: Fighting d10, Reflex d10, Will d6."""
    return make_character(campaign, other_player, name="Otto")


# --- Who may look, who may roll --------------------------------------------------------------------


@pytest.mark.parametrize(("viewer", "get", "post"), [
    ("player", 200, 200), ("gm", 200, 200), ("other_player", 200, 403), ("outsider", 404, 404),
])  # fmt: skip
def test_the_cast(client, brunella, viewer, get, post, request) -> None:
    client.force_login(request.getfixturevalue(viewer))
    query = {"skill": FIGHTING}
    assert client.get(url(brunella), query).status_code == get
    assert client.post(url(brunella), query, **HX).status_code == post
    assert Roll.objects.count() == (1 if post == 200 else 0)


def test_members_who_cannot_roll_see_the_odds_without_a_roll_button(client, brunella, other_player) -> None:
    client.force_login(other_player)
    response = client.get(url(brunella), {"skill": FIGHTING})
    assert "Chance of success" in response.text
    assert 'id="roll-button"' not in response.text


def test_anonymous_visitors_are_sent_to_log_in(client, brunella) -> None:
    for response in (client.get(url(brunella)), client.post(url(brunella))):
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))
    assert Roll.objects.count() == 0


def test_the_sheet_links_to_rolls_for_owner_and_gm_only(client, brunella, player, gm, other_player) -> None:
    for user, shown in ((player, True), (gm, True), (other_player, False)):
        client.force_login(user)
        text = client.get(reverse("characters:sheet", args=[brunella.pk])).text
        assert (f"{url(brunella)}?skill={FIGHTING}&amp;specialization={LONGSWORD_SPEC}" in text) is shown
        assert (f'{url(brunella)}?skill={FIGHTING}"' in text) is shown
        assert (f"{url(brunella)}?reaction=1" in text) is shown


# --- The dice from the sheet -----------------------------------------------------------------------


def test_the_linked_ability_is_preselected_and_can_be_changed(client, brunella, player) -> None:
    client.force_login(player)
    response = client.get(url(brunella), {"skill": SPELLCASTING})  # linked to Intellect d6; the skill is d8
    assert response.context["form"]["ability"].value() == "intellect"
    check = response.context["built"].check
    assert (check.ability, check.skill, check.difficulty) == (D("d6"), D("d8"), D("d10"))  # Moderate by default
    assert "Intellect + Spellcasting vs Moderate" in response.text  # what is rolled, in words
    check = client.get(url(brunella), {"skill": SPELLCASTING, "ability": "reflex"}).context["built"].check
    assert check.ability == D("d10")


def test_ability_choices_use_the_campaigns_names(client, brunella, player) -> None:
    names = ["Grit", "Guile", "Heart", "Wits", "Speed"]
    Campaign.objects.filter(pk=brunella.campaign_id).update(options={"ability_names": names})
    client.force_login(player)
    response = client.get(url(brunella), {"skill": FIGHTING})
    assert [label for _, label in response.context["form"].fields["ability"].choices] == names
    assert "Ability: Speed" in response.text


def test_a_specialization_steps_the_skill_die(brunella) -> None:
    made = built(brunella, {"skill": SPELLCASTING, "specialization": TELEPORT})
    assert made.check.skill == D("d12")  # d8 + 2 steps
    assert made.label == "Intellect + Spellcasting (Teleport 2) vs Moderate"


def test_an_asset_steps_the_skill_die_and_only_helps_its_skills(brunella) -> None:
    # Uncle Otto: Standard 3, helps Healing and Fighting.
    check = built(brunella, {"skill": HEALING, "asset": UNCLE_OTTO}).check
    assert check.skill == D("d6").step(3)
    with pytest.raises(AssertionError):  # not a choice for Sneaking
        built(brunella, {"skill": SNEAKING, "asset": UNCLE_OTTO})


@pytest.mark.parametrize(("target", "ability_steps", "skill_steps"), [("skill", 0, 4), ("ability", 4, 0)])
def test_an_assist_steps_what_the_helper_helps_with(brunella, otto, target, ability_steps, skill_steps) -> None:
    # Otto's Fighting is d10 and his Reflex d10: either gives 4 steps.
    data = {"skill": FIGHTING, "helper": otto.pk, "help_with": target}
    check = built(brunella, data, helpers=[otto]).check
    assert check.ability == D("d10").step(ability_steps)
    assert check.skill == D("d10").step(skill_steps)


def test_gm_steps_count_for_the_gm(client, brunella, gm) -> None:
    client.force_login(gm)
    query = {"skill": HEALING, "ability_steps": "-2", "skill_steps": "3"}
    check = client.get(url(brunella), query).context["built"].check
    assert (check.ability, check.skill) == (D("d6").step(-2), D("d6").step(3))


def test_gm_steps_are_refused_for_players(client, brunella, player) -> None:
    client.force_login(player)
    query = {"skill": HEALING, "skill_steps": "3"}
    assert client.get(url(brunella), query).status_code == 400
    assert client.post(url(brunella), query, **HX).status_code == 400
    assert Roll.objects.count() == 0
    assert 'name="skill_steps"' not in client.get(url(brunella), {"skill": query["skill"]}).text


def test_a_reaction_check_steps_charm_by_reputation(client, brunella, player) -> None:
    Character.objects.filter(pk=brunella.pk).update(sheet={**brunella.sheet, "reputation": 2})
    client.force_login(player)
    response = client.get(url(brunella), {"reaction": "1", "skill": SCHOLARSHIP})
    check = response.context["built"].check
    assert check.ability == D("d8")  # Charm d4, reputation +2
    assert check.skill == D("d6")
    assert "Reaction check" in response.text
    assert "Charm + Scholarship reaction vs Moderate" in response.text
    # Without a skill the link from the sheet opens with the first one.
    assert client.get(url(brunella), {"reaction": "1"}).status_code == 200


def test_the_chance_shown_is_the_engines(client, brunella, player) -> None:
    client.force_login(player)
    query = {"skill": SPELLCASTING, "specialization": TELEPORT, "difficulty": "challenging"}
    response = client.get(url(brunella), query, **HX)
    expected = lucky13.check_chance(Check(D("d6"), D("d12"), D("d6"), explosion=Explosion.CINEMATIC))
    assert response.context["chance"] == expected
    p = expected.p_success
    assert f"exactly {p.numerator}/{p.denominator}" in response.text
    assert "<svg" in response.text  # the chart
    assert "<html" not in response.text  # the htmx fragment only


# --- Rolling ---------------------------------------------------------------------------------------


def test_a_roll_is_recorded_once_with_the_chance_and_every_die(client, brunella, player, otto, monkeypatch) -> None:
    seeded(monkeypatch, 7)
    client.force_login(player)
    data = {"skill": FIGHTING, "specialization": LONGSWORD_SPEC, "asset": UNCLE_OTTO, "helper": otto.pk,
            "help_with": "ability", "difficulty": "difficult", "ability_roll": "background"}  # fmt: skip
    response = client.post(url(brunella), data, **HX)
    assert response.status_code == 200

    # Reflex d10 + Otto's Reflex d10 (4 steps); Fighting d10 + Longsword 1 + asset 3; Difficult d8.
    check = Check(D("d10").step(4), D("d10").step(4), D("d8"), AbilityRoll.BACKGROUND, Explosion.CINEMATIC)
    rolled = lucky13.roll_check(check, random.Random(7))
    roll = Roll.objects.get()
    assert roll.kind == "check"
    assert (roll.by, roll.character_id, roll.campaign_id) == (player, brunella.pk, brunella.campaign_id)
    assert Fraction(roll.chance) == lucky13.check_chance(check).p_success
    assert roll.chance_of == "success"
    assert roll.dice == check_roll_view(rolled)
    assert roll.total == rolled.total
    assert roll.outcome == {"success": rolled.success, "margin": rolled.margin, "dilemma": rolled.dilemma}
    sheet = roll.spec["sheet"]
    assert (roll.spec["ability"], roll.spec["skill"], roll.spec["difficulty"]) == (
        check.ability.label, check.skill.label, "d8")  # fmt: skip
    assert sheet["specialization"]["level"] == 1
    assert sheet["asset"] == {"id": UNCLE_OTTO, "name": "Uncle Otto", "level": 3}
    assert (sheet["skill_id"], sheet["specialization"]["id"]) == (FIGHTING, LONGSWORD_SPEC)
    assert roll.spec["label"] == (
        "Reflex + Fighting (Longsword 1) vs Difficult, with a background, with Uncle Otto, Otto assisting"
    )
    assert sheet["assist"] == {"character": otto.pk, "name": "Otto", "with": "ability", "die": "d10", "steps": 4}
    assert f"total {rolled.total} against 13" in response.text
    assert ("Dilemma!" in response.text) is rolled.dilemma


def test_a_reaction_roll_is_logged_as_one(client, brunella, player) -> None:
    client.force_login(player)
    response = client.post(url(brunella), {"reaction": "1", "skill": HEALING}, **HX)
    assert response.status_code == 200
    roll = Roll.objects.get()
    assert roll.kind == "reaction"
    assert roll.spec["sheet"]["reputation"] == 1
    assert roll.spec["ability"] == "d6"  # Charm d4 + reputation 1


def test_the_campaigns_explosion_mode_is_used(client, brunella, gm) -> None:
    Campaign.objects.filter(pk=brunella.campaign_id).update(options={"explosion": "gritty"})
    client.force_login(gm)
    client.post(url(brunella), {"skill": FIGHTING}, **HX)
    assert Roll.objects.get().spec["explosion"] == "gritty"


def test_without_javascript_the_result_shows_once_after_a_redirect(client, brunella, player, monkeypatch) -> None:
    seeded(monkeypatch, 3)
    client.force_login(player)
    data = {"skill": SNEAKING, "difficulty": "easy"}
    response = client.post(url(brunella), data)
    assert response.status_code == 302
    assert response["Location"].startswith(url(brunella) + "?")
    assert "difficulty=easy" in response["Location"]
    assert ROLL_SESSION_KEY in client.session
    page = client.get(response["Location"])
    assert "against 13" in page.text
    assert "against 13" not in client.get(response["Location"]).text  # shown once
    assert Roll.objects.count() == 1


def test_a_refused_roll_on_an_archived_character_writes_nothing(client, brunella, player) -> None:
    Character.objects.filter(pk=brunella.pk).update(status=Character.Status.ARCHIVED)
    client.force_login(player)
    assert client.post(url(brunella), {"skill": FIGHTING}).status_code == 403
    assert Roll.objects.count() == 0


# --- Bad input -------------------------------------------------------------------------------------


@pytest.fixture
def stranger(django_user_model, outsider) -> Character:
    """A character in another campaign."""
    elsewhere = Campaign.objects.create(name="Elsewhere", system="lucky13")
    Membership.objects.create(campaign=elsewhere, user=outsider, role=Membership.Role.GM)
    return make_character(elsewhere, outsider, name="Stranger")


@pytest.mark.parametrize("bad", [
    {"skill": "999999"},
    {"skill": "abc"},
    {"skill": "OTHER"},
    {"skill": str(LONGSWORD_SPEC)},  # a specialization's id is no skill's
    {"difficulty": "impossible"},
    {"ability": "luck"},
    {"ability_roll": "twice"},
    {"ability_steps": "11"},
    {"skill_steps": "-99"},
    {"skill_steps": "x"},
    {"asset": "OLD_MAP"},  # the map helps Scholarship, not Fighting
    {"specialization": "TELEPORT"},  # a specialization of another skill
    {"helper": "STRANGER"},
    {"helper": "OTTO", "help_with": "neither"},
])  # fmt: skip
def test_bad_input_is_refused_and_nothing_is_recorded(client, brunella, gm, otto, stranger, bad) -> None:
    ids = {
        "OTHER": "99",  # no skill of hers, whatever other sheets hold
        "OLD_MAP": str(OLD_MAP),
        "TELEPORT": str(TELEPORT),
        "STRANGER": str(stranger.pk),
        "OTTO": str(otto.pk),
    }
    data = {"skill": str(FIGHTING)}
    data.update({k: ids.get(v, v) for k, v in bad.items()})
    client.force_login(gm)
    assert client.get(url(brunella), data).status_code == 400
    assert client.post(url(brunella), data, **HX).status_code == 400
    response = client.post(url(brunella), data)
    assert response.status_code == 400
    assert "Cannot build this roll" in response.text
    assert Roll.objects.count() == 0


def test_a_helper_without_the_skill_is_refused(client, brunella, gm, otto) -> None:
    sheet = otto.sheet  # Otto forgets Healing: his skill and what his assets did for it go
    sheet["skills"] = [s for s in sheet["skills"] if s["id"] != HEALING]
    sheet["assets"] = [{**a, "skills": [i for i in a["skills"] if i != HEALING]} for a in sheet["assets"]]
    Character.objects.filter(pk=otto.pk).update(sheet=sheet)
    client.force_login(gm)
    data = {"skill": HEALING, "helper": otto.pk, "help_with": "skill"}
    response = client.post(url(brunella), data, **HX)
    assert response.status_code == 400
    assert "Otto has no Healing skill" in response.text
    assert Roll.objects.count() == 0


def test_a_dying_helper_is_refused_and_a_wounded_one_helps_with_the_pulse_they_have_now(client, brunella, gm, otto):
    client.force_login(gm)
    data = {"skill": FIGHTING, "ability": "pulse", "helper": otto.pk, "help_with": "ability"}
    Character.objects.filter(pk=otto.pk).update(sheet={**otto.sheet, "hit_points": 14})  # d8 Pulse: d6 now
    check = client.get(url(brunella), data).context["built"].check
    assert check.ability == D("d8").step(2)  # a d6 gives 2 steps, not the d8's 3
    Character.objects.filter(pk=otto.pk).update(sheet={**otto.sheet, "hit_points": -1})
    response = client.post(url(brunella), data, **HX)
    assert response.status_code == 400
    assert "Otto cannot help: the character is dying" in response.text
    assert Roll.objects.count() == 0


def test_the_gm_names_an_npc_who_helps_and_a_player_cannot(client, brunella, gm, player) -> None:
    data = {"skill": FIGHTING, "npc_helper": "Old Marta", "npc_helper_die": "d6", "help_with": "skill"}
    client.force_login(gm)
    page = client.get(url(brunella), {"skill": FIGHTING})
    assert 'name="npc_helper"' in page.text
    response = client.get(url(brunella), data)
    assert response.status_code == 200
    assert response.context["built"].check.skill == D("d10").step(2)
    assert "Old Marta (an NPC) helps (d6): Skill +2" in response.text
    client.post(url(brunella), data)
    assert Roll.objects.get().spec["sheet"]["assist"]["name"] == "Old Marta"
    client.force_login(player)
    assert 'name="npc_helper"' not in client.get(url(brunella), {"skill": FIGHTING}).text
    refused = client.post(url(brunella), data, **HX)
    assert refused.status_code == 400
    assert "Only the GM can add extra steps or an NPC&#x27;s help" in refused.text
    assert Roll.objects.count() == 1


# --- In a browser ----------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_in_a_browser_the_chance_updates_in_place_and_the_roll_appears(live_server, page: Page, problems, brunella,
                                                                      player) -> None:  # fmt: skip
    client = Client()
    client.force_login(player)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page.set_viewport_size({"width": 360, "height": 800})
    page.goto(f"{live_server.url}/characters/{brunella.pk}/")
    page.get_by_role("link", name="Roll Fighting", exact=True).click()
    expect(page.get_by_role("heading", name="Roll Fighting")).to_be_visible()
    page.evaluate("window.sameDocument = true")
    chance = page.locator("#roll-chance .big-chance summary")
    before = chance.inner_text()

    page.get_by_label("Difficulty").select_option("heroic")
    expect(chance).not_to_have_text(before)
    expect(page.locator("#roll-chance")).to_contain_text("Roll d10 + d10 + none")

    page.get_by_role("button", name="Roll d10 + d10 + none").click()
    result = page.locator("#roll-result")
    expect(result).to_contain_text("against 13")
    expect(result.locator(".die").first).to_be_visible()
    assert page.evaluate("window.sameDocument") is True
    roll = Roll.objects.get()
    expect(result.locator(".outcome")).to_have_text("Success" if roll.outcome["success"] else "Failure")
    expect(result).to_contain_text(f"total {roll.total} against 13")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert problems == []


@pytest.mark.parametrize("who", ["gm", "player"])
def test_a_draft_does_not_roll_and_nothing_of_it_reaches_the_log(client, request, campaign, player, who) -> None:
    draft = make_character(campaign, player, name="Half-done Hilde", status="draft")
    client.force_login(request.getfixturevalue(who))
    for headers in ({}, HX):
        response = client.post(url(draft), {"skill": FIGHTING, "difficulty": "moderate"}, **headers)
        assert response.status_code == 409
        assert "A draft cannot roll until it is finished" in response.text
    assert not Roll.objects.exists()


@pytest.mark.parametrize("page", ["play:sheet-roll", "lucky13:contest"])
@pytest.mark.parametrize("query", [f"skill={FIGHTING}", "reaction=1&ability=intellect", "ability=pulse"])
def test_a_sheet_with_no_abilities_yet_is_a_clear_refusal(client, campaign, player, gm, page, query) -> None:
    from tests.systems.lucky13 import drafts as creation

    fresh = creation.start_character(campaign=campaign, owner=player, name="Half-done Hilde")
    client.force_login(gm)
    query += "&opponent_dice=d8"  # a contest names its other side
    address = reverse(page, args=[fresh.pk])
    data = {**dict(parse_qsl(query)), "difficulty": "moderate"}
    for response in (client.get(f"{address}?{query}"), client.post(address, data, **HX)):
        assert 400 <= response.status_code < 500
        assert "no abilities yet" in response.text
    assert not Roll.objects.exists()
