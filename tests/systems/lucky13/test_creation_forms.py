"""Lucky 13's creation pages after a refusal: every pick stays as the player made it, each message
sits by what it is about and is written for a player (never a programmer's words), a filled-in row
without a name is refused rather than dropped, and point-bought skill dice show what they cost."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters.models import Character
from rules.dice import StepDie
from rules.systems import lucky13
from tests.systems.lucky13 import drafts as creation

pytestmark = pytest.mark.django_db

DICE = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
#: What no message a player reads may hold: pydantic's and Django's own words, quotes around
#: nothing, a form's field names.
PROGRAMMERS_WORDS = re.compile(
    r"Input should|String should|Value should|should be a valid|is not one of|Field required|Extra inputs|"
    r"''|\"\"|\b(spec|trait|asset|weapon|armor|skill)-\d+|\bid \d+|None\b"
)


def step_url(character: Character, step: str) -> str:
    return reverse("characters:create-step", args=[character.pk, step])


def saved(character: Character) -> Character:
    return Character.objects.get(pk=character.pk)


def messages_of(page: str) -> list[str]:
    """The words of every message on a page: the alert at the top and each field's."""
    found = re.findall(r'<(?:p|div) class="(?:field-error|errors)"[^>]*>(.*?)</(?:p|div)>', page, re.S)
    return [" ".join(unescape(re.sub(r"<[^>]+>", " ", text)).split()) for text in found]


def plain(page: str) -> list[str]:
    """The page's messages, checked for a programmer's words."""
    said = messages_of(page)
    assert said, "the page shows no message"
    assert [m for m in said if PROGRAMMERS_WORDS.search(m)] == []
    return said


def make_campaign(gm, player, **options) -> Campaign:
    campaign = Campaign.objects.create(name="Forms", system="lucky13", options=options)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    return campaign


def at_step(campaign: Campaign, player, step: str) -> Character:
    """A draft that has got as far as ``step`` (abilities balanced, skills by the campaign's method)."""
    character = creation.start_character(campaign=campaign, owner=player, name="Brunella")
    ids = {"character_id": character.pk}
    if step == "abilities":
        return saved(character)
    dice = {key: StepDie.parse(label) for key, label in DICE.items()}
    creation.assign_abilities(**ids, array="balanced", dice=dice)
    if step == "skills":
        return saved(character)
    creation.set_skills(**ids)
    if step == "specializations":
        return saved(character)
    creation.set_specializations(**ids, choices=[], took_impairment=False)
    if step == "traits":
        return saved(character)
    creation.set_traits(**ids, traits=[])
    return saved(character)


def skill_ids(character: Character) -> dict[str, str]:
    return {s.name: str(s.id) for s in saved(character).document.skills}


# --- Rows without a name ------------------------------------------------------------------------


def test_an_impairment_without_a_name_is_refused_by_its_field_with_everything_kept(client, gm, player) -> None:
    character = at_step(make_campaign(gm, player), player, "traits")
    client.force_login(player)
    data = {
        "version": character.version,
        "trait-0-kind": "background", "trait-0-name": "Mercenary", "trait-0-description": "Free companies",
        "trait-1-kind": "impairment", "trait-1-name": "  ", "trait-1-description": "Limps since the siege",
        "trait-2-kind": "background", "trait-2-name": "", "trait-2-description": "",
    }  # fmt: skip

    response = client.post(step_url(character, "traits"), data)

    page = response.content.decode()
    assert response.status_code == 400
    assert plain(page) == ["That didn't work Give this impairment a name.", "Give this impairment a name."]
    # The message is by the name it is about, and everything typed is on the page again.
    assert 'aria-invalid="true" aria-describedby="id_trait-1-name_error"' in page
    assert '<p class="field-error" id="id_trait-1-name_error">Give this impairment a name.</p>' in page
    assert 'value="Mercenary"' in page
    assert "Limps since the siege</textarea>" in page
    assert '<option value="impairment" selected>' in page
    assert saved(character).document.traits == ()
    assert saved(character).version == character.version


