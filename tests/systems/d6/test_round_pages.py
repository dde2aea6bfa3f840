"""D6's round on its page, kept on the sheet between pages: declared, rolled use by use, a reaction, a luck
point and the GM's wound mid-round, a round of nothing that prepares the next, and every refusal."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from characters.models import Character, SheetChange
from play.models import Roll
from rules.systems.d6.chance import p_at_least
from rules.systems.d6.codes import DieCode
from tests.systems.d6.helpers import made, spend_url

pytestmark = pytest.mark.django_db


def round_url(character: Character) -> str:
    return reverse("d6:round", args=[character.pk])


def skills(character: Character) -> dict[str, int]:
    return {s.name: s.id for s in character.document.skills} | {s.name: s.id for s in character.document.stats}


def version(character: Character) -> str:
    character.refresh_from_db()
    return str(character.section_versions.get("round", 0))


def declare(client, character: Character, items: list[int], difficulty: int | None = 8, **extra) -> object:
    data = {"action": "declare", "version": version(character)}
    for i, item in enumerate(items):
        data[f"action-{i}-item"] = str(item)
        data[f"action-{i}-difficulty"] = "" if difficulty is None else str(difficulty)
    return client.post(round_url(character), data | extra)


def roll(client, character: Character, **fields) -> object:
    return client.post(round_url(character), {"action": "roll", "version": version(character)} | fields)


@pytest.fixture
def dice(monkeypatch):
    monkeypatch.setattr("play.moves.secrets.SystemRandom", lambda: random.Random(2))


def test_jericho_declares_rolls_a_shot_dodges_and_the_round_is_kept(client, dice, d6_campaign, player) -> None:
    """The text's Jericho, as Talia: three shots at 4d+1 are at 2d+1; she fires once, then dodges (4d, the
    fourth use: 1d); the two shots left are at 1d+1, and the round is there when she comes back."""
    talia = made(client, d6_campaign, player)
    ids = skills(talia)
    preview = client.post(round_url(talia), {"action": "preview", "version": "0", "action-0-item": ids["Firearms"],
                                             "action-0-difficulty": "8", "action-1-item": ids["Firearms"],
                                             "action-1-difficulty": "8", "action-2-item": ids["Firearms"],
                                             "action-2-difficulty": "8"})  # fmt: skip
    assert preview.status_code == 200
    assert preview.text.count("2d+1") >= 3
    assert "3 actions: −2d" in preview.text
    talia.refresh_from_db()
    assert talia.document.round is None  # a preview keeps nothing
    assert declare(client, talia, [ids["Firearms"]] * 3).status_code == 302
    page = client.get(round_url(talia))
    chance = p_at_least(DieCode.parse("2d+1"), 8)
    assert page.text.count("2d+1") >= 3
    assert f"{chance.numerator}/{chance.denominator}" in page.text
    first = roll(client, talia, roll="a0")
    assert first.status_code == 302
    assert "rolled=" in first["Location"]
    assert "rolled" in client.get(first["Location"]).text
    dodge = roll(client, talia, roll="r", reaction=str(ids["Dodge"]), reaction_difficulty="12")
    assert dodge.status_code == 302
    shown = client.get(round_url(talia)).text
    assert shown.count("1d+1") >= 2  # the two shots left, one more −1d
    rolls = list(Roll.objects.order_by("seq"))
    assert [r.spec["code"] for r in rolls] == ["2d+1", "1d"]
    assert rolls[1].spec["steps"] == ["3 actions: −2d", "reaction: −1d"]
    assert rolls[1].label == "Dodge 1d against 12 (a reaction)"
    talia.refresh_from_db()
    steps = talia.document.round.steps
    assert [(s.what, s.roll) for s in steps] == [("attempt", rolls[0].seq), ("reaction", rolls[1].seq)]
    assert SheetChange.objects.filter(character=talia, what__startswith="The round:").count() == 2
    again = declare(client, talia, [ids["Firearms"]])
    assert again.status_code == 400
    assert "declared actions stay declared" in again.text
    twice = roll(client, talia, roll="a0")
    assert twice.status_code == 400
    assert "already attempted" in twice.text
    assert Roll.objects.count() == 2


def test_a_luck_point_mid_round_doubles_what_follows(client, dice, d6_campaign, player) -> None:
    talia = made(client, d6_campaign, player)
    ids = skills(talia)
    declare(client, talia, [ids["Firearms"]] * 2)
    roll(client, talia, roll="a0")
    planner = client.get(round_url(talia)).text
    assert f'href="{spend_url(talia)}?next={round_url(talia)}"' in planner  # from the round, back to it
    spent = client.post(spend_url(talia), {"version": str(talia.section_versions.get("luck", 0)), "kind": "double",
                                           "next": round_url(talia)})  # fmt: skip
    assert spent.status_code == 302
    assert spent["Location"] == round_url(talia)
    elsewhere = client.post(
        spend_url(talia), {"version": version(talia), "kind": "double", "next": "https://evil.example/"}
    )
    assert elsewhere.status_code == 400  # refused by the rules (a round doubled once): the page, never elsewhere
    page = client.get(round_url(talia)).text
    assert "doubled" in page
    assert "7d+2" in page  # 4d+1 doubled is 8d+2, then −1d for two actions
    roll(client, talia, roll="a1")
    codes = [r.spec["code"] for r in Roll.objects.order_by("seq")]
    assert codes == ["3d+1", "7d+2"]
    assert Roll.objects.order_by("seq").last().spec["steps"] == ["luck point: doubled", "2 actions: −1d"]
    again = client.post(spend_url(talia), {"version": version(talia), "kind": "double"})
    assert again.status_code == 400  # no point left, or a round doubled once
    talia.refresh_from_db()
    assert talia.document.luck_points == 0
    # Outside the planner, a roll of the sheet this round is a use of it: doubled too, a dodge one more use.
    sheet_roll = client.get(reverse("play:sheet-roll", args=[talia.pk]), {"item": ids["Dodge"], "difficulty": 10})
    assert "6d against" in sheet_roll.text  # 4d doubled is 8d, −1d for two actions, −1d for the reaction
    assert "luck point: doubled" in sheet_roll.text
    assert "reaction: −1d" in sheet_roll.text
    ended = client.post(round_url(talia), {"action": "end", "version": version(talia)})
    assert ended.status_code == 302
    talia.refresh_from_db()
    assert talia.document.round is None


def test_a_luck_point_before_the_round_doubles_the_round_then_declared(client, dice, d6_campaign, player) -> None:
    talia = made(client, d6_campaign, player)
    ids = skills(talia)
    client.post(spend_url(talia), {"version": "0", "kind": "double"})
    talia.refresh_from_db()
    assert talia.document.round.doubled
    assert not talia.document.round.declared
    assert "doubled" in client.get(reverse("characters:sheet", args=[talia.pk])).text
    declare(client, talia, [ids["Firearms"]])
    roll(client, talia, roll="a0")
    assert Roll.objects.get().spec["code"] == "8d+2"


def test_the_gm_wounds_mid_round_and_a_wound_set_elsewhere_counts_from_then(
    client, dice, d6_campaign, gm, player
) -> None:
    talia = made(client, d6_campaign, player)
    ids = skills(talia)
    declare(client, talia, [ids["Firearms"]] * 3)
    roll(client, talia, roll="a0")
    refused = client.post(round_url(talia), {"action": "wounded", "version": version(talia)})
    assert refused.status_code == 403
    client.force_login(gm)
    wounded = client.post(round_url(talia), {"action": "wounded", "version": version(talia)})
    assert wounded.status_code == 302
    talia.refresh_from_db()
    assert talia.document.wounds == 1
    assert [s.what for s in talia.document.round.steps] == ["attempt", "wounded"]
    # A stun set on the sheet (not on the planner) counts from now, and the next roll records it.
    from rules.systems import get
    from rules.systems.base import Role

    stunned = get("d6").edit(talia.document, "conditions", {"wounds": 1, "stunned": True}, role=Role.GM,
                             options=d6_campaign.settings)  # fmt: skip
    Character.objects.filter(pk=talia.pk).update(sheet=stunned.model_dump(mode="json"))
    assert "0d+1" in client.get(round_url(talia)).text  # 4d+1 −2d −1d −1d
    roll(
        client,
        talia,
        roll="a1",
    )
    last = Roll.objects.order_by("seq").last()
    assert last.spec["code"] == "0d+1"
    assert last.spec["steps"][:3] == ["3 actions: −2d", "wounded: −1d", "stunned: −1d"]
    talia.refresh_from_db()
    assert [s.what for s in talia.document.round.steps] == ["attempt", "wounded", "stunned", "attempt"]


def test_a_round_of_nothing_prepares_one_skill_for_the_next(client, dice, d6_campaign, player) -> None:
    talia = made(client, d6_campaign, player)
    ids = skills(talia)
    passed = client.post(round_url(talia), {"action": "end", "version": "0", "prepare": str(ids["Firearms"])})
    assert passed.status_code == 302
    talia.refresh_from_db()
    assert talia.document.prepared == ids["Firearms"]
    page = client.get(round_url(talia)).text
    assert "The last round prepared Firearms" in page
    two = declare(client, talia, [ids["Firearms"]] * 2, prepared="on")
    assert two.status_code == 400
    assert "declare one, or give up the preparation" in two.text
    assert declare(client, talia, [ids["Firearms"]], prepared="on").status_code == 302
    roll(client, talia, roll="a0")
    assert Roll.objects.get().spec["code"] == "5d+1"
    not_nothing = client.post(round_url(talia), {"action": "end", "version": version(talia),
                                                 "prepare": str(ids["Firearms"])})  # fmt: skip
    assert not_nothing.status_code == 400
    assert "only a round of nothing at all" in not_nothing.text.lower()
    client.post(round_url(talia), {"action": "end", "version": version(talia)})
    talia.refresh_from_db()
    assert talia.document.prepared is None
    assert talia.document.round is None


def test_a_bad_or_stale_step_is_refused_by_its_field_and_changes_nothing(client, dice, d6_campaign, player,
                                                                          other_player) -> None:  # fmt: skip
    talia = made(client, d6_campaign, player)
    ids = skills(talia)
    bad = declare(client, talia, [99999])
    assert bad.status_code == 400
    assert "is not one of this character" in bad.text
    reaction = declare(client, talia, [ids["Dodge"]])
    assert reaction.status_code == 400
    assert "a reaction skill is used mid-round" in reaction.text
    no_version = client.post(round_url(talia), {"action": "declare", "action-0-item": ids["Firearms"]})
    assert no_version.status_code == 400
    declare(client, talia, [ids["Firearms"]], difficulty=None)
    no_difficulty = roll(client, talia, roll="a0")
    assert no_difficulty.status_code == 400
    assert "name the difficulty of 1. firearms" in no_difficulty.text.lower()
    forged = roll(client, talia, roll="a5", difficulty="8")
    assert forged.status_code == 400
    not_reaction = roll(client, talia, roll="r", reaction=str(ids["Firearms"]), reaction_difficulty="8")
    assert not_reaction.status_code == 400
    stale = client.post(round_url(talia), {"action": "roll", "roll": "a0", "difficulty": "8", "version": "1"})
    assert stale.status_code == 409
    assert "The round changed since you opened this page" in stale.text
    assert not Roll.objects.exists()
    named = roll(client, talia, roll="a0", difficulty="9")  # the difficulty named as it is rolled
    assert named.status_code == 302
    assert Roll.objects.get().spec["difficulty"] == 9
    client.force_login(other_player)
    seen = client.get(round_url(talia))  # the party sees the round, and cannot play it
    assert seen.status_code == 200
    assert 'value="a0"' not in seen.text
    assert "React and roll" not in seen.text
    assert roll(client, talia, roll="r", reaction=str(ids["Dodge"]), reaction_difficulty="8").status_code == 403
    assert Roll.objects.count() == 1


def test_a_failed_roll_keeps_the_declaration_and_says_which_box(client, dice, d6_campaign, player) -> None:
    talia = made(client, d6_campaign, player)
    ids = skills(talia)
    declare(client, talia, [ids["Firearms"], ids["Dexterity"]], difficulty=None)
    bad = roll(client, talia, roll="a1", difficulty="5000")
    assert bad.status_code == 400
    text = bad.text
    assert text.count('aria-invalid="true"') == 1  # the box of the use rolled, no other
    assert 'id="difficulty-1" name="difficulty"' in text
    assert 'value="5000"' in text
    assert "Difficulty of 2. Dexterity" in text
    # The declaration form still holds the round as declared, so declaring again keeps it.
    assert f'<option value="{ids["Firearms"]}" selected>' in text
    assert f'<option value="{ids["Dexterity"]}" selected>' in text
    talia.refresh_from_db()
    assert len(talia.document.round.actions) == 2
    reaction = roll(client, talia, roll="r", reaction=str(ids["Dodge"]), reaction_difficulty="abc")
    assert reaction.status_code == 400
    assert 'value="abc"' in reaction.text


def test_the_gms_correction_of_codes_makes_an_open_round_page_stale(client, dice, d6_campaign, gm, player) -> None:
    from characters import operations

    talia = made(client, d6_campaign, player)
    ids = skills(talia)
    declare(client, talia, [ids["Firearms"]] * 2)
    seen = version(talia)
    talia.refresh_from_db()
    codes = str(talia.section_versions.get("codes", 0))
    operations.save_value(character_id=talia.pk, section="codes", version=int(codes),
                          value={"skills": {str(ids["Firearms"]): "5d"}}, by=gm)  # fmt: skip
    stale = client.post(round_url(talia), {"action": "roll", "roll": "a0", "version": seen})
    assert stale.status_code == 409
    assert not Roll.objects.exists()
    assert "4d" in stale.text  # the round as it is now: 5d less 1d
    # A correction the round cannot take is refused where it is made, with the reason; the round still shows.
    talia.refresh_from_db()
    with pytest.raises(operations.InvalidSection) as refused:
        operations.save_value(character_id=talia.pk, section="codes",
                              version=talia.section_versions.get("codes", 0),
                              value={"skills": {str(ids["Firearms"]): "30d"}}, by=gm)  # fmt: skip
    assert "round" in str(refused.value.errors)
    assert client.get(round_url(talia)).status_code == 200


@pytest.mark.parametrize("steps", [1, 6])
def test_the_round_page_costs_the_same_however_long_the_round(client, dice, d6_campaign, player, steps,
                                                              django_assert_num_queries) -> None:  # fmt: skip
    """The round lives on the sheet's row: the session with its user, the character with its campaign and the
    viewer's role, and the roll just made (by its key, with who made it); the same whatever the round holds or
    the log's length."""
    talia = made(client, d6_campaign, player)
    ids = skills(talia)
    declare(client, talia, [ids["Firearms"]] * 3)
    for _ in range(steps):
        rolled = roll(client, talia, roll="r", reaction=str(ids["Dodge"]), reaction_difficulty="5")
    with django_assert_num_queries(3):
        page = client.get(rolled["Location"])
    assert page.status_code == 200
