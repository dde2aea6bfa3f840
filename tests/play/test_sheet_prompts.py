"""Decisions after a sheet's dice (play.moves), through the test-only Coin system's dare
(tests/systems/coin/dare.py): two coins flipped on a character's Luck leave the one who dared a decision —
keep them, or flip one again — with the exact chance of double heads each choice leaves. Who may make it
(the one it waits for and the GM; a 403 for anyone else), a stale answer (the one 409 body), the moves
that wait for it, the chain of rolls (append-only, the reroll following the dare), and what every role
sees of it on the pages, the partials, the API and the sheet's socket."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest
from django.urls import reverse

from characters.models import Character
from play import moves
from play.models import Roll, SheetPrompt
from play.rolls import verify_chain
from rules.systems.base import Role
from rules.systems.moves import Situation, Viewer
from tests.api.conftest import ApiClient
from tests.systems.coin import dare as coin_dare
from tests.systems.coin import system as coin

pytestmark = pytest.mark.django_db


# --- The engine: each choice's exact chance, by enumeration -------------------------------------------


def _double_heads_after(faces: tuple[str, str], choice: Any) -> Fraction:
    """The chance of double heads once ``choice`` is made, counted over every way the coins can fall."""
    if choice.move == "dare-keep":
        return Fraction(int(faces == ("heads", "heads")))
    coin_index = choice.input["coin"] - 1
    outcomes = []
    for face in ("heads", "tails"):
        after = list(faces)
        after[coin_index] = face
        outcomes.append(after == ["heads", "heads"])
    return Fraction(sum(outcomes), len(outcomes))


@pytest.mark.parametrize("faces", list(itertools.product(("heads", "tails"), repeat=2)))
def test_each_choice_leaves_the_exact_chance_counted_by_enumeration(faces: tuple[str, str]) -> None:
    choices = coin_dare.choices(faces)
    assert [(c.move, dict(c.input)) for c in choices] == [
        ("dare-keep", {}), ("dare-reroll", {"coin": 1}), ("dare-reroll", {"coin": 2})
    ]  # fmt: skip
    for choice in choices:
        assert choice.chance == _double_heads_after(faces, choice), (faces, choice.label)


class Dice:
    """The server's dice, told how the coins fall: each ``choice`` gives the next face."""

    faces: list[str] = []

    def __init__(self, *args: object) -> None:
        pass

    def choice(self, options: Any) -> Any:
        return Dice.faces.pop(0)


def test_the_dare_leaves_its_maker_the_decision_and_the_coins_wait_on_the_sheet() -> None:
    Dice.faces = ["tails", "heads"]
    sheet = coin.Sheet(step="", nerve=2, luck=5)
    made = coin_dare.MOVES[0].apply(Situation(sheet, {}, Role.OWNER, Viewer(Role.OWNER, 41), Dice(), 41, 7), None)
    assert made.state.dare == coin_dare.Dare(faces=("tails", "heads"))
    assert made.prompt is not None
    assert made.prompt.to == 41
    assert made.prompt.question == "Tails and heads: keep them, or flip one again?"
    assert [c.chance for c in made.prompt.choices] == [Fraction(0), Fraction(1, 2), Fraction(0)]
    assert made.rolls[0].chance == Fraction(1, 4)


# --- Through the pipeline ----------------------------------------------------------------------------


@pytest.fixture
def dice(monkeypatch) -> Iterator[type[Dice]]:
    monkeypatch.setattr(moves.secrets, "SystemRandom", Dice)
    yield Dice
    Dice.faces = []


def now(character: Character) -> Character:
    return Character.objects.get(pk=character.pk)


def post(api_client: ApiClient, character: Character, key: str, body: dict | None = None, *, at: int | None = None):
    version = now(character).version if at is None else at
    return api_client.post(f"/characters/{character.pk}/moves/{key}", {"version": version, "input": body or {}})


def listed(api_client: ApiClient, character: Character) -> dict[str, Any]:
    response = api_client.get(f"/characters/{character.pk}/moves")
    assert response.status_code == 200, response.text
    return response.json()


