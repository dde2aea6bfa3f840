"""The Adventure-Point ledger: GM awards, purchases by the rulebook, corrections, the
reputation history; append-only in code and on PostgreSQL; safe under concurrent requests."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import F, Sum
from django.utils import timezone

from campaigns.models import AppendOnly
from campaigns.operations import Conflict, NotAllowed, NotFound, Refused
from characters import ledger, write
from characters.ledger import Award, Order
from characters.models import Balance, Character, LedgerEntry, ReputationChange, SheetChange
from games.lucky13 import sections
from rules.dice import StepDie
from tests.characters.conftest import (
    FIGHTING,
    FIREBALL,
    HEALING,
    LONGSWORD_SPEC,
    SPELLCASTING,
    TELEPORT,
    brunella_sheet,
    make_character,
    on_own_connection,
)

pytestmark = pytest.mark.django_db

D = StepDie.parse
#: Brunella's ability dice (``tests.characters.conftest``).
ABILITIES = {"will": "d6", "charm": "d4", "pulse": "d8", "intellect": "d6", "reflex": "d10"}
TELEPORT_UP = Order(f"level:{TELEPORT}")


def abilities(**dice: str) -> dict[str, str]:
    """Brunella's abilities with ``dice`` changed."""
    return {**ABILITIES, **dice}


def sheet_of(character: Character):
    """The character's sheet as it is in the database now."""
    character.refresh_from_db()
    return character.document


def level(character: Character, spec_id: int) -> int | None:
    found = sheet_of(character).specialization(spec_id)
    return found[1].level if found else None


def specializations(character: Character) -> list[tuple[str, int]]:
    return [(p.name, p.level) for s in sheet_of(character).skills for p in s.specializations]


def named(character: Character, name: str):
    """The specialization called ``name`` on the sheet, or None."""
    return next((p for s in sheet_of(character).skills for p in s.specializations if p.name == name), None)


def rename(character: Character, spec_id: int, name: str) -> None:
    """Renames a specialization straight in the database, as a GM's edit would."""
    sheet = sheet_of(character).model_dump(mode="json")
    for skill in sheet["skills"]:
        for spec in skill["specializations"]:
            if spec["id"] == spec_id:
                spec["name"] = name
    Character.objects.filter(pk=character.pk).update(sheet=sheet)


def fund(character: Character, gm, amount: int, reason: str = "Completing the mission") -> LedgerEntry:
    (entry,) = ledger.award(
        campaign_id=character.campaign_id, awards=[Award(character.pk, amount)], reason=reason, by=gm
    ).entries
    character.refresh_from_db()
    return entry


def assert_balanced(character: Character) -> None:
    """The stored balance is the sum of the entries, and each entry's running balance adds up."""
    character.refresh_from_db()
    entries = list(LedgerEntry.objects.filter(character=character).order_by("pk"))
    running = 0
    for entry in entries:
        running += entry.amount
        assert entry.balance == running >= 0
    assert (
        ledger.balance(character)
        == running
        == (LedgerEntry.objects.filter(character=character).aggregate(total=Sum("amount"))["total"] or 0)
    )


# --- Awards ---------------------------------------------------------------------------------------


def test_the_gm_awards_the_party_with_overrides_and_reputation(
    campaign, gm, player, other_player, django_capture_on_commit_callbacks
) -> None:
    brunella = make_character(campaign, player)
    tam = make_character(campaign, other_player, name="Tam", reputation=0)
    version = brunella.version
    heard: list[int] = []

    def listener(sender, character_ids, **kwargs) -> None:
        heard.extend(character_ids)

    write.characters_changed.connect(listener)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            awarded = ledger.award(
                campaign_id=campaign.pk,
                awards=[Award(brunella.pk, 12, reputation=1), Award(tam.pk, 15, reason="A heroic act")],
                reason="Completing the mission",
                adventure="The Drowned Bell",
                by=gm,
            )
    finally:
        write.characters_changed.disconnect(listener)
    brunella.refresh_from_db()
    tam.refresh_from_db()
    assert (ledger.balance(brunella), ledger.balance(tam)) == (12, 15)
    assert [(e.character_id, e.amount, e.reason, e.adventure, e.kind) for e in awarded.entries] == [
        (brunella.pk, 12, "Completing the mission", "The Drowned Bell", "award"),
        (tam.pk, 15, "A heroic act", "The Drowned Bell", "award"),
    ]
    assert brunella.document.reputation == 2
    assert SheetChange.objects.get(character=brunella).what == "Reputation +1: Completing the mission"
    (change,) = awarded.reputation
    assert (change.character_id, change.change, change.reputation, change.by_id) == (brunella.pk, 1, 2, gm.pk)
    assert brunella.version == version + 1
    assert sorted(heard) == sorted([brunella.pk, tam.pk])  # the dashboard hears of both, after commit
    assert_balanced(brunella)
    assert_balanced(tam)


