"""What the ledger asks of a system besides ``offers`` and ``buy``: the situation the odds are
compared at (``offer_situation``), what a buy form sends (``offer_fields``), a note on what the
odds do not show (``offer_note``), the words and record the ledger keeps (``receipt``), the edit
sections a purchase changes (``purchase_sections``) and taking a purchase back (``refund``).

Checked for Lucky 13 and the tests' Coin system alike, then Lucky 13's own rules. Engine only:
no database."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rules import systems
from rules.systems.base import Option, SpecError
from tests.characters.conftest import FIGHTING, HEALING, SPELLCASTING, TELEPORT, brunella_sheet
from tests.rules.test_protocol import finished
from tests.systems.coin import system as coin

L13 = systems.get("lucky13")
OPTIONS = L13.validate_options({})
SYSTEMS = [pytest.param(L13, id="lucky13"), pytest.param(coin.SYSTEM, id="coin")]


def brunella(**changes: Any):
    """The tests' fighter (``tests.characters.conftest``), read without the database."""
    return L13.read_sheet(brunella_sheet(**changes))


def without_next_id(sheet) -> dict[str, Any]:
    """A sheet's document but for the next id (a refund never hands an id out again)."""
    return {k: v for k, v in sheet.model_dump(mode="json").items() if k != "next_id"}


# --- Every system ---------------------------------------------------------------------------------


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_situation_is_a_list_of_choices_with_a_default(system) -> None:
    sheet, options, _ = finished(system)
    assert system.offer_situation
    for part in system.offer_situation:
        assert isinstance(part, Option)
        assert part.default in dict(part.choices)
        for value, label in part.choices:  # each choice, as a form sends it, gives offers
            assert label
            assert system.offers(sheet, options, {part.key: value})


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_offer_is_bought_recorded_and_refunded(system) -> None:
    sheet, options, _ = finished(system)
    edit_sections = {s.key for s in system.edit_sections}
    for offer in system.offers(sheet, options, {}):
        fields = system.offer_fields(sheet, offer.key, options)
        assert isinstance(fields["before"], int)
        assert set(fields) <= {"before", "name"}
        assert isinstance(system.offer_note(sheet, offer.key, options), str)
        choice = {"before": fields["before"], **({"name": "Brand New"} if "name" in fields else {})}
        after, bought = system.buy(sheet, offer.key, options, choice)
        assert (bought.key, bought.cost, bought.currency) == (offer.key, offer.cost, offer.currency)
        words, record = system.receipt(sheet, after, bought, options)
        assert words
        assert json.loads(json.dumps(record)) == record  # kept in the ledger as JSON
        assert set(system.purchase_sections(record)) <= edit_sections
        assert without_next_id(system.refund(after, record, options)) == without_next_id(sheet)
        with pytest.raises(SpecError) as stale:
            system.buy(sheet, offer.key, options, {**choice, "before": fields["before"] + 1})
        assert stale.value.field == "before"
        assert stale.value.message


@pytest.mark.parametrize("system", SYSTEMS)
def test_an_offer_the_sheet_does_not_have_is_refused_on_the_offer(system) -> None:
    sheet, options, _ = finished(system)
    for method in (system.offer_fields, system.offer_note, system.buy):
        with pytest.raises(SpecError) as refused:
            method(sheet, "nothing:0", options)
        assert refused.value.field == "offer"


# --- Lucky 13 ------------------------------------------------------------------------------------


def test_lucky13_compares_at_a_difficulty_moderate_to_begin() -> None:
    (difficulty,) = L13.offer_situation
    assert (difficulty.key, difficulty.label, difficulty.default) == ("difficulty", "Compare at", "moderate")
    assert difficulty.choices == (
        ("easy", "Easy (d12)"), ("moderate", "Moderate (d10)"), ("difficult", "Difficult (d8)"),
        ("challenging", "Challenging (d6)"), ("extraordinary", "Extraordinary (d4)"), ("heroic", "Heroic (none)"),
    )  # fmt: skip


def test_lucky13_offers_say_what_they_buy_and_at_what() -> None:
    offers = {o.key: o for o in L13.offers(brunella(), OPTIONS, {"difficulty": "challenging"})}
    assert offers[f"level:{TELEPORT}"].label == "Teleport (Spellcasting) 2 → 3"
    assert [e.label for e in offers[f"level:{TELEPORT}"].effects] == ["Spellcasting (Teleport) at Challenging"]
    assert offers[f"specialization:{FIGHTING}"].label == "A new specialization under Fighting"
    assert offers["ability:will"].label == "Will d6 → d8"
    renamed = L13.validate_options({**OPTIONS, "ability_names": ["Resolve", "Charm", "Pulse", "Intellect", "Reflex"]})
    assert {o.key: o.label for o in L13.offers(brunella(), renamed, {})}["ability:will"] == "Resolve d6 → d8"


