"""A campaign of a system without an options form of its own (the test-only Coin): the form is made
from the system's ``option_fields``, and its rules and messages are the system's."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from rules import systems
from tests.campaigns.helpers import form_data, html
from tests.systems.coin import system as coin

pytestmark = pytest.mark.django_db


@pytest.fixture
def coin_registered(settings):
    systems.register(coin.SYSTEM)
    yield
    systems.unregister(coin.SYSTEM.key)


def test_a_coin_campaign_is_created_with_its_options(client, outsider, coin_registered) -> None:
    client.force_login(outsider)
    page = client.get(reverse("campaigns:create"), {"system": "coin"})
    assert page.status_code == 200
    form = {"name": "Heads", "description": "", "system": "coin", "luck": "7", "save": "1"}
    created = client.post(reverse("campaigns:create"), form)
    campaign = Campaign.objects.get()
    assert created.status_code == 302
    assert (campaign.system, campaign.options) == ("coin", {"luck": 7, "trick_ideas": []})


def test_a_coin_campaign_is_created_with_the_defaults_its_page_shows(client, outsider, coin_registered) -> None:
    client.force_login(outsider)
    page = client.get(reverse("campaigns:create"), {"system": "coin"})
    assert '<option value="coin" selected>Coin</option>' in html(page)
    assert 'name="luck" value="5"' in html(page)

    created = client.post(reverse("campaigns:create"), form_data(page, name="Heads"))

    assert created.status_code == 302
    campaign = Campaign.objects.get()
    assert (campaign.system, campaign.options) == ("coin", coin.SYSTEM.default_options())
    assert campaign.options["trick_ideas"] == ["Coin Walk", "Double Heads"]


def test_choosing_coin_swaps_in_its_generated_options(client, outsider, coin_registered) -> None:
    client.force_login(outsider)
    data = {"name": "Heads", "system": "coin", "options_system": "lucky13", "choose_system": "1"}

    response = client.post(reverse("campaigns:create"), data, headers={"HX-Request": "true"})

    page = html(response)
    assert response.status_code == 200
    assert '<div id="system-options">' in page
    assert "<h2>Coin options</h2>" in page
    assert 'name="luck" value="5"' in page
    assert ">\nCoin Walk\nDouble Heads</textarea>" in page


def test_a_list_option_keeps_the_spaces_in_a_name(client, outsider, coin_registered) -> None:
    client.force_login(outsider)
    page = client.get(reverse("campaigns:create"), {"system": "coin"})

    created = client.post(
        reverse("campaigns:create"), form_data(page, name="Heads", trick_ideas="Spot Hidden\r\n\r\n  Coin   Walk \r\n")
    )

    assert created.status_code == 302
    assert Campaign.objects.get().options["trick_ideas"] == ["Spot Hidden", "Coin Walk"]


def test_every_error_of_a_coin_campaign_shows_at_once(client, outsider, coin_registered) -> None:
    client.force_login(outsider)
    page = client.get(reverse("campaigns:create"), {"system": "coin"})
    long_name = "x" * 200

    response = client.post(
        reverse("campaigns:create"), form_data(page, name="", luck="lots", trick_ideas=f"Spot Hidden\n{long_name}")
    )

    body = html(response)
    assert response.status_code == 400
    assert '<p class="field-error" id="id_name_error">This field is required.' in body
    assert '<p class="field-error" id="id_luck_error">Enter a whole number.' in body
    assert '<p class="field-error" id="id_trick_ideas_error">' in body
    assert 'name="luck" value="lots"' in body
    assert "Spot Hidden" in body
    assert not Campaign.objects.exists()


@pytest.mark.parametrize(("luck", "field_error"), [("x", "Enter a whole number."), ("99", "Luck")])
def test_a_bad_coin_option_is_a_400_by_its_field(client, outsider, coin_registered, luck, field_error) -> None:
    client.force_login(outsider)
    form = {"name": "Heads", "description": "", "system": "coin", "luck": luck, "save": "1"}
    response = client.post(reverse("campaigns:create"), form)
    assert response.status_code == 400
    assert field_error in response.content.decode()
    assert f'value="{luck}"' in response.content.decode()  # what was typed stays
    assert not Campaign.objects.exists()


def test_the_gm_changes_a_coin_campaigns_options(client, gm, coin_campaign) -> None:
    client.force_login(gm)
    url = reverse("campaigns:settings", args=[coin_campaign.pk])
    page = client.get(url)
    assert page.status_code == 200
    assert 'name="luck" value="5"' in page.content.decode()
    saved = client.post(url, {"name": "Heads", "description": "", "luck": "3", "save": "1"})
    assert saved.status_code == 302
    coin_campaign.refresh_from_db()
    assert coin_campaign.options == {"luck": 3, "trick_ideas": []}


def test_the_form_is_read_from_the_one_options_model(client, outsider, coin_registered) -> None:
    """No option tuple beside the model: the labels, the help and a number's bounds come from it."""
    assert [o.key for o in coin.SYSTEM.option_fields] == list(coin.Options.model_fields)
    client.force_login(outsider)
    page = html(client.get(reverse("campaigns:create"), {"system": "coin"}))
    assert "Starting Luck" in page
    assert "Tricks the players may take." in page
    assert 'min="1"' in page
    assert 'max="20"' in page  # the model's bounds, on the box itself
