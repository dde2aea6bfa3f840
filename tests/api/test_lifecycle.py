"""POST /characters/{id}/archive and /restore: the moves of the sheet page, with the version."""

from __future__ import annotations

import pytest

from tests.characters.conftest import make_character

pytestmark = pytest.mark.django_db


def test_the_api_archives_and_restores(api, campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    path = f"/characters/{brunella.pk}"
    assert api(player).post(f"{path}/restore", {"version": brunella.version}).status_code == 403
    stale = api(player).post(f"{path}/archive", {"version": brunella.version - 1})
    assert stale.status_code == 409
    assert stale.json()["now"]["status"] == "active"
    archived = api(player).post(f"{path}/archive", {"version": brunella.version})
    assert archived.status_code == 200
    assert (archived.json()["status"], archived.json()["version"]) == ("archived", brunella.version + 1)
    assert api(player).post(f"{path}/archive", {"version": brunella.version + 1}).status_code == 409
    assert api(gm).post(f"{path}/restore", {"version": "1"}).status_code == 422
    restored = api(gm).post(f"{path}/restore", {"version": brunella.version + 1})
    assert restored.status_code == 200
    assert restored.json()["status"] == "active"