@pytest.mark.parametrize(
    ("amount", "reputation", "message"),
    [
        (1001, 0, "Points must be a whole number from 0 to 1000"),
        (-5, 0, "Points must be a whole number from 0 to 1000"),
        (2.5, 0, "Points must be a whole number from 0 to 1000"),
        ("12", 0, "Points must be a whole number from 0 to 1000"),
        (5, 5, "would take it past the limits"),  # Brunella is at +1
        (5, -7, "would take it past the limits"),
        (5, 11, "Reputation change must be a whole number from -10 to 10"),
    ],
)
def test_a_bad_award_changes_nothing(campaign, gm, player, other_player, amount, reputation, message) -> None:
    brunella = make_character(campaign, player)
    tam = make_character(campaign, other_player, name="Tam")
    with pytest.raises(Refused, match=message):
        ledger.award(
            campaign_id=campaign.pk,
            awards=[Award(tam.pk, 10), Award(brunella.pk, amount, reputation=reputation)],
            reason="Completing the mission",
            by=gm,
        )
    assert not LedgerEntry.objects.exists()
    assert not ReputationChange.objects.exists()
    assert [(ledger.balance(c), c.document.reputation) for c in Character.objects.order_by("pk")] == [(0, 1), (0, 1)]


def test_an_award_must_give_something(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    with pytest.raises(Refused, match="Give at least one character"):
        ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 0)], reason="Mission", by=gm)


def test_an_award_needs_a_reason(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    with pytest.raises(Refused, match="Give a reason"):
        ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 10)], reason="  ", by=gm)
    assert not LedgerEntry.objects.exists()


def test_only_characters_in_play_in_the_campaign_are_awarded(campaign, gm, player, other_player) -> None:
    from campaigns.models import Campaign

    elsewhere = Campaign.objects.create(name="Elsewhere", system="lucky13")
    stranger = make_character(elsewhere, other_player, name="Stranger")
    draft = Character.objects.create(campaign=campaign, owner=player, name="Draft")
    for who in (stranger, draft):
        with pytest.raises(Refused, match="not in play in this campaign"):
            ledger.award(campaign_id=campaign.pk, awards=[Award(who.pk, 10)], reason="Mission", by=gm)
    assert not LedgerEntry.objects.exists()


def test_players_cannot_award_and_outsiders_do_not_find_the_campaign(campaign, player, outsider) -> None:
    brunella = make_character(campaign, player)
    with pytest.raises(NotAllowed):
        ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 10)], reason="Me", by=player)
    with pytest.raises(NotFound):
        ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 10)], reason="Me", by=outsider)
    assert not LedgerEntry.objects.exists()


def test_an_archived_campaign_takes_no_awards(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    campaign.archived_at = timezone.now()
    campaign.save()
    with pytest.raises(Conflict, match="archived"):
        ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 10)], reason="Mission", by=gm)


