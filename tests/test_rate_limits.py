"""Rate limits (web/limits.py): every limited page and endpoint answers 429 with Retry-After past its
limit, counted per person (across their API tokens) and per address (across people); the client's
address behind trusted proxies (web/client.py); no limit, and no failure, while the cache is down;
and the calculator leaves no session behind for a visitor."""

from __future__ import annotations

import ipaddress
import logging
import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.sessions.models import Session
from django.core.exceptions import ImproperlyConfigured
from django.test import Client, RequestFactory
from django.urls import reverse

from tests.api.conftest import api  # noqa: F401 (a fixture)
from tests.conftest import needs_redis
from tests.play.sockets import REDIS_URL
from web import limits
from web.client import client_address
from web.limits import address_key

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
CHECK = {"ability": "d10", "skill": "d12", "difficulty": "d6", "ability_roll": "background", "explosion": "cinematic"}
SPEC = {"system": "lucky13", "roll": "check", "ability": "d8", "skill": "d6", "difficulty": "moderate"}
#: A cache that refuses every connection at once: Redis down.
REDIS_DOWN = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://127.0.0.1:1/0"}
}


#: The clock of every test here: 30 s into a minute and into an hour, so that a test's requests all fall in one
#: window of every limit (a real clock may cross into the next one between two requests, and count afresh).
NOW = 1_800_000_030.0


@pytest.fixture(autouse=True)
def one_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "wall_clock", lambda: NOW)


def only(settings: Any, name: str, per_user: int = 1, per_address: int = 1) -> None:
    settings.RATE_LIMITS = {name: (per_user, per_address)}


def client_of(user: Any, address: str = "127.0.0.1") -> Client:
    client = Client(REMOTE_ADDR=address)
    if user is not None:
        client.force_login(user)
    return client


def assert_page_refused(response: Any, limit: limits.Limit) -> None:
    assert response.status_code == 429
    assert int(response["Retry-After"]) == limit.window - 30
    text = response.content.decode()
    assert "<h1>Too many requests</h1>" in text
    assert f"Too many {limit.what} from your " in text


# --- Every limited page -------------------------------------------------------------------------------


Page = tuple[str, str, str, Callable[[Any], str], dict[str, str]]
#: (limit, who, method, url, data): each page a limit counts, and a request of it.
PAGES: list[Page] = [
    ("calculator-anonymous", "", "get", lambda c: reverse("lucky13:calculator"), {}),
    ("calculator-anonymous", "", "get", lambda c: reverse("lucky13:opposed"), {}),
    ("calculator-anonymous", "", "post", lambda c: reverse("lucky13:roll-check"), CHECK),
    ("calculator-anonymous", "", "post", lambda c: reverse("lucky13:roll-opposed"), {}),
    ("calculator", "player", "get", lambda c: reverse("lucky13:opposed"), {}),
    ("calculator", "player", "post", lambda c: reverse("lucky13:roll-check"), CHECK),
    ("rolls", "gm", "post", lambda c: reverse("lucky13:npc-roll"), {**CHECK, "campaign": "1", "npc": "Orc"}),
    ("rolls", "player", "post", lambda c: reverse("play:sheet-roll", args=[c.pk]), {}),
    ("rolls", "player", "post", lambda c: reverse("lucky13:contest", args=[c.pk]), {}),
    ("rolls", "player", "post", lambda c: reverse("play:request-answer", args=[c.pk, 999]), {}),
    ("rolls", "player", "post", lambda c: reverse("play:free-roll", args=[c.campaign_id]), {"expression": "d6"}),
    ("dice-box", "player", "post", lambda c: reverse("play:free-roll", args=[c.campaign_id]), {"expression": "d6"}),
    ("verify", "player", "get", lambda c: reverse("play:verify-rolls", args=[c.campaign_id]), {}),
    # Moves and fights roll too, each through the pipeline the roll pages use.
    ("rolls", "player", "post", lambda c: reverse("play:move", args=[c.pk, "no-such-move"]), {}),
    ("rolls", "gm", "post", lambda c: reverse("play:table-move", args=[c.campaign_id, "no-such-move"]), {}),
    ("rolls", "gm", "post", lambda c: reverse("play:encounter-initiative", args=[c.campaign_id]), {}),
    ("rolls", "player", "post", lambda c: reverse("play:encounter-attack", args=[c.campaign_id]), {}),
    ("rolls", "player", "post", lambda c: reverse("play:encounter-defend", args=[c.campaign_id]), {}),
    ("rolls", "gm", "post", lambda c: reverse("play:encounter-act", args=[c.campaign_id]), {}),
    ("signup", "", "post", lambda c: reverse("signup"), {"username": "newcomer"}),
    ("account", "player", "post", lambda c: reverse("account"), {"email": "new@example.com"}),
]


