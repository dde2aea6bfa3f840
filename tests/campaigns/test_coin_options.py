"""A campaign of a system without an options form of its own (the test-only Coin): the form is made
from the system's ``option_fields``, and its rules and messages are the system's."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from rules import systems
from tests.systems import coin

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
    assert (campaign.system, campaign.options) == ("coin", {"luck": 7})


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
    assert coin_campaign.options == {"luck": 3}