def test_an_impairment_picked_in_a_blank_entry_is_refused_not_dropped(client, gm, player) -> None:
    character = at_step(make_campaign(gm, player), player, "traits")
    client.force_login(player)

    response = client.post(
        step_url(character, "traits"),
        {"version": character.version, "trait-0-kind": "impairment", "trait-0-name": "", "trait-0-description": ""},
    )

    assert response.status_code == 400
    assert "Give this impairment a name." in plain(response.content.decode())
    assert saved(character).document.creation.step == "traits"


def test_blank_entries_are_still_skipped(client, gm, player) -> None:
    character = at_step(make_campaign(gm, player), player, "traits")
    client.force_login(player)
    blank = {"trait-0-kind": "background", "trait-0-name": "", "trait-0-description": ""}

    response = client.post(step_url(character, "traits"), {"version": character.version, **blank})

    assert response["Location"] == step_url(character, "equipment")
    assert saved(character).document.traits == ()


def test_a_specialization_needs_its_skill_and_its_name_and_every_pick_stays(client, gm, player) -> None:
    character = at_step(make_campaign(gm, player), player, "specializations")
    fighting = skill_ids(character)["Fighting"]
    client.force_login(player)
    data = {
        "version": character.version, "took_impairment": "on",
        "spec-0-skill": fighting, "spec-0-name": "Broadsword",
        "spec-1-skill": fighting, "spec-1-name": "",
        "spec-2-skill": "", "spec-2-name": "Disguise",
        "spec-3-skill": "", "spec-3-name": "",
    }  # fmt: skip

    response = client.post(step_url(character, "specializations"), data)

    page = response.content.decode()
    assert response.status_code == 400
    said = plain(page)
    assert said[0] == "That didn't work Nothing was saved: please check the 2 things marked below."
    assert said[1:] == ["Give this specialization a name.", "Choose the skill Disguise falls under."]
    assert '<p class="field-error" id="id_spec-1-name_error">Give this specialization a name.</p>' in page
    assert '<p class="field-error" id="id_spec-2-skill_error">Choose the skill Disguise falls under.</p>' in page
    assert page.count(f'<option value="{fighting}" selected>') == 2  # the skills as picked
    assert 'value="Broadsword"' in page
    assert 'value="Disguise"' in page
    assert 'name="took_impairment" checked' in page
    assert all(not skill.specializations for skill in saved(character).document.skills)


def test_a_skill_the_character_does_not_have_is_said_in_words(client, gm, player) -> None:
    character = at_step(make_campaign(gm, player), player, "specializations")
    client.force_login(player)

    response = client.post(
        step_url(character, "specializations"),
        {"version": character.version, "spec-0-skill": "999", "spec-0-name": "Broadsword"},
    )

    assert response.status_code == 400
    assert "Choose one of this character's skills for Broadsword." in plain(response.content.decode())


def test_an_asset_without_a_name_is_refused_and_the_rest_of_the_equipment_stays(client, gm, player) -> None:
    character = at_step(make_campaign(gm, player), player, "equipment")
    healing = skill_ids(character)["Healing"]
    client.force_login(player)
    data = {
        "version": character.version,
        "asset-0-name": "", "asset-0-kind": "person", "asset-0-level": "3", "asset-0-skills": [healing],
        "asset-0-description": "A monk who owes a favour",
        "weapon-0-name": "Broadsword", "weapon-0-accuracy": "d8", "weapon-0-damage": "d10",
        "armor-0-name": "Chainmail", "armor-0-defense": "d6",
    }  # fmt: skip

    response = client.post(step_url(character, "equipment"), data)

    page = response.content.decode()
    assert response.status_code == 400
    assert '<p class="field-error" id="id_asset-0-name_error">Give this asset a name.</p>' in page
    assert 'value="A monk who owes a favour"' in page
    assert '<option value="person" selected>' in page
    assert '<option value="3" selected>' in page
    assert f'value="{healing}" checked' in page
    assert 'value="Broadsword"' in page
    assert "<option selected>d10</option>" in page
    assert 'value="Chainmail"' in page
    plain(page)
    assert (saved(character).document.assets, saved(character).document.weapons) == ((), ())


