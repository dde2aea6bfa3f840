"""A player proposing a roll to the GM (the GM's calls, rules README): proposed from the sheet's roll
page where the GM calls the rolls, listed on the dashboard with its exact chance, called (a roll
request of that character, as proposed or changed first) or declined by the GM, withdrawn by its
player; who may do which, and bad input refused with nothing changed."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from characters.models import Character
from play import proposals, requests, sheet_rolls
from play.models import Roll, RollProposal, RollRequest
from rules.systems import lucky13
from tests.campaigns.helpers import html, text
from tests.characters.conftest import FIGHTING, HEALING, LONGSWORD_SPEC, SNEAKING, UNCLE_OTTO, make_character
from tests.systems.coin import system as coin

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
#: What the Lucky 13 roll page posts for a Difficult Sneaking check with a background.
SNEAK = {"skill": SNEAKING, "ability": "reflex", "difficulty": "difficult", "ability_roll": "background"}
SNEAK_CALL = {"kind": "check", "skill": "Sneaking", "ability": None, "difficulty": "difficult",
              "ability_roll": "background", "ability_steps": 0, "skill_steps": 0}  # fmt: skip


@pytest.fixture
def table(campaign: Campaign) -> Campaign:
    """The campaign as a new one is: the GM calls the rolls."""
    campaign.players_call_rolls = False
    campaign.save(update_fields=["players_call_rolls"])
    return campaign


@pytest.fixture
def brunella(table, player) -> Character:
    return make_character(table, player, name="Brunella")


@pytest.fixture
def otto(table, other_player) -> Character:
    return make_character(table, other_player, name="Otto")


def roll_url(character: Character) -> str:
    return reverse("play:sheet-roll", args=[character.pk])


def dashboard(campaign: Campaign) -> str:
    return reverse("play:dashboard", args=[campaign.pk])


def call_url(proposal: RollProposal) -> str:
    return reverse("play:proposal-call", args=[proposal.campaign_id, proposal.pk])


def decline_url(proposal: RollProposal) -> str:
    return reverse("play:proposal-decline", args=[proposal.campaign_id, proposal.pk])


def withdraw_url(proposal: RollProposal) -> str:
    return reverse("play:proposal-withdraw", args=[proposal.campaign_id, proposal.pk])


def propose(character: Character, by, situation=None, note: str = "") -> RollProposal:
    return proposals.propose(character_id=character.pk, by=by, situation=situation or dict(SNEAK), note=note)


def one_click(proposal: RollProposal) -> dict:
    """What the dashboard's Call it posts: the call form as the proposal fills it."""
    return {**{k: v for k, v in proposal.call.items() if v is not None}, "characters": proposal.character_id}


# --- Proposing -------------------------------------------------------------------------------------


def test_the_roll_page_offers_to_propose_where_the_gm_calls(client, table, player, brunella) -> None:
    client.force_login(player)
    page = client.get(roll_url(brunella), SNEAK)
    assert page.status_code == 200
    assert "Propose this roll to the GM" in text(page)
    assert 'name="propose"' in html(page)
    assert 'id="roll-button"' not in html(page)
    # The chance swapped as the player chooses, the proposal with it.
    partial = client.get(roll_url(brunella), {**SNEAK, "difficulty": "challenging"}, **HX)
    assert 'name="difficulty" value="challenging"' in html(partial)
    assert "Propose this roll to the GM" in text(partial)


def test_where_players_call_their_rolls_there_is_nothing_to_propose(client, campaign, player) -> None:
    assert campaign.players_call_rolls
    brunella = make_character(campaign, player, name="Brunella")
    client.force_login(player)
    page = client.get(roll_url(brunella), SNEAK)
    assert 'id="roll-button"' in html(page)
    assert "Propose this roll" not in text(page)
    response = client.post(roll_url(brunella), {**SNEAK, "propose": "1"}, **HX)
    assert response.status_code == 409
    assert "players call their own rolls" in text(response)
    assert not RollProposal.objects.exists()


