"""A campaign's table (play.table) through the test-only Coin system's table (tests/systems/coin/table.py):
a pot everyone sees, a bag whose order nobody may read, hands seen by their players and the GM only, and a
flip that leaves its flipper a decision with the exact chance each choice leaves. Every move through the
pages and the API, for every role; and a walk of every page, partial, API answer and socket message of
every member that finds nothing hidden anywhere."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from django.test import Client
from django.urls import reverse

from play import table
from play.models import Table, TableChange
from tests.systems.coin.table import TOKENS

pytestmark = pytest.mark.django_db


class Seeded(random.Random):
    """The server's dice, seeded: ``secrets.SystemRandom`` ignores a seed, so the tests put this one in its
    place to know the bag's order and the flips."""

    def __init__(self, *args: object) -> None:
        super().__init__(7)


@pytest.fixture
def seeded(monkeypatch) -> None:
    monkeypatch.setattr(table.secrets, "SystemRandom", Seeded)


def version(campaign) -> int:
    """The table's version now (0 before its first move: it is made when first needed)."""
    return Table.objects.filter(campaign=campaign).values_list("version", flat=True).first() or 0


def post_move(api_client, campaign, key: str, body: dict | None = None, *, at: int | None = None):
    at = version(campaign) if at is None else at
    return api_client.post(f"/campaigns/{campaign.pk}/moves/{key}", {"version": at, "input": body or {}})


def test_the_pot_the_bag_and_the_hands_through_the_api(api, coin_campaign, gm, player, other_player, seeded) -> None:
    first = api(player).get(f"/campaigns/{coin_campaign.pk}/table")
    assert first.status_code == 200
    assert first.json() == {"version": 0, "view": {"pot": 0, "bag": 0, "hands": [], "flip": None}, "prompt": None}
    assert post_move(api(player), coin_campaign, "ante", {"coins": 3}).json()["table"]["view"]["pot"] == 3
    refused = post_move(api(player), coin_campaign, "fill")
    assert refused.status_code == 403
    assert refused.json()["message"] == "Only the GM fills the bag."
    empty = post_move(api(player), coin_campaign, "draw")
    assert empty.status_code == 400
    assert empty.json()["message"] == "The bag is empty: the GM fills it."
    filled = post_move(api(gm), coin_campaign, "fill")
    assert filled.status_code == 200, filled.text
    assert filled.json()["table"]["view"]["bag"] == len(TOKENS)
    bag = Table.objects.get(campaign=coin_campaign).document["bag"]
    drawn = post_move(api(player), coin_campaign, "draw")
    assert drawn.json()["notice"] == f"You drew {bag[0]}."
    mine = drawn.json()["table"]["view"]["hands"]
    assert mine == [{"user": player.pk, "count": 1, "tokens": [bag[0]]}]
    theirs = api(other_player).get(f"/campaigns/{coin_campaign.pk}/table").json()["view"]["hands"]
    assert theirs == [{"user": player.pk, "count": 1}]  # another player's hand: how many, never which
    everything = api(gm).get(f"/campaigns/{coin_campaign.pk}/table").json()["view"]
    assert everything["hands"] == mine  # the GM sees every hand
    assert everything["bag"] == len(TOKENS) - 1  # and not the bag's order: nobody does
    changes = TableChange.objects.filter(campaign=coin_campaign).order_by("version")
    assert list(changes.values_list("move", flat=True)) == ["ante", "fill", "draw"]


def test_a_move_made_from_an_older_table_is_a_409_with_the_table_now(api, coin_campaign, player, other_player) -> None:
    assert post_move(api(player), coin_campaign, "ante", {"coins": 2}, at=0).status_code == 200
    stale = post_move(api(other_player), coin_campaign, "ante", {"coins": 5}, at=0)
    assert stale.status_code == 409
    body = stale.json()
    assert body["code"] == "stale_version"
    assert body["now"]["view"]["pot"] == 2
    assert body["now"]["version"] == 1
    assert version(coin_campaign) == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [({"coins": 0}, "coins"), ({"coins": "three"}, "coins"), ({}, "coins"), ({"coins": 2, "extra": 1}, "extra")],
)
def test_bad_input_is_a_400_by_its_field_and_changes_nothing(api, coin_campaign, player, body, field) -> None:
    response = post_move(api(player), coin_campaign, "ante", body, at=0)
    assert response.status_code == 400, response.text
    assert field in response.json()["errors"]
    assert not TableChange.objects.exists()


def test_an_outsider_sees_no_table_and_makes_no_move(api, coin_campaign, outsider, campaign, player) -> None:
    assert api(outsider).get(f"/campaigns/{coin_campaign.pk}/table").status_code == 404
    assert api(outsider).get(f"/campaigns/{coin_campaign.pk}/moves").status_code == 404
    assert post_move(api(outsider), coin_campaign, "ante", {"coins": 1}, at=0).status_code == 404
    assert api(player).get(f"/campaigns/{campaign.pk}/table").status_code == 404  # Lucky 13 keeps no table
    assert not TableChange.objects.exists()


