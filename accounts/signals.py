"""What accounts keep up to date as users change: each username's canonical form, whose sessions are whose,
and which sessions' kept reads may no longer be taken (:func:`accounts.sessions.forget`)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.signals import user_logged_in, user_logged_out
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.http import HttpRequest
from django.utils import timezone

from accounts import sessions
from accounts.models import CanonicalName, UserSession
from accounts.names import skeleton


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.signals.keep_canonical_name")
def keep_canonical_name(sender: type, instance: AbstractBaseUser, created: bool, **kwargs: Any) -> None:
    """Every saved user's name has its skeleton row, whoever saved it (the sign-up page, the admin, a
    command): a name that looks like a taken one fails on the unique constraint, after the sign-up form
    has already refused it with a message."""
    update_fields = kwargs.get("update_fields")
    if not created and update_fields is not None and "username" not in update_fields:
        return  # last_login, a password: the name is as it was
    name = skeleton(instance.get_username())
    CanonicalName.objects.update_or_create(user_id=instance.pk, defaults={"skeleton": name})


@receiver(user_logged_in, dispatch_uid="accounts.signals.record_session")
def record_session(sender: type, request: HttpRequest | None, user: AbstractBaseUser, **kwargs: Any) -> None:
    """Notes whose session this is, and forgets this user's notes of sessions old enough to have expired."""
    session = getattr(request, "session", None)
    if session is None:
        return
    if session.session_key is None:
        session.save()
    too_old = timezone.now() - timedelta(seconds=settings.SESSION_COOKIE_AGE)
    UserSession.objects.filter(user_id=user.pk, created_at__lt=too_old).delete()
    UserSession.objects.update_or_create(session_key=session.session_key, defaults={"user_id": user.pk})


@receiver(user_logged_out, dispatch_uid="accounts.signals.forget_session")
def forget_session(sender: type, request: HttpRequest | None, user: AbstractBaseUser | None, **kwargs: Any) -> None:
    key = getattr(getattr(request, "session", None), "session_key", None)
    if key:
        UserSession.objects.filter(session_key=key).delete()


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.signals.forget_users_sessions")
@receiver(post_delete, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.signals.forget_deleted_users_sessions")
def forget_users_sessions(sender: type, instance: AbstractBaseUser, **kwargs: Any) -> None:
    """A user saved (a new password, an account closed, a new name) or deleted: no read kept with any of their
    sessions, which holds the user as it was, is taken again."""
    keys = UserSession.objects.filter(user_id=instance.pk).values_list("session_key", flat=True)
    sessions.forget(*keys)


@receiver(post_save, sender=UserSession, dispatch_uid="accounts.signals.forget_noted_session")
@receiver(post_delete, sender=UserSession, dispatch_uid="accounts.signals.forget_unnoted_session")
def forget_noted_session(sender: type, instance: UserSession, **kwargs: Any) -> None:
    """A session's note of its user written or dropped: its read, which holds the noted user, is read again."""
    sessions.forget(instance.session_key)
