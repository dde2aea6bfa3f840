"""A choice a form does not offer is refused in a player's words, never Django's "Select a valid
choice. X is not one of the available choices." (which quotes what was sent back at the player)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.campaigns.helpers import text

pytestmark = pytest.mark.django_db


def test_a_choice_not_offered_is_refused_in_plain_words(client) -> None:
    response = client.get(reverse("lucky13:calculator"), {"ability": "d7", "difficulty": "trivial"})
    assert response.status_code == 400
    page = text(response)
    assert "Choose one of the options offered." in page
    assert "is not one of" not in page
    assert "Select a valid choice" not in page
