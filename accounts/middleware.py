"""Who the request is from: Django's authentication middleware, taking the user the session engine read
with the session (:mod:`accounts.sessions`) where Django's ``get_user`` would have read that same user and
kept them. Every other case is Django's ``get_user`` itself."""

from __future__ import annotations

from django.conf import settings
from django.contrib import auth
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model, load_backend
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.middleware import AuthenticationMiddleware as DjangoAuthenticationMiddleware
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.crypto import constant_time_compare
from django.utils.functional import SimpleLazyObject


def noted_user(request: HttpRequest) -> AbstractBaseUser | None:
    """The user the session engine read with the session, when Django's ``get_user`` would return that
    very user: the session names them, logged in by a listed backend that reads users as ``ModelBackend``
    does, they may log in (``user_can_authenticate``), and the session holds the hash of their password
    now (not a fallback key's, which Django would renew). None otherwise."""
    session = request.session
    try:  # reading the session loads it, and with it the user it was noted as logged in to
        user_id = get_user_model()._meta.pk.to_python(session[SESSION_KEY])
        backend_path = session[BACKEND_SESSION_KEY]
    except (KeyError, ValidationError):
        return None
    user = getattr(session, "noted_user", None)
    if user is None or user_id != user.pk or backend_path not in settings.AUTHENTICATION_BACKENDS:
        return None
    backend = load_backend(backend_path)
    if not isinstance(backend, ModelBackend) or type(backend).get_user is not ModelBackend.get_user:
        return None
    if not backend.user_can_authenticate(user):
        return None
    session_hash = session.get(HASH_SESSION_KEY)
    if not session_hash or not constant_time_compare(session_hash, user.get_session_auth_hash()):
        return None
    return user


def user_of(request: HttpRequest) -> AbstractBaseUser | AnonymousUser:
    """The request's user, read once: the one read with the session where it may be taken, else Django's."""
    if not hasattr(request, "_cached_user"):
        request._cached_user = noted_user(request) or auth.get_user(request)  # type: ignore[attr-defined]
    return request._cached_user  # type: ignore[attr-defined,no-any-return]


class AuthenticationMiddleware(DjangoAuthenticationMiddleware):
    """Django's, whose ``request.user`` is :func:`user_of` (``request.auser`` is Django's own)."""

    def process_request(self, request: HttpRequest) -> None:
        super().process_request(request)
        request.user = SimpleLazyObject(lambda: user_of(request))  # type: ignore[assignment]