def test_the_api_shows_the_decision_with_its_exact_chances_to_its_maker_and_the_gm_only(
    api, flip, gm, player, other_player, dice
) -> None:
    dice.faces = ["heads", "tails"]
    dared = post(api(player), flip, "dare")
    assert dared.status_code == 200, dared.text
    version = now(flip).version
    mine = {
        "waiting_for": "player", "yours": True, "decides": True,
        "question": "Heads and tails: keep them, or flip one again?",
        "choices": [
            {"move": "dare-keep", "label": "Keep them", "chance": "0/1", "input": {}, "version": version},
            {"move": "dare-reroll", "label": "Flip the first again", "chance": "0/1", "input": {"coin": 1},
             "version": version},
            {"move": "dare-reroll", "label": "Flip the second again", "chance": "1/2", "input": {"coin": 2},
             "version": version},
        ],
        "follows": Roll.objects.get(campaign=flip.campaign).seq,
    }  # fmt: skip
    assert dared.json()["prompt"] == mine
    assert dared.json()["notice"] == "Flip dared fate: heads and tails."
    assert listed(api(player), flip)["prompt"] == mine
    assert listed(api(gm), flip)["prompt"] == {**mine, "yours": False}  # the GM may always decide
    assert listed(api(other_player), flip)["prompt"] == {
        "waiting_for": "player", "yours": False, "decides": False, "question": None, "choices": [], "follows": None
    }  # fmt: skip
    why = {m["key"]: m["why_not"] for m in listed(api(player), flip)["moves"]}
    assert why == {"dare": "Waiting for your decision first.", "dare-keep": None, "dare-reroll": None,
                   **{k: v for k, v in why.items() if k not in ("dare", "dare-keep", "dare-reroll")}}  # fmt: skip
    assert {m["key"]: m["why_not"] for m in listed(api(gm), flip)["moves"]}["dare"] == (
        "Waiting for player to decide first."
    )


def test_keeping_settles_the_dare_and_closes_the_decision(api, flip, player, dice) -> None:
    dice.faces = ["heads", "heads"]
    post(api(player), flip, "dare")
    kept = post(api(player), flip, "dare-keep")
    assert kept.status_code == 200, kept.text
    assert kept.json()["prompt"] is None
    assert kept.json()["result"] == {"won": True, "luck": 6}
    assert now(flip).document.luck == 6
    assert now(flip).document.dare is None
    decision = SheetPrompt.objects.get(character=flip)
    assert (decision.answered_by, decision.answer) == (player, "Keep them")
    assert listed(api(player), flip)["prompt"] is None
    assert {m["key"]: m["why_not"] for m in listed(api(player), flip)["moves"]}["dare-keep"] == (
        "No decision waits for this."
    )


def test_only_the_one_it_waits_for_or_the_gm_decides(api, flip, gm, player, other_player, dice) -> None:
    dice.faces = ["tails", "tails", "heads"]
    assert post(api(gm), flip, "dare").status_code == 200  # the GM dares for Flip: the decision is theirs
    theirs = post(api(player), flip, "dare-keep")
    assert theirs.status_code == 403
    assert theirs.json()["message"] == "This decision waits for gm: only they or the GM may make it."
    assert post(api(other_player), flip, "dare-keep").status_code == 403  # not their sheet at all
    assert listed(api(player), flip)["prompt"]["decides"] is False
    assert SheetPrompt.objects.open().count() == 1
    flipped = post(api(gm), flip, "dare-reroll", {"coin": 2})
    assert flipped.status_code == 200, flipped.text
    assert flipped.json()["result"]["faces"] == ["tails", "heads"]
    assert now(flip).document.luck == 4
    assert not SheetPrompt.objects.open().exists()


def test_the_gm_may_make_the_players_decision(api, flip, gm, player, dice) -> None:
    dice.faces = ["heads", "tails", "heads"]
    post(api(player), flip, "dare")
    made = post(api(gm), flip, "dare-reroll", {"coin": 2})
    assert made.status_code == 200, made.text
    assert made.json()["result"] == {"won": True, "luck": 6, "faces": ["heads", "heads"]}
    assert SheetPrompt.objects.get(character=flip).answered_by == gm


def test_a_stale_answer_is_the_one_409_and_changes_nothing(api, flip, player, gm, dice) -> None:
    dice.faces = ["heads", "tails"]
    post(api(player), flip, "dare")
    read_at = now(flip).version
    assert post(api(gm), flip, "dare-keep", at=read_at).status_code == 200
    rolls, version = Roll.objects.count(), now(flip).version
    stale = post(api(player), flip, "dare-reroll", {"coin": 2}, at=read_at)
    assert stale.status_code == 409
    body = stale.json()
    assert {key: value for key, value in body.items() if key not in ("message", "now")} == {
        "code": "stale_version", "errors": None
    }  # fmt: skip
    assert body["message"].endswith("so nothing was done. This is how it stands now.")
    assert body["now"]["version"] == version
    assert (Roll.objects.count(), now(flip).version) == (rolls, version)


def test_an_answer_made_before_the_decision_opened_is_stale(api, flip, player, dice) -> None:
    before = now(flip).version
    dice.faces = ["heads", "tails"]
    post(api(player), flip, "dare")
    assert post(api(player), flip, "dare-keep", at=before).status_code == 409


