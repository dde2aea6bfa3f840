"""Rate limits: how often one person, and one network address, may do each costly thing.

Each :class:`Limit` names an action (the calculator, a roll, Verify, the chance API, sign-up…) and
how many requests a window of it allows to one signed-in person, from anywhere and through any
of their API tokens, and to one client address (:func:`web.client.client_address`), whoever is
signed in there; a request must pass both. An IPv6 client is counted by its /64 network, which
one household or one server is given whole. Past either, the request is refused before it does
anything: a page answers 429 with ``Retry-After`` (:func:`limited`), the API its JSON error
(an endpoint calls :func:`check`, whose :class:`RateLimited` the API's error handler answers).

Counters live in Django's cache, in fixed windows (``rate:<name>:<who>:<window>``), shared by
every server process when the cache is Redis; there, every counter of a request is counted in one trip
(:func:`_counted_in_redis`). A process whose cache is its own memory (no Redis) keeps them in its memory
itself (:class:`ProcessCounters`). Should the cache fail (Redis down), the limit is
not applied and a warning is logged: the product keeps working, unlimited, rather than refuse
everyone. ``settings.RATE_LIMITS`` overrides a limit by name, ``{"rolls": (per_user,
per_address)}``; ``settings.API_RATE_LIMIT`` is the API's budget per person.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from time import monotonic
from time import time as wall_clock
from typing import Any, Final

from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from web.client import client_address, parse

logger = logging.getLogger(__name__)

MINUTE: Final = 60
HOUR: Final = 3600
#: A cache that fails is reported at most this often (seconds) by each process, not on every request.
WARN_EVERY: Final = 60
#: After the cache fails, each process leaves it alone this long (seconds) before trying it again, so that
#: a Redis that does not answer costs one request its timeout now and then, not every request.
CACHE_PAUSE: Final = 5
#: The prefix length an IPv6 client is counted by: a /64 is one network's, its addresses the owner's to pick.
IPV6_PREFIX: Final = 64


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``per_user`` requests a ``window`` (seconds) for one signed-in person, and
    ``per_address`` from one client address; 0 counts nothing that way."""

    name: str
    per_user: int
    per_address: int
    window: int
    #: What is counted, in the refusal's words: "Too many <what> …".
    what: str
    #: The setting that gives ``per_user`` instead, where one does (the API's budget).
    per_user_setting: str = ""

    def budget(self) -> tuple[int, int]:
        """(per person, per address), as ``settings.RATE_LIMITS`` may override them."""
        override = getattr(settings, "RATE_LIMITS", {}).get(self.name)
        if override is not None:
            return int(override[0]), int(override[1])
        per_user = getattr(settings, self.per_user_setting) if self.per_user_setting else self.per_user
        return int(per_user), self.per_address


#: The Lucky 13 calculator's pages and rolls (every change of the form asks for the odds again), signed in.
CALCULATOR: Final = Limit("calculator", per_user=120, per_address=240, window=MINUTE, what="calculations")
#: The same for visitors who are not signed in: counted by address only, a lower budget shared by everyone there.
CALCULATOR_ANONYMOUS: Final = Limit(
    "calculator-anonymous", per_user=0, per_address=60, window=MINUTE, what="calculations"
)
#: ``POST /api/v1/chance``: exact chances on demand, on top of the API's own budget.
CHANCE: Final = Limit("chance", per_user=60, per_address=120, window=MINUTE, what="chance requests")
#: Every API request (per person: ``settings.API_RATE_LIMIT``, whichever of their tokens they use).
API: Final = Limit(
    "api", per_user=600, per_address=1200, window=MINUTE, what="API requests", per_user_setting="API_RATE_LIMIT"
)
#: Rolls recorded in a campaign's log: the sheet's roll page, an answer to a roll request, the dice
#: box, a GM's roll for an NPC, a contest, moves and table moves, a fight's rolls; the API's too.
ROLLS: Final = Limit("rolls", per_user=60, per_address=120, window=MINUTE, what="rolls")
#: The dice box's free expressions, on top of :data:`ROLLS`.
DICE_BOX: Final = Limit("dice-box", per_user=30, per_address=60, window=MINUTE, what="dice box rolls")
#: Verify, which reads and hashes a campaign's whole roll log, on its page and in the API.
VERIFY: Final = Limit("verify", per_user=6, per_address=12, window=MINUTE, what="checks of the roll log")
#: Tries at a new account from one address (sign-up is open to anyone); showing the form is not counted.
SIGNUP: Final = Limit("signup", per_user=0, per_address=10, window=HOUR, what="sign-up attempts")

#: Changes asked on the account page (a new email address, which mails a link to it, checked with the current
#: password): neither a way to mail anyone at will nor to guess a password from a session found open.
ACCOUNT: Final = Limit("account", per_user=10, per_address=30, window=HOUR, what="account changes")

