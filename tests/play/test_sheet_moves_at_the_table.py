"""Sheet moves at the campaign's table (play.moves), through the test-only Coin system
(tests/systems/coin/pocket.py, dare.py, table.py): a move that changes the sheet and the table in one
transaction (``Move.table_parts``), a roll kept secret in the log and the GM's move that reveals it, a sheet
roll made by a move wherever it is asked for (the roll page, the API, the GM's call answered from the
dashboard), what the table holds for a sheet's rolls (``TableRules.for_sheet``), the sheet page and its
socket following the table, and the move pages reading the table (their checks, what they show, and a form
started from the query)."""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, ClassVar

import pytest
from django.urls import reverse

from campaigns.errors import NotAllowed, Refused
from characters.models import Character, SheetChange
from play import moves, requests, sheet_rolls, table, table_rows
from play.models import Roll, RollAsked, RollRequest, SheetPrompt, Table, TableChange
from play.table_rows import table_changed
from rules.systems.moves import Made, Move, NoInput, Scope
from tests.api.conftest import ApiClient
from tests.systems.coin import system as coin

pytestmark = pytest.mark.django_db

QUESTION = "Heads and tails: keep them, or flip one again?"


class Dice(random.Random):
    """The server's dice: the bag shuffled by a seed, and each coin as the test says (``faces``), for
    ``secrets.SystemRandom`` ignores a seed."""

    faces: ClassVar[list[str]] = []

    def __init__(self, *args: object) -> None:
        super().__init__(7)

    def choice(self, seq: Any) -> Any:
        return Dice.faces.pop(0) if Dice.faces else super().choice(seq)


@pytest.fixture
def dice(monkeypatch) -> Iterator[type[Dice]]:
    monkeypatch.setattr(secrets, "SystemRandom", Dice)
    yield Dice
    Dice.faces = []


@pytest.fixture
def bag(coin_campaign, gm, dice) -> tuple[str, ...]:
    """The bag the GM filled (the table's first change), in its order, which nobody sees."""
    table.make(campaign_id=coin_campaign.pk, key="fill", version=0, given={}, by=gm)
    return tuple(Table.objects.get(campaign=coin_campaign).document["bag"])


def now(character: Character) -> Character:
    return Character.objects.get(pk=character.pk)


def table_row(character: Character) -> Table:
    return Table.objects.get(campaign_id=character.campaign_id)


def post(api_client: ApiClient, character: Character, key: str, body: dict | None = None, *, at: int | None = None):
    version = now(character).version if at is None else at
    return api_client.post(f"/characters/{character.pk}/moves/{key}", {"version": version, "input": body or {}})


def why_not(api_client: ApiClient, character: Character) -> dict[str, str | None]:
    listed = api_client.get(f"/characters/{character.pk}/moves")
    assert listed.status_code == 200, listed.text
    return {m["key"]: m["why_not"] for m in listed.json()["moves"]}


def make(character: Character, key: str, by: Any, given: dict | None = None, **kwargs: Any) -> moves.Done:
    return moves.make(character_id=character.pk, key=key, version=now(character).version, given=given or {}, by=by,
                      **kwargs)  # fmt: skip


# --- 1. A sheet move that changes the table -----------------------------------------------------------


def test_pocketing_pays_on_the_sheet_and_draws_into_the_hand_in_one_move(api, flip, player, other_player, bag) -> None:
    before, sheet_version = table_row(flip), now(flip).version
    assert why_not(api(player), flip)["pocket"] is None
    made = post(api(player), flip, "pocket")
    assert made.status_code == 200, made.text
    assert made.json()["notice"] == f"Flip pocketed {bag[0]}."
    assert made.json()["result"] == {"luck": 4}
    assert (now(flip).document.luck, now(flip).version) == (4, sheet_version + 1)
    change = SheetChange.objects.filter(character=flip).first()
    assert change is not None
    assert (change.what, change.sections) == ("Paid a Luck point for a token from the bag", ["luck"])
    after = table_row(flip)
    assert after.version == before.version + 1
    assert after.document["bag"] == list(bag[1:])
    assert after.document["hands"] == [{"user": player.pk, "tokens": [bag[0]]}]
    # The parts the move names changed at the new version; the others stand where they were.
    assert after.part_versions == {"bag": after.version, "hands": after.version}
    logged = TableChange.objects.get(campaign=flip.campaign, version=after.version)
    assert (logged.move, logged.by, logged.what) == ("pocket", player, "Paid a Luck point for a token from the bag")
    assert (logged.before, logged.after) == (before.document, after.document)
    # Each member sees the hand as the table shows it to them.
    hands = api(other_player).get(f"/campaigns/{flip.campaign_id}/table").json()["view"]["hands"]
    assert hands == [{"user": player.pk, "count": 1}]


