"""Tokens for the cast, and a client that sends them: ``api(user).get("/campaigns")``."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from api import tokens
from tests.fuzz.tables import coin_registered  # noqa: F401 (a fixture)


class ApiClient:
    """A test client that speaks JSON to /api/v1/ with one user's token."""

    def __init__(self, raw: str | None) -> None:
        self.client = Client()
        self.headers = {"Authorization": f"Bearer {raw}"} if raw else {}

    def _call(self, method: str, path: str, body: Any = None, **kwargs: Any):
        url = "/api/v1" + path
        if body is not None:
            kwargs.setdefault("data", json.dumps(body))
            kwargs.setdefault("content_type", "application/json")
        return getattr(self.client, method)(url, headers=self.headers, **kwargs)

    def get(self, path: str, **kwargs: Any):
        return self._call("get", path, **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any):
        return self._call("post", path, body, **kwargs)

    def patch(self, path: str, body: Any = None, **kwargs: Any):
        return self._call("patch", path, body, **kwargs)

    def put(self, path: str, body: Any = None, **kwargs: Any):
        return self._call("put", path, body, **kwargs)


@pytest.fixture
def api(db) -> Callable[[Any], ApiClient]:
    """``api(user)``: a client with a fresh token of ``user``; ``api(None)`` sends no token."""

    def make(user: Any) -> ApiClient:
        if user is None:
            return ApiClient(None)
        _, raw = tokens.create_token(user=user, name="tests")
        return ApiClient(raw)

    return make
