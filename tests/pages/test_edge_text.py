"""Text typed into the forms that write straight to the database (a campaign's name and description,
an award's reason) goes through the shared TextField: a control character is refused by its field,
with the typed values kept, and nothing is written."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.forms import CampaignForm
from campaigns.models import Campaign
from characters.models import LedgerEntry
from tests.characters.conftest import make_character

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("name", "description"), [("Bell\x07", "fine"), ("Two\nlines", "fine"), ("Fine", "tab\tand\x1b escape")]
)
def test_a_campaign_with_a_control_character_is_refused(client, gm, name, description) -> None:
    client.force_login(gm)
    before = Campaign.objects.count()
    response = client.post(reverse("campaigns:create"), {"name": name, "description": description, "system": "lucky13"})
    assert response.status_code == 400
    assert "without control characters" in response.text or "Remove the control characters" in response.text
    assert Campaign.objects.count() == before


def test_a_description_keeps_its_lines() -> None:
    form = CampaignForm({"name": "Lines", "description": "One.\r\nTwo.\tIndented."})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["description"] == "One.\r\nTwo.\tIndented."


def test_an_award_reason_with_a_control_character_is_refused(client, gm, player, campaign) -> None:
    hero = make_character(campaign, player)
    client.force_login(gm)
    data = {"amount": "5", "reason": "Saved\x00the day", f"include-{hero.pk}": "on", f"amount-{hero.pk}": ""}
    response = client.post(reverse("characters:award", args=[campaign.pk]), data)
    assert response.status_code == 400
    assert "Keep it on one line, without control characters." in response.text
    assert not LedgerEntry.objects.exists()