def test_the_gm_pockets_into_the_hand_of_the_characters_player(api, flip, gm, player, bag) -> None:
    assert post(api(gm), flip, "pocket").status_code == 200
    assert table_row(flip).document["hands"] == [{"user": player.pk, "tokens": [bag[0]]}]
    assert TableChange.objects.get(move="pocket").by == gm


def test_the_table_is_announced_after_the_commit_only(flip, player, bag, django_capture_on_commit_callbacks) -> None:
    heard: list[tuple[int, int]] = []

    def listen(sender: Any, campaign_id: int, version: int, **kwargs: Any) -> None:
        heard.append((campaign_id, version))

    table_changed.connect(listen)
    try:
        with django_capture_on_commit_callbacks() as callbacks:
            make(flip, "pocket", player)
        assert heard == []  # nothing yet: the move could still be rolled back
        for callback in callbacks:
            callback()
    finally:
        table_changed.disconnect(listen)
    assert heard == [(flip.campaign_id, 2)]


def _unchanged(flip: Character, sheet: tuple[int, int], table_version: int, changes: int) -> None:
    assert (now(flip).version, now(flip).document.luck) == sheet
    assert table_rows.version_of(flip.campaign_id) == table_version
    assert (TableChange.objects.count(), SheetChange.objects.filter(character=flip).count()) == (changes, 0)


def test_a_refused_move_changes_neither_the_sheet_nor_the_table(api, flip, player, other_player, gm) -> None:
    sheet = (now(flip).version, 5)
    empty = post(api(player), flip, "pocket")
    assert empty.status_code == 400
    assert empty.json()["message"] == "The bag is empty: the GM fills it."
    assert why_not(api(player), flip)["pocket"] == "The bag is empty: the GM fills it."
    _unchanged(flip, sheet, 0, 0)
    table.make(campaign_id=flip.campaign_id, key="fill", version=0, given={}, by=gm)
    assert post(api(other_player), flip, "pocket").status_code == 403  # not their sheet
    assert post(api(player), flip, "pocket", at=sheet[0] + 1).status_code == 409
    _unchanged(flip, sheet, 1, 1)
    Character.objects.filter(pk=flip.pk).update(sheet={**flip.sheet, "luck": 0})
    broke = post(api(player), flip, "pocket")
    assert broke.status_code == 400
    assert broke.json()["message"] == "Out of Luck: a token costs a Luck point."
    _unchanged(flip, (sheet[0], 0), 1, 1)


def test_a_table_its_model_refuses_undoes_the_sheet_written_before_it(api, flip, player, bag) -> None:
    """The sheet is saved first and the table after it, in the one transaction: a table that cannot be left so
    (a 101st hand, where the table holds 100) leaves the sheet as it was too."""
    row = table_row(flip)
    row.document = {**row.document, "hands": [{"user": 10_000 + n, "tokens": []} for n in range(100)]}
    row.save()
    sheet, document = now(flip).version, row.document
    refused = post(api(player), flip, "pocket")
    assert refused.status_code == 400
    assert refused.json()["message"].startswith("The table cannot be left like this: ")
    assert (now(flip).version, now(flip).document.luck) == (sheet, 5)
    assert not SheetChange.objects.filter(character=flip).exists()
    assert (table_row(flip).version, table_row(flip).document) == (1, document)
    assert TableChange.objects.count() == 1  # the fill


