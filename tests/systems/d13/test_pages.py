"""D13 through its pages, for every role: a task the host calls, rolled from the sheet's roll page and decided
on the sheet; doubles drawing a card that only its player and the host see; the host's decision on a
Monstrous success; an unclear task whose d4 stays the host's until revealed; a card played from the hand."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from play import requests
from play.models import Roll, SheetPrompt, Table, TableChange
from tests.systems.d13.helpers import campaign_of, fresh, made, move_url, skill

pytestmark = pytest.mark.django_db


@pytest.fixture
def parish(gm, player, other_player):
    return campaign_of(gm, player, other_player)


@pytest.fixture
def maud(parish, player):
    return made(parish, player)


@pytest.fixture
def elias(parish, other_player):
    return made(parish, other_player, name="Elias", skills={"Athletics": 3, "Brawling": 3})


def text(response) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def roll_page(client, character, **situation: Any) -> Any:
    return client.post(reverse("play:sheet-roll", args=[character.pk]) + "?" + "&".join(
        f"{k}={v}" for k, v in situation.items()), situation)  # fmt: skip


def call(gm, character, **called: Any):
    made_call = requests.call_for_roll(campaign_id=character.campaign_id, by=gm, call=called,
                                       characters=[character.pk], secret=called.pop("secret", False))  # fmt: skip
    return made_call.asked.get()


def answer(client, character, asked) -> Any:
    return client.post(reverse("play:request-answer", args=[character.pk, asked.pk]))


def decide(client, character, key: str, **given: Any) -> Any:
    now = fresh(character)
    prompt = SheetPrompt.objects.open().get(character=now)
    version = now.section_versions.get("roll", now.version)
    return client.post(move_url(now, key), {"version": max(version, prompt.version), **given})


def test_a_called_average_task_waits_for_its_players_reroll_and_the_reroll_stands(
    client, gm, player, other_player, maud, dice
) -> None:
    asked = call(gm, maud, level="average", ability="wits", skill="Occult")  # 4 + 4: 8
    client.force_login(player)
    dice(4, 9)  # 13: fails, and no reroll after a 13
    assert answer(client, maud, asked).status_code == 302
    assert not SheetPrompt.objects.open().exists()
    assert fresh(maud).document.last.success is False

    asked = call(gm, maud, level="average", ability="wits", skill="Occult")
    dice(3, 7)  # 10 > 8: a failure the player may reroll
    assert answer(client, maud, asked).status_code == 302
    page = text(client.get(reverse("characters:sheet", args=[maud.pk])))
    assert "Your decision" in page
    assert "Reroll the d9" in page
    assert "Reroll the d4" in page
    # The other player sees whom it waits for, not the choices.
    client.force_login(other_player)
    page = text(client.get(reverse("characters:sheet", args=[maud.pk])))
    assert "Waiting for" in page
    assert "Reroll the d9" not in page
    assert decide(client, maud, "d13-reroll", die="d9").status_code == 403

    client.force_login(player)
    dice(2)  # the d9 again: 3 + 2 = 5, a success
    assert decide(client, maud, "d13-reroll", die="d9").status_code == 302
    last = fresh(maud).document.last
    assert (last.total, last.success) == (5, True)
    first, reroll = Roll.objects.filter(character=maud).order_by("-seq")[:2][::-1]
    assert reroll.follows == first.seq
    assert first.spec["call"]["request"] == asked.request_id
    assert not SheetPrompt.objects.open().exists()


def test_doubles_draw_a_card_that_only_its_player_and_the_host_see(
    client, gm, player, other_player, maud, elias, dice
) -> None:
    client.force_login(gm)
    dice(3, 3)  # doubles: a success and a card
    assert roll_page(client, maud, level="difficult", ability="brawn", skill=skill(maud, "Stealth")).status_code == 302
    hand = Table.objects.get(campaign=maud.campaign).document["hands"]
    assert [h["character"] for h in hand] == [maud.pk]
    assert len(hand[0]["cards"]) == 1
    from rules.systems.d13 import cards

    name = cards.card(hand[0]["cards"][0]).name
    draw = Table.objects.get(campaign=maud.campaign).document["draw"]
    for user, sees in ((player, True), (gm, True), (other_player, False)):
        client.force_login(user)
        page = text(client.get(reverse("characters:sheet", args=[maud.pk])))
        assert (name in page) is sees
        assert "1 card in the hand" in page or sees
        table = text(client.get(reverse("play:table", args=[maud.campaign_id])))
        assert (name in table) is sees
        # The deck's order is never sent: no card of the draw pile is named on any page.
        for code in draw[:5]:
            assert cards.card(code).name not in table.replace(name, "")
    assert TableChange.objects.filter(campaign=maud.campaign, move="d13-roll").exists()


def test_a_monstrous_success_is_the_hosts_to_let_stand_or_force(client, gm, player, maud, dice) -> None:
    client.force_login(player)
    maud.campaign.players_call_rolls = True
    maud.campaign.save()
    dice(1, 2)  # 3 ≤ 4 + 4: a success the host may force again
    assert roll_page(client, maud, level="monstrous", ability="wits", skill=skill(maud, "Occult")).status_code == 302
    prompt = SheetPrompt.objects.open().get(character=maud)
    assert prompt.to == gm
    page = text(client.get(reverse("characters:sheet", args=[maud.pk])))
    assert "Waiting for" in page
    assert "Force a reroll" not in page
    assert decide(client, maud, "d13-stand").status_code == 403
    client.force_login(gm)
    page = text(client.get(reverse("characters:sheet", args=[maud.pk])))
    assert "Force a reroll of the d4" in page
    assert "Let it stand" in page
    dice(4)  # the d9 forced: 1 + 4 = 5, still a success
    assert decide(client, maud, "d13-force", die="d9").status_code == 302
    assert fresh(maud).document.last.total == 5


def test_an_unclear_task_keeps_its_d4_the_hosts_until_revealed(client, api, gm, player, maud, dice) -> None:
    asked = call(gm, maud, level="difficult", ability="wits", skill="Investigation", unclear=True)
    client.force_login(player)
    dice(3, 1)  # d4 3 (secret) + d9 1 = 4 ≤ 7
    assert answer(client, maud, asked).status_code == 302
    rolled = Roll.objects.get(character=maud)
    assert rolled.secret
    sheet = fresh(maud).document
    assert sheet.pending.d4 is None
    assert sheet.pending.d9 == 1
    page = text(client.get(reverse("characters:sheet", args=[maud.pk])))
    assert "d4 <strong>?</strong>" in page
    assert "with this d9 the chance of success is" in page
    log = api(player).get(f"/campaigns/{maud.campaign_id}/rolls").json()
    assert [row["hidden"] for row in log["rolls"]] == [True], log
    table_url = f"/campaigns/{maud.campaign_id}/table"
    assert "secrets" not in api(player).get(table_url).json()["view"]
    pending = api(player).get(f"/characters/{maud.pk}").json()["sheet"]["pending"]
    assert (pending["d4"], pending["d9"]) == (None, 1)
    assert api(gm).get(table_url).json()["view"]["secrets"][0]["d4"] == 3
    client.force_login(gm)
    assert decide(client, maud, "d13-reveal").status_code == 302
    rolled.refresh_from_db()
    assert rolled.revealed_at is not None
    assert fresh(maud).document.last.total == 4
    assert Table.objects.get(campaign=maud.campaign).document["secrets"] == []


def test_a_number_card_replaces_the_roll_and_another_suit_asks_for_a_rationale(client, gm, player, maud, dice) -> None:
    client.force_login(gm)
    dice(2, 2)  # doubles: a card into Maud's hand
    roll_page(client, maud, level="difficult", ability="wits", skill=skill(maud, "Occult"))
    document = Table.objects.get(campaign=maud.campaign).document
    # Put a known number card in the hand for the test: the 3 of hearts (Will's suit, not Wits's spades).
    held = document["hands"][0]["cards"][0]
    document["draw"] = [c for c in document["draw"] if c != "3H"] + [held]
    document["hands"][0]["cards"] = ["3H"]
    Table.objects.filter(campaign=maud.campaign).update(document=document)
    client.force_login(player)
    page = client.get(move_url(maud, "d13-card") + "?card=3H")
    assert page.status_code == 200
    assert 'value="3H"' in page.content.decode()
    version = fresh(maud).version
    refused = client.post(move_url(maud, "d13-card"), {"version": version, "card": "3H", "use": "roll"})
    assert refused.status_code == 400
    assert "say how it fits the story" in text(refused)
    assert Table.objects.get(campaign=maud.campaign).document["hands"][0]["cards"] == ["3H"]  # nothing changed
    played = client.post(move_url(maud, "d13-card"), {"version": version, "card": "3H", "use": "roll",
                                                      "rationale": "Her heart, not her head"})  # fmt: skip
    assert played.status_code == 302
    last = fresh(maud).document.last
    assert (last.total, last.success, last.doubles, last.replaced_by) == (3, True, False, "3H")
    table = Table.objects.get(campaign=maud.campaign).document
    assert table["hands"] == []
    assert table["discard"][-1] == "3H"
    assert "Her heart, not her head" in TableChange.objects.filter(move="d13-card").get().what


def test_a_player_makes_a_character_through_the_creation_pages_every_error_at_once(client, parish, player) -> None:
    client.force_login(player)
    started = client.post(reverse("characters:create", args=[parish.pk]), {"name": "Maud"})
    assert started.status_code == 302
    from characters.models import Character

    maud = Character.objects.get(campaign=parish, name="Maud")
    step = reverse("characters:create-step", args=[maud.pk, "abilities"])
    refused = client.post(step, {"version": maud.version, "brawn": 6, "grace": 5, "wits": 5, "will": 0,
                                 "action": "next"})  # fmt: skip
    assert refused.status_code == 400
    page = text(refused)
    assert "an ability is 1 to 5 at creation" in page.lower()
    assert "share 12 points, not 16" in page
    assert 'name="brawn" value="6"' in page.replace('inputmode="numeric" min="0" max="12" ', "") or 'value="6"' in page
    maud.refresh_from_db()
    assert maud.document.brawn is None  # nothing saved
    saved = client.post(step, {"version": maud.version, "brawn": 2, "grace": 3, "wits": 4, "will": 3,
                               "action": "next"})  # fmt: skip
    assert saved.status_code == 302
    assert saved.url.endswith("/create/skills/")
    maud.refresh_from_db()
    data = {"version": maud.version, "notes": "", "skills-TOTAL_FORMS": len(maud.document.skills),
            "skills-INITIAL_FORMS": len(maud.document.skills), "action": "next"}  # fmt: skip
    for n, skill_row in enumerate(maud.document.skills):
        data |= {
            f"skills-{n}-id": skill_row.id,
            f"skills-{n}-rating": 4 if skill_row.name == "Occult" else 0,
            f"skills-{n}-name": "Renamed",
            f"skills-{n}-kind": "mental",
        }  # fixed: a posted name is ignored
    finished = client.post(reverse("characters:create-step", args=[maud.pk, "skills"]), data)  # the last step
    assert finished.status_code == 302, text(finished)[:2000]
    maud.refresh_from_db()
    occult = next(s for s in maud.document.skills if s.name == "Occult")
    assert occult.rating == 4
    assert {s.name for s in maud.document.skills} >= {"Occult", "Athletics"}
    assert "Renamed" not in {s.name for s in maud.document.skills}
    assert maud.status == "active"


def test_the_host_declares_a_task_automatic_and_the_log_keeps_draws_and_plays(
    client, gm, player, other_player, maud, dice
) -> None:
    client.force_login(player)
    refused = client.post(move_url(maud, "d13-automatic"), {"version": fresh(maud).version, "ability": "wits"})
    assert refused.status_code == 403
    client.force_login(gm)
    made_move = client.post(move_url(maud, "d13-automatic"), {"version": fresh(maud).version, "ability": "wits",
                                                                "skill": skill(maud, "Occult")})  # fmt: skip
    assert made_move.status_code == 302
    dice(4, 4)  # doubles: a success and a card
    roll_page(client, maud, level="difficult", ability="wits", skill=skill(maud, "Occult"))
    kinds = list(Roll.objects.filter(campaign=maud.campaign).order_by("seq").values_list("kind", "label"))
    assert kinds[0] == ("automatic", "The host declared Wits + Occult automatic: a success, with no roll and no card")
    assert [kind for kind, _ in kinds[1:]] == ["check", "draw"]
    assert kinds[2][1] == "Maud drew a card"
    drawn = Table.objects.get(campaign=maud.campaign).document["hands"][0]["cards"][0]
    from rules.systems.d13 import cards

    client.force_login(other_player)
    log = text(client.get(reverse("play:rolls", args=[maud.campaign_id])))
    assert "Maud drew a card" in log
    assert cards.card(drawn).name not in log


def test_a_player_proposes_a_task_the_host_calls_it_and_its_answer_is_the_move(client, gm, player, maud, dice) -> None:
    from play import proposals

    occult = skill(maud, "Occult")
    proposal = proposals.propose(character_id=maud.pk, by=player, note="I know this script",
                                 situation={"level": "average", "ability": "wits", "skill": occult})  # fmt: skip
    assert proposal.call == {"level": "average", "ability": "wits", "skill": "Occult", "unclear": False}
    request = proposals.call_proposal(campaign_id=maud.campaign_id, proposal_id=proposal.pk, by=gm)
    asked = request.asked.get()
    client.force_login(player)
    dice(1, 2)  # 3: a success; Average still offers the reroll, for a better effect
    assert answer(client, maud, asked).status_code == 302
    assert SheetPrompt.objects.open().get(character=maud).to == player
    assert Roll.objects.get(character=maud).spec["call"]["request"] == request.pk


def test_experience_buys_a_skills_next_rating_with_its_chances_before_and_after(client, gm, player) -> None:
    from characters import ledger
    from tests.systems.d13.helpers import campaign_of as parish_of

    campaign = parish_of(gm, player, experience=True)
    maud = made(campaign, player)
    ledger.award(campaign_id=campaign.pk, awards=[ledger.Award(maud.pk, 10)], reason="A session played", by=gm)
    client.force_login(player)
    page = text(client.get(reverse("characters:advance", args=[maud.pk]), {"level": "difficult", "ability": "wits"}))
    from rules.systems.d13.chance import Level, check
    from web.templatetags.dice import percent

    assert "Investigation 3 → 4" in page
    assert "8 XP" in page
    assert percent(check(7, Level.DIFFICULT).success) in page
    assert percent(check(8, Level.DIFFICULT).success) in page
    investigation = skill(maud, "Investigation")
    bought = client.post(reverse("characters:buy", args=[maud.pk]), {"offer": f"skill-{investigation}", "before": "3"})
    assert bought.status_code == 302
    assert next(s.rating for s in fresh(maud).document.skills if s.name == "Investigation") == 4
    refused = client.post(reverse("characters:buy", args=[maud.pk]), {"offer": f"skill-{investigation}", "before": "4"})
    assert refused.status_code == 409  # 2 XP left, and the next rating costs 10
    assert next(s.rating for s in fresh(maud).document.skills if s.name == "Investigation") == 4  # 2 XP left: no


def test_a_d13_campaign_fights_at_its_table_not_in_an_encounter(client, gm, maud) -> None:
    client.force_login(gm)
    page = client.get(reverse("campaigns:detail", args=[maud.campaign_id])).content.decode()
    assert reverse("play:table", args=[maud.campaign_id]) in page
    assert reverse("play:encounter", args=[maud.campaign_id]) not in page
    assert client.get(reverse("play:encounter", args=[maud.campaign_id])).status_code == 404
    assert client.get(reverse("play:encounters", args=[maud.campaign_id])).status_code == 404
    assert client.post(reverse("play:encounter-start", args=[maud.campaign_id])).status_code == 409


def test_the_sheet_is_edited_in_place_and_a_stale_save_is_refused(client, gm, player, maud) -> None:
    url = reverse("characters:edit-section", args=[maud.pk, "notes"])
    client.force_login(player)
    version = fresh(maud).version
    assert client.post(url, {"version": version, "notes": "Reads Latin."}).status_code in (200, 302)
    assert fresh(maud).document.notes == "Reads Latin."
    stale = client.post(url, {"version": version - 1, "notes": "Typed on an older page."})
    assert stale.status_code == 409
    assert "Typed on an older page." in stale.content.decode()  # what was typed is kept beside what stands
    assert fresh(maud).document.notes == "Reads Latin."
    # The condition track is the host's: the player may not edit it.
    assert client.get(reverse("characters:edit-section", args=[maud.pk, "condition"])).status_code == 403
    client.force_login(gm)
    track = reverse("characters:edit-section", args=[maud.pk, "condition"])
    assert client.post(track, {"version": fresh(maud).version, "condition": 9}).status_code == 400  # 0 to 6
    assert client.post(track, {"version": fresh(maud).version, "condition": 2}).status_code in (200, 302)
    assert fresh(maud).document.condition == 2


def test_the_hand_says_what_each_card_would_make_of_the_last_roll(client, player, maud, dice) -> None:
    maud.campaign.players_call_rolls = True
    maud.campaign.save()
    client.force_login(player)
    dice(3, 7)  # Difficult Wits + Occult: 10 over 8, a failure
    roll_page(client, maud, level="difficult", ability="wits", skill=skill(maud, "Occult"))
    document = Table.objects.get(campaign=maud.campaign).document
    document |= {"draw": [c for c in document["draw"] if c not in ("4S", "9S", "QS")],
                 "hands": [{"character": maud.pk, "name": "Maud", "cards": ["4S", "9S", "QS"]}]}  # fmt: skip
    Table.objects.filter(campaign=maud.campaign).update(document=document)
    hand = text(client.get(reverse("characters:sheet", args=[maud.pk])))
    assert "4 of spades — on the roll: 4, a success" in hand
    assert "9 of spades — on the roll: 9, a failure" in hand
    # Occult + 2 makes the target 10: the roll's 10 would succeed.
    assert "Queen of spades — +2 to a skill until the scene ends: the last roll would succeed" in hand


def test_a_roll_that_leaves_the_table_as_it_was_does_not_touch_it(client, gm, maud, dice) -> None:
    client.force_login(gm)
    dice(1, 5)  # no doubles: no card, nothing at the table changes
    roll_page(client, maud, level="difficult", ability="wits", skill=skill(maud, "Occult"))
    assert Table.objects.get(campaign=maud.campaign).version == 0  # locked for the move, left as it was
    assert not TableChange.objects.exists()
    dice(2, 2)  # doubles: a card, and only then the table changes
    roll_page(client, maud, level="difficult", ability="wits", skill=skill(maud, "Occult"))
    assert Table.objects.get(campaign=maud.campaign).version == 1
    assert list(TableChange.objects.values_list("move", flat=True)) == ["d13-roll"]


def test_a_task_is_rolled_where_rolls_are_made_never_as_a_move_of_its_own(client, api, player, maud) -> None:
    """Where the host calls the rolls, a player rolls a task only as the answer to a call: the move that makes the
    roll is not a way around that."""
    client.force_login(player)
    version = fresh(maud).version
    given = {"version": version, "level": "easy", "ability": "wits"}
    refused = client.post(move_url(maud, "d13-roll"), given)
    assert refused.status_code == 400
    assert "make it from the sheet" in text(refused)
    answer_api = api(player).post(f"/characters/{maud.pk}/moves/d13-roll",
                                  {"version": version, "input": {"level": "easy", "ability": "wits"}})  # fmt: skip
    assert answer_api.status_code == 400
    assert "make it from the sheet" in answer_api.json()["message"]
    rolled = api(player).post(f"/characters/{maud.pk}/rolls", {"level": "easy", "ability": "wits"})
    assert rolled.status_code == 403  # the GM calls the rolls here
    assert not Roll.objects.exists()
    listed = {m["key"]: m for m in api(player).get(f"/characters/{maud.pk}/moves").json()["moves"]}
    assert "make it from the sheet" in listed["d13-roll"]["why_not"]