def test_a_bad_die_of_a_weapon_is_said_by_its_select(client, gm, player) -> None:
    character = at_step(make_campaign(gm, player), player, "equipment")
    client.force_login(player)

    response = client.post(
        step_url(character, "equipment"),
        {"version": character.version, "weapon-0-name": "Cannon", "weapon-0-accuracy": "d20", "weapon-0-damage": "d6"},
    )

    page = response.content.decode()
    assert response.status_code == 400
    assert '<p class="field-error" id="id_weapon-0-accuracy_error">Choose a die for accuracy.</p>' in page
    assert 'value="Cannon"' in page
    plain(page)


# --- Dice left unchosen, and the campaign's names ------------------------------------------------


def test_every_ability_left_without_a_die_is_marked_with_the_campaigns_name_for_it(client, gm, player) -> None:
    names = ["Grit", "Charm", "Brawn", "Wits", "Reflex"]
    character = at_step(make_campaign(gm, player, ability_names=names), player, "abilities")
    client.force_login(player)

    response = client.post(
        step_url(character, "abilities"),
        {"version": character.version, "method": "specialized", "will": "", "charm": "d12", "pulse": "",
         "intellect": "d6", "reflex": "d4"},
    )  # fmt: skip

    page = response.content.decode()
    assert response.status_code == 400
    assert plain(page)[1:] == ["Choose a die for Grit.", "Choose a die for Brawn."]
    assert '<select id="id_will" name="will" aria-invalid="true" aria-describedby="id_will_error">' in page
    assert '<option value="d12" selected>' in page
    assert 'value="specialized" checked' in page
    assert saved(character).document.abilities.charm is None


def test_the_rules_say_a_missing_ability_by_the_campaigns_name() -> None:
    options = {**lucky13.default_options(), "ability_names": ["Grit", "Charm", "Brawn", "Wits", "Reflex"]}
    sheet = lucky13.SYSTEM.new_draft(options)

    [problem] = lucky13.SYSTEM.check_step(sheet, "abilities", options)

    assert problem.message == "give every ability a die (Grit, Charm, Brawn, Wits and Reflex have none)"


# --- Point buy: the running total ---------------------------------------------------------------


def test_point_buy_shows_the_points_spent_and_left(client, gm, player) -> None:
    character = at_step(make_campaign(gm, player, skill_method="point_buy"), player, "skills")
    client.force_login(player)

    page = client.get(step_url(character, "skills")).content.decode()

    assert '<p class="points-total" id="skill-points" aria-live="polite">Points spent: 0 of 15; 15 left.</p>' in page
    costs = "{&quot;d4&quot;: 1, &quot;d6&quot;: 2, &quot;d8&quot;: 3, &quot;d10&quot;: 4, &quot;d12&quot;: 5}"
    assert f'data-point-budget="15" data-point-costs="{costs}"' in page


