"""A write's lock on a character (``Character.objects.lock``): its campaign locked, then the character read,
both sent at once on PostgreSQL. The read runs once the lock is held, so a write that waited reads what the
write it waited for committed: the character's row and what is read with it (its balances)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connections, transaction
from django.db.models import F

from characters.models import Balance, Character
from tests.characters.conftest import make_character, on_own_connection

#: Seconds a thread waits for the other before the test gives up (a state, never a pause).
PATIENCE = 20.0


def waiting_on_a_lock() -> bool:
    """Whether another connection waits for a row lock now (read on a connection of its own)."""
    with connections["default"].cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0


def holding_the_lock(pk: int, errors: list[BaseException], released: threading.Event,
                     then: Callable[[], object] = lambda: None) -> threading.Thread:  # fmt: skip
    """A write on a thread (and a connection) of its own that locks character ``pk`` (its campaign first) and
    holds the lock until ``released`` is set, then does ``then`` before it commits: returned once it holds it."""
    held = threading.Event()

    def holder() -> None:
        with transaction.atomic():
            assert Character.objects.lock(pk) is not None
            held.set()
            assert released.wait(PATIENCE)
            then()

    thread = on_own_connection(holder, errors)
    assert held.wait(PATIENCE), errors
    return thread


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_lock_that_waited_reads_what_the_write_it_waited_for_committed(campaign, player) -> None:
    hero = make_character(campaign, player)
    read_after = threading.Event()
    found: dict[str, Character | None] = {}
    errors: list[BaseException] = []

    def committed_meanwhile() -> None:  # once the other write waits for this one's lock
        Character.objects.filter(pk=hero.pk).update(version=F("version") + 1)
        Balance.objects.create(character_id=hero.pk, currency="ap", amount=7)

    def waiter() -> None:
        with transaction.atomic():
            found["character"] = Character.objects.lock(hero.pk, lambda rows: rows.with_balances())

    threads = [holding_the_lock(hero.pk, errors, read_after, committed_meanwhile)]
    threads.append(on_own_connection(waiter, errors))
    while not waiting_on_a_lock():
        assert threads[1].is_alive(), errors
    read_after.set()
    for thread in threads:
        thread.join(PATIENCE)
    assert not errors, errors
    locked = found["character"]
    assert locked is not None
    assert locked.version == hero.version + 1
    assert locked.balances_held == {"ap": 7}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_lock_for_someone_who_may_not_see_the_character_locks_nothing(campaign, player, outsider) -> None:
    """An outsider's write (a move posted to another campaign's character) finds nothing and waits for
    nothing, while the campaign's own writes hold its lock; the character's player, asking the same, waits."""
    hero = make_character(campaign, player)
    done = threading.Event()
    found: dict[str, Character | None] = {}
    errors: list[BaseException] = []

    def asking(who: str, viewer: int) -> Callable[[], None]:
        def ask() -> None:
            with transaction.atomic():
                found[who] = Character.objects.lock(hero.pk, viewer=viewer)

        return ask

    threads = []
    try:
        threads.append(holding_the_lock(hero.pk, errors, done))
        outsiders = on_own_connection(asking("outsider", outsider.pk), errors)
        while outsiders.is_alive():
            assert not waiting_on_a_lock(), "the outsider's lock waits for the campaign's"
        assert not errors, errors
        assert found == {"outsider": None}
        threads.append(on_own_connection(asking("player", player.pk), errors))
        while not waiting_on_a_lock():  # the player's does wait: what the loop above looks for is there to see
            assert threads[1].is_alive(), errors
    finally:
        done.set()
        for thread in threads:
            thread.join(PATIENCE)
    assert not errors, errors
    locked = found["player"]
    assert locked is not None
    assert locked.pk == hero.pk