def test_the_gm_has_nothing_to_propose(client, table, gm, brunella) -> None:
    client.force_login(gm)
    assert "Propose this roll" not in text(client.get(roll_url(brunella), SNEAK))
    response = client.post(roll_url(brunella), {**SNEAK, "propose": "1"}, **HX)
    assert response.status_code == 403
    assert not RollProposal.objects.exists()


def test_a_player_proposes_a_roll_from_the_sheet(client, table, player, brunella) -> None:
    client.force_login(player)
    posted = {**SNEAK, "specialization": "", "propose": "1", "note": "  I hide behind the barrels  "}
    response = client.post(roll_url(brunella), posted)
    assert response.status_code == 302
    assert response["Location"].startswith(roll_url(brunella) + "?")
    assert response["Location"].endswith("#roll-proposal")
    made = RollProposal.objects.get()
    assert (made.character, made.by, made.state) == (brunella, player, RollProposal.State.OPEN)
    assert made.call == SNEAK_CALL
    assert made.label == "Sneaking check, Difficult (d8), with a background"
    assert made.note == "I hide behind the barrels"
    assert made.closed_at is None
    assert made.request is None
    assert "Proposed to the GM: Sneaking check" in text(client.get(response["Location"]))
    assert not Roll.objects.exists()
    assert not RollRequest.objects.exists()


def test_an_htmx_proposal_swaps_the_proposal_region(client, table, player, brunella) -> None:
    client.force_login(player)
    response = client.post(roll_url(brunella), {**SNEAK, "propose": "1"}, **HX)
    assert response.status_code == 200
    assert html(response).startswith('<div id="roll-proposal"')
    assert "Proposed to the GM: Sneaking check, Difficult (d8)" in text(response)


def test_what_only_the_sheet_adds_is_not_part_of_the_call(client, table, player, brunella, otto) -> None:
    client.force_login(player)
    posted = {"skill": FIGHTING, "specialization": LONGSWORD_SPEC, "ability": "reflex", "difficulty": "easy",
              "helper": otto.pk, "propose": "1"}  # fmt: skip
    assert client.post(roll_url(brunella), posted).status_code == 302
    assert RollProposal.objects.get().call == {**SNEAK_CALL, "skill": "Fighting", "difficulty": "easy",
                                               "ability_roll": "normal"}  # fmt: skip


def test_a_reaction_check_is_proposed_as_one(table, player, brunella) -> None:
    made = propose(brunella, player, {"reaction": True, "skill": HEALING, "difficulty": "moderate"})
    assert made.call["kind"] == "reaction"
    assert made.call["skill"] == "Healing"
    assert made.label.startswith("Reaction check (")


@pytest.mark.parametrize(
    ("posted", "status", "message"),
    [
        ({**SNEAK, "note": "x" * 201}, 400, "200 characters"),
        ({**SNEAK, "note": "two\nlines"}, 400, "one line"),
        ({**SNEAK, "skill": 99}, 400, "99 is not on the list"),
        ({**SNEAK, "difficulty": "trivial"}, 400, "trivial is not on the list"),
        ({**SNEAK, "ability": "luck"}, 400, "luck is not on the list"),
        ({**SNEAK, "ability_steps": "2"}, 400, "Only the GM"),
    ],
)
def test_bad_input_is_refused_and_nothing_is_proposed(client, table, player, brunella, posted, status,
                                                     message) -> None:  # fmt: skip
    client.force_login(player)
    for headers in ({}, HX):
        response = client.post(roll_url(brunella), {**posted, "propose": "1"}, **headers)
        assert response.status_code == status, (posted, text(response))
        assert message in text(response)
    assert not RollProposal.objects.exists()


def test_a_note_too_long_keeps_what_was_typed(client, table, player, brunella) -> None:
    client.force_login(player)
    response = client.post(roll_url(brunella), {**SNEAK, "propose": "1", "note": "y" * 201}, **HX)
    assert response.status_code == 400
    assert "y" * 201 in html(response)


def test_a_skill_the_campaign_does_not_list_cannot_be_proposed(table, player) -> None:
    odd = make_character(
        table, player, name="Odd", skills=[{"id": 1, "name": "Juggling", "ability": "reflex", "die": "d6"}], assets=[]
    )
    with pytest.raises(proposals.Refused, match="only the campaign's skills"):
        propose(odd, player, {"skill": 1})
    assert not RollProposal.objects.exists()


