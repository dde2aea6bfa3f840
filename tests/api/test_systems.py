"""GET /api/v1/systems: what a client needs to build a campaign or a sheet of any system."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from rules import systems

pytestmark = pytest.mark.django_db


def test_every_system_with_its_schemas(api, player) -> None:
    response = api(player).get("/systems")
    assert response.status_code == 200
    listed = response.json()
    assert [s["key"] for s in listed] == list(systems.registered_keys())
    lucky = listed[0]
    assert lucky["name"] == "Lucky 13"
    assert lucky["currencies"] == [{"key": "ap", "name": "Adventure Points", "abbreviation": "AP"}]
    assert lucky["sheet_version"] == 1
    Draft202012Validator.check_schema(lucky["sheet_schema"])
    Draft202012Validator.check_schema(lucky["options_schema"])
    defaults = systems.get("lucky13").default_options()
    assert not list(Draft202012Validator(lucky["options_schema"]).iter_errors(defaults))
    draft = systems.get("lucky13").new_draft(defaults).model_dump(mode="json")
    assert not list(Draft202012Validator(lucky["sheet_schema"]).iter_errors(draft))


def test_the_systems_need_a_token(api) -> None:
    assert api(None).get("/systems").status_code == 401
