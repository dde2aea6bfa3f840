"""Creating a campaign: the form, its skill list without JavaScript and with htmx,
the rules system's messages by the fields, and the creator as the GM."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership
from rules.systems import lucky13
from tests.campaigns.helpers import assert_login_redirect, choice_words, form_data, html, options_post, text

pytestmark = pytest.mark.django_db

URL = reverse("campaigns:create")


def test_anonymous_visitors_are_sent_to_log_in(client) -> None:
    assert_login_redirect(client.get(URL))
    assert_login_redirect(client.post(URL, options_post()))
    assert not Campaign.objects.exists()


def test_the_form_offers_the_rules_registry_and_the_lucky13_defaults(client, outsider) -> None:
    client.force_login(outsider)

    response = client.get(URL)

    page = html(response)
    assert response.status_code == 200
    assert '<option value="lucky13" selected>Lucky 13</option>' in page
    assert 'value="cinematic" id="id_explosion_0" required checked' in page
    for name in lucky13.ABILITIES:
        assert f'value="{name}"' in page
    for skill, _ in lucky13.SKILL_PRESETS["fantasy"][1]:
        assert f'value="{skill}"' in page
    assert 'name="hit_points_per_step" value="10"' in page
    assert "Post-Apocalyptic" in page
    assert "Sci-fi" in page
    # Every refresh button has an htmx request and still works as a plain submit.
    assert 'name="fill_skill_preset" value="1" class="button secondary" formnovalidate' in page
    assert 'name="more_skills" value="1" class="button secondary" formnovalidate' in page
    assert 'hx-post="/campaigns/new/" hx-target="#system-options"' in page


def test_anyone_signed_in_creates_a_campaign_and_becomes_its_gm(client, outsider) -> None:
    client.force_login(outsider)

    response = client.post(URL, options_post(name="  The  Iron Marches ", explosion="gritty"), follow=True)

    campaign = Campaign.objects.get()
    assert response.redirect_chain == [(reverse("campaigns:detail", args=[campaign.pk]), 302)]
    assert campaign.name == "The Iron Marches"
    assert campaign.description == "Border wars."
    assert campaign.options == lucky13.validate_options({"explosion": "gritty"})
    assert campaign.options["skill_preset"] == "fantasy"
    assert list(campaign.memberships.values_list("user__username", "role")) == [("outsider", Membership.Role.GM)]
    assert text(response).count("The Iron Marches is ready.") == 1  # shown once, by the base template


def test_a_custom_skill_list_adds_renames_removes_and_reorders(client, gm) -> None:
    client.force_login(gm)
    rows = [
        {"name": "Spellcasting", "ability": "intellect", "ORDER": 3},
        {"name": "Lore", "ability": "will", "ORDER": 1},  # Scholarship renamed, relinked, moved up
        {"name": "Healing", "ability": "will", "DELETE": True},
        {"name": "Sneaking", "ability": "reflex", "ORDER": 2},
        {"name": "Fighting", "ability": "reflex", "combat": True, "ORDER": 4},
        {"name": "Sailing", "ability": "", "ORDER": ""},  # a blank row filled in: added last
        {"name": "", "ability": "", "ORDER": ""},  # a blank row left blank
    ]

    response = client.post(URL, options_post(skills=rows))

    assert response.status_code == 302
    options = Campaign.objects.get().options
    assert options["skills"] == [
        {"name": "Lore", "ability": "will", "combat": False},
        {"name": "Sneaking", "ability": "reflex", "combat": False},
        {"name": "Spellcasting", "ability": "intellect", "combat": False},
        {"name": "Fighting", "ability": "reflex", "combat": True},
        {"name": "Sailing", "ability": None, "combat": False},
    ]
    assert options["skill_preset"] == "custom"


def test_renamed_abilities_and_the_creation_methods_are_saved(client, gm) -> None:
    client.force_login(gm)
    names = ["Grit", "Guile", "Brawn", "Wits", "Speed"]

    response = client.post(
        URL,
        options_post(ability_names=names, hit_points_per_step=5, ability_methods="array", skill_method="point_buy",
                     skill_points=20, starting_specializations=2),
    )  # fmt: skip

    assert response.status_code == 302
    options = Campaign.objects.get().options
    assert options["ability_names"] == names
    assert (options["hit_points_per_step"], options["ability_methods"]) == (5, "array")
    assert (options["skill_method"], options["skill_points"], options["starting_specializations"]) == (
        "point_buy", 20, 2,
    )  # fmt: skip


def test_the_linked_ability_is_offered_in_the_ability_names_typed_else_the_defaults(client, gm) -> None:
    client.force_login(gm)
    defaults = {"": "None", **dict(zip(lucky13.ABILITY_KEYS, lucky13.ABILITIES, strict=True))}
    typed = {"": "None", "will": "Grit", "charm": "Guile", "pulse": "Brawn", "intellect": "Wits", "reflex": "Reflex"}

    assert choice_words(client.get(URL), "skills-0-ability") == defaults
    data = options_post(ability_names=["Grit", "Guile", "Brawn", "Wits", " "])  # Reflex's box left empty
    data.pop("save")
    data["more_skills"] = "1"
    redrawn = client.post(URL, data)
    refused = client.post(
        URL, options_post(ability_names=["Grit", "Guile", "Brawn", "Wits", ""], hit_points_per_step=0)
    )

    for row in (0, 4, 5, 9):  # the preset's skills, the blank rows and the three more
        assert choice_words(redrawn, f"skills-{row}-ability") == typed
    assert refused.status_code == 400
    assert choice_words(refused, "skills-0-ability") == typed
    assert not Campaign.objects.exists()

    response = client.post(URL, form_data(redrawn, **{"ability_names-4": "Speed", "skills-5-name": "Riding",
                                                      "skills-5-ability": "reflex"}))  # fmt: skip

    assert response.status_code == 302
    options = Campaign.objects.get().options
    assert options["ability_names"] == ["Grit", "Guile", "Brawn", "Wits", "Speed"]
    assert {"name": "Riding", "ability": "reflex", "combat": False} in options["skills"]


@pytest.mark.parametrize(
    ("change", "field_id", "message"),
    [
        ({"hit_points_per_step": 0}, "id_hit_points_per_step", "Must be a whole number from 1 to 100"),
        ({"starting_specializations": 11}, "id_starting_specializations", "Must be a whole number from 0 to 10"),
        ({"skill_array": "d4 d7"}, "id_skill_array", "Must be d4, d6, d8, d10 or d12"),
        ({"skill_method": "array", "skill_array": "d6 d8"}, "id_skill_array", "Needs a die for each of the 5 skills"),
        ({"skill_points": 0}, "id_skill_points", "Must be a whole number from 1 to 100"),
    ],
    ids=["hit-points", "specializations", "bad-die", "short-array", "budget"],
)
def test_a_rule_broken_shows_the_engines_message_by_its_field(client, gm, change, field_id, message) -> None:
    client.force_login(gm)

    response = client.post(URL, options_post(**change))

    page = html(response)
    assert response.status_code == 400
    assert f'<p class="field-error" id="{field_id}_error">{message}' in page
    assert '<div class="errors" role="alert" id="form-errors">' in page
    assert not Campaign.objects.exists()


def test_ability_names_must_differ(client, gm) -> None:
    client.force_login(gm)

    response = client.post(URL, options_post(ability_names=["Will", "will", "Pulse", "Intellect", "Reflex"]))

    assert response.status_code == 400
    said = '<p class="field-error" id="ability_names-error">The five abilities need different names</p>'
    assert said in html(response)
    assert "Ability names: the five abilities need different names" in text(response)
    assert not Campaign.objects.exists()


def test_two_skills_of_one_name_are_refused_by_the_skill_list(client, gm) -> None:
    client.force_login(gm)
    rows = [{"name": "Lore", "ability": "will"}, {"name": "lore", "ability": ""}]

    response = client.post(URL, options_post(skills=rows))

    assert response.status_code == 400
    said = '<p class="field-error" id="rows-skills-error">Two skills are called lore: each skill once</p>'
    assert said in html(response)
    # What was typed is still there.
    assert 'name="skills-1-name" value="lore"' in html(response)
    assert not Campaign.objects.exists()


def test_a_skill_list_needs_a_skill(client, gm) -> None:
    client.force_login(gm)
    rows = [{"name": "Lore", "ability": "will", "DELETE": True}, {"name": "", "ability": ""}]

    response = client.post(URL, options_post(skills=rows))

    assert response.status_code == 400
    assert "Skills: must have at least 1 entries" in text(response)
    assert not Campaign.objects.exists()


@pytest.mark.parametrize(
    "change",
    [{"name": "   "}, {"system": "d20"}, {"explosion": "wild"}, {"hit_points_per_step": "ten"}],
    ids=["blank-name", "unknown-system", "unknown-style", "not-a-number"],
)
def test_bad_input_is_a_400_that_creates_nothing(client, gm, change) -> None:
    client.force_login(gm)
    data = options_post()
    data.update(change)

    response = client.post(URL, data)

    assert response.status_code == 400
    assert '<div class="errors" role="alert" id="form-errors">' in html(response)
    assert not Campaign.objects.exists()


def test_a_flood_of_skill_rows_is_refused_without_building_them(client, gm) -> None:
    client.force_login(gm)
    data = options_post()
    data["skills-TOTAL_FORMS"] = 100_000

    response = client.post(URL, data)

    assert response.status_code == 400
    assert "Please submit at most" in html(response)
    assert not Campaign.objects.exists()


def test_using_a_preset_redraws_the_form_without_saving(client, gm) -> None:
    client.force_login(gm)
    data = options_post(name="Half typed", hit_points_per_step="12")
    data.pop("save")
    data.update({"fill_skill_preset": "1", "skill_preset": "sci_fi"})

    response = client.post(URL, data)

    page = html(response)
    assert response.status_code == 200
    assert not Campaign.objects.exists()
    for skill, _ in lucky13.SKILL_PRESETS["sci_fi"][1]:
        assert f'value="{skill}"' in page
    assert 'value="Spellcasting"' not in page
    # Everything else keeps what was typed, and no error is shown for a form not yet sent.
    assert 'name="name" value="Half typed"' in page
    assert 'name="hit_points_per_step" value="12"' in page
    assert "field-error" not in page


def test_with_htmx_a_preset_swaps_only_the_options(client, gm) -> None:
    client.force_login(gm)
    data = options_post()
    data.pop("save")
    data.update({"fill_skill_preset": "1", "skill_preset": "post_apocalyptic"})

    response = client.post(URL, data, headers={"HX-Request": "true"})

    page = html(response)
    assert response.status_code == 200
    assert page.lstrip().startswith('<div id="system-options">')
    assert 'name="name"' not in page  # the campaign's own fields are not redrawn
    assert "<html" not in page
    assert 'value="Weaponry"' in page
    assert "HX-Request" in response["Vary"]
    assert not Campaign.objects.exists()


def test_more_rows_adds_blank_rows_and_keeps_the_typed_ones(client, gm) -> None:
    client.force_login(gm)
    rows = [{"name": "Lore", "ability": "will", "ORDER": 2}, {"name": "Riding", "ability": "", "DELETE": True}]
    data = options_post(skills=rows)
    data.pop("save")
    data["more_skills"] = "1"

    response = client.post(URL, data)

    page = html(response)
    assert response.status_code == 200
    assert 'name="skills-TOTAL_FORMS" value="7"' in page  # the two typed, two blank, three more
    assert 'name="skills-0-name" value="Lore"' in page
    assert 'name="skills-0-ORDER" value="2"' in page
    assert 'name="skills-1-DELETE" id="id_skills-1-DELETE" checked' in page
    assert 'name="skills-6-name"' in page
    assert not Campaign.objects.exists()


def test_every_error_shows_at_once_by_its_field_and_what_was_typed_stays(client, gm) -> None:
    # Before, the campaign's and a number's errors came first, and the rules' and the rows' only on
    # the next submit.
    client.force_login(gm)
    data = options_post(
        name="", hit_points_per_step="ten", starting_specializations=11, skill_method="array", skill_array="d6 d8",
        ability_names=["Will", "will", "Pulse", "Intellect", "Reflex"],
        background_table=[{"name": "", "description": "Raised by wolves"}],
    )  # fmt: skip

    response = client.post(URL, data)

    page = html(response)
    assert response.status_code == 400
    assert '<p class="field-error" id="id_name_error">This field is required.' in page
    assert '<p class="field-error" id="id_hit_points_per_step_error">Enter a whole number.' in page
    assert '<p class="field-error" id="id_starting_specializations_error">Must be a whole number from 0 to 10' in page
    assert '<p class="field-error" id="id_skill_array_error">Needs a die for each of the 5 skills' in page
    assert '<p class="field-error" id="ability_names-error">The five abilities need different names</p>' in page
    assert '<p class="field-error" id="id_background_table-0-name_error">Needs a name</p>' in page
    for typed in ('name="hit_points_per_step" value="ten"', 'name="starting_specializations" value="11"',
                  '>\nd6 d8</textarea>', 'value="Raised by wolves"'):  # fmt: skip
        assert typed in page
    assert not Campaign.objects.exists()


def test_a_refused_skill_list_and_the_rules_errors_show_together(client, gm) -> None:
    client.force_login(gm)
    rows = [{"name": "Lore", "ability": "will", "combat": True}, {"name": "Riding", "ability": "", "combat": True}]

    response = client.post(URL, options_post(skills=rows, hit_points_per_step=0))

    page = html(response)
    assert response.status_code == 400
    assert "Mark at most one skill as the one that fights" in page
    assert '<p class="field-error" id="id_hit_points_per_step_error">Must be a whole number from 1 to 100' in page
    assert not Campaign.objects.exists()