def test_only_the_characters_player_proposes(client, table, gm, other_player, outsider, brunella) -> None:
    client.force_login(other_player)
    assert client.post(roll_url(brunella), {**SNEAK, "propose": "1"}).status_code == 403
    client.force_login(outsider)
    assert client.post(roll_url(brunella), {**SNEAK, "propose": "1"}).status_code == 404
    with pytest.raises(proposals.NotAllowed):
        propose(brunella, other_player)
    with pytest.raises(proposals.NotAllowed):
        propose(brunella, gm)
    assert not RollProposal.objects.exists()


def test_only_a_character_in_play_proposes(table, player) -> None:
    draft = make_character(table, player, name="Draft", status="draft")
    with pytest.raises(proposals.Conflict):
        propose(draft, player)
    assert not RollProposal.objects.exists()


def test_the_same_roll_is_proposed_once_and_a_few_at_most(table, player, brunella) -> None:
    propose(brunella, player)
    with pytest.raises(proposals.Conflict, match="proposed already"):
        propose(brunella, player)
    for difficulty in ("easy", "moderate", "challenging", "heroic"):
        propose(brunella, player, {**SNEAK, "difficulty": difficulty})
    with pytest.raises(proposals.Conflict, match="waiting for the GM already"):
        propose(brunella, player, {**SNEAK, "difficulty": "difficult", "ability_roll": "normal"})
    assert RollProposal.objects.count() == proposals.MAX_OPEN


# --- The dashboard ---------------------------------------------------------------------------------


def test_the_gm_sees_who_proposed_what_and_its_exact_chance(client, table, gm, player, brunella) -> None:
    made = propose(brunella, player, note="The guards are drunk")
    expected = sheet_rolls.chance_of(brunella, sheet_rolls.build_proposed(brunella, made.call, {}))
    check = lucky13.parse_check(sheet_rolls.build_proposed(brunella, made.call, {}).spec)
    assert expected == lucky13.check_chance(check).p_success
    client.force_login(gm)
    page = text(client.get(dashboard(table)))
    assert "player proposes Sneaking check, Difficult (d8), with a background for Brunella" in page
    assert "Why: The guards are drunk" in page
    assert f"({expected.numerator}/{expected.denominator})" in page
    assert "Call it" in page
    assert "Decline" in page
    assert "Change it, then call it" in page


def test_a_player_sees_only_their_own_proposals(client, table, player, other_player, brunella, otto) -> None:
    propose(brunella, player)
    propose(otto, other_player, {**SNEAK, "skill": FIGHTING})
    client.force_login(player)
    page = text(client.get(dashboard(table)))
    assert "Your proposals" in page
    assert "For Brunella: Sneaking check" in page
    assert "Fighting" not in page
    assert "Withdraw" in page


# --- Calling, declining, withdrawing ---------------------------------------------------------------


def test_the_gm_calls_it_in_one_click(client, table, gm, player, brunella) -> None:
    made = propose(brunella, player)
    client.force_login(gm)
    response = client.post(call_url(made), one_click(made), **HX)
    assert response.status_code == 200
    assert "You called for a roll: Sneaking check" in text(response)
    request = RollRequest.objects.get()
    assert request.call == made.call
    assert request.label == made.label
    assert list(request.asked.values_list("character_id", flat=True)) == [brunella.pk]
    made.refresh_from_db()
    assert (made.state, made.request) == (RollProposal.State.CALLED, request)
    assert made.closed_at is not None
    assert "Proposed by the players" not in text(response)
    assert client.post(call_url(made), one_click(made), **HX).status_code == 409  # called once
    assert RollRequest.objects.count() == 1
    client.force_login(player)  # the player answers it as any request, and sees their proposal called
    page = text(client.get(dashboard(table)))
    assert "Called by the GM" in page
    assert "Roll for Brunella" in page