ALL: Final = (CALCULATOR, CALCULATOR_ANONYMOUS, CHANCE, API, ROLLS, DICE_BOX, VERIFY, SIGNUP, ACCOUNT)


class RateLimited(Exception):
    """A request past a limit: ``message`` for people, ``retry_after`` whole seconds to wait."""

    def __init__(self, limit: Limit, retry_after: int, by_address: bool) -> None:
        whose = "from your network address" if by_address else "from your account"
        self.limit = limit
        self.retry_after = retry_after
        self.message = f"Too many {limit.what} {whose} just now: please wait {wait_words(retry_after)} and try again."
        super().__init__(self.message)


def wait_words(seconds: int) -> str:
    """A wait in words: seconds up to two minutes, whole minutes (rounded up) beyond."""
    if seconds < 2 * MINUTE:
        return f"{seconds} second{'s' * (seconds != 1)}"
    return f"{math.ceil(seconds / MINUTE)} minutes"


def address_key(address: str) -> str:
    """How an address is counted: an IPv4 address as itself, an IPv6 one by its /64 network."""
    parsed = parse(address)
    if parsed is None or parsed.version == 4:
        return address
    if parsed.ipv4_mapped is not None:
        return str(parsed.ipv4_mapped)
    return str(ipaddress.ip_network(f"{parsed}/{IPV6_PREFIX}", strict=False))


@dataclass(slots=True)
class CacheWatch:
    """What this process knows of the cache's failures: when it last said so, and until when it leaves
    the cache alone."""

    warned_at: float = -math.inf
    down_until: float = -math.inf

    def failed(self, error: Exception) -> None:
        now = monotonic()
        self.down_until = now + CACHE_PAUSE
        if now - self.warned_at >= WARN_EVERY:
            self.warned_at = now
            logger.warning("Rate limits are off while the cache fails: %s: %s", type(error).__name__, error)

    def paused(self) -> bool:
        return monotonic() < self.down_until

    def reset(self) -> None:
        self.warned_at = self.down_until = -math.inf


cache_watch: Final = CacheWatch()
#: Django's cache, as this module counts in it (``cache``, which a test may stand in for).
shared_cache: Final = cache


class ProcessCounters:
    """The counters of a process whose cache is its own (Django's ``LocMemCache``, as ``make run`` serves without
    Redis), kept in its memory as that cache would keep them: counted on, or made at 1 to expire with its window,
    without the pickling, the key checks and the locking the cache's API does for each call (a signed-in roll
    counted four times in it, a twentieth of the roll's time). At most ``limit`` counters, the oldest made dropped
    first (the cache itself keeps 300, and drops a third of them at once when full)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._counters: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def count(self, key: str, timeout: float) -> int:
        """The counter ``key`` counted on (a new one at 1, kept ``timeout`` seconds): its count now."""
        now = monotonic()
        with self._lock:
            counter = self._counters.get(key)
            if counter is None or counter[0] <= now:
                self._counters.pop(key, None)  # made again at the end: the oldest are dropped first
                self._counters[key] = [now + timeout, 1]
                while len(self._counters) > self.limit:
                    del self._counters[next(iter(self._counters))]
                return 1
            counter[1] += 1
            return int(counter[1])

    def clear(self) -> None:
        with self._lock:
            self._counters.clear()


#: This process's counters, while its cache is its own (:class:`ProcessCounters`).
PROCESS_COUNTERS: Final = ProcessCounters(10_000)
#: The cache that is a process's own, as ``settings.CACHES`` names it.
IN_PROCESS_CACHE: Final = f"{LocMemCache.__module__}.{LocMemCache.__qualname__}"


def _in_process() -> bool:
    """Whether Django's cache is this process's own memory, read from the settings: the cache itself, handed
    out anew to each request's context, cost more to ask for than the counting."""
    return bool(settings.CACHES.get("default", {}).get("BACKEND") == IN_PROCESS_CACHE)


def _count(key: str, window: int, counter: Any) -> int | None:
    """This request counted under ``key`` for the window in ``counter`` (the cache, found once for the request's
    counters): the count so far, or None when the cache fails (or failed less than :data:`CACHE_PAUSE` seconds
    ago)."""
    if cache_watch.paused():
        return None
    try:
        # Counted on first: only the window's first request finds no counter, and then adds it (where adding
        # first cost every other request one more trip to the cache, to be told the counter was there).
        try:
            return int(counter.incr(key))
        except ValueError:  # the window's first request, or its counter expired a moment ago
            pass
        if counter.add(key, 1, timeout=window + 1):
            return 1
        try:
            return int(counter.incr(key))  # another request of the same window added it first
        except ValueError:  # and it expired in between
            counter.set(key, 1, timeout=window + 1)
            return 1
    except Exception as error:  # any failure of the cache (Redis down) lets the request through
        cache_watch.failed(error)
        return None


