"""The dice calculator pages: the chance shown, the htmx fragment, and bad input.

These views are public and need no database: with no session cookie the page
reads no session, so a test that touched the database here would fail loudly.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.test import Client
from django.urls import reverse

from tests.pages.helpers import big_chance, errors, html, region, totals

HX = {"HTTP_HX_REQUEST": "true"}
DIFFICULTY_DICE = {
    "easy": "d12",
    "moderate": "d10",
    "difficult": "d8",
    "challenging": "d6",
    "extraordinary": "d4",
    "heroic": "none",
}


def brute_force_check(ability: str, skill: str, difficulty: str, ability_roll: str = "normal") -> Fraction:
    """P(Ability + Skill + Difficulty >= 13) with no explosions, by listing every roll."""
    ability_totals = totals([ability])
    if ability_roll != "normal":
        keep = max if ability_roll == "background" else min
        ability_totals = [keep(a, b) for a in ability_totals for b in ability_totals]
    rest = totals([skill, DIFFICULTY_DICE.get(difficulty, difficulty)])
    hits = sum(1 for a in ability_totals for r in rest if a + r >= 13)
    return Fraction(hits, len(ability_totals) * len(rest))


def brute_force_opposed(attacker: list[str], defender: list[str]) -> tuple[Fraction, Fraction]:
    """(P(attacker's total is higher), P(a draw)) with no explosions."""
    attack, defence = totals(attacker), totals(defender)
    cases = len(attack) * len(defence)
    wins = sum(1 for a in attack for d in defence if a > d)
    draws = sum(1 for a in attack for d in defence if a == d)
    return Fraction(wins, cases), Fraction(draws, cases)


# --- Skill checks ---------------------------------------------------------------------------


def test_calculator_full_page_shows_the_form_the_chance_and_an_empty_roll_result(client: Client) -> None:
    response = client.get(reverse("lucky13:calculator"))

    page = html(response)
    assert response.status_code == 200
    assert page.startswith("<!doctype html>")
    assert '<form id="calculator-form"' in page
    assert "Chance of success" in region(page, "calculation")
    assert region(page, "roll-result").strip() == ""
    # The defaults: d8 + d6 + Moderate (d10), Cinematic, normal Ability roll.
    assert 'value="d8" selected' in page
    assert "Roll d8 + d6 + d10" in page
    assert "HX-Request" in response["Vary"]


def test_calculator_shows_the_exact_chance_for_d10_d12_d6_without_explosions(client: Client) -> None:
    response = client.get(
        reverse("lucky13:calculator"), {"ability": "d10", "skill": "d12", "difficulty": "d6", "explosion": "none"}
    )

    page = html(response)
    assert response.status_code == 200
    assert big_chance(page) == ("72.2%", "13/18")
    assert "exactly 13/18" in page
    assert brute_force_check("d10", "d12", "d6") == Fraction(13, 18)


@pytest.mark.parametrize(
    ("query", "dice"),
    [
        ({"ability": "d4", "skill": "d4", "difficulty": "easy"}, ("d4", "d4", "easy")),
        ({"ability": "d8", "skill": "d6", "difficulty": "moderate"}, ("d8", "d6", "moderate")),
        ({"ability": "d6", "skill": "none", "difficulty": "heroic"}, ("d6", "none", "heroic")),
        ({"ability": "d12", "ability_steps": "1", "skill": "d8", "difficulty": "difficult"}, ("d12+d4", "d8", "d8")),
        ({"ability": "d8", "skill": "d10", "skill_steps": "-2", "difficulty": "d8"}, ("d8", "d6", "d8")),
        ({"ability": "d6", "skill": "d6", "difficulty": "moderate", "difficulty_steps": "-1"}, ("d6", "d6", "d8")),
        ({"ability": "none", "skill": "d12", "difficulty": "easy"}, ("none", "d12", "easy")),
    ],
)
def test_the_chance_matches_brute_force_without_explosions(
    client: Client, query: dict[str, str], dice: tuple[str, str, str]
) -> None:
    response = client.get(reverse("lucky13:calculator"), {**query, "explosion": "none"})

    expected = brute_force_check(*dice)
    assert response.status_code == 200
    assert big_chance(html(response))[1] == f"{expected.numerator}/{expected.denominator}"


@pytest.mark.parametrize("ability_roll", ["background", "impairment"])
def test_background_and_impairment_keep_the_better_or_worse_ability_roll(client: Client, ability_roll: str) -> None:
    query = {"ability": "d8", "skill": "d6", "difficulty": "moderate", "ability_roll": ability_roll}

    response = client.get(reverse("lucky13:calculator"), {**query, "explosion": "none"})

    expected = brute_force_check("d8", "d6", "moderate", ability_roll)
    assert big_chance(html(response))[1] == f"{expected.numerator}/{expected.denominator}"


def test_calculator_htmx_request_gets_only_the_calculation_fragment(client: Client) -> None:
    response = client.get(
        reverse("lucky13:calculator"), {"ability": "d10", "skill": "d12", "difficulty": "d6", "explosion": "none"}, **HX
    )

    fragment = html(response).strip()
    assert response.status_code == 200
    # The inside of the #calculation live region, which stays in the page.
    assert 'id="calculation"' not in fragment
    assert "<html" not in fragment
    assert "calculator-form" not in fragment
    assert 'id="roll-result"' not in fragment
    assert "site-footer" not in fragment
    assert big_chance(fragment) == ("72.2%", "13/18")
    # The Roll form inside the fragment carries the new dice.
    assert '<input type="hidden" name="ability" value="d10">' in fragment
    assert "HX-Request" in response["Vary"]


def test_calculator_htmx_history_restore_gets_the_whole_page(client: Client) -> None:
    response = client.get(
        reverse("lucky13:calculator"), {"ability": "d12"}, **HX, HTTP_HX_HISTORY_RESTORE_REQUEST="true"
    )

    page = html(response)
    assert response.status_code == 200
    assert page.startswith("<!doctype html>")
    assert '<form id="calculator-form"' in page
    assert 'value="d12" selected' in page
    assert "HX-Request" in response["Vary"]


# --- Opposed rolls --------------------------------------------------------------------------

SMALL_OPPOSED = {
    "attacker_ability": "d6",
    "attacker_skill": "d4",
    "attacker_accuracy": "none",
    "weapon_damage": "d6",
    "defender_ability": "d6",
    "defender_skill": "none",
    "defender_armor": "d4",
    "explosion": "none",
}


def test_opposed_full_page_shows_both_sides_and_the_chance_to_hit(client: Client) -> None:
    response = client.get(reverse("lucky13:opposed"))

    page = html(response)
    assert response.status_code == 200
    assert page.startswith("<!doctype html>")
    assert '<form id="calculator-form"' in page
    assert 'action="/calculator/opposed/"' in page
    assert "<legend>Attacker</legend>" in page
    assert "<legend>Defender</legend>" in page
    assert "Chance to hit" in region(page, "calculation")
    assert "Roll the attack" in page
    assert region(page, "roll-result").strip() == ""
    assert "HX-Request" in response["Vary"]


def test_opposed_chance_matches_brute_force_without_explosions(client: Client) -> None:
    response = client.get(reverse("lucky13:opposed"), SMALL_OPPOSED)

    page = html(response)
    win, draw = brute_force_opposed(["d6", "d4"], ["d6", "d4"])
    assert response.status_code == 200
    assert big_chance(page)[1] == f"{win.numerator}/{win.denominator}"
    assert f"exactly {draw.numerator}/{draw.denominator}" in page
    # Each side's dilemma, called before the roll: d6 + d4 on each side (the defender's d4 is the armor).
    for side in ("attacker", "defender"):
        shown = page.split(f"A dilemma for the {side}")[1].split("</dd>")[0]
        assert f"exactly {1 - Fraction(5, 6) * Fraction(3, 4)}" in shown
    # Without explosions the chances are exact, so no note about a bounded sum.
    assert "one in a hundred trillion" not in page


def test_opposed_htmx_request_gets_only_the_calculation_fragment(client: Client) -> None:
    response = client.get(reverse("lucky13:opposed"), SMALL_OPPOSED, **HX)

    fragment = html(response).strip()
    win, _ = brute_force_opposed(["d6", "d4"], ["d6", "d4"])
    assert response.status_code == 200
    assert 'id="calculation"' not in fragment
    assert "<html" not in fragment
    assert "calculator-form" not in fragment
    assert big_chance(fragment)[1] == f"{win.numerator}/{win.denominator}"
    assert "HX-Request" in response["Vary"]


def test_opposed_htmx_history_restore_gets_the_whole_page(client: Client) -> None:
    response = client.get(reverse("lucky13:opposed"), **HX, HTTP_HX_HISTORY_RESTORE_REQUEST="true")

    assert response.status_code == 200
    assert '<form id="calculator-form"' in html(response)


# --- Bad input ------------------------------------------------------------------------------

BAD_INPUT = [
    ("lucky13:calculator", {"ability": "d7"}, ["Ability", "d7"]),
    ("lucky13:calculator", {"ability_steps": "abc"}, ["Ability steps", "whole number"]),
    ("lucky13:calculator", {"ability_steps": "99"}, ["Ability steps", "10"]),
    ("lucky13:calculator", {"ability_steps": "-99"}, ["Ability steps", "-10"]),
    ("lucky13:calculator", {"explosion": "bogus"}, ["Explosions", "bogus"]),
    ("lucky13:calculator", {"difficulty": "hard"}, ["Difficulty", "hard"]),
    ("lucky13:calculator", {"ability_roll": "lucky"}, ["Ability roll", "lucky"]),
    ("lucky13:opposed", {"attacker_ability": "none"}, ["Attacker", "Ability (Reflex)", "none"]),
    ("lucky13:opposed", {"weapon_damage": "none"}, ["Weapon damage", "none"]),
    ("lucky13:opposed", {"weapon_damage": "d20"}, ["Weapon damage", "d20"]),
    ("lucky13:opposed", {"explosion": "bogus"}, ["Explosions", "bogus"]),
]


@pytest.mark.parametrize(("url", "query", "words"), BAD_INPUT)
def test_bad_input_is_a_400_page_naming_the_problem(
    client: Client, url: str, query: dict[str, str], words: list[str]
) -> None:
    response = client.get(reverse(url), query)

    page = html(response)
    assert response.status_code == 400
    assert page.startswith("<!doctype html>")
    [message] = errors(page)
    assert all(word in message for word in words), message
    # The form keeps what was sent, with the bad field marked, and there is nothing to roll.
    assert "has-error" in page
    assert "roll-form" not in page


@pytest.mark.parametrize(("url", "query", "words"), BAD_INPUT)
def test_bad_input_over_htmx_is_a_400_fragment_naming_the_problem(
    client: Client, url: str, query: dict[str, str], words: list[str]
) -> None:
    response = client.get(reverse(url), query, **HX)

    fragment = html(response).strip()
    assert response.status_code == 400
    assert 'id="calculation"' not in fragment
    assert "<html" not in fragment
    [message] = errors(fragment)
    assert all(word in message for word in words), message
    assert "roll-form" not in fragment


def test_several_bad_fields_are_all_named(client: Client) -> None:
    response = client.get(reverse("lucky13:calculator"), {"ability": "d7", "skill_steps": "x", "explosion": "loud"})

    messages = errors(html(response))
    assert response.status_code == 400
    assert len(messages) == 3
    assert any(m.startswith("Ability:") and "d7" in m for m in messages)
    assert any(m.startswith("Skill steps:") for m in messages)
    assert any(m.startswith("Explosions:") and "loud" in m for m in messages)


def test_an_empty_steps_box_means_no_steps(client: Client) -> None:
    """While a player retypes a number the box is briefly empty: that is 0 steps, not an error."""
    empty = client.get(reverse("lucky13:calculator"), {"ability": "d8", "ability_steps": ""})
    zero = client.get(reverse("lucky13:calculator"), {"ability": "d8", "ability_steps": "0"})

    assert empty.status_code == 200
    assert big_chance(html(empty)) == big_chance(html(zero))


def test_unknown_query_parameters_are_ignored(client: Client) -> None:
    response = client.get(reverse("lucky13:calculator"), {"ability": "d10", "colour": "red"})

    assert response.status_code == 200


def test_opposed_chances_say_exactly_without_explosions_and_about_with_cinematic(client: Client) -> None:
    exact = client.get(reverse("lucky13:opposed"), {"explosion": "none"}).content.decode()
    bounded = client.get(reverse("lucky13:opposed"), {"explosion": "cinematic"}).content.decode()

    assert "exactly " in exact
    assert "about " not in exact
    assert "about " in bounded
    assert "within 10⁻¹²" in bounded
