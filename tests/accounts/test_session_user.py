"""Without Redis, a signed-in request reads its session and its user in one query (accounts/sessions.py),
and takes that user only where Django's own ``get_user`` would have taken the user it reads: anything else
(a session with no note of its user, a note that is not the session's user, a password changed since, an
account closed, a backend that reads users its own way) is Django's ``get_user``, with what it does."""

from __future__ import annotations

import pytest
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.core import signing

from accounts import sessions
from accounts.models import UserSession
from tests.accounts.helpers import account_page, logged_in, reads_the_user_alone

pytestmark = pytest.mark.django_db


def test_a_signed_in_page_reads_its_session_and_user_in_one_query(player: User, password: str) -> None:
    status, text, sql = account_page(logged_in(player, password))
    assert status == 200
    assert player.username in text
    with_session = [query for query in sql if "django_session" in query]
    assert len(with_session) == 1
    assert "auth_user" in with_session[0]
    assert not reads_the_user_alone(sql)


def test_a_session_with_no_note_of_its_user_is_read_as_django_reads_it(player: User, password: str) -> None:
    client = logged_in(player, password)
    UserSession.objects.all().delete()
    status, text, sql = account_page(client)
    assert status == 200
    assert player.username in text
    assert reads_the_user_alone(sql)


def test_a_note_that_is_not_the_sessions_user_is_not_taken(player: User, other_player: User, password: str) -> None:
    client = logged_in(player, password)
    UserSession.objects.update(user=other_player)
    status, text, sql = account_page(client)
    assert status == 200
    assert player.username in text
    assert other_player.username not in text
    assert reads_the_user_alone(sql)


def test_a_password_changed_since_ends_the_session(player: User, password: str) -> None:
    client = logged_in(player, password)
    player.set_password("another long passphrase for this")
    player.save()
    status, _, sql = account_page(client)
    assert status == 302  # to log in: Django found the hash changed and flushed the session
    assert reads_the_user_alone(sql)
    assert not Session.objects.filter(session_key=client.cookies["sessionid"].value).exists()


def test_a_closed_account_is_anonymous(player: User, password: str) -> None:
    client = logged_in(player, password)
    User.objects.filter(pk=player.pk).update(is_active=False)
    status, _, _ = account_page(client)
    assert status == 302


def test_an_expired_session_is_anonymous(player: User, password: str) -> None:
    client = logged_in(player, password)
    Session.objects.update(expire_date="2000-01-01T00:00:00Z")
    status, _, _ = account_page(client)
    assert status == 302


def test_a_backend_no_longer_listed_logs_nobody_in(player: User, password: str, settings) -> None:
    client = logged_in(player, password)
    settings.AUTHENTICATION_BACKENDS = [b for b in settings.AUTHENTICATION_BACKENDS if not b.endswith("ModelBackend")]
    status, _, _ = account_page(client)
    assert status == 302


def test_a_session_from_before_the_secret_key_changed_is_kept_and_renewed(player: User, password: str,
                                                                          settings) -> None:  # fmt: skip
    client = logged_in(player, password)
    old_key = client.cookies["sessionid"].value
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a new secret key, long enough for the session hashes of this test"
    status, text, _ = account_page(client)
    assert status == 200
    assert player.username in text
    # Django renewed the session under a new key, its hash by the new secret.
    new_key = client.cookies["sessionid"].value
    assert new_key != old_key
    data = Session.objects.get(session_key=new_key).get_decoded()
    assert data[SESSION_KEY] == str(player.pk)
    assert data[HASH_SESSION_KEY] == User.objects.get(pk=player.pk).get_session_auth_hash()


def test_a_sessions_data_is_decoded_once_and_each_request_has_its_own_copy(
    player: User, password: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same text of a session's data is decoded (its signature checked) once per process; each store
    gets a copy of it, so a change one request makes to its session reaches no other unless saved."""
    sessions.DECODED.clear()
    client = logged_in(player, password)
    key = client.cookies["sessionid"].value
    decoded: list[str] = []
    loads = signing.loads

    def counted(data: str, **kwargs: object) -> object:
        decoded.append(data)
        return loads(data, **kwargs)

    monkeypatch.setattr(signing, "loads", counted)
    for _ in range(3):
        assert account_page(client)[0] == 200
    assert len(decoded) <= 1
    first, second = sessions.SessionStore(key), sessions.SessionStore(key)
    first["note"] = "changed, not saved"
    assert "note" not in second
    assert second[SESSION_KEY] == str(player.pk)


def test_a_session_whose_data_does_not_decode_is_empty_each_time(
    player: User, password: str, caplog: pytest.LogCaptureFixture
) -> None:
    client = logged_in(player, password)
    key = client.cookies["sessionid"].value
    Session.objects.filter(session_key=key).update(session_data="not signed:at all")
    for _ in range(2):
        assert account_page(client)[0] == 302  # no user: sent to log in
    assert [r.getMessage() for r in caplog.records].count("Session data corrupted") == 2
