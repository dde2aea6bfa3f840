"""Creating, revoking and checking personal API tokens (their rate limit is per person: :mod:`web.limits`)."""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Final

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from api.models import ApiToken
from campaigns.operations import NotFound, Refused
from web.fields import ONE_LINE

PREFIX: Final = "dh_"
MAX_TOKENS: Final = 20
#: last_used_at is written at most this often per token, to keep reads cheap.
TOUCH_EVERY: Final = 60
#: A control character, which no token name holds (the API's and the pages' text alike: web.fields).
CONTROL: Final = re.compile(ONE_LINE.replace("^[^", "[").replace("]*$", "]"))


def digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


@transaction.atomic
def create_token(*, user: AbstractBaseUser, name: str) -> tuple[ApiToken, str]:
    """A new token for ``user``: the row, and the token itself, which is never stored or shown again."""
    name = " ".join(str(name or "").split())
    if not name:
        raise Refused("Give the token a name, so you can tell it apart later.", errors={"name": "Give it a name."})
    if re.search(CONTROL, name):
        raise Refused(
            "Keep the name on one line, without control characters.",
            errors={"name": "Keep it on one line, without control characters."},
        )
    if len(name) > 60:
        raise Refused("Keep the name under 60 characters.", errors={"name": "Keep it under 60 characters."})
    if ApiToken.objects.live().filter(user=user).count() >= MAX_TOKENS:
        raise Refused(f"You have {MAX_TOKENS} tokens, the most one account holds: revoke one first.")
    raw = PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, key_hash=digest(raw), prefix=raw[: len(PREFIX) + 5])
    return token, raw


def revoke_token(*, user: AbstractBaseUser, token_id: int) -> ApiToken:
    token = ApiToken.objects.live().filter(user=user, pk=token_id).first()
    if token is None:
        raise NotFound("No such token.")
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    return token


def authenticate(raw: str) -> ApiToken | None:
    """The live token ``raw`` names, with its user, or None."""
    if not raw.startswith(PREFIX) or len(raw) > 100:
        return None
    token = ApiToken.objects.live().select_related("user").filter(key_hash=digest(raw)).first()
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used_at is None or (now - token.last_used_at).total_seconds() > TOUCH_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return token


def revoke_all(*, user: AbstractBaseUser) -> int:
    """Revokes every live token of ``user`` (their password changed: whoever held one may have had it);
    how many there were."""
    return ApiToken.objects.live().filter(user=user).update(revoked_at=timezone.now())
