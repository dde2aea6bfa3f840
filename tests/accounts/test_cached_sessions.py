"""With Redis (every process sharing one cache), a signed-in request reads its session from the cache,
not the database (config/settings.py, SESSION_ENGINE); a new password still ends every other session,
cached or not, and a log-out ends its own everywhere. Here the cache is the test process's own memory,
which stands for Redis: one process, one cache."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.contrib.sessions.backends.cached_db import KEY_PREFIX
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.accounts.helpers import signed_in

CACHED = "django.contrib.sessions.backends.cached_db"
NEW_PASSWORD = "a fresh and longer passphrase"


@pytest.fixture
def cached_sessions(settings) -> None:
    settings.SESSION_ENGINE = CACHED
    cache.clear()


def logged_in(user: User, password: str) -> Client:
    client = Client()
    assert client.post(reverse("login"), {"username": user.username, "password": password}).status_code == 302
    return client


def queries_of(client: Client, path: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(path).status_code == 200
    return [query["sql"] for query in queries.captured_queries]


@pytest.mark.django_db
def test_a_signed_in_page_reads_no_session_from_the_database(player: User, password: str, settings) -> None:
    page = reverse("account")
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"
    in_database = queries_of(logged_in(player, password), page)
    settings.SESSION_ENGINE = CACHED
    cached = queries_of(logged_in(player, password), page)
    # The same page, less one query: the session's row (the user's own is still read, and checked).
    assert [sql for sql in in_database if "django_session" in sql]
    assert not [sql for sql in cached if "django_session" in sql]
    assert len(cached) == len(in_database) - 1


@pytest.mark.django_db
def test_a_new_password_ends_every_other_cached_session(player: User, password: str, cached_sessions) -> None:
    here, laptop = logged_in(player, password), logged_in(player, password)
    assert signed_in(laptop)
    other = laptop.session.session_key
    assert cache.get(KEY_PREFIX + other)  # read from the cache from now on
    data = {"old_password": password, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    assert here.post(reverse("password_change"), data).status_code == 302
    assert not Session.objects.filter(session_key=other).exists()
    assert cache.get(KEY_PREFIX + other) is None
    # Gone from the cache too: the laptop's next page is the log-in page.
    response = laptop.get(reverse("account"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert here.get(reverse("account")).status_code == 200


@pytest.mark.django_db
def test_a_log_out_ends_the_cached_session(player: User, password: str, cached_sessions, settings) -> None:
    client = logged_in(player, password)
    key = client.session.session_key
    assert cache.get(KEY_PREFIX + key)
    assert client.post(reverse("logout")).status_code == 302
    assert cache.get(KEY_PREFIX + key) is None
    stale = Client()
    stale.cookies[settings.SESSION_COOKIE_NAME] = key  # the old cookie, kept by someone
    assert stale.get(reverse("account")).status_code == 302
