"""The options form generated from each system's options model: every system's defaults on the new-campaign
page (a campaign made from the page as shown has exactly them), every bound of a number refused in words by
its field (400, nothing saved), and a list's rows read back as the model holds them."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from rules import systems
from rules.systems.defaults import options_of
from tests.campaigns.helpers import form_data, html, text

pytestmark = pytest.mark.django_db

URL = reverse("campaigns:create")
KEYS = sorted(systems.registered_keys())


@pytest.mark.parametrize("key", KEYS)
def test_the_new_campaign_page_shows_each_systems_options_at_their_defaults(client, gm, key) -> None:
    client.force_login(gm)
    page = client.get(URL, {"system": key})
    assert page.status_code == 200
    rules = systems.get(key)
    for option in rules.option_fields:
        assert option.label in html(page)

    created = client.post(URL, form_data(page, name="From the page"))

    assert created.status_code == 302
    campaign = Campaign.objects.get()
    assert (campaign.system, campaign.options) == (key, rules.default_options())


BOUNDS = [
    (key, option.key, option.minimum, option.maximum, value)
    for key in KEYS
    for option in options_of(systems.get(key).options_model)
    if option.minimum is not None and option.maximum is not None
    for value in (option.minimum - 1, option.maximum + 1)
]


@pytest.mark.parametrize(("key", "option", "low", "high", "value"), BOUNDS)
def test_every_bound_is_refused_by_its_field_in_words_and_nothing_is_saved(
    client, gm, key, option, low, high, value
) -> None:
    client.force_login(gm)
    page = client.get(URL, {"system": key})

    response = client.post(URL, form_data(page, name="Out of bounds", **{option: str(value)}))

    body = html(response)
    assert response.status_code == 400
    assert f'<p class="field-error" id="id_{option}_error">Must be a whole number from {low} to {high}.' in body
    assert f'name="{option}" value="{value}"' in body  # what was typed stays
    assert not Campaign.objects.exists()


def test_the_model_refuses_a_bound_the_form_could_not_check(client, gm) -> None:
    """A list's length is the model's bound: a sixth ability name has no box, a 21st skill a row of its own."""
    client.force_login(gm)
    page = client.get(URL, {"system": "lucky13"})
    data = form_data(page, name="Too many")
    rows = {f"skills-{i}-name": f"Skill {i}" for i in range(21)}
    data.update(rows, **{"skills-TOTAL_FORMS": "21"})

    response = client.post(URL, data)

    assert response.status_code == 400
    assert "Skills: must have at most 20 entries" in text(response)
    assert 'name="skills-20-name" value="Skill 20"' in html(response)
    assert not Campaign.objects.exists()


def test_a_rows_own_rows_are_read_back_and_a_problem_is_said_at_its_row(client, gm) -> None:
    client.force_login(gm)
    page = client.get(URL, {"system": "d6"})
    data = form_data(page, name="Nested", **{"stats-0-skills-1-name": "", "stats-0-skills-1-combat": "dodge"})

    response = client.post(URL, data)

    body = html(response)
    assert response.status_code == 400
    assert '<p class="field-error" id="id_stats-0-skills-1-name_error">Needs a name</p>' in body  # not dropped unsaid
    fixed = form_data(page, name="Nested", **{"stats-0-skills-1-name": "Rifles", "stats-0-skills-1-reaction": "on"})
    fixed["stats-0-skills-1-combat"] = "ranged"
    refused = client.post(URL, fixed)
    assert refused.status_code == 400
    assert "Rifles attacks, so it is declared with the round: it is not a reaction skill" in html(refused)
    assert 'name="stats-0-skills-1-name" value="Rifles"' in html(refused)
    assert not Campaign.objects.exists()