def test_the_gm_changes_the_call_first(client, table, gm, player, brunella, otto) -> None:
    made = propose(brunella, player)
    client.force_login(gm)
    page = client.get(call_url(made))
    assert page.status_code == 200
    assert 'value="Sneaking" selected' in html(page)
    assert 'value="difficult" selected' in html(page)
    assert f'value="{brunella.pk}" id="id_characters_0" checked' in html(page)  # who proposed it rolls it
    assert f'value="{otto.pk}" id="id_characters_1">' in html(page)
    changed = {**one_click(made), "difficulty": "challenging", "characters": [brunella.pk, otto.pk]}
    response = client.post(call_url(made), changed)
    assert response.status_code == 302
    assert response["Location"].endswith("#dashboard-requests")
    request = RollRequest.objects.get()
    assert request.call["difficulty"] == "challenging"
    assert sorted(request.asked.values_list("character_id", flat=True)) == sorted([brunella.pk, otto.pk])
    made.refresh_from_db()
    assert made.request == request


def test_a_bad_change_is_refused_with_nothing_called(client, table, gm, player, brunella) -> None:
    made = propose(brunella, player)
    client.force_login(gm)
    response = client.post(call_url(made), {**one_click(made), "skill": "Juggling"})
    assert response.status_code == 400
    assert "Juggling is not on the list" in text(response)
    response = client.post(call_url(made), {**one_click(made), "characters": []}, **HX)
    assert response.status_code == 400
    assert "Nothing was called" in text(response)
    assert not RollRequest.objects.exists()
    made.refresh_from_db()
    assert made.is_open


def test_the_gm_declines_it_and_the_player_sees_it(client, table, gm, player, brunella) -> None:
    made = propose(brunella, player)
    client.force_login(gm)
    response = client.post(decline_url(made))
    assert response.status_code == 302
    made.refresh_from_db()
    assert made.state == RollProposal.State.DECLINED
    assert made.closed_at is not None
    assert made.request is None
    assert client.post(decline_url(made), **HX).status_code == 409
    assert client.post(call_url(made), one_click(made)).status_code == 409
    assert not RollRequest.objects.exists()
    client.force_login(player)
    page = text(client.get(dashboard(table)))
    assert "Declined by the GM" in page
    assert "Withdraw" not in page


def test_the_player_withdraws_it(client, table, gm, player, brunella) -> None:
    made = propose(brunella, player)
    client.force_login(player)
    response = client.post(withdraw_url(made), **HX)
    assert response.status_code == 200
    assert "Your proposals" not in text(response)  # a withdrawn proposal leaves the list
    made.refresh_from_db()
    assert made.state == RollProposal.State.WITHDRAWN
    assert client.post(withdraw_url(made)).status_code == 409
    client.force_login(gm)
    assert "Proposed by the players" not in text(client.get(dashboard(table)))
    assert client.post(call_url(made), one_click(made)).status_code == 409


def test_each_action_answers_htmx_with_the_list_and_a_plain_post_with_a_redirect(client, table, gm, player,
                                                                                  brunella) -> None:  # fmt: skip
    first, second = propose(brunella, player), propose(brunella, player, {**SNEAK, "difficulty": "easy"})
    client.force_login(gm)
    declined = client.post(decline_url(first), **HX)
    assert declined.status_code == 200
    assert html(declined).startswith('<section class="campaign-section" id="dashboard-requests"')
    assert f'id="proposal-{first.pk}"' not in html(declined)
    assert f'id="proposal-{second.pk}"' in html(declined)
    client.force_login(player)
    withdrawn = client.post(withdraw_url(second))
    assert withdrawn.status_code == 302
    assert withdrawn["Location"] == f"{dashboard(table)}#dashboard-requests"
    assert "Withdrawn: Sneaking check, Easy (d12)" in text(client.get(withdrawn["Location"]))
    assert RollProposal.objects.get(pk=second.pk).state == RollProposal.State.WITHDRAWN


def test_the_gms_actions_are_the_gms(client, table, player, other_player, outsider, brunella) -> None:
    made = propose(brunella, player)
    for user, status in ((player, 403), (other_player, 403), (outsider, 404)):
        client.force_login(user)
        assert client.post(call_url(made), one_click(made)).status_code == status
        assert client.get(call_url(made)).status_code == status
        assert client.post(decline_url(made)).status_code == status
    made.refresh_from_db()
    assert made.is_open
    assert not RollRequest.objects.exists()


