"""A choice a form does not offer, or no choice at all, is refused in a player's words beside its field
(``web.fields.ChoiceField``): the refused value named, the options listed when they are few and short,
never Django's "Select a valid choice. X is not one of the available choices." or "This field is
required.", never quotes around nothing, and nothing is saved. Every form of the pages that offers
choices: the calculator's two, their Roll and the GM's roll for an NPC, the sheet's roll page and its
contest, the GM's call for a roll, the campaign's form, its options and its invitations, and the
encounter's attack."""

from __future__ import annotations

import random
import re
from html import unescape
from pathlib import Path

import pytest
from django import forms
from django.http import HttpResponse
from django.urls import reverse

from campaigns.models import Campaign, Invitation
from characters.models import Character
from games.lucky13.roll_views import ROLL_SESSION_KEY
from play import encounters
from play.models import Roll, RollRequest
from tests.campaigns.helpers import options_post
from tests.characters.conftest import FIGHTING, make_character
from tests.play.npcs import GOBLIN
from web.fields import ChoiceField, in_words, shown_value

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
#: The words no message may hold: Django's own, and quotes around nothing.
PROGRAMMERS_WORDS = re.compile(r"Select a valid choice|is not one of|This field is required|''|\"\"")
#: The calculator's dice, as its lists offer them (the weapon's without "none").
LADDER = ["d4", "d6", "d8", "d10", "d12", "d12+d4", "d12+d6", "d12+d8", "d12+d10", "d12+d12", "d12+d12+d4"]
DICE = in_words(["none", *LADDER])
DIFFICULTIES = "Easy (d12), Moderate (d10), Difficult (d8), Challenging (d6), Extraordinary (d4) or Heroic (none)"
SKILLS = "Spellcasting, Scholarship, Healing, Sneaking or Fighting"
ABILITIES = "Will, Charm, Pulse, Intellect or Reflex"


def messages(response: HttpResponse) -> list[str]:
    """Every message the page shows: each field's, the alert's and a refusal's, tags stripped."""
    page = response.content.decode()
    found = re.findall(r'<p class="field-error"[^>]*>(.*?)</p>', page, re.S)
    found += re.findall(r'<div class="(?:errors|refusal)"[^>]*>(.*?)</div>', page, re.S)
    return [" ".join(unescape(re.sub(r"<[^>]+>", " ", m)).split()) for m in found]


def beside(response: HttpResponse, field_id: str) -> list[str]:
    """The messages shown beside the field whose element id is ``field_id``."""
    found = re.findall(rf'<p class="field-error" id="{field_id}_error">(.*?)</p>', response.content.decode(), re.S)
    return [unescape(m) for m in found]


def assert_plain(response: HttpResponse, message: str, *, field_id: str | None = None) -> None:
    """``message`` is shown (beside the field ``field_id``, when the page marks it) and no message is
    in a programmer's words."""
    said = messages(response)
    assert any(message in m for m in said), said
    if field_id is not None:
        assert message in beside(response, field_id), said
    assert not [m for m in said if PROGRAMMERS_WORDS.search(m)], said
    assert "Select a valid choice" not in response.content.decode()
    assert "is not one of" not in response.content.decode()


# --- The field ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("d7", "d7 is not on the list: choose d4, d6 or d8."),
        ("", "Choose d4, d6 or d8."),
        ("   ", "That is not on the list: choose d4, d6 or d8."),
        ("\x00\x1b", "That is not on the list: choose d4, d6 or d8."),
        ("d" * 100, f"{'d' * 39}… is not on the list: choose d4, d6 or d8."),
    ],
    ids=["out-of-list", "empty", "blank", "unprintable", "long"],
)
def test_the_field_names_what_it_refuses_and_what_it_offers(value: str, message: str) -> None:
    field = ChoiceField(choices=[("", "none"), ("d4", "d4"), ("d6", "d6"), ("d8", "d8")], required=True)
    with pytest.raises(forms.ValidationError) as error:
        field.clean(value)
    assert error.value.messages == [message]


