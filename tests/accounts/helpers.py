"""Small helpers shared by the accounts tests."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import NoReverseMatch, reverse


def landing() -> str:
    """Where a player goes after signing in without a ``next``: my campaigns, or home until that page exists."""
    try:
        return reverse("campaigns:list")
    except NoReverseMatch:
        return "/"


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def logged_in(user: User, password: str) -> Client:
    """A client signed in as ``user`` through the log-in page."""
    client = Client()
    assert client.post(reverse("login"), {"username": user.username, "password": password}).status_code == 302
    return client


def account_page(client: Client) -> tuple[int, str, list[str]]:
    """The account page's status, its text and the SQL of its queries."""
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("account"))
    return response.status_code, response.content.decode(), [query["sql"] for query in queries.captured_queries]


def reads_the_user_alone(sql: list[str]) -> bool:
    """Whether a query read the user by itself (Django's get_user), not with the session."""
    return any(query.lstrip().startswith("SELECT") and "django_session" not in query and
               query.split(" FROM ", 1)[1].split()[0].strip('"`') == "auth_user" for query in sql)  # fmt: skip
