"""An import into a campaign with other options through the API: it says what plays differently, and the
GM's approval through the API takes it in exactly as the page's does (both call one function)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from characters.models import Character
from tests.characters.test_arrival import OTHER_SKILLS, SAID
from tests.characters.test_exchange import build, export, make_campaign, played

pytestmark = pytest.mark.django_db


def test_the_api_and_the_page_take_an_import_in_alike(api, client, campaign, gm, player) -> None:
    document = export(played(build(campaign, player)))
    marsh = make_campaign(gm, player, name="The Marsh", hit_points_per_step=8, skills=OTHER_SKILLS)

    response = api(player).post(f"/campaigns/{marsh.pk}/characters", document)
    assert response.status_code == 201, response.content
    assert response.json()["arrival"]["differs"] == SAID
    decided = api(gm).post(f"/characters/{response.json()['id']}/arrival", {"decision": "approve"})
    assert decided.status_code == 200, decided.content

    client.force_login(player)
    client.post(reverse("characters:import", args=[marsh.pk]), {"document": json.dumps(document)})
    by_page = Character.objects.filter(campaign=marsh).latest("pk")
    client.force_login(gm)
    client.post(reverse("characters:decide-awaiting", args=[by_page.pk]), {"item": "arrival", "decision": "approve"})
    by_page.refresh_from_db()
    assert by_page.status == "active"
    assert decided.json()["sheet"] == {"system": "lucky13", **by_page.document.model_dump(mode="json")}
    assert decided.json()["sheet"]["hit_points"] == 9
