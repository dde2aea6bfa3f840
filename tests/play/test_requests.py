"""The GM's calls (rules README): roll requests from the dashboard, answered from the dashboard or the
sheet with the call's parts fixed; a campaign where players set their own difficulty, whose rolls are
marked self-called; secret requests and secret sheet rolls, revealed later; the API."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from play import requests, sheet_rolls
from play.models import Roll, RollAsked, RollRequest
from play.roll_views import called_words
from rules.systems import lucky13
from tests.campaigns.helpers import html, options_post, text
from tests.characters.conftest import FIGHTING, LONGSWORD_SPEC, SNEAKING, make_character

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
SNEAK_HARD = {"kind": "check", "skill": "Sneaking", "difficulty": "difficult", "ability_roll": "background"}


@pytest.fixture
def table(campaign: Campaign) -> Campaign:
    """The campaign as a new one is: the GM calls the rolls."""
    campaign.players_call_rolls = False
    campaign.save(update_fields=["players_call_rolls"])
    return campaign


@pytest.fixture
def brunella(table, player):
    return make_character(table, player, name="Brunella")


@pytest.fixture
def otto(table, other_player):
    return make_character(table, other_player, name="Otto")


def call_url(campaign: Campaign) -> str:
    return reverse("play:request-call", args=[campaign.pk])


def answer_url(asked: RollAsked) -> str:
    return reverse("play:request-answer", args=[asked.character_id, asked.pk])


def dashboard(campaign: Campaign) -> str:
    return reverse("play:dashboard", args=[campaign.pk])


def seeded(monkeypatch: pytest.MonkeyPatch, seed: int = 3) -> None:
    monkeypatch.setattr("play.request_views.secrets.SystemRandom", lambda: random.Random(seed))
    monkeypatch.setattr("games.lucky13.roll_views.secrets.SystemRandom", lambda: random.Random(seed))


def call(campaign, gm, characters, *, secret=False, **changes) -> RollRequest:
    return requests.call_for_roll(
        campaign_id=campaign.pk, by=gm, call={**SNEAK_HARD, **changes}, characters=[c.pk for c in characters],
        secret=secret,
    )  # fmt: skip


# --- Calling ---------------------------------------------------------------------------------------


def test_the_gm_calls_for_a_roll_from_the_dashboard(client, table, gm, brunella, otto) -> None:
    client.force_login(gm)
    form = {**SNEAK_HARD, "ability_steps": "1", "skill_steps": "0", "characters": [brunella.pk, otto.pk]}
    response = client.post(call_url(table), form)
    assert response.status_code == 302
    made = RollRequest.objects.get()
    assert made.label == "Sneaking check, Difficult (d8), with a background, Ability +1 step"
    assert made.call["skill"] == "Sneaking"
    assert made.call["ability_steps"] == 1
    assert sorted(made.asked.values_list("character_id", flat=True)) == sorted([brunella.pk, otto.pk])
    assert "Sneaking check, Difficult (d8)" in text(client.get(dashboard(table)))


def test_a_bad_call_is_refused_beside_its_field_and_asks_nobody(client, table, gm, brunella) -> None:
    client.force_login(gm)
    cases = [
        ({**SNEAK_HARD, "skill": "Juggling", "characters": [brunella.pk]}, "Juggling is not on the list: choose"),
        ({**SNEAK_HARD, "ability_steps": "11", "characters": [brunella.pk]}, "10"),
        ({**SNEAK_HARD, "characters": []}, "Choose who rolls."),
        ({**SNEAK_HARD, "characters": ["999999"]}, "Choose characters in play."),
        ({**SNEAK_HARD, "difficulty": "trivial", "characters": [brunella.pk]}, "trivial is not on the list: choose"),
    ]
    for form, message in cases:
        response = client.post(call_url(table), form, **HX)
        assert response.status_code == 400, form
        assert message in text(response)
        assert 'value="Sneaking" selected' in html(response) or form["skill"] != "Sneaking"  # what was typed is kept
    assert not RollRequest.objects.exists()


def test_a_sheet_without_the_skill_is_named_and_nobody_is_asked(table, gm, brunella, other_player) -> None:
    bare = make_character(table, other_player, name="Bare", skills=[], assets=[])
    with pytest.raises(requests.Refused, match="Bare cannot make this roll"):
        call(table, gm, [brunella, bare])
    assert not RollRequest.objects.exists()
    assert not RollAsked.objects.exists()


def test_only_the_gm_calls(client, table, player, brunella) -> None:
    client.force_login(player)
    response = client.post(call_url(table), {**SNEAK_HARD, "characters": [brunella.pk]})
    assert response.status_code == 403
    assert not RollRequest.objects.exists()


# --- Answering -------------------------------------------------------------------------------------


def test_a_player_sees_the_request_with_its_exact_chance_and_rolls_it(client, monkeypatch, table, gm, player,
                                                                     brunella) -> None:  # fmt: skip
    asked = call(table, gm, [brunella]).asked.get()
    client.force_login(player)
    page = text(client.get(dashboard(table)))
    made = sheet_rolls.build(brunella, [], {}, gm=False, asked=asked)
    chance = sheet_rolls.chance_of(brunella, made)
    check = lucky13.parse_check(made.spec)
    assert check.ability_roll is lucky13.AbilityRoll.BACKGROUND
    assert check.difficulty == lucky13.Difficulty.DIFFICULT.die
    assert chance == lucky13.check_chance(check).p_success
    assert f"({chance.numerator}/{chance.denominator})" in page
    assert "gm calls for Sneaking check, Difficult (d8), with a background from Brunella" in page

    seeded(monkeypatch)
    response = client.post(answer_url(asked), **HX)
    assert response.status_code == 200
    roll = Roll.objects.get()
    assert roll.character == brunella
    assert roll.chance == f"{chance.numerator}/{chance.denominator}"
    assert roll.spec["call"] == {"request": asked.request_id, "by": "gm", "words": asked.request.label}
    assert called_words(roll.spec) == "called by gm"
    asked.refresh_from_db()
    assert asked.roll == roll
    assert RollRequest.objects.get().closed_at is not None  # its only character rolled
    assert client.post(answer_url(asked), **HX).status_code == 404  # not open any more


def test_the_sheet_answers_with_what_the_gm_called_whatever_is_posted(client, monkeypatch, table, gm, player,
                                                                     brunella) -> None:  # fmt: skip
    asked = call(table, gm, [brunella], skill="Fighting", difficulty="easy", ability_roll="normal").asked.get()
    client.force_login(player)
    roll_url = reverse("play:sheet-roll", args=[brunella.pk])
    page = client.get(roll_url, {"asked": asked.pk})
    assert page.status_code == 200
    assert "Answering gm’s call" in text(page)
    seeded(monkeypatch)
    # The player adds the specialization (theirs to add) and tries an easier difficulty (the GM's call).
    posted = {"asked": asked.pk, "skill": FIGHTING, "specialization": LONGSWORD_SPEC, "difficulty": "heroic"}
    assert client.post(roll_url, posted).status_code == 302
    roll = Roll.objects.get()
    assert roll.spec["difficulty"] == "d12"  # Easy, as called
    assert roll.spec["sheet"]["specialization"]["id"] == LONGSWORD_SPEC
    assert roll.spec["call"]["request"] == asked.request_id
    assert client.post(roll_url, posted).status_code == 404  # answered: no second roll


def test_without_a_call_a_player_sees_the_odds_but_cannot_roll(client, table, player, brunella) -> None:
    client.force_login(player)
    roll_url = reverse("play:sheet-roll", args=[brunella.pk])
    page = client.get(roll_url, {"skill": SNEAKING})
    assert page.status_code == 200
    assert "the GM calls for rolls" in text(page)
    assert 'id="roll-button"' not in html(page)
    assert client.post(roll_url, {"skill": SNEAKING}).status_code == 403
    assert not Roll.objects.exists()


def test_the_gm_rolls_for_anyone_without_a_call_and_may_roll_in_secret(client, monkeypatch, table, gm, player,
                                                                      brunella) -> None:  # fmt: skip
    client.force_login(gm)
    seeded(monkeypatch)
    roll_url = reverse("play:sheet-roll", args=[brunella.pk])
    assert client.post(roll_url, {"skill": SNEAKING, "secret": "on"}).status_code == 302
    roll = Roll.objects.get()
    assert roll.secret
    assert roll.spec["call"] == {"gm": True}
    client.force_login(player)
    assert "Sneaking" not in text(client.get(reverse("play:rolls", args=[table.pk])))
    client.force_login(gm)
    client.post(reverse("play:reveal-roll", args=[table.pk, roll.seq]))
    client.force_login(player)
    assert "Sneaking" in text(client.get(reverse("play:rolls", args=[table.pk])))


def test_a_secret_request_is_answered_in_secret(client, monkeypatch, table, gm, player, brunella) -> None:
    asked = call(table, gm, [brunella], secret=True).asked.get()
    client.force_login(player)
    seeded(monkeypatch)
    response = client.post(answer_url(asked), **HX)
    assert "Rolled in secret" in text(response)
    roll = Roll.objects.get()
    assert roll.secret
    assert roll.by == player
    assert "Sneaking" not in text(client.get(reverse("play:rolls", args=[table.pk])))


def test_players_who_set_their_own_difficulty_roll_self_called(client, monkeypatch, table, player, brunella) -> None:
    table.players_call_rolls = True
    table.save(update_fields=["players_call_rolls"])
    client.force_login(player)
    seeded(monkeypatch)
    assert client.post(reverse("play:sheet-roll", args=[brunella.pk]), {"skill": SNEAKING}).status_code == 302
    roll = Roll.objects.get()
    assert roll.spec["call"] == {"self": True}
    assert "self-called" in text(client.get(reverse("play:rolls", args=[table.pk])))


def test_the_gm_closes_a_request_and_what_is_left_cannot_be_rolled(client, table, gm, player, brunella, otto) -> None:
    made = call(table, gm, [brunella, otto])
    client.force_login(gm)
    assert client.post(reverse("play:request-cancel", args=[table.pk, made.pk])).status_code == 302
    assert client.post(reverse("play:request-cancel", args=[table.pk, made.pk])).status_code == 409
    asked = made.asked.get(character=brunella)
    client.force_login(player)
    assert client.post(answer_url(asked)).status_code == 404
    assert not Roll.objects.exists()


def test_a_request_for_someone_elses_character_cannot_be_answered(client, table, gm, other_player, brunella) -> None:
    asked = call(table, gm, [brunella]).asked.get()
    client.force_login(other_player)
    assert client.post(answer_url(asked)).status_code == 403
    assert not Roll.objects.exists()


def test_the_option_is_a_setting_of_the_campaign(client, table, gm) -> None:
    client.force_login(gm)
    settings_url = reverse("campaigns:settings", args=[table.pk])
    assert "Players may roll freely, not only what the GM calls" in text(client.get(settings_url))
    form = {**options_post(name=table.name, system=None), "players_call_rolls": "on", "save": "1"}
    response = client.post(settings_url, form)
    assert response.status_code == 302, text(response)
    table.refresh_from_db()
    assert table.players_call_rolls


def test_an_existing_campaign_kept_free_rolling_and_a_new_one_leaves_it_to_the_gm(gm) -> None:
    from campaigns.operations import create_campaign

    made = create_campaign(by=gm, name="New", description="", system="lucky13", options={})
    assert made.players_call_rolls is False
    assert Campaign._meta.get_field("players_call_rolls").default is False


def test_each_roll_answers_one_request_at_most_once(table, gm, player, brunella) -> None:
    asked = call(table, gm, [brunella]).asked.get()
    made = sheet_rolls.build(brunella, [], {}, gm=False, asked=asked)
    sheet_rolls.roll(brunella, made, by=player, rng=random.Random(1), asked=asked)
    with pytest.raises(requests.Conflict):
        sheet_rolls.roll(brunella, made, by=player, rng=random.Random(1), asked=asked)
    assert Roll.objects.count() == 1
    assert Fraction(Roll.objects.get().chance) > 0
