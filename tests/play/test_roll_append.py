"""A roll appended to its campaign's log on PostgreSQL (``play.rolls.record_roll``): made for the head of the log
this process last knew (``rolls.heads``) and sent in one statement, the function ``play_roll_append`` (migration
play.0016), which locks the campaign, reads it as the ORM's query (``rolls.campaign_with_head``, which SQLite
runs after its UPDATE) reads it, once it holds the lock, and writes the roll only if the head is still the one
it was made for and the roller may make it; otherwise nothing is written, and the roll is refused or made again
for the head the function read."""

from __future__ import annotations

import functools
import re
import threading
import time
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from campaigns.models import Campaign, Membership
from campaigns.operations import Conflict, NotAllowed, NotFound
from characters.models import Character
from play import rolls
from play.models import Roll
from tests.play.test_rolls import record

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

FIELDS = [field.attname for field in Campaign._meta.concrete_fields]
ROLL_FIELDS = [field.attname for field in Roll._meta.concrete_fields if not field.primary_key]
APPEND = "FROM play_roll_append("

#: Seconds the test waits at most for the second roll to be seen waiting for the lock.
WAIT = 30.0


def seen(campaign: Campaign) -> tuple[object, ...]:
    return (
        {name: getattr(campaign, name) for name in FIELDS},
        campaign.roller_role,  # type: ignore[attr-defined]
        campaign.last_seq,  # type: ignore[attr-defined]
        campaign.last_hash,  # type: ignore[attr-defined]
    )


def appended(captured: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in captured if APPEND in query["sql"]]


@pytest.fixture
def outsider(db) -> User:
    return User.objects.create_user("outsider", password="an outsider's long passphrase")


@pytest.mark.parametrize("who", ["gm", "player", "outsider"])
@pytest.mark.parametrize("logged", [0, 3])
@pytest.mark.parametrize("archived", [False, True])
def test_the_function_reads_what_the_query_reads(request, campaign, gm, who, logged, archived) -> None:
    for total in range(logged):
        record(campaign, gm, total=total)
    if archived:
        Campaign.objects.filter(pk=campaign.pk).update(archived_at=timezone.now())
    user = request.getfixturevalue(who)
    before = Campaign.objects.get(pk=campaign.pk).last_activity_at
    with transaction.atomic():
        locked, _, written = rolls.append("default", campaign.pk, user, (), None, None)  # the read alone
        assert written is None
        (read,) = rolls.campaign_with_head(campaign=campaign.pk, user=user.pk)
    assert locked is not None
    assert seen(locked) == seen(read)
    assert locked.last_activity_at == before  # only a roll written moves it
    assert locked.roller_role == {"gm": "gm", "player": "player", "outsider": None}[who]  # type: ignore[attr-defined]
    assert locked.last_seq == (logged or None)  # type: ignore[attr-defined]
    assert (locked.last_hash is None) == (logged == 0)  # type: ignore[attr-defined]
    assert locked.options == Campaign.objects.get(pk=campaign.pk).options  # the JSON read as the model reads it


def test_the_function_writes_every_column_of_the_roll() -> None:
    """The function names the roll's columns (the migration): one more on the model must be written there too."""
    sql = Path(rolls.__file__).parent.joinpath("migrations", "0016_roll_append_function.py").read_text()
    written = re.search(r"INSERT INTO play_roll \(([^)]*)\)", sql)
    assert written is not None
    assert [column.strip() for column in written.group(1).split(",")] == ROLL_FIELDS


def test_a_roll_written_by_the_function_reads_back_as_it_was_made(campaign, gm, player) -> None:
    first = record(campaign, player, total=5, secret=False)
    second = record(campaign, gm, total=3, secret=True, spec={"expression": "2d6+1", "typed": "2d6 + 1 ✓"})
    for made in (first, second):
        stored = Roll.objects.get(pk=made.pk)
        assert {name: getattr(stored, name) for name in ROLL_FIELDS} == {
            name: getattr(made, name) for name in ROLL_FIELDS
        }
    assert (second.seq, second.prev_hash) == (2, first.hash)
    assert Campaign.objects.get(pk=campaign.pk).last_activity_at == second.created_at
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=2, broken=None)