def test_an_answer_must_be_one_of_the_choices(api, flip, player, dice) -> None:
    dice.faces = ["heads", "tails"]
    post(api(player), flip, "dare")
    decision = SheetPrompt.objects.get(character=flip)
    decision.choices = decision.choices[:2]  # the second coin is no longer offered
    decision.save()
    version, rolls = now(flip).version, Roll.objects.count()
    refused = post(api(player), flip, "dare-reroll", {"coin": 2})
    assert refused.status_code == 400
    assert refused.json()["message"] == (
        "That is not one of the choices of this decision: Keep them; Flip the first again."
    )
    assert post(api(player), flip, "dare-reroll", {"coin": 3}).status_code == 400
    assert (now(flip).version, Roll.objects.count()) == (version, rolls)


def test_a_move_on_the_parts_it_is_about_waits_and_no_second_decision_opens(api, flip, player, gm, dice) -> None:
    dice.faces = ["heads", "tails"]
    post(api(player), flip, "dare")
    version, rolls = now(flip).version, Roll.objects.count()
    waits = post(api(gm), flip, "dare")
    assert waits.status_code == 400
    assert waits.json()["message"] == "Waiting for player to decide first."
    # A move on other parts is made as ever; one that would leave a second decision is refused, nothing written.
    SheetPrompt.objects.filter(character=flip).update(parts=["elsewhere"])
    dice.faces = ["tails", "tails"]
    second = post(api(player), flip, "dare")
    assert second.status_code == 400
    assert second.json()["message"] == "Waiting for player to decide first: a sheet keeps one decision open."
    assert (now(flip).version, Roll.objects.count(), SheetPrompt.objects.count()) == (version, rolls, 1)


def test_the_rolls_chain_append_only_the_reroll_following_the_dare(api, client, flip, player, dice) -> None:
    dice.faces = ["tails", "heads", "heads"]
    post(api(player), flip, "dare")
    post(api(player), flip, "dare-reroll", {"coin": 1})
    dare, reroll = Roll.objects.filter(campaign=flip.campaign).order_by("seq")
    assert (dare.kind, dare.dice, dare.chance, dare.follows, dare.character_id) == (
        "dare",
        ["tails", "heads"],
        "1/4",
        None,
        flip.pk,
    )
    assert (reroll.kind, reroll.dice, reroll.chance, reroll.follows) == ("dare", ["heads", "heads"], "1/2", dare.seq)
    assert SheetPrompt.objects.get(character=flip).follows == dare.seq
    assert verify_chain(flip.campaign) is None
    with pytest.raises(Exception, match="never updated"):
        Roll.objects.filter(pk=dare.pk).update(follows=None)
    client.force_login(player)
    log = client.get(reverse("play:rolls", args=[flip.campaign_id]))
    assert f'replaces <a href="#roll-{dare.seq}">#{dare.seq}</a>' in log.text
    assert "Double heads" in log.text


def test_a_lucky13_character_has_no_decision(api, campaign, player) -> None:
    from tests.campaigns.helpers import make_character

    brunella = make_character(campaign, player, "Brunella")
    assert listed(api(player), brunella)["prompt"] is None


# --- The pages ---------------------------------------------------------------------------------------

QUESTION = "Heads and tails: keep them, or flip one again?"


def test_the_sheet_shows_the_decision_to_its_maker_and_the_gm_and_whom_it_waits_for_to_others(
    client, api, flip, gm, player, other_player, dice
) -> None:
    sheet = reverse("characters:sheet", args=[flip.pk])
    client.force_login(player)
    assert 'id="decision"' in client.get(sheet).text
    assert "A decision waits" not in client.get(sheet).text
    dice.faces = ["heads", "tails"]
    post(api(player), flip, "dare")
    version = now(flip).version
    mine = client.get(sheet).text
    assert "Your decision" in mine
    assert QUESTION in mine
    assert 'title="exactly 1/2"' in mine  # the second coin again: even odds
    assert mine.count('title="exactly 0"') == 2  # keeping, or the first again: none
    answer = reverse("play:move", args=[flip.pk, "dare-reroll"])
    assert f'action="{answer}"' in mine
    assert f'name="version" value="{version}"' in mine
    assert '<input type="hidden" name="coin" value="2">' in mine
    client.force_login(gm)
    theirs = client.get(sheet).text
    assert "A decision for player" in theirs
    assert "as the GM you may make it for them" in theirs
    assert QUESTION in theirs
    client.force_login(other_player)
    others = client.get(sheet).text
    assert "Waiting for player to decide." in others
    for hidden in (QUESTION, "Flip the first again", "Keep them", "chance of success then", answer):
        assert hidden not in others


