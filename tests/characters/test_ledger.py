"""The Adventure-Point ledger: GM awards, purchases by the rulebook, corrections, the
reputation history; append-only in code and on PostgreSQL; safe under concurrent requests."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.models import Sum
from django.utils import timezone

from campaigns.models import AppendOnly
from campaigns.operations import Conflict, NotAllowed, NotFound, Refused
from characters import ledger, operations
from characters.ledger import Award, Order
from characters.models import Character, LedgerEntry, ReputationChange, Specialization
from rules.dice import StepDie
from tests.characters.conftest import make_character

pytestmark = pytest.mark.django_db

D = StepDie.parse


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
        character.ap_balance
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

    def listener(sender, character_id, **kwargs) -> None:
        heard.append(character_id)

    operations.character_changed.connect(listener)
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
        operations.character_changed.disconnect(listener)
    brunella.refresh_from_db()
    tam.refresh_from_db()
    assert (brunella.ap_balance, tam.ap_balance) == (12, 15)
    assert [(e.character_id, e.amount, e.reason, e.adventure, e.kind) for e in awarded.entries] == [
        (brunella.pk, 12, "Completing the mission", "The Drowned Bell", "award"),
        (tam.pk, 15, "A heroic act", "The Drowned Bell", "award"),
    ]
    assert brunella.reputation == 2
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
    assert list(Character.objects.order_by("pk").values_list("ap_balance", "reputation")) == [(0, 1), (0, 1)]


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
    operations.save_section(character_id=brunella.pk, section="reputation", version=0, data=-2, by=gm)
    (change,) = ReputationChange.objects.all()
    assert (change.change, change.reputation, change.reason) == (-3, -2, "Changed on the sheet")


# --- Purchases ------------------------------------------------------------------------------------


def test_buying_a_level_changes_the_sheet_and_writes_the_entry(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    fund(brunella, gm, 12)
    entry = ledger.buy(character_id=brunella.pk, order=Order("level", "Spellcasting", "Teleport"), by=player)
    assert (entry.kind, entry.amount, entry.balance, entry.reason) == ("spend", -4, 8, "Teleport (Spellcasting) 2 → 3")
    assert entry.purchase == {"kind": "level", "cost": 4, "before": 2, "after": 3, "skill": "Spellcasting",
                              "name": "Teleport"}  # fmt: skip
    assert Specialization.objects.get(name="Teleport").level == 3
    brunella.refresh_from_db()
    assert brunella.section_versions["specializations"] == brunella.version
    assert_balanced(brunella)


def test_buying_a_new_specialization(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    fund(brunella, gm, 4)
    ledger.buy(character_id=brunella.pk, order=Order("specialization", "Fighting", " Shield wall "), by=gm)
    spec = Specialization.objects.get(name="Shield wall")
    assert (spec.skill.name, spec.level) == ("Fighting", 1)
    assert_balanced(brunella)
    assert brunella.ap_balance == 0


@pytest.mark.parametrize(("before", "after", "cost"), [("d4", "d6", 16), ("d6", "d8", 24), ("d8", "d10", 32),
                                                       ("d10", "d12", 40)])  # fmt: skip
def test_buying_an_ability_costs_its_die_size_times_four(campaign, gm, player, before, after, cost) -> None:
    brunella = make_character(campaign, player, will=D(before).rung)
    fund(brunella, gm, cost + 1)
    entry = ledger.buy(character_id=brunella.pk, order=Order("ability", ability="will"), by=player)
    brunella.refresh_from_db()
    assert (entry.amount, entry.reason, StepDie(brunella.will), brunella.ap_balance) == (
        -cost,
        f"Will {before} → {after}",
        D(after),
        1,
    )


def test_a_larger_pulse_brings_a_new_row_of_full_hit_points(campaign, gm, player) -> None:
    brunella = make_character(campaign, player, hit_points=22)  # d8 Pulse: 30 at most
    fund(brunella, gm, 32)
    ledger.buy(character_id=brunella.pk, order=Order("ability", ability="pulse"), by=player)
    brunella.refresh_from_db()
    assert (StepDie(brunella.pulse), brunella.hit_points) == (D("d10"), 32)


@pytest.mark.parametrize(
    ("order", "balance", "error", "message"),
    [
        (Order("level", "Spellcasting", "Teleport"), 3, ledger.NotEnoughPoints, "has 3 Adventure Points; this needs 4"),
        (Order("ability", ability="will"), 23, ledger.NotEnoughPoints, "this needs 24"),
        (Order("ability", ability="reflex"), 100, Conflict, "Abilities stop at d12"),
        (Order("level", "Fighting", "Longsword"), 100, Conflict, "level 5, the highest"),
        (Order("specialization", "Spellcasting", "teleport"), 100, Refused, "already has a specialization called"),
        (Order("specialization", "Spellcasting", "  "), 100, Refused, "needs a name"),
        (Order("specialization", "Juggling", "Clubs"), 100, Refused, "no skill called 'Juggling'"),
        (Order("level", "Spellcasting", "Blink"), 100, Refused, "no specialization called 'Blink'"),
        (Order("ability", ability="luck"), 100, Refused, "'luck' is not an ability"),
        (Order("spell"), 100, Refused, "Choose what to buy"),
    ],
)
def test_a_purchase_that_cannot_be_made_changes_nothing(campaign, gm, player, order, balance, error, message) -> None:
    brunella = make_character(campaign, player, reflex=D("d12").rung)
    Specialization.objects.filter(name="Longsword").update(level=5)
    fund(brunella, gm, balance)
    sheet = (brunella.version, brunella.will, list(Specialization.objects.values_list("name", "level")))
    with pytest.raises(error, match=message):
        ledger.buy(character_id=brunella.pk, order=order, by=player)
    brunella.refresh_from_db()
    assert (brunella.version, brunella.will, list(Specialization.objects.values_list("name", "level"))) == sheet
    assert brunella.ap_balance == balance
    assert LedgerEntry.objects.count() == 1


def test_a_purchase_from_a_stale_sheet_is_refused(campaign, gm, player) -> None:
    """Two tabs showed Teleport 2 → 3: the first click buys it, the second is refused."""
    brunella = make_character(campaign, player)
    fund(brunella, gm, 40)
    ledger.buy(character_id=brunella.pk, order=Order("level", "Spellcasting", "Teleport", before=2), by=gm)
    with pytest.raises(ledger.StaleSheet, match="Teleport is at level 3 now: the sheet changed since you looked"):
        ledger.buy(character_id=brunella.pk, order=Order("level", "Spellcasting", "Teleport", before=2), by=player)
    with pytest.raises(ledger.StaleSheet, match="Will is d6 now"):
        ledger.buy(character_id=brunella.pk, order=Order("ability", ability="will", before=1), by=player)
    assert Specialization.objects.get(name="Teleport").level == 3
    brunella.refresh_from_db()
    assert brunella.ap_balance == 36


def test_who_may_spend(campaign, gm, player, other_player, outsider) -> None:
    brunella = make_character(campaign, player)
    fund(brunella, gm, 20)
    level = Order("level", "Spellcasting", "Teleport")
    with pytest.raises(NotAllowed, match="Only the character's player and the GM"):
        ledger.buy(character_id=brunella.pk, order=level, by=other_player)
    with pytest.raises(NotFound):
        ledger.buy(character_id=brunella.pk, order=level, by=outsider)
    with pytest.raises(NotFound):
        ledger.buy(character_id=0, order=level, by=player)
    assert LedgerEntry.objects.count() == 1


def test_an_archived_character_spends_nothing(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    fund(brunella, gm, 20)
    Character.objects.filter(pk=brunella.pk).update(status=Character.Status.ARCHIVED)
    with pytest.raises(Conflict, match="not in play"):
        ledger.buy(character_id=brunella.pk, order=Order("ability", ability="will"), by=player)


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
    fund(brunella, gm, 40)
    new = ledger.buy(character_id=brunella.pk, order=Order("specialization", "Fighting", "Parry"), by=player)
    pulse = ledger.buy(character_id=brunella.pk, order=Order("ability", ability="pulse"), by=player)
    ledger.correct(character_id=brunella.pk, entry_id=pulse.pk, reason="Misclick", by=gm)
    ledger.correct(character_id=brunella.pk, entry_id=new.pk, reason="Misclick", by=gm)
    brunella.refresh_from_db()
    assert (StepDie(brunella.pulse), brunella.hit_points, brunella.ap_balance) == (D("d8"), 30, 40)
    assert not Specialization.objects.filter(name="Parry").exists()
    assert_balanced(brunella)


def test_a_spend_whose_purchase_moved_on_cannot_be_reversed(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    fund(brunella, gm, 8)
    first = ledger.buy(character_id=brunella.pk, order=Order("level", "Spellcasting", "Teleport"), by=player)
    brunella.refresh_from_db()
    ledger.buy(character_id=brunella.pk, order=Order("level", "Spellcasting", "Teleport"), by=player)
    with pytest.raises(Conflict, match="correct the sheet first"):
        ledger.correct(character_id=brunella.pk, entry_id=first.pk, reason="Oops", by=gm)
    assert Specialization.objects.get(name="Teleport").level == 4
    assert LedgerEntry.objects.filter(kind="correction").count() == 0


def test_an_award_already_spent_cannot_be_reversed(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    award = fund(brunella, gm, 4)
    ledger.buy(character_id=brunella.pk, order=Order("level", "Spellcasting", "Teleport"), by=player)
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
    brunella = make_character(campaign, player)
    with pytest.raises(IntegrityError), transaction.atomic():
        Character.objects.filter(pk=brunella.pk).update(ap_balance=-1)


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


def _race(jobs) -> list[str]:
    """Runs every job at once, each on its own connection; returns what each said."""
    start = threading.Barrier(len(jobs))
    outcomes: list[str] = []

    def run(job) -> None:
        try:
            start.wait()
            outcomes.append(job())
        except Refused as refused:
            outcomes.append(type(refused).__name__)
        except BaseException as error:  # reported by the assertion below
            outcomes.append(repr(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=[job]) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcomes


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_fifty_purchases_racing_for_one_balance(campaign, gm, player) -> None:
    """42 AP buys ten new specializations (4 each) and no more: the lock makes each purchase
    see the balance the one before left; every other request is refused, clearly."""
    brunella = make_character(campaign, player)
    fund(brunella, gm, 42)

    def buy(i: int):
        def job() -> str:
            ledger.buy(character_id=brunella.pk, order=Order("specialization", "Fighting", f"Trick {i}"), by=player)
            return "bought"

        return job

    outcomes = _race([buy(i) for i in range(50)])
    assert sorted(outcomes) == ["NotEnoughPoints"] * 40 + ["bought"] * 10
    assert_balanced(brunella)
    assert brunella.ap_balance == 2
    assert Specialization.objects.filter(name__startswith="Trick").count() == 10


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_awards_racing_with_spends(campaign, gm, player) -> None:
    """Ten awards of 4 race with thirty purchases of 4 from an empty balance: whatever the
    order, each purchase either fits or is refused, and the books always balance."""
    brunella = make_character(campaign, player)

    def award() -> str:
        ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 4)], reason="Mission", by=gm)
        return "awarded"

    def buy(i: int):
        def job() -> str:
            ledger.buy(character_id=brunella.pk, order=Order("specialization", "Healing", f"Salve {i}"), by=player)
            return "bought"

        return job

    outcomes = _race([award] * 10 + [buy(i) for i in range(30)])
    assert outcomes.count("awarded") == 10
    bought = outcomes.count("bought")
    assert bought + outcomes.count("NotEnoughPoints") == 30
    assert_balanced(brunella)
    assert brunella.ap_balance == 40 - 4 * bought
    assert Specialization.objects.filter(name__startswith="Salve").count() == bought


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
        "buy": lambda: ledger.buy(
            character_id=brunella.pk, order=Order("level", "Spellcasting", "Teleport"), by=player
        ),
        "award": lambda: ledger.award(campaign_id=campaign.pk, awards=[Award(brunella.pk, 3)], reason="Mission", by=gm),
        "correct": lambda: ledger.correct(character_id=brunella.pk, entry_id=award.pk, reason="Oops", by=gm),
    }
    errors: list[BaseException] = []

    def harm() -> None:
        try:
            encounters.adjust_hit_points(
                campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm, combatant_id=hero.pk, amount=-5,
                reason="Arrow",
            )  # fmt: skip
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    def points() -> None:
        try:
            campaign_locked.wait(10)
            ledger_writes[write]()
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=harm), threading.Thread(target=points)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert_balanced(brunella)
    assert brunella.hit_points == 25
