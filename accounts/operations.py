"""What happens around an account's password and email address, beyond Django's own forms.

A new password (changed, or reset by the mailed link) ends every other session of the account, closes
their open pages' sockets and revokes the account's API tokens: whoever knew the old password may have
used it to sign in somewhere or to make a token. The owner is told on the page and by mail.

A new email address needs the current password, and takes effect only when a link mailed to the new
address is followed (:func:`email_change_token`); the old address is told it changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from importlib import import_module
from typing import Any, Final

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import User
from django.core import signing
from django.core.mail import send_mail
from django.template.loader import render_to_string

from accounts.models import UserSession
from api import tokens
from play import live

#: How long a mailed link to confirm a new email address works.
EMAIL_LINK_LIFETIME: Final = timedelta(days=1)
#: Signs the links that confirm a new email address, and nothing else.
EMAIL_CHANGE_SALT: Final = "accounts.email-change"


@dataclass(frozen=True, slots=True)
class Ended:
    """What a new password ended: other sessions, and API tokens."""

    sessions: int
    tokens: int
    #: Whether the owner was mailed (an account may have no address).
    mailed: bool


def end_other_sessions(*, user: AbstractBaseUser, keep: set[str]) -> int:
    """Ends every session of ``user`` but those in ``keep`` and closes their sockets; how many there were.

    The sessions are deleted through the session engine (whatever stores them); the rows noting them go too.
    """
    keys = set(UserSession.objects.filter(user_id=user.pk).values_list("session_key", flat=True)) - keep
    store = import_module(settings.SESSION_ENGINE).SessionStore
    ended = 0
    for key in keys:
        if store().exists(key):
            ended += 1
        store(session_key=key).delete()
    UserSession.objects.filter(session_key__in=keys).delete()
    live.close_sessions(user.pk, keys)
    return ended


def _mail(subject: str, template: str, to: str, context: dict[str, Any]) -> None:
    send_mail(subject, render_to_string(template, context), None, [to])


def password_changed(*, user: AbstractBaseUser, keep: set[str]) -> Ended:
    """Secures the account after a new password: other sessions ended, tokens revoked, the owner mailed.

    ``keep`` is this browser's session, before and after Django gave it a new key: the new key is noted
    as the account's, so that the next new password, made elsewhere, ends it too.
    """
    sessions = end_other_sessions(user=user, keep=keep)
    for key in keep:
        UserSession.objects.update_or_create(session_key=key, defaults={"user_id": user.pk})
    email = getattr(user, "email", "")
    ended = Ended(sessions=sessions, tokens=tokens.revoke_all(user=user), mailed=bool(email))
    if email:
        _mail("Your Dicehall password was changed", "accounts/password_changed_email.txt", email,
              {"user": user, "ended": ended})  # fmt: skip
    return ended


def email_change_token(*, user: User, new_email: str) -> str:
    """A signed link's token naming the account, its current address and the new one: it works only while
    the account still has that current address, and for :data:`EMAIL_LINK_LIFETIME`."""
    return signing.dumps({"user": user.pk, "old": user.email, "new": new_email}, salt=EMAIL_CHANGE_SALT)


def ask_email_change(*, user: User, new_email: str, link: str) -> None:
    """Mails the link that confirms ``new_email`` to ``new_email`` itself; nothing changes until it is followed."""
    context = {"user": user, "link": link, "hours": int(EMAIL_LINK_LIFETIME.total_seconds() // 3600)}
    _mail("Confirm your new Dicehall email address", "accounts/email_confirm_email.txt", new_email, context)


class BadEmailLink(Exception):
    """A confirmation link that is forged, expired, someone else's, or for an address already changed."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def read_email_change(*, user: User, token: str) -> str:
    """The new address the link confirms for ``user``, or :class:`BadEmailLink` saying why not."""
    try:
        data = signing.loads(token, salt=EMAIL_CHANGE_SALT, max_age=EMAIL_LINK_LIFETIME)
    except signing.SignatureExpired:
        raise BadEmailLink("This link has expired: ask for a new one on your account page.") from None
    except signing.BadSignature:
        raise BadEmailLink("This link is not valid: copy it whole from the mail, or ask for a new one.") from None
    if not isinstance(data, dict) or data.get("user") != user.pk:
        raise BadEmailLink("This link is for another account: log in as that account to follow it.")
    if data.get("old") != user.email:
        raise BadEmailLink("Your email address has changed since this link was sent: ask for a new one.")
    return str(data.get("new", ""))


def change_email(*, user: User, token: str) -> str:
    """Sets the address the link confirms; the new address."""
    new_email = read_email_change(user=user, token=token)
    set_email(user=user, email=new_email)
    return new_email


def set_email(*, user: User, email: str) -> None:
    """Sets the address (confirmed by its link, or none at all) and tells the old address it changed."""
    old_email = user.email
    user.email = email
    user.save(update_fields=["email"])
    if old_email and old_email != email:
        _mail("Your Dicehall email address was changed", "accounts/email_changed_email.txt", old_email,
              {"user": user, "new_email": email})  # fmt: skip
