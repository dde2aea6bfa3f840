"""The lock a roll takes on its campaign and the read of its log's head under it (``play.rolls.locked_with_head``):
on PostgreSQL one statement, the function ``play_roll_head`` (migration play.0015), which must read what the
ORM's query (``rolls.campaign_with_head``, which SQLite runs after its UPDATE) reads, and, once it holds the
lock, what was committed while it waited for it."""

from __future__ import annotations

import threading
import time

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from campaigns.models import Campaign, Membership
from campaigns.operations import NotFound
from play import rolls
from play.models import Roll
from tests.play.test_rolls import record

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

FIELDS = [field.attname for field in Campaign._meta.concrete_fields]

#: Seconds the test waits at most for the second roll to be seen waiting for the lock.
WAIT = 30.0


def seen(campaign: Campaign) -> tuple[object, ...]:
    return (
        {name: getattr(campaign, name) for name in FIELDS},
        campaign.roller_role,  # type: ignore[attr-defined]
        campaign.last_seq,  # type: ignore[attr-defined]
        campaign.last_hash,  # type: ignore[attr-defined]
    )


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
    now = timezone.now()
    with transaction.atomic():
        locked = rolls.locked_with_head(campaign.pk, user, now)
        (read,) = rolls.campaign_with_head(campaign=campaign.pk, user=user.pk)
    assert seen(locked) == seen(read)
    assert locked.last_activity_at == now
    assert locked.roller_role == {"gm": "gm", "player": "player", "outsider": None}[who]  # type: ignore[attr-defined]
    assert locked.last_seq == (logged or None)  # type: ignore[attr-defined]
    assert (locked.last_hash is None) == (logged == 0)  # type: ignore[attr-defined]
    assert locked.options == Campaign.objects.get(pk=campaign.pk).options  # the JSON read as the model reads it


def test_no_campaign_no_row_and_nothing_moved(campaign, gm) -> None:
    before = Campaign.objects.get(pk=campaign.pk).last_activity_at
    with pytest.raises(NotFound), transaction.atomic():
        rolls.locked_with_head(campaign.pk + 1000, gm, timezone.now())
    assert Campaign.objects.get(pk=campaign.pk).last_activity_at == before


def test_the_lock_and_the_read_are_one_statement(campaign, gm) -> None:
    with transaction.atomic(), CaptureQueriesContext(connection) as captured:
        rolls.locked_with_head(campaign.pk, gm, timezone.now())
    assert len(captured) == 1
    assert "FROM play_roll_head(" in captured[0]["sql"]


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
