"""The GM's calls (rules README): roll requests from the dashboard, answered from the dashboard or the
sheet with the call's parts fixed; a campaign where players set their own difficulty, whose rolls are
marked self-called; secret requests and secret sheet rolls, revealed later; the API."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign
from play import requests, sheet_rolls
from play.models import Roll, RollAsked, RollRequest
from play.roll_views import called_words
from rules.systems import lucky13
from tests.campaigns.helpers import html, options_post, text
from tests.characters.conftest import FIGHTING, LONGSWORD_SPEC, SNEAKING, UNCLE_OTTO, make_character

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


def test_the_gms_open_requests_are_read_only_when_one_is_open(client, monkeypatch, table, gm, player, brunella, otto,
                                                              django_assert_num_queries) -> None:  # fmt: skip
    client.force_login(gm)
    # The session with its user, the membership with its campaign and whether each of the GM's lists has
    # anything, the party, the feed: nothing open, nothing more.
    with django_assert_num_queries(4):
        page = client.get(dashboard(table))
    assert "Sneaking check" not in text(page)
    made = call(table, gm, [brunella, otto])
    # Now the open requests, and what each asks with its character's name and its answer (none yet).
    with django_assert_num_queries(6):
        page = client.get(dashboard(table))
    assert "Sneaking check, Difficult (d8)" in text(page)
    client.force_login(player)
    seeded(monkeypatch)
    assert client.post(answer_url(made.asked.get(character=brunella)), **HX).status_code == 200
    client.force_login(gm)
    # an answer is read with what it answers; the roll it made is new to the feed, whose row is drawn from it
    with django_assert_num_queries(7):
        page = client.get(dashboard(table))
    assert f"{brunella.name}: rolled (#{Roll.objects.get().seq})" in text(page)
    assert f"{otto.name}: waiting" in text(page)
    RollRequest.objects.update(closed_at=timezone.now())
    with django_assert_num_queries(4):
        page = client.get(dashboard(table))
    assert "Sneaking check" not in text(page)


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


# --- What the call names, what the sheet adds (issue 23) ----------------------------------------------


def page_chance(response) -> Fraction:
    """The exact chance a Lucky 13 roll page shows, as the fraction it prints beside the percentage."""
    page = text(response)
    found = re.search(r"Chance of success [\d.]+% exactly (\d+)/(\d+)", page)
    assert found, page
    return Fraction(int(found[1]), int(found[2]))


def test_the_gms_call_names_the_ability(client, monkeypatch, table, gm, player, brunella) -> None:
    """ "Roll a d10 plus your Pulse and your Fighting dice": the call rolls Pulse, not Fighting's Reflex."""
    client.force_login(gm)
    form = {"kind": "check", "skill": "Fighting", "ability": "pulse", "difficulty": "moderate",
            "ability_roll": "normal", "ability_steps": "0", "skill_steps": "0",
            "characters": [brunella.pk]}  # fmt: skip
    assert client.post(call_url(table), form).status_code == 302
    made = RollRequest.objects.get()
    assert made.label == "Pulse + Fighting check, Moderate (d10)"
    asked = made.asked.get()
    client.force_login(player)
    page = client.get(reverse("play:sheet-roll", args=[brunella.pk]), {"asked": asked.pk})
    assert '<option value="pulse" selected>' in html(page)
    seeded(monkeypatch)
    assert client.post(answer_url(asked), **HX).status_code == 200
    roll = Roll.objects.get()
    assert roll.spec["sheet"]["ability"] == "pulse"
    assert roll.spec["ability"] == "d8"  # Brunella's Pulse


def test_a_skill_linked_to_no_ability_asks_the_call_for_one(client, table, gm, player) -> None:
    skills = [{"id": 5, "name": "Fighting", "ability": None, "die": "d10", "specializations": []}]
    loner = make_character(table, player, name="Loner", skills=skills, assets=[])
    client.force_login(gm)
    form = {"kind": "check", "skill": "Fighting", "difficulty": "moderate", "ability_roll": "normal",
            "ability_steps": "0", "skill_steps": "0", "characters": [loner.pk]}  # fmt: skip
    response = client.post(call_url(table), form, **HX)
    assert response.status_code == 400
    assert "Loner cannot make this roll: Fighting has no linked ability: name the ability the call rolls" in text(
        response
    )
    assert 'id="id_ability_error"' in html(response)  # beside the ability, not silently Will
    assert not RollRequest.objects.exists()
    assert client.post(call_url(table), {**form, "ability": "will"}).status_code == 302
    assert RollRequest.objects.get().asked.get().situation["ability"] == "will"