def test_a_roll_into_a_log_whose_head_the_process_knows_is_one_statement(campaign, gm) -> None:
    with CaptureQueriesContext(connection) as captured:
        record(campaign, gm, total=1)  # the head not known yet: read first, then the roll
    assert len(captured) == 2
    assert len(appended(captured)) == 2
    with CaptureQueriesContext(connection) as captured:
        second = record(campaign, gm, total=2)
    assert len(captured) == 1
    assert len(appended(captured)) == 1
    assert second.seq == 2


def test_a_head_left_behind_is_read_and_the_roll_made_again(campaign, gm, player) -> None:
    """Another process's roll since (here: the head this process knew put back to the first roll's), the roll
    is made for the head the function read, in a second statement, and the chain holds."""
    first = record(campaign, gm, total=1)
    record(campaign, player, total=2)
    rolls.heads.put(("default", campaign.pk), rolls.Head(campaign.system, first.seq, first.hash))
    with CaptureQueriesContext(connection) as captured:
        third = record(campaign, gm, total=3)
    assert len(appended(captured)) == 2
    assert third.seq == 3
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=3, broken=None)


def test_a_busy_log_is_locked_first(campaign, gm, monkeypatch) -> None:
    """When the head the function read is no longer the head each time the roll is sent (other rolls coming
    first), the campaign is locked and read, and the roll written under the lock."""
    record(campaign, gm, total=1)
    rolls.heads.clear()
    real, missed = rolls.head_of, []

    def behind(campaign: Campaign) -> rolls.Head:
        if len(missed) < rolls.APPEND_TRIES:
            missed.append(campaign.pk)
            return rolls.Head(campaign.system, None, None)  # an empty log: not its head
        return real(campaign)

    monkeypatch.setattr(rolls, "head_of", behind)
    with CaptureQueriesContext(connection) as captured:
        second = record(campaign, gm, total=2)
    assert len(missed) == rolls.APPEND_TRIES
    # A read, two misses; then, in a transaction of its own, the lock and the roll.
    sent = [query["sql"] for query in captured]
    assert len(appended(captured)) == rolls.APPEND_TRIES + 2
    assert sent[rolls.APPEND_TRIES].startswith("SAVEPOINT")
    assert second.seq == 2
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=2, broken=None)


@pytest.mark.parametrize(
    ("who", "change", "refusal"),
    [("outsider", None, NotFound), ("gm", "archived", Conflict), ("player", "secret", NotAllowed)],
)
def test_a_refused_roll_writes_nothing_even_for_the_true_head(request, campaign, gm, who, change, refusal) -> None:
    record(campaign, gm, total=1)  # the process knows the head: the roll is sent at once
    if change == "archived":
        Campaign.objects.filter(pk=campaign.pk).update(archived_at=timezone.now())
    before = Campaign.objects.get(pk=campaign.pk).last_activity_at
    with pytest.raises(refusal):
        record(campaign, request.getfixturevalue(who), total=2, secret=change == "secret")
    assert Roll.objects.filter(campaign=campaign).count() == 1
    assert Campaign.objects.get(pk=campaign.pk).last_activity_at == before


def test_no_campaign_is_not_found(campaign, gm) -> None:
    with pytest.raises(NotFound):
        record(Campaign(pk=campaign.pk + 1000), gm)
    assert not Roll.objects.exists()


def waiting_for_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0