def test_lucky13_offer_fields_are_what_the_buyer_sees_and_gives() -> None:
    hero = brunella()
    assert L13.offer_fields(hero, f"level:{TELEPORT}", OPTIONS) == {"before": 2}
    assert L13.offer_fields(hero, f"specialization:{FIGHTING}", OPTIONS) == {"before": 0, "name": None}
    assert L13.offer_fields(hero, "ability:reflex", OPTIONS) == {"before": 4}  # d10
    for key, message in [
        ("level:99", "the sheet has no such specialization"),
        (f"level:{HEALING}", "the sheet has no such specialization"),  # a skill's id
        ("specialization:99", "the sheet has no such skill"),
        ("ability:luck", "'luck' is not an ability of the sheet"),
        ("spell", "choose what to buy"),
    ]:
        with pytest.raises(SpecError, match=message):
            L13.offer_fields(hero, key, OPTIONS)


def test_lucky13_notes_what_the_odds_do_not_show() -> None:
    hero = brunella()  # no skill is linked to Charm or Pulse
    assert L13.offer_note(hero, "ability:charm", OPTIONS) == (
        "No skill is linked to this ability; it still adds to every roll made with it."
    )
    assert L13.offer_note(hero, "ability:pulse", OPTIONS) == (
        "No skill is linked to this ability; it still adds to every roll made with it, "
        "and brings a new row of hit points."
    )
    assert L13.offer_note(hero, "ability:will", OPTIONS) == ""  # Healing shows it
    linked = hero.model_copy(update={"skills": tuple(
        s.model_copy(update={"ability": "pulse"}) if s.id == HEALING else s for s in hero.skills)})  # fmt: skip
    assert L13.offer_note(linked, "ability:pulse", OPTIONS) == "It also brings a new row of hit points."
    unlinked = hero.model_copy(update={"skills": tuple(
        s.model_copy(update={"ability": None}) if s.id == SPELLCASTING else s for s in hero.skills)})  # fmt: skip
    assert L13.offer_note(unlinked, f"level:{TELEPORT}", OPTIONS) == (
        "This skill has no linked ability, so there is no check to compare."
    )
    assert L13.offer_note(hero, f"level:{TELEPORT}", OPTIONS) == ""


def full_fighting():
    """Brunella with 50 specializations of Fighting, the most a skill holds."""
    hero = brunella()
    document = hero.model_dump(mode="json")
    fighting = next(s for s in document["skills"] if s["id"] == FIGHTING)
    start = document["next_id"]
    fighting["specializations"] += [{"id": start + i, "name": f"Trick {i}", "level": 1} for i in range(49)]
    document["next_id"] = start + 49
    return L13.read_sheet(document)


def test_lucky13_refuses_a_specialization_past_the_most_a_skill_holds() -> None:
    full = full_fighting()
    assert len(full.skill(FIGHTING).specializations) == 50
    with pytest.raises(SpecError) as refused:
        L13.buy(full, f"specialization:{FIGHTING}", OPTIONS, {"name": "One more"})
    assert (refused.value.field, refused.value.message) == (
        "specializations", "Fighting has 50 specializations, the most a skill holds")  # fmt: skip
    keys = {o.key for o in L13.offers(full, OPTIONS, {})}
    assert f"specialization:{FIGHTING}" not in keys  # not offered either
    assert f"specialization:{HEALING}" in keys


def test_lucky13_refuses_a_bad_name_on_the_name() -> None:
    for name, message in [("  ", "needs a name"), ("x" * 61, "at most 60 characters"), ("teleport", "already has")]:
        with pytest.raises(SpecError, match=message) as refused:
            L13.buy(brunella(), f"specialization:{SPELLCASTING}", OPTIONS, {"name": name})
        assert refused.value.field == "name"


def test_lucky13_says_what_the_sheet_shows_now_when_the_buyer_saw_something_else() -> None:
    with pytest.raises(SpecError, match=r"^before: Teleport is at level 2 now$"):
        L13.buy(brunella(), f"level:{TELEPORT}", OPTIONS, {"before": 1})
    with pytest.raises(SpecError, match=r"^before: Will is d6 now$"):
        L13.buy(brunella(), "ability:will", OPTIONS, {"before": 1})


