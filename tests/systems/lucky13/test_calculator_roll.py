"""Rolling from the calculator: the htmx result fragment, the redirect-and-show-once
flow without JavaScript, bad input, the HTTP method and the CSRF token."""

from __future__ import annotations

import random
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from django.urls import reverse

from games.lucky13.calculator import ROLL_COOKIE
from rules.dice import StepDie
from rules.systems.lucky13 import (
    AbilityRoll,
    Check,
    CheckRoll,
    Explosion,
    Opposed,
    OpposedRoll,
    Pool,
    PoolRoll,
    roll_check,
    roll_opposed,
)
from tests.pages.helpers import errors, html, region

HX = {"HTTP_HX_REQUEST": "true"}
CHECK = {"ability": "d10", "skill": "d12", "difficulty": "d6", "ability_roll": "background", "explosion": "cinematic"}
OPPOSED = {
    "attacker_ability": "d8",
    "attacker_skill": "d6",
    "attacker_accuracy": "d8",
    "weapon_damage": "d10",
    "defender_ability": "d8",
    "defender_skill": "d6",
    "defender_armor": "d8",
    "explosion": "cinematic",
}
#: Can never reach 13 (at most 4) / can never miss it (at least 15 dice).
SURE_FAILURE = {"ability": "d4", "skill": "none", "difficulty": "heroic", "explosion": "none"}
SURE_SUCCESS = {"ability": "d12+d12+d4", "skill": "d12+d12+d4", "difficulty": "d12+d12+d4", "explosion": "none"}