def _counted(counters: list[tuple[str, int]]) -> list[int | None]:
    """This request counted under each ``(key, window)``: the counts so far, in order; each None when the
    cache fails (or failed less than :data:`CACHE_PAUSE` seconds ago)."""
    if not counters:
        return []
    if cache is shared_cache and _in_process():  # the cache is this process's alone: counted in its memory
        return [PROCESS_COUNTERS.count(key, window + 1) for key, window in counters]
    backend = caches["default"]
    if not isinstance(backend, RedisCache) or cache is not shared_cache:  # a test's stand-in: counted as before
        # The cache found once for all the request's counters (each use of ``cache`` finds the thread's again).
        counter = backend if cache is shared_cache else cache
        return [_count(key, window, counter) for key, window in counters]
    if cache_watch.paused():
        return [None] * len(counters)
    try:
        return _counted_in_redis(backend, counters)
    except Exception as error:  # any failure of the cache (Redis down) lets the request through
        cache_watch.failed(error)
        return [None] * len(counters)


def _counted_in_redis(backend: RedisCache, counters: list[tuple[str, int]]) -> list[int]:
    """The counters counted in Redis in one trip, each an INCR and an EXPIRE of the window's length that sets it
    only on a new counter (NX), together (MULTI): Django's ``incr`` asks whether the key exists first, two
    trips a counter, and the window's first request added it in two more. The counters are the integers
    Django's cache reads (it keeps an int as Redis's own). The client is the one Django's cache writes with
    (its ``_cache``, the Redis client it wraps: Django offers no pipeline of its own)."""
    client = backend._cache.get_client(write=True)
    with client.pipeline(transaction=True) as pipeline:
        for key, window in counters:
            made = backend.make_and_validate_key(key)
            pipeline.incr(made)
            pipeline.expire(made, window + 1, nx=True)
        replies = pipeline.execute()
    return [int(count) for count in replies[::2]]


def _who(request: HttpRequest, limit: Limit, address: Callable[[], str]) -> list[tuple[str, int, bool]]:
    """The counters ``request`` goes against under ``limit``: (who, allowed, by address). ``address``: how the
    request's address is counted (:func:`address_key`), worked out once for all its limits."""
    per_user, per_address = limit.budget()
    user = getattr(request, "user", None)
    counted = []
    if per_user and user is not None and user.is_authenticated:
        counted.append((f"u{user.pk}", per_user, False))
    if per_address:
        counted.append((f"a{address()}", per_address, True))
    return counted


def check(request: HttpRequest, *limits: Limit) -> None:
    """Count ``request`` against each of ``limits``, for its person and its address; raise
    :class:`RateLimited` (with the longest wait) if it went past any of them."""
    now = wall_clock()
    known: list[str] = []

    def address() -> str:  # read the first time a limit counts by address, then known
        if not known:
            known.append(address_key(client_address(request)))
        return known[0]

    asked = []  # each counter: its key and window, with what refuses it and how long for
    for limit in limits:
        window = int(now // limit.window)
        retry_after = max(1, math.ceil((window + 1) * limit.window - now))
        for who, allowed, by_address in _who(request, limit, address):
            asked.append((f"rate:{limit.name}:{who}:{window}", limit.window, limit, allowed, by_address, retry_after))
    counts = _counted([(key, window) for key, window, *_ in asked])
    refused: RateLimited | None = None
    for count, (_, _, limit, allowed, by_address, retry_after) in zip(counts, asked, strict=True):
        if count is not None and count > allowed and (refused is None or retry_after > refused.retry_after):
            refused = RateLimited(limit, retry_after, by_address)
    if refused is not None:
        raise refused


def too_many(request: HttpRequest, refused: RateLimited) -> HttpResponse:
    """The 429 page (its fragment for htmx), saying what was refused and how long to wait."""
    partial = bool(getattr(request, "htmx", False))
    context = {"message": refused.message, "retry_after": refused.retry_after}
    response = render(request, "429.html" + ("#rate-limited" if partial else ""), context, status=429)
    response["Retry-After"] = str(refused.retry_after)
    return response


View = Callable[..., HttpResponse]


def limited(*limits: Limit, anonymous: Limit | None = None, methods: tuple[str, ...] = ()) -> Callable[[View], View]:
    """A page view counted against ``limits`` (against ``anonymous`` instead for a visitor who is
    not signed in, where given), only for requests of ``methods`` when given; past a limit, the 429 page."""

    def decorate(view: View) -> View:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not methods or request.method in methods:
                chosen = limits if anonymous is None or request.user.is_authenticated else (anonymous,)
                try:
                    check(request, *chosen)
                except RateLimited as refused:
                    return too_many(request, refused)
            return view(request, *args, **kwargs)

        return wrapped

    return decorate