def test_many_or_long_options_are_pointed_at_not_listed() -> None:
    many = ChoiceField(choices=[(str(n), str(n)) for n in range(13)])
    long = ChoiceField(choices=[("cinematic", "Cinematic: every die explodes, again and again"), ("gritty", "Gritty")])
    for field in (many, long):
        with pytest.raises(forms.ValidationError) as error:
            field.clean("x")
        assert error.value.messages == ["x is not on the list: choose one of the options offered."]


def test_a_forms_own_message_wins() -> None:
    field = ChoiceField(choices=[("a", "A")], error_messages={"invalid_choice": "Choose characters in play."})
    with pytest.raises(forms.ValidationError) as error:
        field.clean("b")
    assert error.value.messages == ["Choose characters in play."]


def test_a_refused_value_is_repeated_printable_and_never_as_nothing() -> None:
    assert shown_value("Juggling") == "Juggling"
    assert shown_value(" \t") == "That"
    assert shown_value(99) == "99"


def test_every_choice_field_of_the_pages_is_a_plain_one() -> None:
    """No form of the apps builds Django's own choice fields, whose words these are not (the one
    ModelForm, the account's, makes none: it has only the email address)."""
    root = Path(__file__).resolve().parents[2]
    django_choices = re.compile(
        r"\bforms\.(?:fields\.)?(?:Typed|Model)?(?:Multiple)?ChoiceField\b|ModelChoiceField|import .*ChoiceField"
    )
    found = [
        f"{path.relative_to(root)}:{n}"
        for app in ("games", "play", "campaigns", "characters", "accounts", "pages")
        for path in sorted((root / app).rglob("*.py"))
        if "migrations" not in path.parts
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if django_choices.search(line) and "from web.fields import" not in line
    ]
    assert found == []


# --- The calculator, its Roll and the GM's roll for an NPC ---------------------------------------------


@pytest.mark.parametrize(
    ("url", "query", "field", "message"),
    [
        ("lucky13:calculator", {"ability": "d7"}, "ability", f"d7 is not on the list: choose {DICE}."),
        ("lucky13:calculator", {"ability": ""}, "ability", f"Choose {DICE}."),
        ("lucky13:calculator", {"difficulty": "hard"}, "difficulty",
         "hard is not on the list: choose one of the options offered."),
        ("lucky13:calculator", {"difficulty": ""}, "difficulty", "Choose one of the options offered."),
        ("lucky13:calculator", {"explosion": "bogus"}, "explosion",
         "bogus is not on the list: choose one of the options offered."),
        ("lucky13:opposed", {"weapon_damage": "none"}, "weapon_damage",
         f"none is not on the list: choose {in_words(LADDER)}."),
        ("lucky13:opposed", {"attacker_roll": ""}, "attacker_roll", "Choose one of the options offered."),
    ],
)  # fmt: skip
def test_the_calculator_refuses_a_choice_in_plain_words(client, url, query, field, message) -> None:
    page = client.get(reverse(url), query)
    assert page.status_code == 400
    assert_plain(page, message, field_id=f"id_{field}")
    fragment = client.get(reverse(url), query, **HX)  # the calculation's region: the message in its alert
    assert fragment.status_code == 400
    assert_plain(fragment, message)


@pytest.mark.parametrize(("ability", "message"), [("d7", f"d7 is not on the list: choose {DICE}."),
                                                  ("", f"Choose {DICE}.")])  # fmt: skip
def test_the_calculators_roll_refuses_a_choice_in_plain_words_and_rolls_nothing(client, ability, message) -> None:
    data = {"ability": ability, "skill": "d6", "difficulty": "moderate", "ability_roll": "normal",
            "explosion": "cinematic"}  # fmt: skip
    response = client.post(reverse("lucky13:roll-check"), data)
    assert response.status_code == 400
    assert_plain(response, message)
    assert ROLL_SESSION_KEY not in client.session


@pytest.mark.parametrize(("chosen", "message"), [("999999", "999999 is not on the list: choose The Sunken Crown."),
                                                 ("", "Choose The Sunken Crown.")])  # fmt: skip
