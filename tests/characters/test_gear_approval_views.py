"""Gear awaiting the GM, on the pages: a player's new weapon is saved marked as waiting, the sheet says
so to both, and the GM's save of the equipment approves it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters.models import Character
from tests.campaigns.helpers import text
from tests.characters.helpers import new_row, posted

pytestmark = pytest.mark.django_db


def edit_url(character: Character) -> str:
    return reverse("characters:edit-section", args=[character.pk, "equipment"])


def test_a_players_new_weapon_waits_until_the_gm_saves_the_equipment(client, brunella, player, gm) -> None:
    client.force_login(player)
    data = posted(brunella, "equipment", gm=False)
    at = new_row(data, "weapon")
    data.update({f"{at}-name": "Axe", f"{at}-accuracy": "d6", f"{at}-damage": "d10"})
    assert client.post(edit_url(brunella), data).status_code == 302
    axe = next(w for w in Character.objects.get(pk=brunella.pk).document.weapons if w.name == "Axe")
    assert axe.approved is False
    sheet = text(client.get(reverse("characters:sheet", args=[brunella.pk])))
    assert "awaits the GM’s approval" in sheet
    assert "until then they step no die" in sheet

    client.force_login(gm)
    assert "edit the equipment and save it to approve them" in text(
        client.get(reverse("characters:sheet", args=[brunella.pk]))
    )
    fresh = Character.objects.get(pk=brunella.pk)
    assert client.post(edit_url(fresh), posted(fresh, "equipment")).status_code == 302
    assert all(w.approved for w in Character.objects.get(pk=brunella.pk).document.weapons)
    assert "awaits the GM’s approval" not in text(client.get(reverse("characters:sheet", args=[brunella.pk])))