@pytest.mark.parametrize(("name", "who", "method", "url", "data"), PAGES)
def test_past_its_limit_a_page_is_a_429_with_retry_after(
    request, settings, character, name, who, method, url, data
) -> None:
    only(settings, name)
    client = client_of(request.getfixturevalue(who) if who else None)
    limit = next(limit for limit in limits.ALL if limit.name == name)

    first = getattr(client, method)(url(character), data)
    second = getattr(client, method)(url(character), data)

    assert first.status_code != 429
    assert_page_refused(second, limit)


def test_a_limit_that_is_not_reached_changes_nothing(settings, character, player) -> None:
    only(settings, "dice-box", 3, 3)
    client = client_of(player)
    url = reverse("play:free-roll", args=[character.campaign_id])

    assert [client.post(url, {"expression": "d6"}).status_code for _ in range(3)] == [302, 302, 302]
    assert client.post(url, {"expression": "d6"}).status_code == 429
    assert character.campaign.rolls.count() == 3  # the refused roll was not made


def test_htmx_gets_the_refusal_as_a_fragment(settings, character, player) -> None:
    only(settings, "rolls")
    client = client_of(player)
    url = reverse("play:free-roll", args=[character.campaign_id])
    client.post(url, {"expression": "d6"}, **HX)

    response = client.post(url, {"expression": "d6"}, **HX)

    assert response.status_code == 429
    text = response.content.decode()
    assert text.strip().startswith('<div class="refusal" id="rate-limited" role="alert">')
    assert "Too many rolls from your account just now: please wait " in text
    assert "<!doctype" not in text.lower()


def test_a_sheet_roll_page_counts_rolls_not_looks(settings, character, player) -> None:
    only(settings, "rolls")
    client = client_of(player)
    url = reverse("play:sheet-roll", args=[character.pk])

    assert [client.get(url).status_code != 429 for _ in range(3)] == [True, True, True]
    assert client.post(url, {}).status_code != 429
    assert client.post(url, {}).status_code == 429


def test_a_signup_form_is_shown_however_often_but_accounts_are_limited(settings) -> None:
    only(settings, "signup", 0, 2)
    client = client_of(None)
    data = {"password1": "a long and unguessable phrase", "password2": "a long and unguessable phrase"}

    assert client.get(reverse("signup")).status_code == 200
    assert client.post(reverse("signup"), {**data, "username": "first"}).status_code == 302
    client = client_of(None)  # a new browser, the same address
    assert client.post(reverse("signup"), {**data, "username": "second"}).status_code == 302
    client = client_of(None)
    response = client.post(reverse("signup"), {**data, "username": "third"})
    assert_page_refused(response, limits.SIGNUP)
    assert "from your network address" in response.content.decode()
    assert client.get(reverse("signup")).status_code == 200
    from django.contrib.auth.models import User

    assert not User.objects.filter(username="third").exists()


# --- Every limited endpoint of the API --------------------------------------------------------------


Endpoint = tuple[str, str, Callable[[Any], str], Any]
ENDPOINTS: list[Endpoint] = [
    ("chance", "post", lambda c: "/chance", SPEC),
    ("api", "get", lambda c: "/campaigns", None),
    ("rolls", "post", lambda c: f"/characters/{c.pk}/rolls", {}),
    ("rolls", "post", lambda c: f"/characters/{c.pk}/lucky13/contest", {"skill": 1, "opponent_dice": ["d6"]}),
    ("verify", "get", lambda c: f"/campaigns/{c.campaign_id}/rolls/verify", None),
    ("rolls", "post", lambda c: f"/characters/{c.pk}/moves/no-such-move", {"version": 1}),
    ("rolls", "post", lambda c: f"/campaigns/{c.campaign_id}/moves/no-such-move", {"version": 1}),
    ("rolls", "post", lambda c: f"/campaigns/{c.campaign_id}/encounters/1/initiative", {}),
    ("rolls", "post", lambda c: f"/campaigns/{c.campaign_id}/encounters/1/attacks/waiting/answer", {"answer": "x"}),
    ("rolls", "post", lambda c: f"/campaigns/{c.campaign_id}/encounters/1/actions", {"action": "x"}),
]