def test_a_move_that_changes_a_table_it_does_not_name_is_an_error(flip, player, bag, monkeypatch) -> None:
    def sneak(situation: Any, given: Any) -> Made:
        return Made(situation.state, words="Took the pot", notice="took the pot", table=coin.coin_table.Table(pot=999))

    sneaky = Move("sneak", "Take the pot", Scope.SHEET, NoInput, ("luck",), sneak)
    monkeypatch.setattr(coin.Coin, "moves", (*coin.SYSTEM.moves, sneaky))
    with pytest.raises(ValueError, match="table_parts"):
        make(flip, "sneak", player)
    assert table_row(flip).document["pot"] == 0


def test_putting_back_checks_the_hand_on_the_table(api, flip, player, bag) -> None:
    assert why_not(api(player), flip)["put-back"] == "No token in hand to put back."
    post(api(player), flip, "pocket")
    version = table_row(flip).version
    refused = post(api(player), flip, "put-back", {"token": bag[1]})
    assert refused.status_code == 400
    assert refused.json()["errors"] == {"token": f"{bag[1].capitalize()} is not in the hand."}
    assert table_row(flip).version == version
    made = post(api(player), flip, "put-back", {"token": bag[0]})
    assert made.status_code == 200, made.text
    assert table_row(flip).document["bag"] == list(bag)  # on top again
    assert table_row(flip).document["hands"] == [{"user": player.pk, "tokens": []}]
    assert now(flip).document.luck == 5


# --- 2. A roll kept secret, and the GM's move that reveals it -----------------------------------------


def test_a_secret_toss_is_the_gms_to_see_until_the_gm_shows_it(client, api, flip, gm, player, dice) -> None:
    dice.faces = ["tails"]
    tossed = post(api(player), flip, "toss")
    assert tossed.status_code == 200, tossed.text
    roll = Roll.objects.get(campaign=flip.campaign)
    assert (roll.secret, roll.dice, roll.by, roll.revealed_at) == (True, ["tails"], player, None)
    assert now(flip).document.tossed == roll.seq
    body = tossed.json()
    # The one who tossed it sees no more than any player: the roll's number, nothing of how it fell.
    assert [(r["seq"], r["hidden"], r["dice"], r["label"]) for r in body["rolls"]] == [(roll.seq, True, None, None)]
    assert (body["notice"], body["result"]) == ("Flip tossed a coin: the GM sees how it fell.", {})
    assert "tails" not in tossed.text
    for user, hidden in ((player, True), (gm, False)):
        logged = api(user).get(f"/campaigns/{flip.campaign_id}/rolls").json()["rolls"]
        assert [(r["hidden"], r["dice"]) for r in logged] == [(hidden, None if hidden else ["tails"])]
    client.force_login(player)
    log = client.get(reverse("play:rolls", args=[flip.campaign_id])).text
    assert f'id="roll-{roll.seq}"' in log
    assert "A coin tossed in secret" not in log
    listed = why_not(api(player), flip)
    assert (listed["toss"], listed["show"]) == ("The coin tossed in secret waits for the GM to show it.",
                                                "Only the GM shows a coin tossed in secret.")  # fmt: skip
    assert post(api(player), flip, "show").status_code == 403
    assert Roll.objects.get(pk=roll.pk).revealed_at is None
    shown = post(api(gm), flip, "show")
    assert shown.status_code == 200, shown.text
    assert shown.json()["notice"] == f"Flip showed the coin tossed in secret (roll #{roll.seq})."
    assert Roll.objects.get(pk=roll.pk).revealed_at is not None
    assert now(flip).document.tossed is None
    logged = api(player).get(f"/campaigns/{flip.campaign_id}/rolls").json()["rolls"]
    assert [(r["hidden"], r["dice"], r["label"]) for r in logged] == [(False, ["tails"], "A coin tossed in secret")]
    assert why_not(api(gm), flip)["show"] == "No coin tossed in secret waits to be shown."