def test_the_npc_roll_refuses_a_campaign_not_offered_and_records_nothing(client, campaign, gm, chosen, message) -> None:
    client.force_login(gm)
    data = {"ability": "d10", "skill": "d8", "difficulty": "difficult", "ability_roll": "normal",
            "explosion": "cinematic", "campaign": chosen, "npc": "The gatekeeper"}  # fmt: skip
    response = client.post(reverse("lucky13:npc-roll"), data)
    assert response.status_code == 400
    assert_plain(response, message, field_id="id_campaign")
    assert not Roll.objects.exists()


# --- The sheet's roll page and its contest --------------------------------------------------------------


@pytest.fixture
def brunella(campaign, player) -> Character:
    return make_character(campaign, player)


@pytest.mark.parametrize(
    ("query", "field", "message"),
    [
        ({"difficulty": "impossible"}, "difficulty", f"impossible is not on the list: choose {DIFFICULTIES}."),
        ({"difficulty": ""}, "difficulty", f"Choose {DIFFICULTIES}."),
        # The skill is the sheet link's, a hidden field: its message is the alert's.
        ({"skill": "99"}, None, f"99 is not on the list: choose {SKILLS}."),
        ({"skill": ""}, None, f"Choose {SKILLS}."),
        ({"ability": "luck"}, "ability", f"luck is not on the list: choose {ABILITIES}."),
        ({"helper": "42"}, "helper", "42 is not on the list: choose one of the options offered."),
    ],
)
def test_the_roll_page_refuses_a_choice_in_plain_words_and_rolls_nothing(client, brunella, gm, query, field,
                                                                         message) -> None:  # fmt: skip
    client.force_login(gm)
    url = reverse("play:sheet-roll", args=[brunella.pk])
    data = {"skill": str(FIGHTING), **query}
    page = client.get(url, data)
    assert page.status_code == 400
    assert_plain(page, message, field_id=field and f"id_{field}")
    for headers in ({}, HX):  # Roll: the message where the result would be
        response = client.post(url, data, **headers)
        assert response.status_code == 400
        assert_plain(response, message)
    assert not Roll.objects.exists()


def test_the_contest_refuses_a_skill_not_on_the_sheet_and_rolls_nothing(client, brunella, player) -> None:
    client.force_login(player)
    response = client.post(reverse("lucky13:contest", args=[brunella.pk]), {"skill": "99", "opponent_dice": "d8"})
    assert response.status_code == 400
    assert_plain(response, f"99 is not on the list: choose {SKILLS}.")
    assert not Roll.objects.exists()


# --- The GM's call for a roll -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"skill": "Juggling"}, f"Juggling is not on the list: choose {SKILLS}."),
        ({"difficulty": "trivial"}, f"trivial is not on the list: choose {DIFFICULTIES}."),
        ({"characters": []}, "Choose who rolls."),
    ],
)
def test_the_call_for_a_roll_refuses_a_choice_in_plain_words_and_asks_nobody(client, campaign, gm, player, change,
                                                                             message) -> None:  # fmt: skip
    brunella = make_character(campaign, player)
    client.force_login(gm)
    data = {"kind": "check", "skill": "Sneaking", "difficulty": "difficult", "characters": [brunella.pk], **change}
    response = client.post(reverse("play:request-call", args=[campaign.pk]), data, **HX)
    assert response.status_code == 400
    assert_plain(response, message)
    assert not RollRequest.objects.exists()


