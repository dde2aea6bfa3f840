"""Log-in by any form of a username that is the same name (:mod:`accounts.names`).

A username is unique by its skeleton, so the skeleton names at most one account: ``Alice``, ``ALICE``
and ``аlice`` (Cyrillic а) all log in to ``alice`` with her password. Nobody else can hold any of those
names, so accepting them lets in no one new, and it spares a player who typed a capital letter. The
failures are counted by skeleton too (``AXES_USERNAME_CALLABLE``), so trying the forms in turn buys no
extra guesses.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest

from accounts.names import skeleton


class CanonicalNameBackend(ModelBackend):
    """After ModelBackend (the exact name): the account whose name has the same skeleton as the one typed."""

    def authenticate(
        self, request: HttpRequest | None, username: str | None = None, password: str | None = None, **kwargs: Any
    ) -> AbstractBaseUser | None:
        if not username or password is None:
            return None
        user = get_user_model()._default_manager.filter(canonical_name__skeleton=skeleton(username)).first()
        # The exact name was ModelBackend's to try: checking its password again would only double the cost.
        if user is None or user.get_username() == username:
            return None
        if user.check_password(password) and self.user_can_authenticate(user):
            return user
        return None
