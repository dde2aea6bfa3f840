"""What campaign-level changes do to sheets: a renamed skill makes open sheet forms stale,
and an archived campaign's sheets are read-only, with the reason shown."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from characters import campaign_changes
from tests.characters.helpers import posted

pytestmark = pytest.mark.django_db


def edit_url(character, section: str) -> str:
    return reverse("characters:edit-section", args=[character.pk, section])


def test_a_skill_renamed_by_the_gm_makes_a_specializations_form_opened_before_it_stale(
    client, brunella, campaign, gm
) -> None:
    form = posted(brunella, "specializations")
    skills = [
        {"name": "Swordplay" if s["name"] == "Fighting" else s["name"], "ability": s["ability"]}
        for s in campaign.settings["skills"]
    ]
    campaign_changes.update_campaign(
        campaign_id=campaign.pk,
        by=gm,
        name=campaign.name,
        description=campaign.description,
        options={**campaign.options, "skills": skills},
        renames={"Fighting": "Swordplay"},
    )

    client.force_login(gm)
    response = client.post(edit_url(brunella, "specializations"), form, HTTP_HX_REQUEST="true")

    assert response.status_code == 409
    assert "Swordplay" in response.content.decode()


def test_an_archived_campaigns_sheets_are_read_only_and_say_why(client, brunella, campaign, player) -> None:
    campaign.archived_at = timezone.now()
    campaign.save()
    client.force_login(player)

    sheet = client.get(reverse("characters:sheet", args=[brunella.pk]))
    refused = client.post(edit_url(brunella, "notes"), posted(brunella, "notes", {"notes": "Changed"}))

    assert sheet.status_code == 200
    assert edit_url(brunella, "notes") not in sheet.content.decode()
    assert refused.status_code == 403
    assert "campaign is archived" in refused.content.decode()
    brunella.refresh_from_db()
    assert brunella.document.notes != "Changed"
