"""The roll page a system gets without one of its own: a form made from its situation model, the
roll in words with its exact chance before the roll, and Roll, recorded in the log and shown as the
log shows it (the test-only Coin, which has no roll page of its own)."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from characters.models import Character
from play.models import Roll
from tests.systems.coin import system as coin

pytestmark = pytest.mark.django_db


@pytest.fixture
def flipper(coin_campaign, player) -> Character:
    sheet = coin.Sheet(nerve=3, step="").model_dump(mode="json")
    return Character.objects.create(campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet)


def url(character: Character) -> str:
    return reverse("play:sheet-roll", args=[character.pk])


def test_the_page_shows_the_roll_and_its_exact_chance_before_it(client, player, flipper) -> None:
    client.force_login(player)
    assert url(flipper) in client.get(reverse("characters:sheet", args=[flipper.pk])).text
    page = client.get(url(flipper))
    assert page.status_code == 200
    assert 'name="need"' in page.text
    assert "Nerve (3 coins) needing 1 head" in page.text
    assert "exactly 7/8" in page.text  # at least one head of three coins
    needing_three = client.get(url(flipper), {"need": "3"}).text
    assert "exactly 1/8" in needing_three
    assert not Roll.objects.exists()  # looking rolls nothing


def test_roll_records_the_roll_and_shows_it_as_the_log_does(client, player, flipper, monkeypatch) -> None:
    monkeypatch.setattr("play.sheet_roll_views.secrets.SystemRandom", lambda: random.Random(5))
    client.force_login(player)
    response = client.post(url(flipper), {"need": "2"})
    assert response.status_code == 302
    roll = Roll.objects.get()
    assert response["Location"] == f"{url(flipper)}?need=2&rolled={roll.seq}#roll-result"
    assert (roll.character_id, roll.chance, roll.label) == (flipper.pk, "1/2", "Nerve (3 coins) needing 2 heads")
    page = client.get(response["Location"]).text
    assert f'id="roll-{roll.seq}"' in page
    assert "Nerve (3 coins) needing 2 heads" in page
    assert f"Rolled {', '.join(roll.dice)}" in page
    log = client.get(reverse("play:rolls", args=[flipper.campaign_id])).text  # the log shows it as well
    assert f"Rolled {', '.join(roll.dice)}" in log


@pytest.mark.parametrize(("query", "message"), [({"need": "two"}, "Enter a whole number"),
                                                ({"need": "4"}, "heads")])  # fmt: skip
def test_a_bad_situation_says_why_and_rolls_nothing(client, player, flipper, query, message) -> None:
    client.force_login(player)
    assert client.get(url(flipper), query).status_code == 400
    response = client.post(url(flipper), query)
    assert response.status_code == 400
    assert message in response.text
    assert not Roll.objects.exists()


@pytest.mark.parametrize(
    ("who", "look", "roll"), [("gm", 200, 302), ("other_player", 200, 403), ("outsider", 404, 404)]
)
def test_members_look_and_only_the_owner_and_the_gm_roll(client, request, flipper, who, look, roll) -> None:
    client.force_login(request.getfixturevalue(who))
    assert client.get(url(flipper)).status_code == look
    assert client.post(url(flipper), {"need": "1"}).status_code == roll
    assert Roll.objects.count() == (1 if roll == 302 else 0)


def test_the_chart_counts_heads_with_the_systems_caption_and_its_average(client, player, flipper) -> None:
    """A chart of any outcome shape: here successes counted (heads), the winning bars as the system says, its
    caption and the expectation."""
    client.force_login(player)
    page = client.get(url(flipper), {"need": "2"}).text
    assert "Chance of each number of heads; the highlighted bars have the 2 needed." in page
    assert '<th scope="col">Heads</th>' in page
    assert page.count('class="bar hit"') == 2  # two heads and three heads win
    assert page.count('class="bar"') == 2
    assert 'On average: <strong title="exactly 3/2">1.50</strong>' in page
