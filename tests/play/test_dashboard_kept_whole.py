"""The GM's dashboard kept whole (``play.dashboard_views``): drawn once for what it shows, and shown again,
with a CSRF token of its own, while the digest PostgreSQL works out of the rows it is drawn from
(``shown_mark``) stays the same; drawn anew the moment any of them changes, by whatever path."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns import access
from campaigns.models import Campaign
from characters.models import Balance, Character
from play import dashboard_views, encounters, requests, rolls
from play.models import Roll
from tests.campaigns.helpers import make_character
from tests.csrf_tokens import tokens, unmasked, without_tokens
from web.kept import forget_all

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

SNEAK_HARD = {"kind": "check", "skill": "Sneaking", "difficulty": "difficult", "ability_roll": "background"}
#: The queries of a page shown again: the session with its user, and the membership with whether the page
#: drawn last is the page now.
SHOWN_AGAIN = 2


def url(campaign: Campaign) -> str:
    return reverse("play:dashboard", args=[campaign.pk])


def words(page: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", page).split())


def free_roll(campaign: Campaign, by: Any, *, secret: bool = False) -> Roll:
    return rolls.roll_free(
        campaign_id=campaign.pk, by=by, text="2d6", explode=False, secret=secret, rng=random.Random(7)
    )


def loaded(client: Any, campaign: Campaign) -> tuple[str, int]:
    """The page and the queries it took."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url(campaign))
    assert response.status_code == 200
    return response.content.decode(), len(queries)


def fresh(client: Any, campaign: Campaign) -> str:
    """The page as a process that kept nothing draws it."""
    forget_all()
    return loaded(client, campaign)[0]


@pytest.fixture(autouse=True)
def shown_as_kept(settings) -> None:
    """A page shown again as a server shows it, without the suite's check drawing it again (which reads what a
    drawing reads): the tests here compare it with a page drawn afresh themselves."""
    settings.KEPT_CHECKED = False


@pytest.fixture
def party(campaign, player, other_player) -> list[Character]:
    return [make_character(campaign, player, "Brunella", ap_balance=3), make_character(campaign, other_player, "Dirk")]


@pytest.fixture
def gm_client(client, gm, party):
    client.force_login(gm)
    forget_all()
    client.get(url(party[0].campaign))  # the CSRF cookie, set by the first page a browser loads
    return client


def test_the_page_is_shown_again_from_one_query_with_a_token_of_its_own(gm_client, campaign, gm) -> None:
    free_roll(campaign, gm)
    first, drawn = loaded(gm_client, campaign)
    again, shown = loaded(gm_client, campaign)
    assert shown < drawn
    assert shown == SHOWN_AGAIN
    assert without_tokens(again) == without_tokens(first)
    assert without_tokens(again) == without_tokens(fresh(gm_client, campaign))
    # Each response masks the browser's secret anew (BREACH), and each mask is a valid token of it.
    secret = gm_client.cookies["csrftoken"].value
    first_tokens, again_tokens = tokens(first), tokens(again)
    assert len(first_tokens) == len(again_tokens) == 1
    assert first_tokens != again_tokens
    assert {unmasked(token) for token in first_tokens | again_tokens} == {secret}


def test_a_page_shown_again_makes_no_model_instance(gm_client, campaign, monkeypatch) -> None:
    """Its key is read from the membership's row as the database sent it: the campaign is made only to draw."""
    made = []
    campaign_of_row = access.campaign_of_row
    monkeypatch.setattr(access, "campaign_of_row", lambda *args: made.append(args) or campaign_of_row(*args))
    loaded(gm_client, campaign)
    assert len(made) == 1  # drawn
    loaded(gm_client, campaign)
    assert len(made) == 1  # shown again


