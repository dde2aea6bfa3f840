"""A body nested deeper than any document of the API (50,000 levels, as found from outside) is a
400 ``too_deep`` in JSON for every operation, whether its body is a schema or read by the operation
itself: never a ``RecursionError`` and a 500, and nothing is changed."""

from __future__ import annotations

import pytest

from campaigns.models import Campaign
from play.models import Roll
from web.bounded_json import MAX_DEPTH

#: As found from outside: far deeper than Python's parser recurses.
ABYSS = 50_000


def nested(levels: int) -> str:
    return '{"a":' * levels + "1" + "}" * levels


def assert_too_deep(response) -> None:
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["code"] == "too_deep"
    assert f"at most {MAX_DEPTH} levels" in response.json()["message"]


@pytest.mark.parametrize("body", ["[" * ABYSS + "]" * ABYSS, nested(ABYSS), nested(MAX_DEPTH + 1)])
def test_a_deep_roll_body_is_refused_and_nothing_is_rolled(api, character, player, body) -> None:
    client = api(player)
    response = client.post(f"/characters/{character.pk}/rolls", data=body, content_type="application/json")
    assert_too_deep(response)
    assert not Roll.objects.exists()


def test_a_deep_schema_body_is_refused_and_nothing_is_made(api, player) -> None:
    body = '{"name": "Deep", "system": "lucky13", "options": ' + "[" * ABYSS + "]" * ABYSS + "}"
    response = api(player).post("/campaigns", data=body, content_type="application/json")
    assert_too_deep(response)
    assert not Campaign.objects.filter(name="Deep").exists()


def test_a_deep_body_in_a_string_is_only_text(api, player) -> None:
    # Brackets inside a string nest nothing: the name is refused by its own rule, not as too deep.
    name = "[" * (MAX_DEPTH + 1)
    response = api(player).post("/campaigns", {"name": name, "system": "lucky13"})
    assert response.status_code == 201
    assert Campaign.objects.get(pk=response.json()["id"]).name == name


def test_nesting_within_the_limit_is_read_as_ever(api, character, player) -> None:
    # MAX_DEPTH levels parse; the situation then refuses the unknown field by name, as any body.
    response = api(player).post(
        f"/characters/{character.pk}/rolls", data=nested(MAX_DEPTH - 1), content_type="application/json"
    )
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_request"