def test_only_its_player_withdraws_it(client, table, gm, player, other_player, outsider, brunella) -> None:
    made = propose(brunella, player)
    for user, status in ((other_player, 404), (outsider, 404), (gm, 403)):
        client.force_login(user)
        assert client.post(withdraw_url(made)).status_code == status
    made.refresh_from_db()
    assert made.is_open


def test_a_proposal_of_another_campaign_is_not_found(client, table, gm, player, brunella) -> None:
    made = propose(brunella, player)
    other = Campaign.objects.create(name="Elsewhere", system="lucky13", players_call_rolls=False)
    other.memberships.create(user=gm, role="gm")
    client.force_login(gm)
    wrong = reverse("play:proposal-decline", args=[other.pk, made.pk])
    assert client.post(wrong).status_code == 404
    made.refresh_from_db()
    assert made.is_open


def test_a_get_is_not_a_decline(client, table, gm, player, brunella) -> None:
    made = propose(brunella, player)
    client.force_login(gm)
    assert client.get(decline_url(made)).status_code == 405
    assert client.get(withdraw_url(made)).status_code == 405


def test_the_lists_are_bounded(table, gm, player, brunella, django_assert_num_queries) -> None:
    bards = [make_character(table, player, name=f"Bard {i}") for i in range(proposals.SHOWN // proposals.MAX_OPEN + 1)]
    for bard in bards:
        for difficulty in ("easy", "moderate", "difficult", "challenging", "heroic"):
            propose(bard, player, {**SNEAK, "difficulty": difficulty})
    with django_assert_num_queries(1):  # the newest open proposals with their characters and players
        shown = list(proposals.open_proposals(table.pk))
    assert len(shown) == proposals.SHOWN
    assert shown[0].pk == RollProposal.objects.order_by("-pk").first().pk
    assert len(proposals.proposals_of(player, table.pk)) == proposals.SHOWN


def test_a_request_made_of_a_proposal_is_an_ordinary_one(table, gm, player, brunella) -> None:
    made = propose(brunella, player)
    request = proposals.call_proposal(campaign_id=table.pk, proposal_id=made.pk, by=gm)
    assert [a.character_id for a in requests.waiting_for(player, table.pk)] == [brunella.pk]
    assert request.by == gm


# --- A system without a page of its own ------------------------------------------------------------


@pytest.fixture
def flipper(coin_campaign, player) -> Character:
    coin_campaign.players_call_rolls = False
    coin_campaign.save(update_fields=["players_call_rolls"])
    sheet = coin.Sheet(nerve=3, step="").model_dump(mode="json")
    return Character.objects.create(campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet)


def test_the_generic_roll_page_proposes_too(client, gm, player, flipper) -> None:
    client.force_login(player)
    page = client.get(roll_url(flipper), {"need": "2"})
    assert "Propose this roll to the GM" in text(page)
    response = client.post(roll_url(flipper), {"need": "2", "propose": "1", "note": "Heads I win"})
    assert response.status_code == 302
    made = RollProposal.objects.get()
    assert (made.call, made.label, made.note) == ({"need": 2}, "A flip needing 2 heads", "Heads I win")
    bad = client.post(roll_url(flipper), {"need": "9", "propose": "1"}, **HX)
    assert bad.status_code == 400
    assert RollProposal.objects.count() == 1
    client.force_login(gm)
    assert "A flip needing 2 heads for Flip" in text(client.get(dashboard(flipper.campaign)))
    assert "(1/2)" in text(client.get(dashboard(flipper.campaign)))  # two heads of three coins
    assert client.post(call_url(made), {"need": "2", "characters": flipper.pk}).status_code == 302
    assert RollRequest.objects.get().call == {"need": 2}


# --- The migration ---------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_goes_back_and_forth(table, gm, player, brunella) -> None:
    from django.db import connection

    from tests.migrations import latest, migrate

    requests.call_for_roll(campaign_id=table.pk, by=gm, call=SNEAK_CALL, characters=[brunella.pk], secret=False)
    before = migrate([("play", "0005_roll_requests")])
    assert "play_rollproposal" not in connection.introspection.table_names()
    assert before.get_model("play", "RollRequest").objects.count() == 1  # the requests stay
    migrate(latest())
    assert propose(brunella, player).is_open


def test_the_dashboard_reads_the_proposals_in_one_query(client, table, gm, player, brunella,
                                                        django_assert_num_queries) -> None:  # fmt: skip
    for difficulty in ("easy", "moderate", "difficult"):
        propose(brunella, player, {**SNEAK, "difficulty": difficulty})
    client.force_login(gm)
    # The session with its user, the membership with its campaign and whether each of the GM's lists has
    # anything, the party, the feed, and the open proposals with their characters and players, one query
    # however many (their chances are worked out from the sheets read); no encounter, request or
    # character waiting, so none of those is read.
    with django_assert_num_queries(5):
        page = client.get(dashboard(table))
    assert text(page).count("player proposes") == 3
    client.force_login(player)
    # The session with its user, the player's membership with its campaign (no encounter runs: not read), the
    # party, the feed, what is asked of the player's characters, and their own proposals.
    with django_assert_num_queries(6):
        page = client.get(dashboard(table))
    assert text(page).count("For Brunella") == 3


# --- What the sheet adds travels with the proposal (issue 23) ----------------------------------------


def shown_chance(page: str, after: str) -> Fraction:
    """The first exact chance (``(p/q)``) a page shows after the words ``after``."""
    found = re.search(r"\((\d+)/(\d+)\)", page[page.index(after) :])
    assert found, page
    return Fraction(int(found[1]), int(found[2]))


def test_a_proposal_carries_what_the_sheet_adds_to_the_gm_at_the_same_chance(client, monkeypatch, table, gm, player,
                                                                             brunella, otto) -> None:  # fmt: skip
    """Fighting with the Longsword specialization, Uncle Otto, Otto's help and Pulse: the GM sees,
    calls and the player rolls that very roll, at the chance the roll page showed."""
    client.force_login(player)
    chosen = {"skill": FIGHTING, "specialization": LONGSWORD_SPEC, "asset": UNCLE_OTTO, "helper": otto.pk,
              "ability": "pulse", "difficulty": "challenging"}  # fmt: skip
    page = text(client.get(roll_url(brunella), chosen))
    on_the_page = Fraction(*map(int, re.search(r"Chance of success [\d.]+% exactly (\d+)/(\d+)", page).groups()))
    assert client.post(roll_url(brunella), {**chosen, "propose": "1"}).status_code == 302
    made = RollProposal.objects.get()
    assert made.call["ability"] == "pulse"
    assert made.added == {"specialization": LONGSWORD_SPEC, "asset": UNCLE_OTTO, "helper": otto.pk,
                          "help_with": "skill"}  # fmt: skip
    assert made.label == "Pulse + Fighting check, Challenging (d6)"

    client.force_login(gm)
    listed = text(client.get(dashboard(table)))
    assert "Pulse + Fighting (Longsword 1) vs Challenging, with Uncle Otto, Otto assisting" in listed
    assert "Longsword 1: Skill +1" in listed
    assert shown_chance(listed, "player proposes") == on_the_page
    assert shown_chance(text(client.get(call_url(made))), "proposes") == on_the_page
    assert client.post(call_url(made), one_click(made), **HX).status_code == 200
    asked = RollRequest.objects.get().asked.get()
    assert asked.situation["specialization"] == LONGSWORD_SPEC

    client.force_login(player)
    waiting = text(client.get(dashboard(table)))
    assert shown_chance(waiting, "calls for") == on_the_page
    answering = html(client.get(roll_url(brunella), {"asked": asked.pk}))
    assert '<option value="8" selected>Longsword (1)</option>' in answering  # where the answer starts
    monkeypatch.setattr("play.request_views.secrets.SystemRandom", lambda: random.Random(5))
    assert client.post(reverse("play:request-answer", args=[brunella.pk, asked.pk]), **HX).status_code == 200
    roll = Roll.objects.get()
    assert Fraction(roll.chance) == on_the_page
    sheet = roll.spec["sheet"]
    assert (sheet["ability"], sheet["specialization"]["id"], sheet["asset"]["id"], sheet["assist"]["character"]) == (
        "pulse", LONGSWORD_SPEC, UNCLE_OTTO, otto.pk)  # fmt: skip


def test_a_changed_call_keeps_what_the_sheet_adds_only_where_it_fits(table, gm, player, brunella) -> None:
    made = propose(brunella, player, {"skill": FIGHTING, "specialization": LONGSWORD_SPEC, "difficulty": "easy"})
    other = {**made.call, "skill": "Sneaking"}  # the GM calls another skill: Longsword is not Sneaking's
    request = proposals.call_proposal(campaign_id=table.pk, proposal_id=made.pk, by=gm, call=other)
    asked = request.asked.get()
    assert "specialization" not in asked.situation
    assert sheet_rolls.as_asked(brunella, asked).details["skill_name"] == "Sneaking"
    again = propose(brunella, player, {"skill": FIGHTING, "specialization": LONGSWORD_SPEC, "difficulty": "easy"})
    harder = {**again.call, "difficulty": "heroic"}
    kept = proposals.call_proposal(campaign_id=table.pk, proposal_id=again.pk, by=gm, call=harder).asked.get()
    assert kept.situation["specialization"] == LONGSWORD_SPEC


def test_a_skill_linked_to_no_ability_is_proposed_with_the_one_chosen(table, player) -> None:
    skills = [{"id": 5, "name": "Fighting", "ability": None, "die": "d10", "specializations": []}]
    loner = make_character(table, player, name="Loner", skills=skills, assets=[])
    with pytest.raises(proposals.Refused, match="no linked ability"):
        propose(loner, player, {"skill": 5})
    assert propose(loner, player, {"skill": 5, "ability": "will"}).call["ability"] == "will"


@pytest.mark.django_db(transaction=True)
def test_the_requests_by_id_migration_goes_back_and_forth(table, gm, player, brunella) -> None:
    from tests.migrations import latest, migrate

    requests.call_for_roll(campaign_id=table.pk, by=gm, call=SNEAK_CALL, characters=[brunella.pk], secret=False)
    propose(brunella, player, {**SNEAK, "specialization": None})
    before = migrate([("play", "0006_roll_proposals")])
    assert before.get_model("play", "RollAsked").objects.count() == 1
    assert before.get_model("play", "RollProposal").objects.count() == 1
    migrate(latest())
    asked = RollRequest.objects.get().asked.get()
    assert asked.situation is None  # made before: its call is read by name
    assert sheet_rolls.called(brunella, asked)["skill"] == SNEAKING


def test_a_d6_proposal_carries_the_rounds_uses_to_the_answer(client, d6_campaign, gm, player) -> None:
    """Every system alike: what a D6 player proposes beyond the call (the uses declared this round) is
    the GM's to see at its chance, and where the answer on the generic roll page starts."""
    from tests.systems.d6.helpers import made as made_d6

    client.force_login(player)
    talia = made_d6(client, d6_campaign, player)
    d6_campaign.players_call_rolls = False
    d6_campaign.save(update_fields=["players_call_rolls"])
    talia.refresh_from_db()
    firearms = next(s.id for s in talia.document.skills if s.name == "Firearms")
    situation = {"item": firearms, "difficulty": 15, "actions": 2}
    proposed = proposals.propose(character_id=talia.pk, by=player, situation=situation)
    assert proposed.added == {"actions": 2}
    expected = sheet_rolls.chance_of(talia, sheet_rolls.build(talia, [], situation, gm=False))
    assert sheet_rolls.as_proposed(proposed)[0] == expected
    asked = proposals.call_proposal(campaign_id=d6_campaign.pk, proposal_id=proposed.pk, by=gm).asked.get()
    assert sheet_rolls.chance_of(talia, sheet_rolls.as_asked(talia, asked)) == expected
    page = html(client.get(roll_url(talia), {"asked": asked.pk}))
    assert re.search(r'name="actions"[^>]*value="2"|value="2"[^>]*name="actions"', page), page