@pytest.mark.parametrize(("name", "method", "path", "body"), ENDPOINTS)
def test_past_its_limit_an_endpoint_is_a_json_429_with_retry_after(
    api,  # noqa: F811 (the fixture)
    settings,
    character,
    player,
    name,
    method,
    path,
    body,
) -> None:
    only(settings, name)
    client = api(player)
    call = client.get if method == "get" else (lambda p: client.post(p, body))

    first, second = call(path(character)), call(path(character))

    assert first.status_code != 429
    assert second.status_code == 429
    assert second["Retry-After"] == "30"
    assert second.json()["code"] == "rate_limited"
    assert second.json()["message"].startswith("Too many ")


def test_the_api_budget_is_a_persons_whichever_token_they_use(api, settings, player, gm) -> None:  # noqa: F811
    settings.API_RATE_LIMIT = 3
    first, second = api(player), api(player)

    assert [first.get("/campaigns").status_code for _ in range(2)] == [200, 200]
    assert second.get("/campaigns").status_code == 200
    refused = second.get("/campaigns")  # a second token is no second budget
    assert refused.status_code == 429
    assert "from your account" in refused.json()["message"]
    assert api(gm).get("/campaigns").status_code == 200  # another person has their own


def test_the_chance_limit_is_a_persons_too(api, settings, player) -> None:  # noqa: F811
    only(settings, "chance", 2, 100)
    tokens = [api(player) for _ in range(3)]

    assert [client.post("/chance", SPEC).status_code for client in tokens] == [200, 200, 429]


def test_guessing_tokens_is_counted_per_address(settings) -> None:
    only(settings, "api", 100, 2)
    client = Client()
    wrong = {"Authorization": "Bearer dh_not-a-token"}

    assert [client.get("/api/v1/campaigns", headers=wrong).status_code for _ in range(2)] == [401, 401]
    assert client.get("/api/v1/campaigns", headers=wrong).status_code == 429


# --- Per person and per address ------------------------------------------------------------------------


def test_an_address_is_limited_whoever_is_signed_in_there(settings, character, gm, player, other_player) -> None:
    only(settings, "rolls", 100, 2)
    url = reverse("play:free-roll", args=[character.campaign_id])

    assert client_of(gm).post(url, {"expression": "d6"}).status_code == 302
    assert client_of(player).post(url, {"expression": "d6"}).status_code == 302
    refused = client_of(other_player).post(url, {"expression": "d6"})
    assert_page_refused(refused, limits.ROLLS)
    assert "from your network address" in refused.content.decode()
    assert client_of(other_player, "203.0.113.9").post(url, {"expression": "d6"}).status_code == 302


def test_a_person_is_limited_from_whichever_address(settings, character, player) -> None:
    only(settings, "rolls", 2, 100)
    url = reverse("play:free-roll", args=[character.campaign_id])

    assert client_of(player, "203.0.113.1").post(url, {"expression": "d6"}).status_code == 302
    assert client_of(player, "203.0.113.2").post(url, {"expression": "d6"}).status_code == 302
    refused = client_of(player, "203.0.113.3").post(url, {"expression": "d6"})
    assert "from your account" in refused.content.decode()


def test_a_visitor_is_limited_per_address_and_a_signed_in_person_has_their_own_budget(settings, player) -> None:
    settings.RATE_LIMITS = {"calculator-anonymous": (0, 2), "calculator": (100, 100)}
    url = reverse("lucky13:calculator")
    visitor = client_of(None)

    assert [visitor.get(url).status_code for _ in range(2)] == [200, 200]
    assert visitor.get(url).status_code == 429
    assert client_of(None).get(url).status_code == 429  # another browser at the same address
    assert client_of(None, "198.51.100.7").get(url).status_code == 200
    assert client_of(player).get(url).status_code == 200


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(1, "1 second"), (45, "45 seconds"), (119, "119 seconds"), (120, "2 minutes"), (3599, "60 minutes")],
)
def test_a_wait_is_said_in_seconds_then_minutes(seconds, words) -> None:
    assert limits.wait_words(seconds) == words


