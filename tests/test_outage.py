"""The database out of reach is a 503 with Retry-After, never a 500: a small page that needs no
database (no session, no user), JSON for the API, in production and in development alike; nothing is
changed, and the next request after the database is back is served as ever.

Out of reach as the driver says it: every attempt to connect fails (``ensure_connection``, which
every query goes through, raises the ``OperationalError`` Django makes of the driver's "connection
refused"), or a query fails on a connection that was open (``execute_wrapper``). On PostgreSQL, the
connection really goes to a port where nothing listens."""

from __future__ import annotations

import logging
import re
import socket

import pytest
from django.db import InterfaceError, OperationalError, connection
from django.test import Client

from api import tokens
from campaigns.models import Campaign
from tests.api.conftest import ApiClient
from web.outage import OUTAGE_WAIT, RETRY_AFTER

REFUSED = 'connection to server at "127.0.0.1", port 5432 failed: Connection refused'


def refuse() -> None:
    raise OperationalError(REFUSED)


@pytest.fixture
def database_down(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection, "ensure_connection", refuse)


def gone(execute, sql, params, many, context):
    """A query on a connection that was open, to a server that has gone since."""
    raise InterfaceError("connection already closed")


@pytest.fixture
def signed_in(player) -> Client:
    client = Client()
    client.force_login(player)
    return client


@pytest.fixture
def token_client(player) -> ApiClient:
    _, raw = tokens.create_token(user=player, name="tests")
    return ApiClient(raw)


def assert_page_503(response) -> None:
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER)
    assert response["Content-Type"].startswith("text/html")
    assert b"Back in a moment" in response.content
    assert b"nothing was changed" in response.content


def assert_api_503(response) -> None:
    assert response.status_code == 503
    assert response["Retry-After"] == str(RETRY_AFTER)
    assert response.json()["code"] == "unavailable"
    assert "try again" in response.json()["message"]


@pytest.fixture(params=[False, True], ids=["production", "development"])
def debug(request, settings) -> bool:
    settings.DEBUG = request.param
    return request.param


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/accounts/login/", "/healthz", "/campaigns/", "/about/"])
def test_every_page_is_a_503_when_the_database_cannot_be_reached(debug, signed_in, path, database_down) -> None:
    assert_page_503(signed_in.get(path))


@pytest.mark.django_db
def test_an_anonymous_visitor_gets_a_503_only_where_the_database_is_needed(debug, database_down) -> None:
    assert_page_503(Client().get("/healthz"))
    assert Client().get("/").status_code == 200  # the home page needs no database


@pytest.mark.django_db
def test_the_api_is_a_503_in_json_and_nothing_is_made(debug, token_client, database_down, monkeypatch) -> None:
    assert_api_503(token_client.get("/campaigns"))
    assert_api_503(token_client.post("/campaigns", {"name": "Iron Marches", "system": "lucky13"}))
    monkeypatch.undo()  # the database is back: nothing was made, and the next request is served
    assert not Campaign.objects.filter(name="Iron Marches").exists()
    assert token_client.get("/campaigns").status_code == 200


@pytest.mark.django_db
def test_a_query_failing_on_an_open_connection_is_a_503_too(debug, signed_in, token_client, campaign) -> None:
    page = f"/campaigns/{campaign.pk}/"
    with connection.execute_wrapper(gone):
        # The session's read (before any view), the view's own query, the API's token.
        assert_page_503(signed_in.get(page))
        assert_page_503(Client().get("/healthz"))
        assert_api_503(token_client.get("/campaigns"))
    assert signed_in.get(page).status_code == 200


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_postgresql_at_a_port_where_nothing_listens_is_a_503_and_then_served_again(
    signed_in, token_client, campaign, monkeypatch
) -> None:
    page = f"/campaigns/{campaign.pk}/"
    connection.close()
    # The pool connects where the settings said when it was made: a new one for the server gone, whose
    # requests each wait a short while for a connection that never comes, and a new one when it is back.
    connection.close_pool()
    with monkeypatch.context() as patch:
        patch.setitem(connection.settings_dict, "HOST", "127.0.0.1")
        patch.setitem(connection.settings_dict, "PORT", str(closed_port()))
        patch.setitem(connection.settings_dict["OPTIONS"], "pool", {"min_size": 0, "max_size": 1, "timeout": 0.5})
        assert_page_503(signed_in.get(page))
        assert_api_503(token_client.post("/campaigns", {"name": "Iron Marches", "system": "lucky13"}))
        connection.close()
        connection.close_pool()
    assert signed_in.get(page).status_code == 200
    assert not Campaign.objects.filter(name="Iron Marches").exists()


def waits(caplog: pytest.LogCaptureFixture) -> list[str]:
    """How long each 503 logged waited for a pooled connection, as the pool words it."""
    return [m.group(1) for r in caplog.records if (m := re.search(r"after ([0-9.]+) sec", r.getMessage()))]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_once_postgresql_is_out_of_reach_the_next_requests_are_answered_at_once_until_it_is_back(
    signed_in, token_client, campaign, monkeypatch, caplog
) -> None:
    page = f"/campaigns/{campaign.pk}/"
    server = {"host": connection.settings_dict["HOST"], "port": connection.settings_dict["PORT"]}
    connection.close()
    connection.close_pool()
    with monkeypatch.context() as patch, caplog.at_level(logging.WARNING, logger="web.outage"):
        patch.setitem(connection.settings_dict, "HOST", "127.0.0.1")
        patch.setitem(connection.settings_dict, "PORT", str(closed_port()))
        patch.setitem(connection.settings_dict["OPTIONS"], "pool", {"min_size": 0, "max_size": 2, "timeout": 1.0})
        pool = connection.pool
        assert_page_503(signed_in.get(page))  # the pool's whole wait, its attempts to connect refused
        assert_page_503(signed_in.get(page))
        assert_api_503(token_client.get("/campaigns"))
        assert_page_503(Client().get("/healthz"))
        assert Client().get("/").status_code == 200  # a page that needs no database is served as ever
        assert waits(caplog) == ["1.00", f"{OUTAGE_WAIT:.2f}", f"{OUTAGE_WAIT:.2f}", f"{OUTAGE_WAIT:.2f}"]

        # The server answers again where the pool connects; the first request served ends the short wait.
        pool.kwargs.update(server)
        pool.putconn(pool.getconn(timeout=60))  # the pool's next attempt to connect, after its back-off
        assert signed_in.get(page).status_code == 200
        assert pool.timeout == 1.0
        connection.close()
        connection.close_pool()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_every_pooled_connection_busy_is_a_503_after_the_whole_wait_each_time(signed_in, campaign, monkeypatch, caplog):
    """The server answering, but no connection free in time: not an outage, so no request waits less."""
    page = f"/campaigns/{campaign.pk}/"
    connection.close()
    connection.close_pool()
    with monkeypatch.context() as patch, caplog.at_level(logging.WARNING, logger="web.outage"):
        patch.setitem(connection.settings_dict["OPTIONS"], "pool", {"min_size": 0, "max_size": 1, "timeout": 0.5})
        pool = connection.pool
        pool.open()
        held = pool.getconn()
        try:
            assert_page_503(signed_in.get(page))
            assert_page_503(signed_in.get(page))
        finally:
            pool.putconn(held)
        assert waits(caplog) == ["0.50", "0.50"]
        assert pool.timeout == 0.5
        assert signed_in.get(page).status_code == 200
        connection.close()
        connection.close_pool()