def seeded(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Make the view's dice come from random.Random(seed) instead of the OS."""
    monkeypatch.setattr("games.lucky13.calculator.secrets.SystemRandom", lambda: random.Random(seed))


def expected_check(seed: int) -> CheckRoll:
    check = Check(
        ability=StepDie.parse("d10"),
        skill=StepDie.parse("d12"),
        difficulty=StepDie.parse("d6"),
        ability_roll=AbilityRoll.BACKGROUND,
        explosion=Explosion.CINEMATIC,
    )
    return roll_check(check, random.Random(seed))


def expected_opposed(seed: int) -> OpposedRoll:
    opposed = Opposed(
        attacker=Pool(StepDie.parse("d8"), (StepDie.parse("d6"), StepDie.parse("d8"))),
        defender=Pool(StepDie.parse("d8"), (StepDie.parse("d6"), StepDie.parse("d8"))),
        weapon=StepDie.parse("d10"),
        explosion=Explosion.CINEMATIC,
    )
    return roll_opposed(opposed, random.Random(seed))


def pool_faces(pool: PoolRoll) -> list[int]:
    dice = [die for roll in pool.ability_rolls for die in roll] + [die for group in pool.others for die in group]
    return [face for die in dice for face in die.faces]


def shown_faces(fragment: str) -> list[int]:
    return [int(face) for face in re.findall(r'<span class="face">(\d+)</span>', fragment)]


def outcome(fragment: str) -> str:
    match = re.search(r'<span class="outcome (?:success|failure)">([^<]+)</span>', fragment)
    assert match, "no outcome in the roll result"
    return match.group(1)


# --- htmx -----------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_htmx_check_roll_returns_the_result_fragment_with_the_dice(
    client: Client, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    seeded(monkeypatch, seed)

    response = client.post(reverse("lucky13:roll-check"), CHECK, **HX)

    fragment = html(response)
    roll = expected_check(seed)
    assert response.status_code == 200
    assert "<html" not in fragment
    assert "<section" not in fragment  # the inside of #roll-result, swapped with innerHTML
    assert outcome(fragment) == ("Success" if roll.success else "Failure")
    assert f"total {roll.total} against 13" in fragment
    assert shown_faces(fragment) == pool_faces(roll.dice)
    assert "Ability d10 (kept)" in fragment
    assert "Ability d10 (not kept)" in fragment
    assert "Rolled d10 + d12 + d6, cinematic." in fragment
    assert ("Dilemma!" in fragment) == roll.dilemma


@pytest.mark.parametrize(("query", "word"), [(SURE_SUCCESS, "Success"), (SURE_FAILURE, "Failure")])
def test_htmx_check_roll_says_success_or_failure(client: Client, query: dict[str, str], word: str) -> None:
    response = client.post(reverse("lucky13:roll-check"), query, **HX)

    fragment = html(response)
    assert response.status_code == 200
    assert outcome(fragment) == word
    assert ("Failure" if word == "Success" else "Success") not in fragment


@pytest.mark.parametrize("seed", range(8))
def test_htmx_opposed_roll_returns_the_result_fragment_with_the_dice(
    client: Client, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    seeded(monkeypatch, seed)

    response = client.post(reverse("lucky13:roll-opposed"), OPPOSED, **HX)

    fragment = html(response)
    roll = expected_opposed(seed)
    damage_faces = [face for die in roll.damage_dice for face in die.faces]
    assert response.status_code == 200
    assert "<html" not in fragment
    if roll.hit:
        assert outcome(fragment) == "Hit"
        assert f"{roll.damage} damage" in fragment
    else:
        assert outcome(fragment) == ("Draw: the attack fails" if roll.margin == 0 else "Miss")
        assert "Damage:" not in fragment
    assert f"Attacker: {roll.attacker.total}" in fragment
    assert f"Defender: {roll.defender.total}" in fragment
    assert shown_faces(fragment) == pool_faces(roll.attacker) + pool_faces(roll.defender) + damage_faces


def test_htmx_roll_with_bad_input_is_a_400_fragment_naming_the_problem(client: Client) -> None:
    response = client.post(reverse("lucky13:roll-check"), {**CHECK, "ability": "d7"}, **HX)

    fragment = html(response)
    assert response.status_code == 400
    assert "<html" not in fragment
    assert "Cannot roll" in fragment
    [message] = errors(fragment)
    assert "d7" in message


def test_htmx_opposed_roll_with_bad_input_is_a_400_fragment(client: Client) -> None:
    response = client.post(reverse("lucky13:roll-opposed"), {**OPPOSED, "attacker_ability": "none"}, **HX)

    fragment = html(response)
    assert response.status_code == 400
    assert "<html" not in fragment
    [message] = errors(fragment)
    assert "none" in message


# --- Without JavaScript: POST, redirect, show once ------------------------------------------


@pytest.mark.django_db
def test_plain_roll_redirects_back_and_shows_the_result_exactly_once(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    seeded(monkeypatch, 3)

    response = client.post(reverse("lucky13:roll-check"), CHECK)

    roll = expected_check(3)
    location = urlsplit(response["Location"])
    assert response.status_code == 302
    assert location.path == reverse("lucky13:calculator")
    assert location.fragment == "roll-result"
    assert parse_qs(location.query) == {
        "ability": ["d10"],
        "ability_steps": ["0"],
        "skill": ["d12"],
        "skill_steps": ["0"],
        "difficulty": ["d6"],
        "difficulty_steps": ["0"],
        "ability_roll": ["background"],
        "explosion": ["cinematic"],
    }

    page = html(client.get(response["Location"]))
    result = region(page, "roll-result")
    assert outcome(result) == ("Success" if roll.success else "Failure")
    assert shown_faces(result) == pool_faces(roll.dice)
    assert 'value="d10" selected' in page  # the form still holds the dice that were rolled

    again = html(client.get(response["Location"]))
    assert region(again, "roll-result").strip() == ""


@pytest.mark.django_db
def test_plain_opposed_roll_redirects_back_and_shows_the_result_exactly_once(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    seeded(monkeypatch, 5)

    response = client.post(reverse("lucky13:roll-opposed"), OPPOSED)

    roll = expected_opposed(5)
    assert response.status_code == 302
    assert urlsplit(response["Location"]).path == reverse("lucky13:opposed")
    result = region(html(client.get(response["Location"])), "roll-result")
    assert f"Attacker: {roll.attacker.total}" in result
    assert f"Defender: {roll.defender.total}" in result
    assert region(html(client.get(response["Location"])), "roll-result").strip() == ""


@pytest.mark.django_db
def test_an_htmx_request_does_not_use_up_a_waiting_roll(client: Client) -> None:
    location = client.post(reverse("lucky13:roll-check"), SURE_SUCCESS)["Location"]

    client.get(location, **HX)

    assert outcome(region(html(client.get(location)), "roll-result")) == "Success"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "bad"),
    [
        ("lucky13:roll-check", {**CHECK, "ability": "d7"}),
        ("lucky13:roll-check", {**CHECK, "ability_steps": "99"}),
        ("lucky13:roll-check", {**CHECK, "explosion": "bogus"}),
        ("lucky13:roll-opposed", {**OPPOSED, "attacker_ability": "none"}),
    ],
)
def test_plain_roll_with_bad_input_is_a_400_page_and_stores_nothing(
    client: Client, url: str, bad: dict[str, str]
) -> None:
    response = client.post(reverse(url), bad)

    page = html(response)
    assert response.status_code == 400
    assert page.startswith("<!doctype html>")
    assert errors(page)
    assert region(page, "roll-result").strip().startswith('<div class="errors"')
    assert not [name for name in response.cookies if name.startswith(ROLL_COOKIE)]
    calculator = "lucky13:calculator" if url == "lucky13:roll-check" else "lucky13:opposed"
    assert region(html(client.get(reverse(calculator))), "roll-result").strip() == ""


# --- Methods, CSRF, queries -----------------------------------------------------------------


@pytest.mark.parametrize("url", ["lucky13:roll-check", "lucky13:roll-opposed"])
def test_roll_urls_refuse_get(client: Client, url: str) -> None:
    assert client.get(reverse(url), CHECK).status_code == 405


@pytest.mark.parametrize("url", ["pages:home", "pages:about", "lucky13:calculator", "lucky13:opposed"])
def test_pages_refuse_post(client: Client, url: str) -> None:
    assert client.post(reverse(url)).status_code == 405


@pytest.mark.parametrize("url", ["lucky13:roll-check", "lucky13:roll-opposed"])
def test_roll_without_a_csrf_token_is_forbidden(url: str) -> None:
    client = Client(enforce_csrf_checks=True)

    assert client.post(reverse(url), {}).status_code == 403
    assert client.post(reverse(url), {}, **HX).status_code == 403


@pytest.mark.django_db
def test_plain_roll_with_the_pages_csrf_token_goes_through() -> None:
    client = Client(enforce_csrf_checks=True)
    page = html(client.get(reverse("lucky13:calculator")))
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)

    response = client.post(reverse("lucky13:roll-check"), {**CHECK, "csrfmiddlewaretoken": token})

    assert response.status_code == 302


def test_htmx_roll_with_the_token_from_its_form_goes_through() -> None:
    """htmx posts the form's own fields, its token among them: an anonymous page draws no token of its
    own for htmx (templates/base.html), only its forms do."""
    client = Client(enforce_csrf_checks=True)
    page = html(client.get(reverse("lucky13:calculator")))
    assert "X-CSRFToken" not in page
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)

    response = client.post(reverse("lucky13:roll-check"), {**CHECK, "csrfmiddlewaretoken": token}, **HX)

    assert response.status_code == 200
    assert outcome(html(response)) in ("Success", "Failure")


@pytest.mark.django_db
def test_calculator_without_a_session_reads_no_database(client: Client, django_assert_num_queries) -> None:
    with django_assert_num_queries(0):
        client.get(reverse("lucky13:calculator"))


@pytest.mark.django_db
def test_calculator_with_a_waiting_roll_reads_no_database_and_clears_its_cookie(
    client: Client, django_assert_num_queries
) -> None:
    location = client.post(reverse("lucky13:roll-check"), SURE_SUCCESS)["Location"]

    with django_assert_num_queries(0):  # the roll waits in a signed cookie, not in the session
        response = client.get(location)
    assert outcome(html(response)) == "Success"
    assert response.cookies[f"{ROLL_COOKIE}-check"]["max-age"] == 0