def test_the_move_page_shows_the_decision_and_why_the_dare_waits(client, api, flip, gm, player, dice) -> None:
    dice.faces = ["heads", "tails"]
    post(api(player), flip, "dare")
    client.force_login(player)
    page = client.get(reverse("play:move", args=[flip.pk, "dare"]))
    assert page.status_code == 200
    assert QUESTION in page.text
    assert "Waiting for your decision first." in page.text
    assert ">Flip two coins</button>" not in page.text
    client.force_login(gm)
    assert "Waiting for player to decide first." in client.get(reverse("play:move", args=[flip.pk, "dare"])).text


def test_dare_and_answer_through_the_pages(client, flip, player, dice) -> None:
    client.force_login(player)
    dare = reverse("play:move", args=[flip.pk, "dare"])
    dice.faces = ["heads", "tails"]
    made = client.post(dare, {"version": str(now(flip).version)}, HTTP_HX_REQUEST="true")
    assert made.status_code == 200
    assert 'id="coins"' in made.text  # the region it changed, and the decision beside it, out of band
    assert 'id="decision" hx-swap-oob="true"' in made.text
    assert QUESTION in made.text
    dice.faces = ["heads"]
    answer = reverse("play:move", args=[flip.pk, "dare-reroll"])
    answered = client.post(answer, {"version": str(now(flip).version), "coin": "2"})
    assert answered.status_code == 302
    page = client.get(answered["Location"]).text
    assert "Flip flipped coin 2 again: heads and heads, a Luck point won." in page
    assert "Your decision" not in page
    assert now(flip).document.luck == 6
    again = client.post(answer, {"version": str(now(flip).version), "coin": "2"})
    assert again.status_code == 400
    assert "No decision waits for this." in again.text


def test_a_stale_answer_on_the_page_is_a_409_with_things_as_they_stand(client, api, flip, player, gm, dice) -> None:
    dice.faces = ["heads", "tails"]
    post(api(player), flip, "dare")
    read_at = now(flip).version
    post(api(gm), flip, "dare-keep")
    client.force_login(player)
    stale = client.post(reverse("play:move", args=[flip.pk, "dare-keep"]), {"version": str(read_at)})
    assert stale.status_code == 409
    assert "changed since you opened this form" in stale.text


@pytest.mark.django_db(transaction=True)
def test_every_open_sheet_hears_a_decision_open_and_close_and_nothing_more(
    coin_campaign, gm, player, other_player, dice
) -> None:
    from channels.db import database_sync_to_async

    from tests.play.test_live import run
    from tests.play.test_sheet_live import following

    sheet = coin.Sheet(step="", nerve=3, luck=5).model_dump(mode="json")
    flip = Character.objects.create(campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet)

    def dare_and_keep() -> None:
        dice.faces = ["heads", "tails"]
        moves.make(character_id=flip.pk, key="dare", version=now(flip).version, given={}, by=player)
        moves.make(character_id=flip.pk, key="dare-keep", version=now(flip).version, given={}, by=player)

    async def scenario() -> None:
        sockets = [await following(flip, user) for user in (gm, player, other_player)]
        await database_sync_to_async(dare_and_keep)()
        for socket in sockets:
            heard = [await socket.receive_json_from(timeout=5) for _ in range(2)]
            # The version only: each page fetches its own view of the decision, through the sheet's access check.
            assert heard == [
                {"type": "sheet", "version": flip.version + 1},
                {"type": "sheet", "version": flip.version + 2},
            ]
            assert await socket.receive_nothing(timeout=0.1)
            await socket.disconnect()

    run(scenario)


def test_a_choice_may_name_any_move_and_its_answer_may_leave_the_next_decision(api, flip, player, dice) -> None:
    """A system may offer a move of its own as a choice (dare again): while the decision is open that move
    is its answer, and the decision it leaves next follows on, each roll following the one before."""
    dice.faces = ["tails", "tails"]
    post(api(player), flip, "dare")
    SheetPrompt.objects.filter(character=flip).update(
        choices=[{"move": "dare", "label": "Dare again", "chance": "1/4", "input": {}}]
    )
    dice.faces = ["heads", "tails"]
    again = post(api(player), flip, "dare")
    assert again.status_code == 200, again.text
    assert again.json()["prompt"]["question"] == "Heads and tails: keep them, or flip one again?"
    first, second = Roll.objects.filter(campaign=flip.campaign).order_by("seq")
    assert second.follows == first.seq
    closed, opened = SheetPrompt.objects.filter(character=flip).order_by("pk")
    assert (closed.answer, closed.answered_by, opened.answered_at, opened.follows) == (
        "Dare again",
        player,
        None,
        second.seq,
    )