def test_lucky13_receipt_and_refund() -> None:
    hero = brunella(hit_points=30)
    after, bought = L13.buy(hero, "ability:pulse", OPTIONS, {"before": 3})
    assert (bought.label, after.hit_points) == ("Raise Pulse to d10", 40)
    words, record = L13.receipt(hero, after, bought, OPTIONS)
    assert words == "Pulse d8 → d10"
    assert record == {"offer": "ability:pulse", "kind": "ability", "cost": 32, "before": 3, "ability": "pulse",
                      "after": 4}  # fmt: skip
    assert L13.purchase_sections(record) == ("abilities",)
    assert L13.refund(after, record, OPTIONS) == hero  # the row of hit points goes with it
    with pytest.raises(SpecError, match="no longer the die this purchase bought"):
        L13.refund(hero, record, OPTIONS)
    new, bought = L13.buy(hero, f"specialization:{FIGHTING}", OPTIONS, {"name": "Riposte"})
    words, record = L13.receipt(hero, new, bought, OPTIONS)
    assert (words, L13.purchase_sections(record)) == ("New specialization Riposte (Fighting)", ("specializations",))
    assert L13.purchase_sections({"kind": "something else"}) == ()


@pytest.mark.parametrize(("hit_points", "state"), [(0, "dying"), (-7, "dying"), (-8, "dead")])  # d8 Pulse: dead at −8
def test_lucky13_nothing_bought_raises_the_dying_or_the_dead(hit_points: int, state: str) -> None:
    """README, "Dying and dead characters": a purchase of Pulse is refused (it would add a row of hit
    points and push death further off), and no other purchase changes the hit points or the condition."""
    down = brunella(hit_points=hit_points)
    with pytest.raises(SpecError, match=f"^hit_points: the character is {state}: Adventure Points buy training, not "
                                        "healing, so Pulse cannot be raised") as refused:  # fmt: skip
        L13.buy(down, "ability:pulse", OPTIONS, {"before": 3})
    assert refused.value.field not in {"offer", "before"}  # the sheet cannot take it now: a 409, not the buyer's
    offers = L13.offers(down, OPTIONS, {})
    assert "ability:pulse" not in {o.key for o in offers}
    assert "ability:pulse" in {o.key for o in L13.offers(brunella(hit_points=1), OPTIONS, {})}
    for offer in offers:
        choice = {"name": "Brand New"} if "name" in L13.offer_fields(down, offer.key, OPTIONS) else {}
        after, _ = L13.buy(down, offer.key, OPTIONS, choice)
        assert (after.abilities.pulse, after.hit_points, L13.vitals(after, OPTIONS).state) == ("d8", hit_points, state)


def test_lucky13_a_wounded_character_raises_pulse_and_a_reversal_takes_the_row_back() -> None:
    """A Pulse bought at 22 of 30 hit points comes with its row (32 of 40); taken back, the row goes
    with it (22 of 30), not merely what is above the smaller maximum."""
    hero = brunella(hit_points=22)
    after, bought = L13.buy(hero, "ability:pulse", OPTIONS, {"before": 3})
    assert (after.abilities.pulse, after.hit_points) == ("d10", 32)
    _, record = L13.receipt(hero, after, bought, OPTIONS)
    assert L13.refund(after, record, OPTIONS) == hero
    hurt = after.model_copy(update={"hit_points": 11})  # wounded again since
    assert L13.refund(hurt, record, OPTIONS).hit_points == 1


@pytest.mark.parametrize("hit_points", [10, 3, 0, -4])
def test_lucky13_a_reversal_that_would_leave_the_character_at_0_or_fewer_is_refused(hit_points: int) -> None:
    """Our reading: a correction of points never wounds a character down to dying or dead; the GM
    corrects the hit points first if that is what happened."""
    hero = brunella(hit_points=30)
    after, bought = L13.buy(hero, "ability:pulse", OPTIONS, {"before": 3})
    _, record = L13.receipt(hero, after, bought, OPTIONS)
    hurt = after.model_copy(update={"hit_points": hit_points})
    with pytest.raises(SpecError, match=f"^purchase: taking this Pulse back takes the 10 hit points it added and "
                                        f"would leave the character at {hit_points - 10} hit points"):  # fmt: skip
        L13.refund(hurt, record, OPTIONS)
