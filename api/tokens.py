"""Creating, revoking and checking personal API tokens, and the per-token rate limit."""

from __future__ import annotations

import hashlib
import math
import re
import secrets
import time
from dataclasses import dataclass
from typing import Final

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.cache import cache
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


@dataclass(frozen=True, slots=True)
class Limited:
    retry_after: int


def check_rate(token: ApiToken) -> Limited | None:
    """Counts this request against the token's budget (``API_RATE_LIMIT`` a minute, in fixed
    one-minute windows kept in the cache, shared by every process when Redis is configured);
    returns how long to wait when the budget is spent."""
    limit = settings.API_RATE_LIMIT
    now = time.time()
    window = int(now // 60)
    key = f"api-rate:{token.pk}:{window}"
    cache.add(key, 0, timeout=120)
    try:
        count = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=120)
        count = 1
    if count > limit:
        return Limited(retry_after=max(1, math.ceil((window + 1) * 60 - now)))
    return None


def revoke_all(*, user: AbstractBaseUser) -> int:
    """Revokes every live token of ``user`` (their password changed: whoever held one may have had it);
    how many there were."""
    return ApiToken.objects.live().filter(user=user).update(revoked_at=timezone.now())