def test_an_ipv6_client_is_counted_by_its_network() -> None:
    assert address_key("2001:db8:1:2:aaaa::1") == address_key("2001:db8:1:2:bbbb::2") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:192.0.2.1") == "192.0.2.1"
    assert address_key("192.0.2.1") == "192.0.2.1"


# --- The client's address ---------------------------------------------------------------------------------


def address_of(remote: str, forwarded: str | None = None) -> str:
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return client_address(RequestFactory().get("/", REMOTE_ADDR=remote, **extra))


def test_without_trusted_proxies_the_forwarded_header_is_never_read() -> None:
    assert address_of("203.0.113.5", "198.51.100.1") == "203.0.113.5"


@pytest.mark.parametrize(
    ("remote", "forwarded", "client"),
    [
        ("10.0.0.2", "198.51.100.1", "198.51.100.1"),  # through our proxy
        ("10.0.0.2", "6.6.6.6, 198.51.100.1", "198.51.100.1"),  # a hop the client wrote itself is beyond ours
        ("10.0.0.2", "198.51.100.1, 10.0.0.3", "198.51.100.1"),  # through two of our proxies
        ("10.0.0.2", "10.0.0.4, 10.0.0.3", "10.0.0.4"),  # from inside: the farthest of ours
        ("10.0.0.2", "", "10.0.0.2"),  # the proxy's own request
        ("10.0.0.2", "not an address, 198.51.100.1", "198.51.100.1"),
        ("10.0.0.2", "198.51.100.1, not an address", "10.0.0.2"),  # nothing believed past a bad hop
        ("203.0.113.5", "198.51.100.1", "203.0.113.5"),  # not from our proxy: the header is anyone's
        ("2001:db8::5", "198.51.100.1", "2001:db8::5"),
        ("", "198.51.100.1", "unknown"),
        ("10.0.0.2", f"{'1' * 70}, 198.51.100.1", "198.51.100.1"),  # longer than any address: not one
        ("10.0.0.2", f"198.51.100.1, {' ' * 70}10.0.0.3{' ' * 70}", "198.51.100.1"),  # spaces around are not read
    ],
)
def test_behind_trusted_proxies_the_client_is_the_nearest_hop_that_is_not_ours(
    settings, remote, forwarded, client
) -> None:
    settings.TRUSTED_PROXIES = ["10.0.0.0/24"]
    assert address_of(remote, forwarded) == client


def test_the_addresses_read_are_kept_bounded_and_long_text_is_never_kept() -> None:
    from web import client

    assert client.parse(" 198.51.100.9 ") == client.parse("198.51.100.9") == ipaddress.ip_address("198.51.100.9")
    assert client.parse("x" * 10_000) is None
    assert client.parse("2001:db8::" + "0" * 100) is None
    assert 0 < client.LONGEST_ADDRESS < 100


def test_behind_a_proxy_each_client_has_its_own_budget(settings) -> None:
    settings.TRUSTED_PROXIES = ["10.0.0.2"]
    settings.RATE_LIMITS = {"calculator-anonymous": (0, 1)}
    url = reverse("lucky13:calculator")
    proxy = Client(REMOTE_ADDR="10.0.0.2")

    assert proxy.get(url, HTTP_X_FORWARDED_FOR="198.51.100.1").status_code == 200
    assert proxy.get(url, HTTP_X_FORWARDED_FOR="198.51.100.2").status_code == 200
    assert proxy.get(url, HTTP_X_FORWARDED_FOR="6.6.6.6, 198.51.100.1").status_code == 429


def test_a_trusted_proxy_must_be_an_address_or_a_network(monkeypatch) -> None:
    from config.settings import env_networks

    monkeypatch.setenv("TRUSTED_PROXIES", "10.0.0.0/8, 192.0.2.7")
    assert env_networks("TRUSTED_PROXIES") == ["10.0.0.0/8", "192.0.2.7"]
    monkeypatch.setenv("TRUSTED_PROXIES", "10.0.0.0/8, proxy.example")
    with pytest.raises(ImproperlyConfigured, match=r"'proxy\.example' is not an address or a network"):
        env_networks("TRUSTED_PROXIES")


# --- The cache down -------------------------------------------------------------------------------------