def test_the_flip_leaves_its_flipper_a_decision_with_each_choices_exact_chance(
    api, coin_campaign, player, other_player, seeded
) -> None:
    flipped = post_move(api(player), coin_campaign, "flip")
    assert flipped.status_code == 200, flipped.text
    first, second = flipped.json()["result"]["faces"]
    prompt = flipped.json()["table"]["prompt"]
    wins = Fraction(int(first == second == "heads"))
    half_if = {"heads": "1/2", "tails": "0/1"}
    assert [(c["label"], c["chance"], c["input"]) for c in prompt["choices"]] == [
        ("Keep them", f"{wins.numerator}/{wins.denominator}", {}),
        ("Flip the first again", half_if[second], {"coin": 1}),
        ("Flip the second again", half_if[first], {"coin": 2}),
    ]
    assert api(other_player).get(f"/campaigns/{coin_campaign.pk}/table").json()["prompt"] is None
    not_theirs = post_move(api(other_player), coin_campaign, "keep")
    assert not_theirs.status_code == 400
    assert not_theirs.json()["message"] == "Only the one who flipped decides."
    busy = post_move(api(other_player), coin_campaign, "flip")
    assert busy.json()["message"] == "The last flip waits for its flipper's decision."
    again = post_move(api(player), coin_campaign, "reroll", {"coin": 1})
    assert again.status_code == 200, again.text
    faces = again.json()["result"]["faces"]
    assert faces[1] == second  # the other coin stays as it fell
    assert again.json()["table"]["prompt"] is None
    assert again.json()["table"]["view"]["flip"]["settled"] is True
    listed = {m["key"]: m["why_not"] for m in api(player).get(f"/campaigns/{coin_campaign.pk}/moves").json()["moves"]}
    assert listed["keep"] == "No flip waits for a decision."
    assert listed["flip"] is None


def test_the_page_and_the_api_make_the_same_moves(client, api, coin_campaign, campaign, gm, player) -> None:
    client.force_login(player)
    page = reverse("play:table", args=[coin_campaign.pk])
    assert f'href="{page}"' in client.get(reverse("campaigns:detail", args=[coin_campaign.pk])).text
    assert "The table</a>" not in client.get(reverse("campaigns:detail", args=[campaign.pk])).text  # no table
    assert client.get(page).status_code == 200
    made = client.post(reverse("play:table-move", args=[coin_campaign.pk, "ante"]), {"version": "0", "coins": "4"})
    assert made.status_code == 302
    assert "You put 4 in the pot." in client.get(page).text
    by_api = post_move(api(player), coin_campaign, "ante", {"coins": 4})
    assert by_api.json()["notice"] == "You put 4 in the pot."
    words = list(TableChange.objects.filter(campaign=coin_campaign).order_by("version").values_list("what", flat=True))
    assert words == ["Put 4 in the pot: 4", "Put 4 in the pot: 8"]


def test_the_page_refuses_plainly_and_keeps_what_was_typed(client, coin_campaign, gm, player, outsider) -> None:
    client.force_login(player)
    move = reverse("play:table-move", args=[coin_campaign.pk, "ante"])
    bad = client.post(move, {"version": "0", "coins": "eleven"})
    assert bad.status_code == 400
    assert 'value="eleven"' in bad.text
    assert client.post(move, {"coins": "2"}).status_code == 400  # no version
    fill = client.post(reverse("play:table-move", args=[coin_campaign.pk, "fill"]), {"version": "0"})
    assert fill.status_code == 403
    assert client.post(move, {"version": "0", "coins": "2"}).status_code == 302
    stale = client.post(move, {"version": "0", "coins": "3"})
    assert stale.status_code == 409
    assert "The table changed since" in stale.text
    client.force_login(outsider)
    assert client.get(reverse("play:table", args=[coin_campaign.pk])).status_code == 404
    assert TableChange.objects.count() == 1


def test_only_the_gm_reads_the_tables_history(client, coin_campaign, gm, player) -> None:
    client.force_login(player)
    client.post(reverse("play:table-move", args=[coin_campaign.pk, "ante"]), {"version": "0", "coins": "1"})
    history = reverse("play:table-history", args=[coin_campaign.pk])
    assert client.get(history).status_code == 403
    assert "The table’s history" not in client.get(reverse("play:table", args=[coin_campaign.pk])).text
    client.force_login(gm)
    page = client.get(history)
    assert page.status_code == 200
    assert "Put 1 in the pot: 1" in page.text
    assert client.get(history, {"before": "x"}).status_code == 400


# --- Nothing hidden leaves the engine ------------------------------------------------------------