def test_a_players_move_cannot_reveal_a_secret_roll(api, flip, player, dice, monkeypatch) -> None:
    """Revealing is the GM's: a move a player may make that says it reveals (an engine's mistake) is refused
    whole, the sheet and the log as they were."""

    def peek(situation: Any, given: Any) -> Made:
        return Made(situation.state.model_copy(update={"tossed": None}), words="Peeked", notice="peeked",
                    reveals=(situation.state.tossed,))  # fmt: skip

    peeking = Move("peek", "Peek at the coin", Scope.SHEET, NoInput, ("toss",), peek)
    monkeypatch.setattr(coin.Coin, "moves", (*coin.SYSTEM.moves, peeking))
    dice.faces = ["heads"]
    post(api(player), flip, "toss")
    version, roll = now(flip).version, Roll.objects.get()
    refused = post(api(player), flip, "peek")
    assert refused.status_code == 403
    assert refused.json()["message"] == "Only the GM can reveal a secret roll."
    assert (now(flip).version, now(flip).document.tossed) == (version, roll.seq)
    assert Roll.objects.get(pk=roll.pk).revealed_at is None


def test_a_roll_a_move_makes_is_secret_only_as_the_engine_says(flip, gm, player, dice) -> None:
    """A roll a move makes is secret when the engine's move says so (the toss, which a player may make); its
    decision waits on the sheet in everyone's sight, so neither a player nor the GM rolls it in secret, and the
    GM does not call it in secret; nothing is written."""
    dare = sheet_rolls.build(flip, [], {"dare": True}, gm=False)
    version = now(flip).version
    with pytest.raises(Refused, match="cannot be called in secret"):
        sheet_rolls.roll(flip, dare, by=player, rng=Dice(), secret=True)
    with pytest.raises(NotAllowed, match="Only the GM can roll in secret"):
        make(flip, "dare", player, call={"self": True}, secret=True)
    with pytest.raises(Refused, match="cannot be called in secret"):
        sheet_rolls.roll(flip, dare, by=gm, rng=Dice(), secret=True)
    with pytest.raises(Refused, match="cannot be called in secret") as refused:
        requests.call_for_roll(campaign_id=flip.campaign_id, by=gm, call={"need": 2, "dare": True},
                               characters=[flip.pk], secret=True)  # fmt: skip
    assert "secret" in refused.value.errors
    assert (now(flip).version, Roll.objects.count(), SheetPrompt.objects.count()) == (version, 0, 0)
    assert not RollAsked.objects.exists()


# --- 3. A sheet roll made by a move, wherever it is asked for -----------------------------------------


def test_the_roll_page_makes_the_dare_by_its_move(client, flip, player, dice) -> None:
    url = reverse("play:sheet-roll", args=[flip.pk])
    client.force_login(player)
    page = client.get(url, {"dare": "on"})
    assert "A dare: two coins on Luck, double heads wins" in page.text
    assert "exactly 1/4" in page.text
    dice.faces = ["heads", "tails"]
    rolled = client.post(url, {"dare": "on"})
    assert rolled.status_code == 302
    roll = Roll.objects.get()
    assert f"rolled={roll.seq}" in rolled["Location"]
    assert (roll.kind, roll.dice, roll.chance) == ("dare", ["heads", "tails"], "1/4")
    assert roll.spec["call"] == {"self": True}
    decision = SheetPrompt.objects.open().get(character=flip)
    assert (decision.to, decision.question, decision.follows) == (player, QUESTION, roll.seq)
    assert now(flip).document.dare == coin.coin_dare.Dare(faces=("heads", "tails"))
    sheet = client.get(reverse("characters:sheet", args=[flip.pk])).text
    assert "Your decision" in sheet
    again = client.post(url, {"dare": "on"})  # the decision waits first, as for the move itself
    assert again.status_code == 400
    assert "Waiting for your decision first." in again.text
    assert Roll.objects.count() == 1


def test_the_api_makes_the_dare_by_its_move(api, flip, player, dice) -> None:
    dice.faces = ["tails", "tails"]
    response = api(player).post(f"/characters/{flip.pk}/rolls", {"dare": True})
    assert response.status_code == 201, response.text
    body = response.json()
    assert (body["kind"], body["dice"], body["chance"], body["spec"]["call"]) == (
        "dare", ["tails", "tails"], "1/4", {"self": True}
    )  # fmt: skip
    assert SheetPrompt.objects.open().get(character=flip).follows == body["seq"]
    listed = api(player).get(f"/characters/{flip.pk}/moves").json()
    assert listed["prompt"]["question"] == "Tails and tails: keep them, or flip one again?"


