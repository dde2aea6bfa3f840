"""The API's footing: personal tokens (hash only, shown once, revocable, the command), the
rate limit, errors as JSON with a code, the chance endpoint, the schema and the docs page."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from django.urls import reverse
from openapi_spec_validator import validate

from api import tokens
from api.models import ApiToken
from tests.characters.conftest import make_character

pytestmark = pytest.mark.django_db


# --- Tokens ---------------------------------------------------------------------------------------


def test_only_a_hash_of_a_token_is_kept(player) -> None:
    token, raw = tokens.create_token(user=player, name="dice bot")
    assert raw.startswith("dh_")
    assert len(raw) > 40
    stored = ApiToken.objects.get()
    assert raw not in {stored.key_hash, stored.prefix, stored.name}
    assert stored.key_hash == tokens.digest(raw)
    assert raw.startswith(stored.prefix)
    assert tokens.authenticate(raw) == token


def test_a_revoked_token_no_longer_works(api, player) -> None:
    token, raw = tokens.create_token(user=player, name="dice bot")
    tokens.revoke_token(user=player, token_id=token.pk)
    assert tokens.authenticate(raw) is None


@pytest.mark.parametrize("header", [None, "Bearer", "Bearer nonsense", "Bearer dh_wrong", "Basic dXNlcjpwYXNz"])
def test_no_live_token_is_a_401_with_json(client, header) -> None:
    headers = {"Authorization": header} if header else {}
    response = client.post("/api/v1/chance", "{}", content_type="application/json", headers=headers)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"
    assert response.json()["code"] == "unauthorized"


def test_a_session_cookie_is_not_a_token(client, player) -> None:
    client.force_login(player)
    assert client.post("/api/v1/chance", "{}", content_type="application/json").status_code == 401


def test_the_command_prints_a_working_token(player, django_user_model) -> None:
    out = StringIO()
    call_command("apitoken", "player", stdout=out)
    assert tokens.authenticate(out.getvalue().strip()).user == player
    with pytest.raises(CommandError, match="add --create-user"):
        call_command("apitoken", "nobody")
    out = StringIO()
    call_command("apitoken", "bot", "--create-user", "--name", "ci", stdout=out)
    token = tokens.authenticate(out.getvalue().strip())
    assert (token.user.username, token.name, token.user.has_usable_password()) == ("bot", "ci", False)


# --- The account page -----------------------------------------------------------------------------


def test_a_user_makes_names_sees_once_and_revokes_tokens(client, player) -> None:
    client.force_login(player)
    page = client.get(reverse("account"))
    assert "No tokens yet." in page.text
    made = client.post(reverse("api-token-create"), {"name": "dice bot"})
    assert made.status_code == 200
    assert "no-store" in made["Cache-Control"]
    raw = made.context["raw"]
    assert raw in made.text
    page = client.get(reverse("account"))
    assert "dice bot" in page.text
    assert raw not in page.text
    token = ApiToken.objects.get()
    confirm = client.get(reverse("api-token-revoke", args=[token.pk]))
    assert "Revoke the token" in confirm.text
    assert tokens.authenticate(raw) is not None  # a GET changes nothing
    client.post(reverse("api-token-revoke", args=[token.pk]))
    assert tokens.authenticate(raw) is None


def test_a_token_needs_a_name_and_only_its_owner_revokes_it(client, player, other_player) -> None:
    client.force_login(player)
    response = client.post(reverse("api-token-create"), {"name": "  "}, follow=True)
    assert "This field is required" in response.text or "Give the token a name" in response.text
    assert not ApiToken.objects.exists()
    token, _ = tokens.create_token(user=other_player, name="theirs")
    assert client.post(reverse("api-token-revoke", args=[token.pk])).status_code == 404
    token.refresh_from_db()
    assert token.revoked_at is None


# --- Rate limit and errors ------------------------------------------------------------------------


@override_settings(API_RATE_LIMIT=3)
def test_past_the_rate_limit_a_person_gets_429_with_retry_after(api, player, gm, monkeypatch) -> None:
    from django.core.cache import cache

    cache.clear()
    monkeypatch.setattr("web.limits.wall_clock", lambda: 1_800_000_030.0)  # every request in one minute
    mine, other = api(player), api(player)
    spec = {"ability": "d8", "skill": "d6", "difficulty": "moderate"}
    assert [mine.post("/chance", spec).status_code for _ in range(3)] == [200, 200, 200]
    limited = mine.post("/chance", spec)
    assert limited.status_code == 429
    assert limited["Retry-After"] == "30"
    assert limited.json()["code"] == "rate_limited"
    assert other.post("/chance", spec).status_code == 429  # per person, whichever of their tokens
    assert api(gm).post("/chance", spec).status_code == 200


def test_the_chance_endpoint_matches_the_command_line(api, player) -> None:
    from rules.__main__ import chance

    spec = {"system": "lucky13", "roll": "check", "ability": "d8", "skill": "d6", "difficulty": "moderate"}
    response = api(player).post("/chance", spec)
    assert response.status_code == 200
    assert (
        response.json()
        == chance(spec)
        == {
            "p_success": "1813/2880",
            "p_dilemma": "11/32",
            "p_success_with_dilemma": "73/576",
        }
    )


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"ability": "d3", "skill": "d6"}, 400, "invalid_spec"),
        ({"roll": "juggle"}, 400, "invalid_spec"),
        ({"system": "chess"}, 400, "invalid_spec"),
        ([1, 2], 422, "invalid_request"),
        ("not json", 400, "bad_request"),
    ],
)
def test_bad_bodies_are_4xx_json_with_a_code(api, player, body, status, code) -> None:
    client = api(player)
    if body == "not json":
        response = client.post("/chance", data="{not json", content_type="application/json")
    else:
        response = client.post("/chance", body)
    assert response.status_code == status
    assert response.json()["code"] == code
    assert response.json()["message"]


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_an_oversized_body_is_a_413(api, player) -> None:
    response = api(player).post("/chance", {"ability": "d8", "padding": "x" * 2000})
    assert response.status_code == 413
    assert response.json()["code"] == "too_large"


# --- Schema and docs ------------------------------------------------------------------------------


def test_the_served_schema_is_valid_openapi_3(client) -> None:
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    validate(schema)
    chance = schema["paths"]["/api/v1/chance"]["post"]
    assert {"200", "400", "401", "413", "422", "429"} <= set(chance["responses"])
    assert schema["components"]["securitySchemes"]


def _body_schema(schema: dict, path: str) -> dict:
    body = schema["paths"][f"/api/v1{path}"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    ref = body.get("$ref", "")
    return schema["components"]["schemas"][ref.rsplit("/", 1)[-1]] if ref else body


def test_each_body_is_described_by_its_own_schema(client) -> None:
    """Two bodies of one name would share one entry of the schema's components, the last written: making a
    move would be described as moving a combatant in the encounter's order."""
    schema = client.get("/api/v1/openapi.json").json()
    assert _body_schema(schema, "/characters/{id}/moves/{key}")["required"] == ["version"]
    assert set(_body_schema(schema, "/campaigns/{id}/encounters/{eid}/order")["required"]) == {"combatant", "direction"}