def test_with_redis_down_the_api_and_the_pages_answer_unlimited(api, settings, player, caplog) -> None:  # noqa: F811
    settings.API_RATE_LIMIT = 1
    settings.RATE_LIMITS = {"calculator-anonymous": (0, 1)}
    settings.CACHES = REDIS_DOWN
    client = api(player)

    with caplog.at_level(logging.WARNING, logger="web.limits"):
        assert [client.get("/campaigns").status_code for _ in range(3)] == [200, 200, 200]
        assert client.post("/chance", SPEC).status_code == 200
        assert [Client().get(reverse("lucky13:calculator")).status_code for _ in range(2)] == [200, 200]

    warnings = [r for r in caplog.records if r.name == "web.limits"]
    assert warnings
    assert warnings[0].getMessage().startswith("Rate limits are off while the cache fails: ")


def test_a_failed_cache_is_left_alone_for_a_while_then_tried_again(settings, player, monkeypatch) -> None:
    tried = []

    class Down:
        def add(self, *args: Any, **kwargs: Any) -> bool:
            tried.append(1)
            raise ConnectionError("Redis is down")

        def incr(self, *args: Any, **kwargs: Any) -> int:
            tried.append(1)
            raise ConnectionError("Redis is down")

    clock = [1000.0]
    monkeypatch.setattr(limits, "cache", Down())
    monkeypatch.setattr(limits, "monotonic", lambda: clock[0])
    request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.1")
    request.user = player

    for _ in range(3):
        limits.check(request, limits.ROLLS, limits.DICE_BOX)  # four counters each time, none refused
    assert len(tried) == 1
    clock[0] += limits.CACHE_PAUSE
    limits.check(request, limits.ROLLS)
    assert len(tried) == 2


def test_a_counter_is_added_once_a_window_and_then_only_counted_on(player, monkeypatch) -> None:
    from django.core.cache import cache

    asked: list[str] = []

    class Watched:
        def add(self, *args: Any, **kwargs: Any) -> bool:
            asked.append("add")
            return cache.add(*args, **kwargs)

        def incr(self, *args: Any, **kwargs: Any) -> int:
            asked.append("incr")
            return cache.incr(*args, **kwargs)

        def set(self, *args: Any, **kwargs: Any) -> None:
            asked.append("set")
            cache.set(*args, **kwargs)

    monkeypatch.setattr(limits, "cache", Watched())
    monkeypatch.setattr(limits, "wall_clock", lambda: 1000.0)  # one window throughout
    request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.7")
    request.user = player

    limits.check(request, limits.ROLLS)  # the person's and the address's counters, each new
    assert asked == ["incr", "add", "incr", "add"]
    asked.clear()
    limits.check(request, limits.ROLLS)
    limits.check(request, limits.ROLLS)
    assert asked == ["incr", "incr", "incr", "incr"]  # one trip to the cache a counter
    assert cache.get(f"rate:{limits.ROLLS.name}:u{player.pk}:{int(1000.0 // limits.ROLLS.window)}") == 3


def test_with_the_cache_in_the_process_the_counters_are_kept_in_its_memory(player, monkeypatch) -> None:
    """Without Redis (Django's LocMemCache, ``make run``) the counters are the process's own
    (``limits.PROCESS_COUNTERS``), counted with no call to the cache, each expiring with its window."""
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    assert isinstance(caches["default"], LocMemCache)
    now = [1000.0]
    monkeypatch.setattr(limits, "wall_clock", lambda: 1000.0)  # one window throughout
    monkeypatch.setattr(limits, "monotonic", lambda: now[0])
    for name in ("incr", "add", "get", "set"):
        monkeypatch.setattr(LocMemCache, name, lambda *args, **kwargs: pytest.fail("the cache was asked"))
    request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.7")
    request.user = player
    person, _ = limits.ROLLS.budget()
    for _ in range(person):
        limits.check(request, limits.ROLLS)
    with pytest.raises(limits.RateLimited):
        limits.check(request, limits.ROLLS)
    now[0] += limits.ROLLS.window + 1  # the counters expired: counted from 1 again
    limits.check(request, limits.ROLLS)


def test_the_process_counters_are_bounded_the_oldest_dropped_first(monkeypatch) -> None:
    now = [0.0]
    monkeypatch.setattr(limits, "monotonic", lambda: now[0])
    counters = limits.ProcessCounters(3)
    assert [counters.count(key, 60) for key in "aab"] == [1, 2, 1]
    assert [counters.count(key, 60) for key in "cd"] == [1, 1]  # four counters: "a", the oldest, dropped
    assert counters.count("a", 60) == 1
    assert counters.count("d", 60) == 2
    now[0] = 61.0
    assert counters.count("d", 60) == 1  # expired: made again
    counters.clear()
    assert counters.count("c", 60) == 1