def test_without_javascript_the_refused_page_counts_the_dice_as_picked(client, gm, player) -> None:
    character = at_step(make_campaign(gm, player, skill_method="point_buy"), player, "skills")
    ids = list(skill_ids(character).values())
    client.force_login(player)
    picks = {f"skill-{ids[0]}": "d12", f"skill-{ids[1]}": "d12", f"skill-{ids[2]}": "d8", f"skill-{ids[3]}": "d4"}

    response = client.post(step_url(character, "skills"), {"version": character.version, **picks})

    page = response.content.decode()
    assert response.status_code == 400
    assert "Points spent: 14 of 15; 1 left." in page  # d12 d12 d8 d4: 5 + 5 + 3 + 1
    assert f'<p class="field-error" id="id_skill-{ids[4]}_error">Choose a die for Fighting.</p>' in page
    assert page.count('<option value="d12" selected>') == 2

    over = {**picks, f"skill-{ids[4]}": "d10"}
    response = client.post(step_url(character, "skills"), {"version": character.version, **over})
    page = response.content.decode()
    assert "Points spent: 18 of 15; 3 over the budget." in page
    assert '<p class="field-error" id="skills-error">Those dice cost 18 points; the budget is 15.</p>' in page
    plain(page)
    assert all(skill.die is None for skill in saved(character).document.skills)


def test_the_point_cost_of_each_die() -> None:
    assert [lucky13.skill_point_cost(StepDie.of(sides)) for sides in (4, 6, 8, 10, 12)] == [1, 2, 3, 4, 5]


def test_other_skill_methods_show_no_points(client, gm, player) -> None:
    character = at_step(make_campaign(gm, player, skill_method="array"), player, "skills")
    client.force_login(player)

    page = client.get(step_url(character, "skills")).content.decode()

    assert "Points spent" not in page
    assert "data-point-budget" not in page


# --- Messages in words --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "data", "message"),
    [
        ("abilities", {"method": "balanced", **DICE, "charm": "d20"}, "Choose a die for Charm."),
        ("abilities", {"method": "", **DICE}, "Choose the balanced or the specialized array."),
        ("specializations", {"spec-0-skill": "", "spec-0-name": "x" * 61}, "names are at most 60 characters."),
        ("traits", {"trait-0-kind": "curse", "trait-0-name": "Hex"}, "A trait is a background or an impairment."),
        ("traits", {"trait-0-kind": "background", "trait-0-name": "Bell\u0007ringer"},
         "Keep the name on one line, without control characters."),
        ("traits", {"trait-0-kind": "background", "trait-0-name": "Hex", "trait-0-description": "x" * 2001},
         "Keep descriptions under 2000 characters."),
        ("traits", {"trait-0-kind": "background", "trait-0-name": "Hex", "trait-0-description": "a\x00b"},
         "Remove the control characters from the description."),
        ("equipment", {"asset-0-name": "Map", "asset-0-kind": "dragon", "asset-0-level": "2"},
         "An asset is a thing or a person."),
        ("equipment", {"asset-0-name": "Map", "asset-0-kind": "thing", "asset-0-level": "9"},
         "An asset level is from 1 (Inferior) to 5 (Perfect)."),
        ("equipment", {"asset-0-name": "Map", "asset-0-kind": "thing", "asset-0-level": "2", "asset-0-skills": "99"},
         "An asset helps only skills this character has: choose them from the list."),
        ("equipment", {"armor-0-name": "Plate", "armor-0-defense": ""}, "Choose a die for defense."),
    ],
)  # fmt: skip
def test_every_refusal_is_said_for_a_player(client, gm, player, step, data, message) -> None:
    character = at_step(make_campaign(gm, player), player, step)
    client.force_login(player)

    response = client.post(step_url(character, step), {"version": character.version, **data})

    assert response.status_code == 400
    said = plain(response.content.decode())
    assert any(line.endswith(message) for line in said[1:]), said  # by what it is about
    assert saved(character).version == character.version


# --- The forms made from a sheet model (every system without pages of its own) -------------------


def test_a_generated_choice_refuses_in_words() -> None:
    from django import forms

    from characters.generated import scalar_field

    field = scalar_field("kind", {"enum": ["thing", "person"]}, False)

    with pytest.raises(forms.ValidationError) as error:
        field.clean("")
    assert error.value.messages == ["Choose thing or person."]
    with pytest.raises(forms.ValidationError) as error:
        field.clean("dragon")
    assert error.value.messages == ["dragon is not on the list: choose thing or person."]


