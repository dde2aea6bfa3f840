"""A roll from the sheet never loads the whole party: the page offers the first 30 other characters
in play by name as helpers (and the one chosen, wherever it is), and the API loads only the helper
the body names."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters.models import Character
from play import sheet_rolls
from play.models import Roll
from play.sheet_rolls import HELPERS
from tests.characters.conftest import FIGHTING, make_character

pytestmark = pytest.mark.django_db


@pytest.fixture
def party(campaign, player, other_player) -> tuple[Character, list[Character]]:
    """Brunella and 300 other characters in play, the last of them by name Zed."""
    brunella = make_character(campaign, player)
    sheet = brunella.sheet
    others = Character.objects.bulk_create(
        Character(campaign=campaign, owner=other_player, name=f"Hero {i:03}" if i < 299 else "Zed", status="active",
                  sheet=sheet, system=campaign.system)
        for i in range(300)
    )  # fmt: skip
    return brunella, others


def test_the_page_offers_the_first_thirty_and_the_one_chosen(client, player, party) -> None:
    brunella, others = party
    client.force_login(player)
    url = reverse("play:sheet-roll", args=[brunella.pk])
    page = client.get(url, {"skill": FIGHTING}).content.decode()
    helper_select = page.split('name="helper"')[1].split("</select>")[0]
    assert helper_select.count("<option") == HELPERS + 1  # and "nobody"
    assert "Zed" not in helper_select
    zed = others[-1]
    chosen = client.get(url, {"skill": FIGHTING, "helper": zed.pk}).content.decode()
    assert "Zed" in chosen.split('name="helper"')[1].split("</select>")[0]
    assert "Zed helps" in chosen


def test_the_api_loads_only_the_named_helper(api, player, party, monkeypatch) -> None:
    brunella, others = party
    loaded: list[list[Character]] = []
    helpers_for = sheet_rolls.helpers_for
    monkeypatch.setattr(sheet_rolls, "helpers_for", lambda *a, **k: loaded.append(helpers_for(*a, **k)) or loaded[-1])
    response = api(player).post(f"/characters/{brunella.pk}/rolls", {"skill": FIGHTING, "helper": others[-1].pk})
    assert response.status_code == 201
    assert [[c.name for c in helpers] for helpers in loaded] == [["Zed"]]
    assert Roll.objects.get().spec["sheet"]["assist"]["name"] == "Zed"