def test_the_gm_changing_reputation_on_the_sheet_is_kept_in_its_history(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    sections.save_section(character_id=brunella.pk, section="reputation", version=0, data=-2, by=gm)
    (change,) = ReputationChange.objects.all()
    assert (change.change, change.reputation, change.reason) == (-3, -2, "Changed on the sheet")


# --- Purchases ------------------------------------------------------------------------------------


def test_buying_a_level_changes_the_sheet_and_writes_the_entry(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    fund(brunella, gm, 12)
    entry = ledger.buy(character_id=brunella.pk, order=TELEPORT_UP, by=player)
    assert (entry.kind, entry.amount, entry.balance, entry.reason) == ("spend", -4, 8, "Teleport (Spellcasting) 2 → 3")
    assert entry.purchase == {
        "offer": f"level:{TELEPORT}", "kind": "level", "cost": 4, "before": 2, "after": 3,
        "skill_id": SPELLCASTING, "skill": "Spellcasting", "specialization_id": TELEPORT, "name": "Teleport",
    }  # fmt: skip
    assert level(brunella, TELEPORT) == 3
    assert brunella.section_versions["specializations"] == brunella.version
    change = SheetChange.objects.filter(character=brunella).get()  # the sheet's history has the purchase
    assert (change.what, change.by, change.version) == ("Teleport (Spellcasting) to level 3", player, brunella.version)
    assert_balanced(brunella)


def test_buying_a_new_specialization(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    fund(brunella, gm, 4)
    entry = ledger.buy(character_id=brunella.pk, order=Order(f"specialization:{FIGHTING}", " Shield wall "), by=gm)
    fighting = sheet_of(brunella).skill(FIGHTING)
    (new,) = [p for p in fighting.specializations if p.name == "Shield wall"]
    assert (new.level, new.id) == (1, 15)  # the sheet's next id
    assert entry.reason == "New specialization Shield wall (Fighting)"
    assert entry.purchase == {
        "offer": f"specialization:{FIGHTING}", "kind": "specialization", "cost": 4, "before": 0, "after": 1,
        "skill_id": FIGHTING, "skill": "Fighting", "specialization_id": 15, "name": "Shield wall",
    }  # fmt: skip
    assert_balanced(brunella)
    assert ledger.balance(brunella) == 0


@pytest.mark.parametrize(("before", "after", "cost"), [("d4", "d6", 16), ("d6", "d8", 24), ("d8", "d10", 32),
                                                       ("d10", "d12", 40)])  # fmt: skip
def test_buying_an_ability_costs_its_die_size_times_four(campaign, gm, player, before, after, cost) -> None:
    brunella = make_character(campaign, player, abilities=abilities(will=before))
    fund(brunella, gm, cost + 1)
    entry = ledger.buy(character_id=brunella.pk, order=Order("ability:will"), by=player)
    assert (entry.amount, entry.reason, sheet_of(brunella).abilities.will, ledger.balance(brunella)) == (
        -cost,
        f"Will {before} → {after}",
        after,
        1,
    )
    assert entry.purchase == {"offer": "ability:will", "kind": "ability", "cost": cost, "ability": "will",
                              "before": D(before).rung, "after": D(after).rung}  # fmt: skip
    assert brunella.section_versions["abilities"] == brunella.version


def test_a_larger_pulse_brings_a_new_row_of_full_hit_points(campaign, gm, player) -> None:
    brunella = make_character(campaign, player, hit_points=22)  # d8 Pulse: 30 at most
    fund(brunella, gm, 32)
    ledger.buy(character_id=brunella.pk, order=Order("ability:pulse"), by=player)
    sheet = sheet_of(brunella)
    assert (sheet.abilities.pulse, sheet.hit_points) == ("d10", 32)


@pytest.mark.parametrize(("hit_points", "state"), [(0, "dying"), (-8, "dead")])  # d8 Pulse: dead at −8
def test_the_dying_and_the_dead_buy_no_pulse(campaign, gm, player, hit_points, state) -> None:
    """Adventure Points buy training, not healing: a dead Casimir at −8 does not buy Pulse d10 and come
    back at 2 hit points. A 409, nothing spent, nothing changed; training is still bought."""
    casimir = make_character(campaign, player, name="Casimir", hit_points=hit_points)
    fund(casimir, gm, 40)
    before = (casimir.version, casimir.sheet)
    with pytest.raises(Conflict, match=f"^The character is {state}: Adventure Points buy training, not healing, "
                                       "so Pulse cannot be raised") as refused:  # fmt: skip
        ledger.buy(character_id=casimir.pk, order=Order("ability:pulse", before=3), by=player)
    assert refused.value.status == 409
    casimir.refresh_from_db()
    assert (casimir.version, casimir.sheet) == before
    assert (ledger.balance(casimir), LedgerEntry.objects.count(), SheetChange.objects.exists()) == (40, 1, False)
    ledger.buy(character_id=casimir.pk, order=TELEPORT_UP, by=player)
    assert (level(casimir, TELEPORT), sheet_of(casimir).hit_points) == (3, hit_points)


def test_the_ledger_keeps_the_words_of_the_time(campaign, gm, player) -> None:
    """A purchase names what it bought by id, and keeps the names it had: a rename later changes neither."""
    brunella = make_character(campaign, player)
    fund(brunella, gm, 8)
    entry = ledger.buy(character_id=brunella.pk, order=TELEPORT_UP, by=player)
    rename(brunella, TELEPORT, "Blink")
    entry.refresh_from_db()
    assert (entry.reason, entry.purchase["name"], entry.purchase["specialization_id"]) == (
        "Teleport (Spellcasting) 2 → 3", "Teleport", TELEPORT)  # fmt: skip
    second = ledger.buy(character_id=brunella.pk, order=TELEPORT_UP, by=player)
    assert second.reason == "Blink (Spellcasting) 3 → 4"


def _longsword_at_five(sheet: dict) -> dict:
    sheet["skills"][FIGHTING - 1]["specializations"][0]["level"] = 5
    return sheet


@pytest.mark.parametrize(
    ("order", "balance", "error", "message"),
    [
        (TELEPORT_UP, 3, ledger.NotEnoughPoints, "has 3 Adventure Points; this needs 4"),
        (Order("ability:will"), 23, ledger.NotEnoughPoints, "this needs 24"),
        (Order("ability:reflex"), 100, Conflict, "Abilities stop at d12"),
        (Order(f"level:{LONGSWORD_SPEC}"), 100, Conflict, "level 5, the highest"),
        (Order(f"specialization:{SPELLCASTING}", "teleport"), 100, Refused, "already has a specialization called"),
        (Order(f"specialization:{SPELLCASTING}", "  "), 100, Refused, "needs a name"),
        (Order(f"specialization:{SPELLCASTING}", "x" * 61), 100, Refused, "names are at most 60 characters"),
        (Order("specialization:99", "Clubs"), 100, Refused, "The sheet has no such skill"),
        (Order("level:99"), 100, Refused, "The sheet has no such specialization"),
        (Order(f"level:{HEALING}"), 100, Refused, "The sheet has no such specialization"),  # a skill's id
        (Order("level:x"), 100, Refused, "The sheet has no such specialization"),
        (Order(f"level:{TELEPORT}", "Blink"), 100, Refused, "This purchase takes no name"),
        (Order("ability:luck"), 100, Refused, "'luck' is not an ability"),
        (Order("spell"), 100, Refused, "Choose what to buy"),
        (Order("skill:5"), 100, Refused, "Choose what to buy"),
    ],
)
def test_a_purchase_that_cannot_be_made_changes_nothing(campaign, gm, player, order, balance, error, message) -> None:
    brunella = make_character(campaign, player, abilities=abilities(reflex="d12"))
    Character.objects.filter(pk=brunella.pk).update(sheet=_longsword_at_five(brunella.sheet))
    fund(brunella, gm, balance)
    before = (brunella.version, brunella.sheet)
    with pytest.raises(error, match=message):
        ledger.buy(character_id=brunella.pk, order=order, by=player)
    brunella.refresh_from_db()
    assert (brunella.version, brunella.sheet) == before
    assert ledger.balance(brunella) == balance
    assert LedgerEntry.objects.count() == 1
    assert not SheetChange.objects.exists()


def test_a_skill_that_holds_the_most_specializations_takes_no_more(campaign, gm, player) -> None:
    """The sheet's limit (50 specializations a skill) is the system's: a clear 409, nothing bought."""
    brunella = make_character(campaign, player)
    sheet = brunella.sheet
    fighting = next(s for s in sheet["skills"] if s["id"] == FIGHTING)
    fighting["specializations"] += [{"id": 15 + i, "name": f"Trick {i}", "level": 1} for i in range(49)]
    Character.objects.filter(pk=brunella.pk).update(sheet={**sheet, "next_id": 64})
    fund(brunella, gm, 10)
    before = (brunella.version, Character.objects.get(pk=brunella.pk).sheet)
    with pytest.raises(Conflict, match=r"^Fighting has 50 specializations, the most a skill holds\.$") as refused:
        ledger.buy(character_id=brunella.pk, order=Order(f"specialization:{FIGHTING}", "Riposte"), by=player)
    assert refused.value.status == 409
    brunella.refresh_from_db()
    assert (brunella.version, brunella.sheet) == before
    assert ledger.balance(brunella) == 10
    assert not SheetChange.objects.exists()


def test_a_purchase_from_a_stale_sheet_is_refused(campaign, gm, player) -> None:
    """Two tabs showed Teleport 2 → 3: the first click buys it, the second is refused."""
    brunella = make_character(campaign, player)
    fund(brunella, gm, 40)
    ledger.buy(character_id=brunella.pk, order=Order(f"level:{TELEPORT}", before=2), by=gm)
    with pytest.raises(write.StaleSheet, match="Teleport is at level 3 now: the sheet changed since you looked"):
        ledger.buy(character_id=brunella.pk, order=Order(f"level:{TELEPORT}", before=2), by=player)
    with pytest.raises(write.StaleSheet, match="Will is d6 now"):
        ledger.buy(character_id=brunella.pk, order=Order("ability:will", before=1), by=player)
    assert level(brunella, TELEPORT) == 3
    assert ledger.balance(brunella) == 36


def test_who_may_spend(campaign, gm, player, other_player, outsider) -> None:
    brunella = make_character(campaign, player)
    fund(brunella, gm, 20)
    with pytest.raises(NotAllowed, match="Only the character's player and the GM"):
        ledger.buy(character_id=brunella.pk, order=TELEPORT_UP, by=other_player)
    with pytest.raises(NotFound):
        ledger.buy(character_id=brunella.pk, order=TELEPORT_UP, by=outsider)
    with pytest.raises(NotFound):
        ledger.buy(character_id=0, order=TELEPORT_UP, by=player)
    assert LedgerEntry.objects.count() == 1


def test_an_archived_character_spends_nothing(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    fund(brunella, gm, 20)
    Character.objects.filter(pk=brunella.pk).update(status=Character.Status.ARCHIVED)
    with pytest.raises(Conflict, match="not in play"):
        ledger.buy(character_id=brunella.pk, order=Order("ability:will"), by=player)


# --- Corrections ----------------------------------------------------------------------------------


def test_the_gm_reverses_an_award(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    award = fund(brunella, gm, 12)
    correction = ledger.correct(character_id=brunella.pk, entry_id=award.pk, reason="Wrong character", by=gm)
    assert (correction.kind, correction.amount, correction.reverses_id, correction.balance) == (
        "correction",
        -12,
        award.pk,
        0,
    )
    assert_balanced(brunella)
    with pytest.raises(Conflict, match="already been reversed"):
        ledger.correct(character_id=brunella.pk, entry_id=award.pk, reason="Again", by=gm)
    with pytest.raises(Conflict, match="cannot itself be reversed"):
        ledger.correct(character_id=brunella.pk, entry_id=correction.pk, reason="Undo", by=gm)


def test_reversing_a_spend_takes_back_the_purchase(campaign, gm, player) -> None:
    brunella = make_character(campaign, player, hit_points=30)
    fund(brunella, gm, 44)
    new = ledger.buy(character_id=brunella.pk, order=Order(f"specialization:{FIGHTING}", "Parry"), by=player)
    pulse = ledger.buy(character_id=brunella.pk, order=Order("ability:pulse"), by=player)
    up = ledger.buy(character_id=brunella.pk, order=TELEPORT_UP, by=player)
    ledger.correct(character_id=brunella.pk, entry_id=pulse.pk, reason="Misclick", by=gm)
    ledger.correct(character_id=brunella.pk, entry_id=new.pk, reason="Misclick", by=gm)
    ledger.correct(character_id=brunella.pk, entry_id=up.pk, reason="Misclick", by=gm)
    sheet = sheet_of(brunella)
    assert (sheet.abilities.pulse, sheet.hit_points, ledger.balance(brunella)) == ("d8", 30, 44)
    assert named(brunella, "Parry") is None
    assert level(brunella, TELEPORT) == 2
    assert sheet.model_dump(mode="json") == {**brunella_sheet(), "next_id": 16}  # an id is never handed out again
    assert SheetChange.objects.filter(character=brunella).first().what == "Reversed: Teleport (Spellcasting) 2 → 3"
    assert_balanced(brunella)


def test_reversing_a_pulse_bought_while_wounded_takes_back_the_hit_points_it_added(campaign, gm, player) -> None:
    brunella = make_character(campaign, player, hit_points=22)
    fund(brunella, gm, 32)
    pulse = ledger.buy(character_id=brunella.pk, order=Order("ability:pulse"), by=player)
    assert sheet_of(brunella).hit_points == 32
    ledger.correct(character_id=brunella.pk, entry_id=pulse.pk, reason="Misclick", by=gm)
    sheet = sheet_of(brunella)
    assert (sheet.abilities.pulse, sheet.hit_points, ledger.balance(brunella)) == ("d8", 22, 32)
    assert_balanced(brunella)


def test_a_reversal_that_would_leave_the_character_dying_is_refused(campaign, gm, player) -> None:
    """Taking the row back from a character wounded to 6 of 40 would leave them at −4: the GM corrects
    the hit points first; nothing changes."""
    brunella = make_character(campaign, player, hit_points=30)
    fund(brunella, gm, 32)
    pulse = ledger.buy(character_id=brunella.pk, order=Order("ability:pulse"), by=player)
    Character.objects.filter(pk=brunella.pk).update(sheet={**sheet_of(brunella).model_dump(mode="json"),
                                                           "hit_points": 6})  # fmt: skip
    brunella.refresh_from_db()
    before = (brunella.version, brunella.sheet)
    with pytest.raises(Conflict, match="would leave the character at -4 hit points: correct the hit points first"):
        ledger.correct(character_id=brunella.pk, entry_id=pulse.pk, reason="Misclick", by=gm)
    brunella.refresh_from_db()
    assert (brunella.version, brunella.sheet) == before
    assert LedgerEntry.objects.filter(kind="correction").count() == 0
    assert_balanced(brunella)


def test_reversing_finds_a_renamed_specialization_by_its_id(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    fund(brunella, gm, 4)
    up = ledger.buy(character_id=brunella.pk, order=TELEPORT_UP, by=player)
    rename(brunella, TELEPORT, "Blink")
    ledger.correct(character_id=brunella.pk, entry_id=up.pk, reason="Misclick", by=gm)
    assert level(brunella, TELEPORT) == 2
    assert named(brunella, "Blink").level == 2


@pytest.mark.parametrize(
    ("purchase", "check"),
    [
        ({"kind": "level", "cost": 4, "before": 1, "after": 2, "skill": "Spellcasting", "name": "Teleport"},
         lambda c: level(c, TELEPORT) == 1),
        ({"kind": "specialization", "cost": 4, "before": 0, "after": 1, "skill": "Spellcasting", "name": "Fireball"},
         lambda c: level(c, FIREBALL) is None),
        ({"kind": "ability", "cost": 4, "before": 1, "after": 2, "ability": "will"},
         lambda c: sheet_of(c).abilities.will == "d4"),
    ],
)  # fmt: skip
def test_an_entry_from_before_the_sheet_was_a_document_is_still_reversed(campaign, gm, player, purchase, check):
    """Ledger rows are never rewritten: an old spend names what it bought by the names it had."""
    brunella = make_character(campaign, player)
    fund(brunella, gm, 10)
    old = LedgerEntry.objects.create(character=brunella, kind="spend", currency="ap", amount=-4, balance=6,
                                     reason="Bought", purchase=purchase, by=player)  # fmt: skip
    Balance.objects.filter(character=brunella, currency="ap").update(amount=6)
    ledger.correct(character_id=brunella.pk, entry_id=old.pk, reason="Misclick", by=gm)
    assert check(brunella)
    assert ledger.balance(brunella) == 10
    assert_balanced(brunella)


def test_a_spend_whose_purchase_moved_on_cannot_be_reversed(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    fund(brunella, gm, 8)
    first = ledger.buy(character_id=brunella.pk, order=TELEPORT_UP, by=player)
    ledger.buy(character_id=brunella.pk, order=TELEPORT_UP, by=player)
    with pytest.raises(Conflict, match="correct the sheet first"):
        ledger.correct(character_id=brunella.pk, entry_id=first.pk, reason="Oops", by=gm)
    assert level(brunella, TELEPORT) == 4
    assert LedgerEntry.objects.filter(kind="correction").count() == 0


def test_a_spend_whose_specialization_is_gone_cannot_be_reversed(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    fund(brunella, gm, 8)
    new = ledger.buy(character_id=brunella.pk, order=Order(f"specialization:{HEALING}", "Herbs"), by=player)
    Character.objects.filter(pk=brunella.pk).update(sheet=brunella_sheet(next_id=16))
    with pytest.raises(Conflict, match="correct the sheet first"):
        ledger.correct(character_id=brunella.pk, entry_id=new.pk, reason="Oops", by=gm)
    assert LedgerEntry.objects.filter(kind="correction").count() == 0


def test_an_award_already_spent_cannot_be_reversed(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    award = fund(brunella, gm, 4)
    ledger.buy(character_id=brunella.pk, order=TELEPORT_UP, by=player)
    with pytest.raises(Conflict, match="already spent those points"):
        ledger.correct(character_id=brunella.pk, entry_id=award.pk, reason="Oops", by=gm)
    assert_balanced(brunella)


def test_only_the_gm_corrects(campaign, gm, player, outsider) -> None:
    brunella = make_character(campaign, player)
    award = fund(brunella, gm, 4)
    with pytest.raises(NotAllowed, match="Only the GM"):
        ledger.correct(character_id=brunella.pk, entry_id=award.pk, reason="Mine", by=player)
    with pytest.raises(NotFound):
        ledger.correct(character_id=brunella.pk, entry_id=award.pk, reason="Mine", by=outsider)
    with pytest.raises(Refused, match="Give a reason"):
        ledger.correct(character_id=brunella.pk, entry_id=award.pk, reason="", by=gm)
    with pytest.raises(NotFound, match="not in this character's ledger"):
        ledger.correct(character_id=brunella.pk, entry_id=award.pk + 100, reason="Gone", by=gm)
    assert LedgerEntry.objects.count() == 1


# --- The database's own guards --------------------------------------------------------------------


def test_entries_are_never_changed_or_removed_in_code(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    entry = fund(brunella, gm, 4)
    entry.reason = "Changed"
    with pytest.raises(AppendOnly):
        entry.save()
    with pytest.raises(AppendOnly):
        entry.delete()
    with pytest.raises(AppendOnly):
        LedgerEntry.objects.update(amount=400)
    with pytest.raises(AppendOnly):
        LedgerEntry.objects.all().delete()
    with pytest.raises(AppendOnly):
        ReputationChange.objects.all().delete()
    assert LedgerEntry.objects.get().reason == "Completing the mission"


def test_the_balance_can_never_be_negative(campaign, player) -> None:
    """The CHECK constraints refuse a negative balance at the database, whatever the code does."""
    brunella = make_character(campaign, player)
    with pytest.raises(IntegrityError), transaction.atomic():
        Balance.objects.bulk_create([Balance(character=brunella, currency="ap", amount=-1)])
    held = Balance.objects.create(character=brunella, currency="ap", amount=3)
    with pytest.raises(IntegrityError), transaction.atomic():
        Balance.objects.filter(pk=held.pk).update(amount=F("amount") - 4)
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE characters_balance SET amount = -1 WHERE id = %s", [held.pk])
    with pytest.raises(IntegrityError), transaction.atomic():
        Balance.objects.create(character=brunella, currency="ap", amount=1)  # one balance per currency
    assert Balance.objects.get().amount == 3


@pytest.mark.postgres
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE characters_ledgerentry SET amount = 400 WHERE character_id = %s",
        "DELETE FROM characters_ledgerentry WHERE character_id = %s",
        "UPDATE characters_reputationchange SET change = 5 WHERE character_id = %s",
        "DELETE FROM characters_reputationchange WHERE character_id = %s",
    ],
)
def test_postgresql_refuses_raw_updates_and_deletes(campaign, gm, player, sql) -> None:
    brunella = make_character(campaign, player)
    ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 4, reputation=1)], reason="Mission", by=gm)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, [brunella.pk])
    assert LedgerEntry.objects.get().amount == 4
    assert ReputationChange.objects.get().change == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_fifty_purchases_racing_for_one_balance(campaign, gm, player, race) -> None:
    """42 AP buys ten new specializations (4 each) and no more: the lock makes each purchase
    see the balance the one before left; every other request is refused, clearly."""
    brunella = make_character(campaign, player)
    fund(brunella, gm, 42)

    def buy(i: int):
        def job() -> str:
            order = Order(f"specialization:{FIGHTING}", f"Trick {i}")
            ledger.buy(character_id=brunella.pk, order=order, by=player)
            return "bought"

        return job

    outcomes = race([buy(i) for i in range(50)])
    assert sorted(outcomes) == ["NotEnoughPoints"] * 40 + ["bought"] * 10
    assert_balanced(brunella)
    assert ledger.balance(brunella) == 2
    assert len([name for name, _ in specializations(brunella) if name.startswith("Trick")]) == 10


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_awards_racing_with_spends(campaign, gm, player, race) -> None:
    """Ten awards of 4 race with thirty purchases of 4 from an empty balance: whatever the
    order, each purchase either fits or is refused, and the books always balance."""
    brunella = make_character(campaign, player)

    def award() -> str:
        ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 4)], reason="Mission", by=gm)
        return "awarded"

    def buy(i: int):
        def job() -> str:
            ledger.buy(character_id=brunella.pk, order=Order(f"specialization:{HEALING}", f"Salve {i}"), by=player)
            return "bought"

        return job

    outcomes = race([award] * 10 + [buy(i) for i in range(30)])
    assert outcomes.count("awarded") == 10
    bought = outcomes.count("bought")
    assert bought + outcomes.count("NotEnoughPoints") == 30
    assert_balanced(brunella)
    assert ledger.balance(brunella) == 40 - 4 * bought
    assert len([name for name, _ in specializations(brunella) if name.startswith("Salve")]) == bought


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("write", ["buy", "award", "correct"])
def test_points_and_the_gms_encounter_actions_queue_instead_of_deadlocking(campaign, gm, player, monkeypatch, write):
    """The GM harms Brunella in a fight (campaign locked, then the character) while a ledger write
    for her runs: both take the campaign first, so one waits for the other and both succeed."""
    from play import encounters

    brunella = make_character(campaign, player)
    award = fund(brunella, gm, 12)
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush at the ford")
    (hero,) = encounters.add_characters(
        campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm, character_ids=[brunella.pk]
    )
    campaign_locked = threading.Event()
    slow_combatant = encounters.combatant_in

    def combatant_after_a_pause(*args, **kwargs):
        campaign_locked.set()  # the campaign row is held by now
        time.sleep(1)
        return slow_combatant(*args, **kwargs)

    monkeypatch.setattr(encounters, "combatant_in", combatant_after_a_pause)
    ledger_writes = {
        "buy": lambda: ledger.buy(character_id=brunella.pk, order=TELEPORT_UP, by=player),
        "award": lambda: ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 3)], reason="Mission", by=gm),
        "correct": lambda: ledger.correct(character_id=brunella.pk, entry_id=award.pk, reason="Oops", by=gm),
    }
    errors: list[BaseException] = []

    def harm() -> None:
        encounters.adjust(
            campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm, combatant_id=hero.pk, amount=-5,
            reason="Arrow",
        )  # fmt: skip

    def points() -> None:
        campaign_locked.wait(10)
        ledger_writes[write]()

    threads = [on_own_connection(harm, errors), on_own_connection(points, errors)]
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert_balanced(brunella)
    assert sheet_of(brunella).hit_points == 25