def test_an_open_request_survives_the_gm_renaming_the_skill(client, monkeypatch, table, gm, player,
                                                            brunella) -> None:  # fmt: skip
    from characters import campaign_changes

    asked = call(table, gm, [brunella]).asked.get()
    assert asked.situation["skill"] == SNEAKING  # by its id on Brunella's sheet
    skills = [{"name": "Stealth" if s["name"] == "Sneaking" else s["name"], "ability": s["ability"]}
              for s in table.settings["skills"]]  # fmt: skip
    campaign_changes.update_campaign(
        campaign_id=table.pk,
        by=gm,
        name=table.name,
        description=table.description,
        options={**table.options, "skills": skills},
        renames={"Sneaking": "Stealth"},
    )
    brunella.refresh_from_db()
    assert brunella.document.skill(SNEAKING).name == "Stealth"
    client.force_login(player)
    listed = text(client.get(dashboard(table)))
    assert "calls for Sneaking check, Difficult (d8), with a background from Brunella" in listed  # as called
    assert "Reflex + Stealth vs Difficult" in listed
    assert client.get(reverse("play:sheet-roll", args=[brunella.pk]), {"asked": asked.pk}).status_code == 200
    seeded(monkeypatch)
    assert client.post(answer_url(asked), **HX).status_code == 200
    assert Roll.objects.get().spec["sheet"]["skill_name"] == "Stealth"


def test_answering_from_the_sheet_adds_a_specialization_at_the_roll_pages_chance(client, monkeypatch, table, gm,
                                                                                player, brunella) -> None:  # fmt: skip
    """One mechanic, one path: the roll page, an answered call and the engine agree on the chance of
    Fighting with the Longsword specialization and Uncle Otto."""
    asked = call(table, gm, [brunella], skill="Fighting", difficulty="challenging", ability_roll="normal").asked.get()
    client.force_login(player)
    roll_url = reverse("play:sheet-roll", args=[brunella.pk])
    answering = client.get(roll_url, {"asked": asked.pk})
    assert '<select name="specialization"' in html(answering)  # the sheet's to add
    assert '<option value="8">Longsword (1)</option>' in html(answering)
    chosen = {"skill": FIGHTING, "specialization": LONGSWORD_SPEC, "asset": UNCLE_OTTO, "difficulty": "challenging"}
    with_call = client.get(roll_url, {**chosen, "asked": asked.pk})
    without_call = client.get(roll_url, chosen)  # the odds a player sees without a call
    assert "Longsword 1: Skill +1" in text(with_call)
    bare = sheet_rolls.chance_of(brunella, sheet_rolls.build(brunella, [], {"skill": FIGHTING, "difficulty":
                                                                            "challenging"}, gm=False))  # fmt: skip
    expected = page_chance(without_call)
    assert page_chance(with_call) == expected != bare
    seeded(monkeypatch)
    assert client.post(roll_url, {**chosen, "asked": asked.pk}).status_code == 302
    roll = Roll.objects.get()
    assert Fraction(roll.chance) == expected
    assert roll.spec["sheet"]["specialization"]["id"] == LONGSWORD_SPEC
    assert roll.spec["sheet"]["asset"]["id"] == UNCLE_OTTO


def test_the_call_form_speaks_a_players_words(client, table, gm, brunella) -> None:
    client.force_login(gm)
    page = html(client.get(dashboard(table)))
    form = page[page.index('id="dashboard-call"') : page.index("</form>", page.index('id="dashboard-call"'))]
    for words in ("Kind of roll", "Skill check", "Reaction check (Charm + the skill)", "Background or impairment",
                  "The skill’s own ability", "Extra Ability steps", "Moderate (d10)"):  # fmt: skip
        assert words in form, words
    for code in ("AbilityRoll", ">check<", ">reaction<", ">normal<", "Ability Steps"):
        assert code not in form, code
    kinds = form[form.index('name="kind"') : form.index("</select>", form.index('name="kind"'))]
    assert ">none<" not in kinds  # a kind is always rolled: the default is chosen, not a blank


def test_the_d6_call_form_speaks_a_players_words_too(client, d6_campaign, gm, player) -> None:
    from tests.systems.d6.helpers import made

    client.force_login(player)
    made(client, d6_campaign, player)
    client.force_login(gm)
    page = html(client.get(dashboard(d6_campaign)))
    form = page[page.index('id="dashboard-call"') : page.index("</form>", page.index('id="dashboard-call"'))]
    assert ">Stat or skill<" in form
    assert ">Difficulty number<" in form
    assert ">Item<" not in form


def test_a_player_answering_a_secret_call_is_told_it_was_rolled(client, monkeypatch, table, gm, player,
                                                                brunella) -> None:  # fmt: skip
    seeded(monkeypatch)
    client.force_login(player)
    roll_url = reverse("play:sheet-roll", args=[brunella.pk])
    for headers in ({}, HX):
        asked = call(table, gm, [brunella], secret=True).asked.get()
        response = client.post(roll_url, {"skill": SNEAKING, "asked": asked.pk}, follow=not headers, **headers)
        assert "Rolled in secret" in text(response)
        assert "total" not in text(response).split("Rolled in secret")[1][:200]
    asked = call(table, gm, [brunella], secret=True).asked.get()
    response = client.post(answer_url(asked), follow=True)
    assert "in secret" in text(response)
    assert Roll.objects.filter(secret=True).count() == 3
    # The list every open dashboard reads again once it is answered keeps saying so, until the GM reveals it.
    from play.live import requests_html

    listed = requests_html(table.pk, player, gm=False)
    last = Roll.objects.order_by("-seq").first()
    assert f"Rolled in secret (#{last.seq})" in listed
    assert listed.count("Rolled in secret (#") == 3
    assert "total" not in listed
    client.force_login(gm)
    client.post(reverse("play:reveal-roll", args=[table.pk, last.seq]))
    assert requests_html(table.pk, player, gm=False).count("Rolled in secret (#") == 2
