"""A roll from the sheet of the test-only Coin system through the JSON API: the body is read by
Coin's own situation model, the roll by its own roll kind, exact chance and all."""

from __future__ import annotations

import pytest

from characters.models import Character
from play.models import Roll
from tests.systems.coin import system as coin

pytestmark = pytest.mark.django_db


@pytest.fixture
def flipper(coin_campaign, player) -> Character:
    sheet = coin.Sheet(nerve=3, step="").model_dump(mode="json")
    return Character.objects.create(campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet)


def test_a_coin_roll_from_the_sheet(api, player, flipper) -> None:
    response = api(player).post(f"/characters/{flipper.pk}/rolls", {"need": 2})
    assert response.status_code == 201
    body = response.json()
    assert (body["system"], body["label"], body["chance"], body["chance_of"]) == (
        "coin", "Nerve (3 coins) needing 2 heads", "1/2", "success",
    )  # fmt: skip
    roll = Roll.objects.get()
    assert roll.spec["sheet"] == {"character": flipper.pk}
    assert len(roll.dice) == 3
    assert roll.outcome["success"] == (roll.total >= 2)


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"need": "two"}, 422, "need"),
        ({"need": 7}, 422, "need"),
        ({"skill": 1}, 400, "skill"),  # Lucky 13's roll, which the schema allows, is none of Coin's
        ({"skill": "one"}, 422, "skill"),  # no system's roll
        ({"need": 4}, 400, "need"),  # more heads than the sheet's three coins
    ],
)
def test_a_bad_coin_situation_names_its_field(api, player, flipper, body, status, field) -> None:
    response = api(player).post(f"/characters/{flipper.pk}/rolls", body)
    assert response.status_code == status
    assert field in response.json()["errors"]
    assert not Roll.objects.exists()