def _everything_seen(client: Client, api_client, campaign, character_ids: list[int]) -> str:
    """Every page, partial and API answer a member can ask for about the campaign, run together."""
    pages = [
        reverse("play:table", args=[campaign.pk]),
        reverse("campaigns:detail", args=[campaign.pk]),
        reverse("play:dashboard", args=[campaign.pk]),
        reverse("play:rolls", args=[campaign.pk]),
        reverse("play:table-history", args=[campaign.pk]),
    ] + [reverse("characters:sheet", args=[pk]) for pk in character_ids]
    seen = [client.get(url).content.decode() for url in pages]
    seen.append(client.get(pages[0], HTTP_HX_REQUEST="true").content.decode())
    for path in (f"/campaigns/{campaign.pk}/table", f"/campaigns/{campaign.pk}/moves", f"/campaigns/{campaign.pk}"):
        seen.append(api_client.get(path).content.decode())
    return "\n".join(seen)


def test_no_page_partial_or_answer_shows_what_the_table_hides(
    client, api, coin_campaign, gm, player, other_player, seeded
) -> None:
    post_move(api(gm), coin_campaign, "fill")
    drawn = post_move(api(player), coin_campaign, "draw").json()["table"]["view"]["hands"][0]["tokens"]
    bag = Table.objects.get(campaign=coin_campaign).document["bag"]
    assert bag
    assert drawn
    for user, may_see in ((gm, set(drawn)), (player, set(drawn)), (other_player, set())):
        client.force_login(user)
        seen = _everything_seen(client, api(user), coin_campaign, [])
        for token in TOKENS:
            if token in may_see:
                assert token in seen, (user, token)
            else:
                assert token not in seen, (user, token)  # the bag's tokens, and another player's hand


@pytest.mark.django_db(transaction=True)
def test_the_sockets_say_only_that_the_table_changed(coin_campaign, gm, player, other_player, seeded) -> None:
    from channels.db import database_sync_to_async

    from tests.play.test_live import joined, run

    def moves() -> None:
        table.make(campaign_id=coin_campaign.pk, key="fill", version=0, given={}, by=gm)
        table.make(campaign_id=coin_campaign.pk, key="draw", version=1, given={}, by=player)

    async def scenario() -> None:
        sockets = [await joined(coin_campaign, user) for user in (gm, player, other_player)]
        await database_sync_to_async(moves)()
        for socket in sockets:
            heard = [await socket.receive_json_from(timeout=5) for _ in range(2)]
            assert heard == [{"type": "table", "version": 1}, {"type": "table", "version": 2}]
            assert await socket.receive_nothing(timeout=0.1)
            await socket.disconnect()

    run(scenario)


# --- Dice a move rolls, in the campaign's log ------------------------------------------------------


def test_a_flip_and_its_reroll_are_two_rolls_of_the_log_the_second_following_the_first(
    client, api, coin_campaign, campaign, player, seeded
) -> None:
    from play.models import Roll
    from play.rolls import verify_chain

    flipped = post_move(api(player), coin_campaign, "flip").json()
    first_faces = flipped["result"]["faces"]
    post_move(api(player), coin_campaign, "reroll", {"coin": 2})
    first, second = Roll.objects.filter(campaign=coin_campaign).order_by("seq")
    assert (first.kind, first.dice, first.chance, first.chance_of) == ("flip", first_faces, "1/4", "double heads")
    assert (second.kind, second.follows, second.spec["coin"]) == ("flip", first.seq, 2)
    assert second.chance == ("1/2" if first_faces[0] == "heads" else "0/1")
    assert verify_chain(coin_campaign) is None
    client.force_login(player)
    log = client.get(reverse("play:rolls", args=[coin_campaign.pk]), {"kind": "flip"})
    assert log.status_code == 200
    assert "Flip at the table" in log.text  # the system's words for its own kind
    assert f'replaces <a href="#roll-{first.seq}">#{first.seq}</a>' in log.text
    said = {True: "Double heads", False: "No double heads"}  # the outcome in the system's words
    assert said[first.outcome["success"]] in log.text
    assert said[second.outcome["success"]] in log.text
    assert ">Success<" not in log.text
    assert ">Failure<" not in log.text
    rows = api(player).get(f"/campaigns/{coin_campaign.pk}/rolls").json()["rolls"]
    assert [r["follows"] for r in rows if r["seq"] == second.seq] == [first.seq]
    elsewhere = client.get(reverse("play:rolls", args=[campaign.pk]), {"kind": "flip"})
    assert elsewhere.status_code == 400  # Lucky 13 logs no flips


def test_the_log_takes_any_kind_a_system_names_and_refuses_others(coin_campaign, campaign, player) -> None:
    from play import rolls

    made = rolls.record_roll(campaign_id=coin_campaign.pk, by=player, kind="flip", spec={}, dice=[], total=None,
                             outcome={}, chance=None, label="a flip")  # fmt: skip
    assert made.kind == "flip"
    with pytest.raises(ValueError, match="unknown kind of roll"):
        rolls.record_roll(campaign_id=campaign.pk, by=player, kind="flip", spec={}, dice=[], total=None, outcome={},
                          chance=None)  # fmt: skip
