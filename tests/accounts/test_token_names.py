"""A token's name on the account page is one line without control characters, as every text of the API is."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains

from api import tokens
from api.models import ApiToken
from campaigns.operations import Refused

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("name", ["dice\x00bot", "dice\x1b[31mbot", "dice\x7fbot", "dice\u0085bot", "dice\nbot"])
def test_a_name_with_a_control_character_is_refused_with_a_400(client: Client, player: User, name: str) -> None:
    client.force_login(player)

    response = client.post(reverse("api-token-create"), {"name": name})

    assertContains(response, "Keep it on one line, without control characters.", status_code=400)
    assertContains(response, 'value="dice', status_code=400)  # the typed name is kept
    assert not ApiToken.objects.exists()


def test_a_good_name_still_makes_a_token(client: Client, player: User) -> None:
    client.force_login(player)

    response = client.post(reverse("api-token-create"), {"name": "dice bot"})

    assertContains(response, "dice bot")
    assert ApiToken.objects.get().name == "dice bot"


def test_too_long_or_blank_is_a_400_too(client: Client, player: User) -> None:
    client.force_login(player)

    assert client.post(reverse("api-token-create"), {"name": "x" * 61}).status_code == 400
    assert client.post(reverse("api-token-create"), {"name": "   "}).status_code == 400
    assert not ApiToken.objects.exists()


def test_the_operation_refuses_control_characters_whoever_calls_it(player: User) -> None:
    """The management command names tokens through the same operation."""
    with pytest.raises(Refused, match="without control characters"):
        tokens.create_token(user=player, name="dice\x00bot")
