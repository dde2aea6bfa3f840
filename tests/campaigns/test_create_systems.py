"""A new campaign of any system from the page: the page shows the chosen system's options at their
defaults (``?system=<key>``, a plain submit button, or htmx swapping the options when the system
changes), the defaults as shown create the campaign, a preset loads whole, a list option keeps
names with spaces, and options shown for another system are never read as the chosen one's."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from rules.systems import d6
from rules.systems.d6 import options as d6_options
from tests.campaigns.helpers import form_data, html, options_post, text

pytestmark = pytest.mark.django_db

URL = reverse("campaigns:create")


def test_a_system_named_in_the_query_shows_its_options_at_their_defaults(client, gm) -> None:
    client.force_login(gm)

    response = client.get(URL, {"system": "d6"})

    page = html(response)
    assert response.status_code == 200
    assert '<option value="d6" selected>D6 die codes</option>' in page
    assert "<h2>D6 die codes options</h2>" in page
    assert 'name="stat_dice" value="18"' in page
    assert 'name="stat_minimum" value="1d"' in page
    assert 'name="stats-0-name" value="Dexterity"' in page
    assert 'name="stats-0-skills-0-name" value="Dodge"' in page
    assert '<option value="dodge" selected>Defends: dodge</option>' in page
    assert 'name="stats-0-skills-1-name" value="Firearms"' in page
    assert '<option value="ranged" selected>Attacks at range</option>' in page
    assert 'name="options_system" value="d6"' in page
    assert 'name="explosion"' not in page  # nothing of Lucky 13
    # Changing the system swaps its options in with htmx; without JavaScript a button redraws the page.
    assert 'hx-post="/campaigns/new/" hx-trigger="change" hx-target="#system-options"' in page
    assert '<button type="submit" name="choose_system" value="1"' in page


def test_an_unknown_system_in_the_query_shows_the_first_one(client, gm) -> None:
    client.force_login(gm)

    response = client.get(URL, {"system": "d20"})

    assert response.status_code == 200
    assert 'name="options_system" value="lucky13"' in html(response)


def test_a_d6_campaign_is_created_with_the_defaults_the_page_shows(client, gm) -> None:
    client.force_login(gm)
    page = client.get(URL, {"system": "d6"})

    response = client.post(URL, form_data(page, name="Night Run"))

    campaign = Campaign.objects.get()
    assert response.status_code == 302
    assert (campaign.name, campaign.system) == ("Night Run", "d6")
    assert campaign.options == d6.SYSTEM.default_options()
    assert campaign.options["stats"] == d6_options.preset_stats("six")


def test_choosing_a_system_without_javascript_redraws_the_page_with_its_options(client, gm) -> None:
    client.force_login(gm)
    data = options_post(name="Night Run", system="d6")
    data.pop("save")
    data["options_system"] = "lucky13"
    data["choose_system"] = "1"

    response = client.post(URL, data)

    page = html(response)
    assert response.status_code == 200
    assert not Campaign.objects.exists()
    assert 'name="name" value="Night Run"' in page  # what was typed stays
    assert '<option value="d6" selected>D6 die codes</option>' in page
    assert 'name="stat_dice" value="18"' in page
    assert 'name="stats-5-name" value="Technical"' in page
    assert 'name="explosion"' not in page
    assert "field-error" not in page
    created = client.post(URL, form_data(response))
    assert created.status_code == 302
    assert Campaign.objects.get().options == d6.SYSTEM.default_options()


def test_with_htmx_choosing_a_system_swaps_only_its_options(client, gm) -> None:
    client.force_login(gm)
    data = options_post(system="d6")
    data.pop("save")
    data["options_system"] = "lucky13"
    data["choose_system"] = "1"

    response = client.post(URL, data, headers={"HX-Request": "true"})

    page = html(response)
    assert response.status_code == 200
    assert page.lstrip().startswith('<div id="form-errors-slot" hx-swap-oob="true"></div>')  # old errors go
    assert '<div id="system-options">' in page
    assert "<html" not in page
    assert 'name="options_system" value="d6"' in page
    assert 'name="stats-0-name" value="Dexterity"' in page
    assert (response["HX-Retarget"], response["HX-Reswap"]) == ("#system-options", "outerHTML")
    assert "HX-Request" in response["Vary"]


def test_creating_with_the_options_of_another_system_shows_the_chosen_ones_first(client, gm) -> None:
    # The system changed without JavaScript and Create pressed: the Lucky 13 options on the page
    # are no D6 options, so the page comes back with D6's, nothing created and nothing refused.
    client.force_login(gm)

    data = options_post(name="Night Run", system="d6")
    data["options_system"] = "lucky13"

    response = client.post(URL, data)

    page = html(response)
    assert response.status_code == 200
    assert not Campaign.objects.exists()
    assert "These are the options of D6 die codes, at their defaults" in text(response)
    assert "This field is required" not in page
    assert 'name="stats-0-name" value="Dexterity"' in page
    assert 'name="name" value="Night Run"' in page


def test_an_unknown_system_is_refused_whatever_options_were_shown(client, gm) -> None:
    client.force_login(gm)
    data = options_post(system="d20")
    data["options_system"] = "d6"

    response = client.post(URL, data)

    assert response.status_code == 400
    assert '<p class="field-error" id="id_system_error">' in html(response)
    assert not Campaign.objects.exists()


def test_with_htmx_a_refresh_of_another_systems_options_swaps_in_the_chosen_ones(client, gm) -> None:
    client.force_login(gm)
    data = options_post(system="d6")
    data.pop("save")
    data["options_system"] = "lucky13"
    data.update({"load_preset": "1", "preset": "sci_fi"})

    response = client.post(URL, data, headers={"HX-Request": "true"})

    assert response.status_code == 200
    assert '<div id="system-options">' in html(response)
    assert response["HX-Retarget"] == "#system-options"


def test_using_the_d6_preset_loads_its_stats_and_keeps_the_numbers_typed(client, gm) -> None:
    client.force_login(gm)
    page = client.get(URL, {"system": "d6"})
    data = form_data(page, name="Night Run", stat_dice="20", stat_preset="six", fill_stat_preset="1")
    data.pop("save")
    data.update({"stats-TOTAL_FORMS": "1", "stats-0-name": "Grit", "stats-0-skills-0-name": "Spot Hidden"})

    response = client.post(URL, data)

    page = html(response)
    assert response.status_code == 200
    assert not Campaign.objects.exists()
    assert 'name="stats-0-name" value="Dexterity"' in page
    assert 'name="stats-3-skills-5-name" value="Sneak"' in page
    assert 'name="stat_dice" value="20"' in page
    assert 'name="skill_dice" value="7"' in page
    assert 'name="stat_minimum" value="1d"' in page
    assert 'value="Grit"' not in page


def test_a_d6_skill_keeps_the_spaces_in_its_name(client, gm) -> None:
    client.force_login(gm)
    page = client.get(URL, {"system": "d6"})
    data = form_data(
        page,
        name="Night Run",
        **{"stats-3-skills-0-name": "Spot Hidden", "stats-3-skills-1-name": "Con", "stats-3-skills-1-reaction": "on"},
    )

    response = client.post(URL, data)

    assert response.status_code == 302
    perception = Campaign.objects.get().options["stats"][3]
    assert perception["skills"][:2] == [
        {"name": "Spot Hidden", "reaction": False, "combat": ""},
        {"name": "Con", "reaction": True, "combat": ""},
    ]


def test_every_error_of_a_d6_campaign_shows_at_once_by_its_field(client, gm) -> None:
    # Before, a number that was not one hid the rules' messages and the rows' until the next submit.
    client.force_login(gm)
    page = client.get(URL, {"system": "d6"})
    data = form_data(page, name=" ", stat_dice="lots", skill_cap="11", stat_minimum="9q", pip_cost="0")
    data.update({"stats-1-name": "", "stats-1-skills-1-name": "Scholar"})

    response = client.post(URL, data)

    body = html(response)
    assert response.status_code == 400
    assert '<p class="field-error" id="id_name_error">This field is required.' in body
    assert '<p class="field-error" id="id_stat_dice_error">Enter a whole number.' in body
    assert '<p class="field-error" id="id_skill_cap_error">Must be a whole number from 0 to 10.' in body
    assert '<p class="field-error" id="id_stat_minimum_error">&#x27;9q&#x27; is not a die code' in body
    assert '<p class="field-error" id="id_pip_cost_error">Must be a whole number from 1 to 10.' in body
    assert '<p class="field-error" id="id_stats-1-name_error">Needs a name</p>' in body
    assert '<p class="field-error" id="rows-stats-error">Check the rows marked below</p>' in body
    # What was typed stays, the stat rows included.
    for typed in ('name="stat_dice" value="lots"', 'name="stat_minimum" value="9q"',
                  'name="stats-1-skills-1-name" value="Scholar"', 'name="stats-0-name" value="Dexterity"'):  # fmt: skip
        assert typed in body
    assert body.count("This field is required") == 2  # the name's, by it and in the list at the top
    assert not Campaign.objects.exists()


def test_a_rule_across_d6_options_is_told_with_the_other_errors(client, gm) -> None:
    client.force_login(gm)
    page = client.get(URL, {"system": "d6"})

    response = client.post(URL, form_data(page, name="Night Run", skill_cap="11", stat_dice="1"))

    body = html(response)
    assert response.status_code == 400
    assert '<p class="field-error" id="id_skill_cap_error">Must be a whole number from 0 to 10.' in body
    assert '<p class="field-error" id="id_stat_dice_error">1d cannot give 6 stats 1d each' in body