# --- The campaign: its form, its options and its invitations ----------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"system": "d20"}, "id_system", "d20 is not on the list: choose"),
        ({"system": ""}, "id_system", "Choose "),
        ({"explosion": "wild"}, "id_explosion", "wild is not on the list: choose one of the options offered."),
        ({"explosion": ""}, "id_explosion", "Choose one of the options offered."),
        ({"skill_method": "lottery"}, "id_skill_method", "lottery is not on the list: choose"),
        ({"skills-0-ability": "luck"}, None, f"luck is not on the list: choose {ABILITIES}."),
        ({"skill_preset": "steampunk"}, "id_skill_preset",
         "steampunk is not on the list: choose Fantasy, Post-Apocalyptic, Sci-fi or Custom."),
    ],
)  # fmt: skip
def test_a_new_campaign_refuses_a_choice_in_plain_words_and_is_not_made(client, gm, change, field, message) -> None:
    client.force_login(gm)
    response = client.post(reverse("campaigns:create"), {**options_post(), **change})
    assert response.status_code == 400
    said = messages(response)
    assert any(message in m for m in said), said
    if field is not None:
        assert any(m.startswith(message) for m in beside(response, field)), said
    assert not [m for m in said if PROGRAMMERS_WORDS.search(m)], said
    assert not Campaign.objects.exists()


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"explosion": "wild"}, "id_explosion", "wild is not on the list: choose one of the options offered."),
        ({"ability_methods": ""}, "id_ability_methods", "Choose one of the options offered."),
    ],
)
def test_the_campaigns_options_refuse_a_choice_in_plain_words_and_keep_theirs(client, gm, campaign, change, field,
                                                                              message) -> None:  # fmt: skip
    from tests.campaigns.helpers import saved_rows

    before = campaign.settings
    client.force_login(gm)
    data = options_post(system=None, name=campaign.name, **{**before, "skills": saved_rows(before)})
    response = client.post(reverse("campaigns:settings", args=[campaign.pk]), {**data, **change})
    assert response.status_code == 400
    assert_plain(response, message, field_id=field)
    campaign.refresh_from_db()
    assert campaign.settings == before


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"days": "5", "uses": "single"}, "id_days", "5 is not on the list: choose 1 day, 7 days or 30 days."),
        ({"days": "", "uses": "single"}, "id_days", "Choose 1 day, 7 days or 30 days."),
        ({"days": "7", "uses": "twice"}, "id_uses", "twice is not on the list: choose one of the options offered."),
        ({"days": "7", "uses": ""}, "id_uses", "Choose one of the options offered."),
    ],
)
def test_an_invitation_refuses_a_choice_in_plain_words_and_makes_no_link(client, gm, campaign, data, field,
                                                                         message) -> None:  # fmt: skip
    client.force_login(gm)
    response = client.post(reverse("campaigns:create-invitation", args=[campaign.pk]), data)
    assert response.status_code == 400
    assert_plain(response, message, field_id=field)
    assert not Invitation.objects.exists()


# --- The encounter's attack --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("choices", "message"),
    [
        ({"attacker_roll": "twice"}, "The attacker's background or impairment: twice is not on the list: choose"),
        ({"defender_help_with": "neither"}, "What helps the target: neither is not on the list: choose"),
        ({"step_1_name": "Mud", "step_1_side": "nobody", "step_1_die": "combat", "step_1_steps": "-1"},
         "Situational step 1: whose dice: nobody is not on the list: choose The attacker or The target."),
    ],
)  # fmt: skip
def test_the_attack_refuses_a_choice_in_plain_words_and_rolls_nothing(client, gm, campaign, brunella, choices,
                                                                      message) -> None:  # fmt: skip
    """An attack's choices may all be left empty (neither, nobody, no step): only a value not offered is refused."""
    ids = {"campaign_id": campaign.pk, "encounter_id": encounters.start_encounter(campaign_id=campaign.pk, by=gm,
                                                                                   name="Ambush").pk}  # fmt: skip
    (hero,) = encounters.add_characters(**ids, by=gm, character_ids=[brunella.pk])
    (goblin,) = encounters.add_npcs(**ids, by=gm, **GOBLIN)
    encounters.roll_initiative(**ids, by=gm, rng=random.Random(3))
    client.force_login(gm)
    data = {"attacker": hero.pk, "target": goblin.pk, **choices}
    response = client.post(reverse("play:encounter-attack", args=[campaign.pk]), data)
    assert response.status_code == 400
    assert_plain(response, message)
    assert not Roll.objects.filter(kind__in=["attack", "damage"]).exists()