def test_with_redis_every_counter_of_a_request_is_counted_in_one_trip(settings, player, monkeypatch) -> None:
    """Four counters (a roll's: the person's and the address's, for rolls and for the dice box), one pipeline
    to Redis and no command alone: Django's ``incr`` asks whether the key exists first."""
    import redis

    needs_redis(REDIS_URL, "the rate limits' counters in Redis")
    prefix = f"dicehall-test-{uuid.uuid4().hex[:12]}"
    shared = {"pool_class": "web.cache.SharedConnectionPool"}
    settings.CACHES = {
        "default": {"BACKEND": REDIS_DOWN["default"]["BACKEND"], "LOCATION": REDIS_URL, "KEY_PREFIX": prefix,
                    "OPTIONS": shared}
    }  # fmt: skip
    settings.RATE_LIMITS = {limits.ROLLS.name: (3, 5), limits.DICE_BOX.name: (10, 10)}
    trips: list[str] = []
    alone, together = redis.Redis.execute_command, redis.client.Pipeline.execute
    monkeypatch.setattr(redis.Redis, "execute_command", lambda *a, **k: trips.append("alone") or alone(*a, **k))
    monkeypatch.setattr(redis.client.Pipeline, "execute", lambda *a, **k: trips.append("together") or together(*a, **k))
    request = RequestFactory().post("/", REMOTE_ADDR="192.0.2.9")
    request.user = player

    from django.core.cache import cache

    window = int(NOW // limits.ROLLS.window)
    key = f"rate:{limits.ROLLS.name}:u{player.pk}:{window}"
    observer = redis.Redis.from_url(REDIS_URL)
    for n in range(3):
        before = len(trips)
        limits.check(request, limits.ROLLS, limits.DICE_BOX)
        assert trips[before:] == ["together"]
        if n == 0:  # the window's first request set how long the counter lives; the next ones leave it
            assert 0 < observer.ttl(cache.make_and_validate_key(key)) <= limits.ROLLS.window + 1
            observer.expire(cache.make_and_validate_key(key), 5)
    assert observer.ttl(cache.make_and_validate_key(key)) <= 5
    with pytest.raises(limits.RateLimited) as refused:  # the person's fourth roll of the window
        limits.check(request, limits.ROLLS, limits.DICE_BOX)
    assert refused.value.limit == limits.ROLLS

    assert cache.get(key) == 4  # as Django's cache reads it
    observer.delete(*observer.keys(f"{prefix}:*"))


# --- The calculator leaves no session behind -------------------------------------------------------------


@pytest.mark.parametrize(
    ("page", "roll"), [("lucky13:calculator", "lucky13:roll-check"), ("lucky13:opposed", "lucky13:roll-opposed")]
)
def test_a_visitor_rolling_on_the_calculator_creates_no_session(page, roll) -> None:
    client = Client()

    assert client.get(reverse(page)).status_code == 200
    response = client.post(reverse(roll), CHECK if page == "lucky13:calculator" else {}, follow=True)

    assert response.status_code == 200
    assert '<span class="outcome' in response.content.decode()  # the roll is shown after the redirect
    assert Session.objects.count() == 0
    assert "sessionid" not in client.cookies or not client.cookies["sessionid"].value


# --- The README says the limits as they are -------------------------------------------------------------


def test_the_readme_lists_every_limit_as_the_code_has_it(settings) -> None:
    from play.consumers import CATCH_UP_REFUSALS, CATCH_UPS_PER_MINUTE, RATE_LIMITED

    text = (settings.BASE_DIR / "README.md").read_text(encoding="utf-8")
    windows = {limits.MINUTE: "1 minute", limits.HOUR: "1 hour"}
    for limit in limits.ALL:
        row = re.search(rf"^\| `{limit.name}` \|.*\| (\S+) \| (\S+) \| ([^|]+) \|$", text, re.MULTILINE)
        assert row, limit.name
        assert row.groups() == (str(limit.per_user or "—"), str(limit.per_address), windows[limit.window])
    assert f"catch up {CATCH_UPS_PER_MINUTE} times a minute" in text
    assert f"after {CATCH_UP_REFUSALS} of those the socket is closed\nwith code {RATE_LIMITED}" in text