@pytest.mark.django_db(transaction=True)
def test_a_roll_that_waited_for_the_lock_reads_what_was_committed_meanwhile(campaign, gm) -> None:
    """The first roll holds the campaign's lock while the newcomer is made a member; the newcomer's roll waits
    for it and, once the first commits, finds them a member and the first roll at the head: a read from before
    the wait would have found an outsider (a 404) and an empty log."""
    newcomer = User.objects.create_user("newcomer", password="a newcomer's long passphrase")
    holding, outcome = threading.Event(), {}

    def first() -> None:
        try:
            with transaction.atomic():
                outcome["first"] = record(campaign, gm, total=1)
                Membership.objects.create(campaign=campaign, user=newcomer, role=Membership.Role.PLAYER)
                holding.set()
                deadline = time.monotonic() + WAIT
                while not waiting_for_a_lock():
                    assert time.monotonic() < deadline, "the second roll never waited for the lock"
        except BaseException as error:  # reported below
            outcome["first error"] = error
            holding.set()
        finally:
            connection.close()

    def second() -> None:
        holding.wait()
        try:
            outcome["second"] = record(campaign, newcomer, total=2)
        except BaseException as error:  # reported below
            outcome["second error"] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert "first error" not in outcome, outcome
    assert "second error" not in outcome, outcome
    assert (outcome["second"].seq, outcome["second"].prev_hash) == (2, outcome["first"].hash)
    assert list(Roll.objects.order_by("seq").values_list("by_id", flat=True)) == [gm.pk, newcomer.pk]
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=2, broken=None)


def test_a_character_not_in_play_is_refused_by_the_statement_that_reads_it(campaign, gm, character) -> None:
    """A character the caller did not lock is read by the function, under the campaign's lock: a draft, or one of
    another campaign, is refused and nothing is written, the log's head known or not."""
    record(campaign, gm, total=1)
    Character.objects.filter(pk=character.pk).update(status=Character.Status.DRAFT)
    with CaptureQueriesContext(connection) as captured, pytest.raises(Conflict, match="A draft cannot roll"):
        record(campaign, gm, total=2, character_id=character.pk)
    assert len(appended(captured)) == 1
    Character.objects.filter(pk=character.pk).update(
        status=Character.Status.ACTIVE, campaign=Campaign.objects.create(name="Elsewhere", system=campaign.system)
    )
    with pytest.raises(NotFound, match="not in this campaign"):
        record(campaign, gm, total=2, character_id=character.pk)
    assert Roll.objects.filter(campaign=campaign).count() == 1
    Character.objects.filter(pk=character.pk).update(campaign=campaign)
    with CaptureQueriesContext(connection) as captured:
        rolled = record(campaign, gm, total=2, character_id=character.pk)
    assert len(captured) == 1
    assert (rolled.seq, rolled.character_id) == (2, character.pk)


@pytest.mark.django_db(transaction=True)
def test_rolls_sent_at_once_into_one_log_each_take_one_statement(campaign, gm, player, monkeypatch, race) -> None:
    """Rolls of this process sent at once into one log each wait for their turn and are made for the head the roll
    before them wrote: one statement each, none sent again for a head another had moved on."""
    record(campaign, gm, total=0)  # the process knows the head
    threads_count, each = 8, 5
    real, calls = rolls.append, []

    def counted(*args, **kwargs):
        calls.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(rolls, "append", counted)

    def rolling(i: int) -> str:
        for n in range(each):
            record(campaign, (gm, player)[i % 2], total=1 + i * each + n)
        return "rolled"

    assert race([functools.partial(rolling, i) for i in range(threads_count)]) == ["rolled"] * threads_count
    assert len(calls) == threads_count * each
    assert sorted(Roll.objects.values_list("total", flat=True)) == list(range(threads_count * each + 1))
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=threads_count * each + 1, broken=None)


@pytest.mark.django_db(transaction=True)
def test_a_roll_inside_a_transaction_takes_no_turn(campaign, gm) -> None:
    """A transaction's roll does not wait for a turn (it may hold the campaign's lock a roll on its turn waits
    for): with every turn held, it is written all the same."""
    record(campaign, gm, total=1)
    outcome = {}

    def in_transaction() -> None:
        try:
            with transaction.atomic():
                outcome["roll"] = record(campaign, gm, total=2)
        except BaseException as error:  # reported below
            outcome["error"] = error
        finally:
            connection.close()

    for lock in rolls.TURNS:
        lock.acquire()
    try:
        thread = threading.Thread(target=in_transaction)
        thread.start()
        thread.join(WAIT)
        assert not thread.is_alive(), "the transaction's roll waited for a turn"
    finally:
        for lock in rolls.TURNS:
            lock.release()
    assert "error" not in outcome, outcome
    assert outcome["roll"].seq == 2