def test_the_gms_call_answered_from_the_dashboard_makes_the_dare_by_its_move(client, flip, gm, player, dice) -> None:
    call = requests.call_for_roll(campaign_id=flip.campaign_id, by=gm, call={"need": 2, "dare": True},
                                  characters=[flip.pk], secret=False)  # fmt: skip
    assert call.label == "A dare: two coins on Luck"
    asked = RollAsked.objects.get(request=call)
    assert asked.situation == {"need": 2, "dare": True}
    client.force_login(player)
    dice.faces = ["heads", "tails"]
    answered = client.post(reverse("play:request-answer", args=[flip.pk, asked.pk]))
    assert answered.status_code == 302
    roll = Roll.objects.get()
    assert (roll.kind, roll.secret) == ("dare", False)
    assert roll.spec["call"] == {"request": call.pk, "by": "gm", "words": "A dare: two coins on Luck"}
    assert RollAsked.objects.get(pk=asked.pk).roll == roll
    assert not RollRequest.objects.open().exists()  # its only answer closed it
    decision = SheetPrompt.objects.open().get(character=flip)
    assert (decision.to, decision.question) == (player, QUESTION)
    page = client.get(answered["Location"]).text
    assert f"Flip rolled A dare: two coins on Luck, double heads wins (#{roll.seq})." in page


def test_the_move_is_told_whether_the_gm_called_its_roll(client, flip, gm, player, dice, monkeypatch) -> None:
    called: list[bool] = []
    dare = next(m for m in coin.SYSTEM.moves if m.key == "dare")

    def spy(situation: Any, given: Any) -> Made:
        called.append(situation.called)
        return dare.apply(situation, given)

    monkeypatch.setattr(coin.Coin, "moves", tuple(replace(m, apply=spy) if m is dare else m for m in coin.SYSTEM.moves))
    client.force_login(player)
    client.post(reverse("play:sheet-roll", args=[flip.pk]), {"dare": "on"})  # the player's own roll
    make(flip, "dare-keep", player)
    request = requests.call_for_roll(campaign_id=flip.campaign_id, by=gm, call={"need": 2, "dare": True},
                                     characters=[flip.pk], secret=False)  # fmt: skip
    asked = RollAsked.objects.get(request=request)
    client.post(reverse("play:request-answer", args=[flip.pk, asked.pk]))
    make(flip, "dare-keep", player)
    client.force_login(gm)
    client.post(reverse("play:sheet-roll", args=[flip.pk]), {"dare": "on"})  # the GM's own roll
    assert called == [False, True, True]


# --- 4. What the table holds for a sheet's rolls ------------------------------------------------------


def test_a_flip_made_while_coins_lie_in_the_pot_is_made_for_the_pot(client, api, flip, player) -> None:
    label = "Nerve (3 coins) needing 1 heads"
    assert sheet_rolls.build(flip, [], {"need": 1}, gm=False).label == label
    table.make(campaign_id=flip.campaign_id, key="ante", version=0, given={"coins": 5}, by=player)
    built = sheet_rolls.build(flip, [], {"need": 1}, gm=False)
    assert (built.label, dict(built.details)) == (f"{label}, for a pot of 5", {"pot": 5})
    client.force_login(player)
    assert f"{label}, for a pot of 5" in client.get(reverse("play:sheet-roll", args=[flip.pk])).text
    rolled = api(player).post(f"/characters/{flip.pk}/rolls", {"need": 1})
    assert rolled.status_code == 201, rolled.text
    assert rolled.json()["label"] == f"{label}, for a pot of 5"
    assert rolled.json()["spec"]["sheet"] == {"character": flip.pk, "pot": 5}


# --- 5. The sheet page shows the viewer's view of the table, and follows it ---------------------------


