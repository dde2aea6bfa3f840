"""The log-in rate limit around django-axes: whose tries are counted together, and how each is slowed.

Three rules, so that nobody can lock someone else out and nobody can guess at scale:

- **One account from one address** (axes, ``AXES_LOCKOUT_PARAMETERS``): :data:`FAILURE_LIMIT` failures
  within the cool-off lock that pair for the cool-off, counted from the last counted failure; a try while
  locked is refused without being counted, so it does not start the wait over.
- **One account from anywhere** (:func:`pace`): once an account has had :data:`ACCOUNT_FREE_FAILURES`
  failures within the cool-off, tries at it from an address it has never logged in from are slowed, each
  failure doubling the wait (:data:`FIRST_DELAY` up to :data:`LONGEST_DELAY`): a 429 with Retry-After,
  never a lock. From an address its owner has logged in from before, the right password still works.
- **One address for any account** (:func:`pace`): after :data:`ADDRESS_FREE_FAILURES` failures from an
  address, its tries at accounts never logged in to from there are slowed the same way; the people who do
  log in from there (a shared office or school network) are not.

The client address is REMOTE_ADDR, or, when REMOTE_ADDR is one of the ``TRUSTED_PROXIES``, the
right-most address in X-Forwarded-For that is not one of them (:func:`client_address`): a client can
write anything into the header, but only the part to the right of its own address was written by our proxies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from axes.conf import settings
from axes.helpers import get_client_ip_address, get_cool_off
from axes.models import AccessAttempt
from axes.utils import reset
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.signals import user_logged_in
from django.db.models import Max, QuerySet, Sum
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.crypto import salted_hmac

from accounts.models import KnownAddress
from accounts.names import skeleton
from web import client, limits

#: Failures for one account from one address that lock that pair (axes' AXES_FAILURE_LIMIT).
FAILURE_LIMIT: Final = 5
#: Failures at one account, from any address, before tries from unknown addresses are slowed.
ACCOUNT_FREE_FAILURES: Final = 5
#: Failures from one address, at any account, before its tries at accounts unknown there are slowed.
ADDRESS_FREE_FAILURES: Final = 10
#: The first wait once slowed; each further failure doubles it.
FIRST_DELAY: Final = timedelta(seconds=5)
#: The longest wait between two tries: one cool-off.
LONGEST_DELAY: Final = timedelta(minutes=15)
#: Doubling :data:`FIRST_DELAY` this often passes :data:`LONGEST_DELAY` already.
MAX_DOUBLINGS: Final = math.ceil(math.log2(LONGEST_DELAY / FIRST_DELAY))
#: How long an address stays known after its last successful log-in.
KNOWN_FOR: Final = timedelta(days=90)
#: The longest username (Django's column): a longer name is no try at any account.
USERNAME_LENGTH: Final = 150
#: The form field axes reads the username from.
USERNAME_FIELD: Final = "username"


def client_address(request: HttpRequest) -> str | None:
    """The address the request came from (axes' AXES_CLIENT_IP_CALLABLE), as every limit reads it
    (:func:`web.client.client_address`: REMOTE_ADDR, or behind ``TRUSTED_PROXIES`` the nearest hop
    of X-Forwarded-For that is not one of ours); None when there is none, as axes expects.

    An IPv6 client is counted by its /64 network, as the rate limits count it (one subscriber holds a whole
    /64, and would otherwise have an address per guess), written as the network's first address."""
    address = client.client_address(request)
    if address == client.UNKNOWN:
        return None
    return limits.address_key(address).split("/", 1)[0]


def axes_username(request: HttpRequest, credentials: dict[str, Any] | None = None) -> str:
    """axes' AXES_USERNAME_CALLABLE: the canonical form of the name tried, so that ``Alice`` and ``аlice``
    (Cyrillic а) count against one account, as they log in to one (:mod:`accounts.backends`)."""
    raw = (credentials or {}).get(USERNAME_FIELD) or request.POST.get(USERNAME_FIELD, "")
    return skeleton(str(raw))


def address_hash(address: str) -> str:
    return salted_hmac("accounts.known-address", address, algorithm="sha256").hexdigest()


def known_at(username: str, address: str) -> bool:
    """Whether the account named ``username`` (in any form) has logged in from ``address`` lately."""
    return KnownAddress.objects.filter(
        user__canonical_name__skeleton=skeleton(username),
        address_hash=address_hash(address),
        last_seen_at__gte=timezone.now() - KNOWN_FOR,
    ).exists()


def _recent(attempts: QuerySet[AccessAttempt], now: datetime) -> QuerySet[AccessAttempt]:
    cool_off = get_cool_off() or LONGEST_DELAY
    return attempts.filter(attempt_time__gte=now - cool_off)


def _wait(attempts: QuerySet[AccessAttempt], free: int, now: datetime) -> int:
    """Whole seconds to wait before the next try, given these failures and the number let through free."""
    found = _recent(attempts, now).aggregate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
    failures, last = found["failures"] or 0, found["last"]
    if failures < free or last is None:
        return 0
    doublings = min(failures - free, MAX_DOUBLINGS)  # 2**n of a huge count is no number a timedelta takes
    delay = min(FIRST_DELAY * 2**doublings, LONGEST_DELAY)
    return max(0, math.ceil((last + delay - now).total_seconds()))


@dataclass(frozen=True, slots=True)
class Slowed:
    """A try refused for coming too soon: wait ``seconds``; ``account`` if the account's count did it."""

    seconds: int
    account: bool


def pace(request: HttpRequest) -> Slowed | None:
    """Whether this log-in try comes too soon after the failures before it (see the module's rules).

    The slow-downs apply only to an account tried from an address it has not logged in from: its owner,
    at home, is never slowed by anyone else's guesses.
    """
    username = str(request.POST.get(USERNAME_FIELD, ""))
    address = client_address(request)
    # A name longer than any username is refused by the form before any password is checked.
    if address is None or not username or len(username) > USERNAME_LENGTH or known_at(username, address):
        return None
    now = timezone.now()
    account = _wait(AccessAttempt.objects.filter(username=skeleton(username)), ACCOUNT_FREE_FAILURES, now)
    network = _wait(AccessAttempt.objects.filter(ip_address=address), ADDRESS_FREE_FAILURES, now)
    if not account and not network:
        return None
    return Slowed(seconds=max(account, network), account=account >= network)


def too_soon(request: HttpRequest, slowed: Slowed) -> HttpResponse:
    """The page for a try that came too soon: 429, with how long to wait in words and in Retry-After."""
    response = render(
        request,
        "accounts/slowed.html",
        {"seconds": slowed.seconds, "account": slowed.account},
        status=settings.AXES_HTTP_RESPONSE_CODE,
    )
    response["Retry-After"] = str(slowed.seconds)
    return response


def _lock_ends_in(request: HttpRequest, credentials: dict[str, Any] | None) -> int | None:
    """Seconds until this account unlocks from this address: the cool-off from the last counted failure."""
    cool_off = get_cool_off(request)
    if cool_off is None:
        return None
    last = AccessAttempt.objects.filter(
        username=axes_username(request, credentials), ip_address=get_client_ip_address(request)
    ).aggregate(last=Max("attempt_time"))["last"]
    if last is None:
        return math.ceil(cool_off.total_seconds())
    return max(1, math.ceil((last + cool_off - timezone.now()).total_seconds()))


def locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: dict[str, Any] | None = None
) -> HttpResponse:
    """axes' AXES_LOCKOUT_CALLABLE: our own page, 429, saying how long is left to wait (and Retry-After)."""
    seconds = _lock_ends_in(request, credentials)
    response = render(
        request,
        "accounts/locked_out.html",
        {"minutes": math.ceil(seconds / 60) if seconds else None, "failure_limit": settings.AXES_FAILURE_LIMIT},
        status=settings.AXES_HTTP_RESPONSE_CODE,
    )
    if seconds:
        response["Retry-After"] = str(seconds)
    return response


def forget_account_failures(user: AbstractBaseUser) -> None:
    """Every failure at this account, from everywhere: a new password set by the mailed link makes the
    guesses at the old one moot, and its owner need not wait out a lock."""
    reset(username=skeleton(user.get_username()))


@receiver(user_logged_in, dispatch_uid="accounts.lockout.on_log_in")
def on_log_in(sender: type, request: HttpRequest | None, user: AbstractBaseUser, **kwargs: Any) -> None:
    """A successful log-in forgets the failures of this account from this address, and only those, and
    makes the address known for this account.

    axes' AXES_RESET_ON_SUCCESS deletes every failure for the username *or* from the address, so
    anyone who can log in to some account (sign-up is open) could wipe the count of their guesses
    at another account from the same address, four at a time, for ever.
    """
    if request is None:
        return
    address = get_client_ip_address(request)
    if not address:  # a test client's force_login has none; without one the reset would cover every address
        return
    reset(ip=address, username=skeleton(user.get_username()))
    KnownAddress.objects.update_or_create(
        user_id=user.pk, address_hash=address_hash(address), defaults={"last_seen_at": timezone.now()}
    )
