"""Where one process serves (no Redis), a session's read (its data, its expiry, its noted user) is kept in
its memory for ``SESSION_READ_FOR`` seconds and taken from there (accounts/sessions.py); whatever changes
what it read marks the session as changed, so the next page reads the database again and sees the change:
a log-out by any client, a new password, an account closed, a new name, a note dropped. A read taken before
a change is never kept over it; with Redis, nothing is kept."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import sessions
from accounts.models import UserSession
from tests.accounts.helpers import account_page, reads_the_user_alone
from tests.accounts.helpers import logged_in as signed_in_as  # the log-in's own mark left in place

pytestmark = pytest.mark.django_db


def logged_in(user: User, password: str) -> Client:
    """A client signed in as ``user``, its session's mark from the log-in expired: its next read is kept."""
    client = signed_in_as(user, password)
    sessions.READS.clear()
    return client


def session_reads(sql: list[str]) -> int:
    return sum("django_session" in query for query in sql)


def kept(client: Client) -> Client:
    """The client once a page has read its session (and the cache kept the read)."""
    status, _, sql = account_page(client)
    assert status == 200
    assert session_reads(sql) == 1
    return client


def test_a_sessions_read_is_kept_and_the_next_page_reads_no_session(player: User, password: str) -> None:
    client = kept(logged_in(player, password))
    for _ in range(2):
        status, text, sql = account_page(client)
        assert status == 200
        assert player.username in text
        assert session_reads(sql) == 0
        assert not reads_the_user_alone(sql)


def test_a_log_out_ends_the_kept_session_for_every_client_holding_it(player: User, password: str) -> None:
    client = kept(logged_in(player, password))
    other = Client()
    other.cookies["sessionid"] = client.cookies["sessionid"].value
    assert account_page(other)[0] == 200
    assert client.post(reverse("logout")).status_code == 302
    status, _, sql = account_page(other)
    assert status == 302  # to log in
    assert session_reads(sql) == 1


def test_a_new_password_ends_the_kept_session(player: User, password: str) -> None:
    client = kept(logged_in(player, password))
    player.set_password("another long passphrase for this")
    player.save()
    status, _, sql = account_page(client)
    assert status == 302
    assert reads_the_user_alone(sql)


def test_an_account_closed_ends_the_kept_session(player: User, password: str) -> None:
    client = kept(logged_in(player, password))
    player.is_active = False
    player.save()
    assert account_page(client)[0] == 302


def test_a_new_name_is_shown_at_once(player: User, password: str) -> None:
    client = kept(logged_in(player, password))
    player.username = "renamed_player"
    player.save()
    status, text, _ = account_page(client)
    assert status == 200
    assert "renamed_player" in text


def test_a_dropped_note_reads_the_user_alone(player: User, password: str) -> None:
    client = kept(logged_in(player, password))
    UserSession.objects.filter(user=player).delete()
    status, text, sql = account_page(client)
    assert status == 200
    assert player.username in text
    assert reads_the_user_alone(sql)