@pytest.mark.parametrize("written", ["{}.0", "{}e0", "{}.000"])
def test_a_whole_number_may_be_written_with_a_fraction(api, campaign, player, written) -> None:
    """To JSON Schema, whose ``integer`` the API's schema names, 3.0 and 3e0 are the integer 3; 3.5 is none."""
    brunella = make_character(campaign, player)
    path = f"/characters/{brunella.pk}/archive"
    half = api(player).post(path, data=f'{{"version": {brunella.version}.5}}', content_type="application/json")
    assert half.status_code == 422
    body = f'{{"version": {written.format(brunella.version)}}}'
    archived = api(player).post(path, data=body, content_type="application/json")
    assert archived.status_code == 200, archived.json()
    assert archived.json()["status"] == "archived"


def test_the_docs_page_lists_every_endpoint_without_outside_scripts(client) -> None:
    response = client.get(reverse("api-docs"))
    assert response.status_code == 200
    assert "POST /api/v1/chance" in response.text
    # No script, style or font from elsewhere (a random token on the page may spell "cdn": look at addresses).
    assert not re.search(r'<(script|link)[^>]+(src|href)="(https?:)?//', response.text)
    assert json.loads(client.get("/api/v1/openapi.json").content)["info"]["title"] in response.text


def test_the_docs_page_shows_backticked_words_as_code_and_escapes_the_rest(client) -> None:
    page = client.get(reverse("api-docs")).text
    assert "<code>Authorization: Bearer &lt;token&gt;</code>" in page
    assert "`Authorization" not in page


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a `b` c", "a <code>b</code> c"),
        ("no code", "no code"),
        ("`<script>`", "<code>&lt;script&gt;</code>"),
        ("one ` alone", "one ` alone"),
        ("`x` and ` y", "<code>x</code> and ` y"),
    ],
)
def test_inline_code_makes_only_paired_backticks_code(text, shown) -> None:
    from web.templatetags.dice import inline_code

    assert inline_code(text) == shown