def test_a_kept_page_takes_a_post_with_its_token(gm, party, campaign) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(gm)
    forget_all()
    client.get(url(campaign))
    page, _ = loaded(client, campaign)  # kept: shown again
    (token,) = tokens(page)
    response = client.post(reverse("play:free-roll", args=[campaign.pk]), {"expression": "d6"}, HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 302  # to the campaign's dice box: the token was taken
    assert Roll.objects.filter(campaign=campaign).count() == 1


def rename_campaign(campaign: Campaign, party: list[Character], player: Any) -> str:
    Campaign.objects.filter(pk=campaign.pk).update(name="The Drowned Crown")
    return "The Drowned Crown"


def rename_character(campaign: Campaign, party: list[Character], player: Any) -> str:
    Character.objects.filter(pk=party[0].pk).update(name="Brunhilde")
    return "Brunhilde"


def rename_player(campaign: Campaign, party: list[Character], player: Any) -> str:
    get_user_model().objects.filter(pk=player.pk).update(username="renamed-player")
    return "renamed-player"


def wound(campaign: Campaign, party: list[Character], player: Any) -> str:
    character = Character.objects.get(pk=party[1].pk)
    character.sheet = {**character.sheet, "hit_points": 17}
    character.save(update_fields=["sheet"])
    return "17 of 30"


def award(campaign: Campaign, party: list[Character], player: Any) -> str:
    Balance.objects.filter(character=party[0], currency="ap").update(amount=41)
    return "Adventure Points 41"


def join(campaign: Campaign, party: list[Character], player: Any) -> str:
    make_character(campaign, player, "Aldo")
    return "Aldo"


def archive(campaign: Campaign, party: list[Character], player: Any) -> str:
    Character.objects.filter(pk=party[1].pk).update(status=Character.Status.ARCHIVED)
    return "!Dirk"


def roll(campaign: Campaign, party: list[Character], player: Any) -> str:
    seq = free_roll(campaign, player).seq
    return f'id="roll-{seq}"'


def reveal(campaign: Campaign, party: list[Character], player: Any) -> str:
    gm = get_user_model().objects.get(pk=campaign.memberships.get(role="gm").user_id)
    seq = Roll.objects.filter(campaign=campaign, secret=True).get().seq
    rolls.reveal_roll(campaign_id=campaign.pk, seq=seq, by=gm)
    return "revealed"


CHANGES: dict[str, Callable[[Campaign, list[Character], Any], str]] = {
    "campaign renamed": rename_campaign,
    "character renamed": rename_character,
    "player renamed": rename_player,
    "sheet changed": wound,
    "balance moved": award,
    "character joined": join,
    "character archived": archive,
    "roll made": roll,
    "secret roll revealed": reveal,
}


@pytest.mark.parametrize("change", CHANGES, ids=list(CHANGES))
def test_any_change_to_what_the_page_shows_draws_it_again(gm_client, campaign, party, gm, player, change) -> None:
    free_roll(campaign, gm, secret=True)
    before, _ = loaded(gm_client, campaign)
    kept, shown = loaded(gm_client, campaign)
    assert shown == SHOWN_AGAIN
    assert without_tokens(kept) == without_tokens(before)
    seen = CHANGES[change](campaign, party, player)
    after, drawn = loaded(gm_client, campaign)
    assert drawn > SHOWN_AGAIN
    assert after != before
    assert without_tokens(after) == without_tokens(fresh(gm_client, campaign))
    if seen.startswith("!"):
        assert seen[1:] not in words(after)
    elif seen != "revealed":
        assert seen in words(after) or seen in after


def test_a_message_waiting_is_shown_by_a_page_drawn_and_the_page_kept_after(gm_client, campaign, gm, party) -> None:
    """The GM closes a call for a roll without JavaScript: the dashboard they are sent back to says so, once."""
    asked = requests.call_for_roll(
        campaign_id=campaign.pk, by=gm, call=SNEAK_HARD, characters=[party[0].pk], secret=False
    )
    loaded(gm_client, campaign)  # a call open: drawn
    response = gm_client.post(reverse("play:request-cancel", args=[campaign.pk, asked.pk]))
    assert response.status_code == 302
    told, drawn = loaded(gm_client, campaign)
    assert "Closed:" in told
    assert drawn > SHOWN_AGAIN
    after, drawn_again = loaded(gm_client, campaign)
    assert "Closed:" not in after
    assert drawn_again > SHOWN_AGAIN  # the page with the message was not kept
    kept, shown = loaded(gm_client, campaign)
    assert shown == SHOWN_AGAIN
    assert without_tokens(kept) == without_tokens(after)


def test_a_running_encounter_is_drawn_every_time(gm_client, campaign, gm) -> None:
    encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush at the ford")
    _, drawn = loaded(gm_client, campaign)
    again, redrawn = loaded(gm_client, campaign)
    assert "Ambush at the ford" in again
    assert redrawn > SHOWN_AGAIN
    assert redrawn == drawn


def test_a_players_page_is_drawn_every_time(client, campaign, player, party) -> None:
    client.force_login(player)
    client.get(url(campaign))
    _, drawn = loaded(client, campaign)
    _, again = loaded(client, campaign)
    assert again == drawn > SHOWN_AGAIN


def test_without_a_csrf_cookie_the_page_is_drawn(client, campaign, gm, party) -> None:
    client.force_login(gm)
    forget_all()
    loaded(client, campaign)
    client.cookies.pop("csrftoken", None)
    _, drawn = loaded(client, campaign)
    assert drawn > SHOWN_AGAIN
    assert len(dashboard_views.pages) == 0