def test_a_read_is_taken_for_read_for_seconds_from_its_reading(
    player: User, password: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = kept(logged_in(player, password))
    later = time.time() + sessions.read_for()
    monkeypatch.setattr(sessions.time, "time", lambda: later)
    status, _, sql = account_page(client)
    assert status == 200
    assert session_reads(sql) == 1


def test_a_session_that_expired_while_kept_is_anonymous(
    player: User, password: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = kept(logged_in(player, password))
    expiry = Session.objects.get(session_key=client.cookies["sessionid"].value).expire_date
    monkeypatch.setattr(sessions.timezone, "now", lambda: expiry + timezone.timedelta(seconds=1))
    status, _, sql = account_page(client)
    assert status == 302
    assert session_reads(sql) == 1


def test_a_read_taken_before_a_change_is_not_kept_over_it(player: User, password: str) -> None:
    client = logged_in(player, password)
    key = client.cookies["sessionid"].value
    read_at = time.time()
    sessions.forget(key)  # the change, made after the read began
    sessions.keep_read(key, read_at, [], timezone.now() + timezone.timedelta(days=1), "stale")
    assert sessions.READS.get(sessions.cache_key(key)) == sessions.CHANGED
    status, _, sql = account_page(client)
    assert status == 200
    assert session_reads(sql) == 1


def test_a_change_marks_the_session_again_when_it_commits(
    player: User, password: str, django_capture_on_commit_callbacks
) -> None:
    """A read kept between a change and its commit (it read the row as it was before) is marked over."""
    client = logged_in(player, password)
    key = client.cookies["sessionid"].value
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        sessions.forget(key)
    sessions.READS.clear()
    sessions.keep_read(key, time.time(), [], timezone.now() + timezone.timedelta(days=1), "read before the commit")
    assert isinstance(sessions.READS.get(sessions.cache_key(key)), tuple)
    for callback in callbacks:
        callback()
    assert sessions.READS.get(sessions.cache_key(key)) == sessions.CHANGED


def test_with_redis_nothing_is_kept_and_every_page_reads_the_session(player: User, password: str, settings) -> None:
    """With Redis several processes serve, and none could tell the others that a session changed."""
    settings.SESSION_READ_FOR = 0
    client = logged_in(player, password)
    for _ in range(2):
        status, _, sql = account_page(client)
        assert status == 200
        assert session_reads(sql) == 1
    assert len(sessions.READS._entries) == 0


def read_for_with(**environment: str) -> str:
    """``SESSION_READ_FOR`` as config/settings.py makes it in a process started with ``environment``
    (and no ``REDIS_URL`` unless it names one)."""
    base = {name: value for name, value in os.environ.items() if name not in ("REDIS_URL", "SESSION_READ_FOR")}
    code = "import django; django.setup(); from django.conf import settings; print(settings.SESSION_READ_FOR)"
    run = subprocess.run([sys.executable, "-c", code], env={**base, "DJANGO_SETTINGS_MODULE": "config.settings",
                         **environment}, capture_output=True, text=True, check=True)  # fmt: skip
    return run.stdout.strip()


def test_the_setting_follows_redis() -> None:
    assert read_for_with() == "10.0"
    assert read_for_with(REDIS_URL="redis://127.0.0.1:6379/15") == "0.0"
    assert read_for_with(REDIS_URL="redis://127.0.0.1:6379/15", SESSION_READ_FOR="2") == "2.0"


def test_the_process_keeps_reads_as_a_cache_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """``add`` only where nothing lives, entries that expire, and no more than its limit."""
    reads = sessions.ProcessReads(2)
    assert reads.add("a", 1, timeout=5)
    assert not reads.add("a", 2, timeout=5)
    assert reads.get("a") == 1
    reads.set_many({"a": "changed", "b": 2, "c": 3}, timeout=5)
    assert reads.get("a") is None  # beyond the limit: the least recently used dropped
    assert (reads.get("b"), reads.get("c")) == (2, 3)
    later = time.monotonic() + 5
    monkeypatch.setattr(sessions.time, "monotonic", lambda: later)
    assert reads.get("b") is None
    assert reads.add("b", 4, timeout=5)
    assert reads.get("b") == 4


@pytest.mark.django_db(transaction=True)
def test_a_session_saved_or_deleted_from_async_code_is_marked_too(player: User, password: str) -> None:
    from asgiref.sync import async_to_sync

    client = kept(logged_in(player, password))
    key = client.cookies["sessionid"].value
    store = sessions.SessionStore(key)
    store["note"] = "saved from async code"
    async_to_sync(store.asave)()
    assert sessions.READS.get(sessions.cache_key(key)) == sessions.CHANGED
    sessions.READS.clear()
    kept(client)
    async_to_sync(sessions.SessionStore(key).adelete)()
    assert sessions.READS.get(sessions.cache_key(key)) == sessions.CHANGED
    assert account_page(client)[0] == 302