def test_the_sheet_shows_each_viewer_their_own_view_of_the_table(client, campaign, flip, gm, player, other_player,
                                                                 bag) -> None:  # fmt: skip
    make(flip, "pocket", player)
    sheet = reverse("characters:sheet", args=[flip.pk])
    for user, sees_token in ((player, True), (gm, True), (other_player, False)):
        client.force_login(user)
        page = client.get(sheet).text
        assert 'data-table-version="2"' in page
        assert "At the table" in page
        assert (bag[0] in page) is sees_token, user
        for token in bag[1:]:
            assert token not in page  # the bag's order is nobody's
        if not sees_token:
            assert "player: 1 token" in page
    from tests.campaigns.helpers import make_character

    brunella = make_character(campaign, player, "Brunella")  # Lucky 13 keeps no table
    assert {key: moves.sheet_shows(brunella, player)[key] for key in ("table", "table_version")} == {
        "table": None, "table_version": None
    }  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_an_open_sheet_hears_the_tables_version_and_nothing_of_it(coin_campaign, gm, player, other_player) -> None:
    from channels.db import database_sync_to_async

    from tests.play.test_live import run
    from tests.play.test_sheet_live import following

    sheet = coin.Sheet(step="", nerve=3, luck=5).model_dump(mode="json")
    flip = Character.objects.create(campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet)

    def fill() -> None:
        table.make(campaign_id=coin_campaign.pk, key="fill", version=0, given={}, by=gm)

    def pocket() -> None:
        make(flip, "pocket", player)

    async def scenario() -> None:
        sockets = [await following(flip, user) for user in (gm, player, other_player)]
        await database_sync_to_async(fill)()
        for socket in sockets:
            assert await socket.receive_json_from(timeout=5) == {"type": "table", "version": 1}
        await database_sync_to_async(pocket)()
        for socket in sockets:
            heard = [await socket.receive_json_from(timeout=5) for _ in range(2)]
            assert sorted(heard, key=lambda m: m["type"]) == [
                {"type": "sheet", "version": flip.version + 1},
                {"type": "table", "version": 2},
            ]
            assert await socket.receive_nothing(timeout=0.1)
            await socket.disconnect()
        # A page that connects (again) is told the table's version too: one that missed a change catches up.
        again = await following(await database_sync_to_async(now)(flip), other_player)
        await again.disconnect()

    run(scenario)


# --- 6 and 7. The move pages: a form started from the query, and the table in its checks -------------


def test_a_moves_form_starts_from_the_query_and_shows_the_hand(client, flip, player, bag) -> None:
    make(flip, "pocket", player)
    client.force_login(player)
    page = client.get(reverse("play:move", args=[flip.pk, "put-back"]), {"token": bag[0], "version": "99"})
    assert page.status_code == 200
    assert f'name="token" value="{bag[0]}"' in page.text
    assert f'name="version" value="{now(flip).version}"' in page.text  # the query names form fields only
    assert f"In player’s hand: <strong>{bag[0]}</strong>." in page.text
    blank = client.get(reverse("play:move", args=[flip.pk, "put-back"])).text
    assert 'name="token" value=' not in blank


def test_the_move_page_checks_the_token_against_the_table(client, flip, player, bag) -> None:
    client.force_login(player)
    pocket = client.get(reverse("play:move", args=[flip.pk, "pocket"])).text
    assert ">Pay a Luck point</button>" in pocket
    make(flip, "pocket", player)
    url = reverse("play:move", args=[flip.pk, "put-back"])
    version = table_row(flip).version
    refused = client.post(url, {"version": str(now(flip).version), "token": bag[2]})
    assert refused.status_code == 400
    assert f"{bag[2].capitalize()} is not in the hand." in refused.text
    assert f'value="{bag[2]}"' in refused.text  # what was typed stays
    assert table_row(flip).version == version
    made = client.post(url, {"version": str(now(flip).version), "token": bag[0]})
    assert made.status_code == 302
    assert table_row(flip).document["bag"][0] == bag[0]


def test_the_move_page_says_why_the_table_refuses(client, flip, player, coin_campaign) -> None:
    client.force_login(player)
    page = client.get(reverse("play:move", args=[flip.pk, "pocket"])).text
    assert "The bag is empty: the GM fills it." in page
    assert ">Pay a Luck point</button>" not in page