@pytest.fixture
def flipped(client, coin_campaign, player) -> Character:
    """A Coin draft at its tricks step (the generic wizard, with a form made from the sheet model)."""
    client.force_login(player)
    client.post(reverse("characters:create", args=[coin_campaign.pk]), {"name": "Flip"})
    draft = Character.objects.get(campaign=coin_campaign, name="Flip")
    client.post(step_url(draft, "nerve"), {"version": str(draft.version), "action": "roll"})
    return saved(draft)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"tricks-TOTAL_FORMS": "500", "tricks-INITIAL_FORMS": "0"}, "At most 102 rows."),
        ({}, "This form is missing some of its parts: reload the page and try again."),
        ({"tricks-TOTAL_FORMS": "1", "tricks-INITIAL_FORMS": "0", "tricks-0-name": "x" * 61},
         "Ensure this value has at most 60 characters (it has 61)."),
    ],
)  # fmt: skip
def test_a_generated_step_refuses_in_words(client, flipped, data, message) -> None:
    response = client.post(step_url(flipped, "tricks"), {"version": str(flipped.version), "notes": "", **data})

    page = response.content.decode()
    assert response.status_code == 400
    assert message in page
    assert "ManagementForm" not in page
    assert "forms." not in page
    assert saved(flipped).version == flipped.version


# --- The first page: a name and a concept --------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "field", "message"),
    [
        ({"name": "  ", "concept": "Sellsword"}, "name", "A character needs a name."),
        ({"name": "Bell\u0007ringer", "concept": ""}, "name", "Keep the name on one line, without control characters."),
        ({"name": "Brunella", "concept": "x" * 201}, "concept", "Keep the concept under 200 characters."),
    ],
)
def test_the_start_page_says_what_is_wrong_by_its_field_and_keeps_what_was_typed(client, gm, player, typed, field,
                                                                                 message) -> None:  # fmt: skip
    campaign = make_campaign(gm, player)
    client.force_login(player)

    response = client.post(reverse("characters:create", args=[campaign.pk]), typed)

    page = response.content.decode()
    assert response.status_code == 400
    assert f'<p class="field-error" id="id_{field}_error">{message}</p>' in page
    assert f'aria-invalid="true" aria-describedby="id_{field}_error"' in page
    for value in typed.values():
        assert f'value="{value}"' in page
    plain(page)
    assert not Character.objects.exists()


def test_the_generic_start_page_says_a_blank_name_by_its_field(client, coin_campaign, player) -> None:
    client.force_login(player)

    response = client.post(reverse("characters:create", args=[coin_campaign.pk]), {"name": "   "})

    assert response.status_code == 400
    assert '<p class="field-error" id="id_name_error">Give the character a name.</p>' in response.content.decode()
    assert not Character.objects.exists()


@pytest.mark.parametrize("headers", [{}, {"HTTP_HX_REQUEST": "true"}], ids=["plain", "htmx"])
def test_a_die_not_chosen_and_a_budget_already_spent_come_together(client, gm, player, headers) -> None:
    character = at_step(make_campaign(gm, player, skill_method="point_buy"), player, "skills")
    before = (character.version, character.sheet)
    ids = list(skill_ids(character).values())
    client.force_login(player)
    picks = {f"skill-{ids[0]}": "d12", f"skill-{ids[1]}": "d12", f"skill-{ids[2]}": "d12", f"skill-{ids[3]}": "d4"}

    response = client.post(step_url(character, "skills"), {"version": character.version, **picks}, **headers)

    page = response.content.decode()
    assert response.status_code == 400
    assert f'<p class="field-error" id="id_skill-{ids[4]}_error">Choose a die for Fighting.</p>' in page
    assert "Those dice cost 16 points already; the budget is 15." in page  # 5 + 5 + 5 + 1, Fighting still to add
    assert page.count('<option value="d12" selected>') == 3
    character.refresh_from_db()
    assert (character.version, character.sheet) == before
