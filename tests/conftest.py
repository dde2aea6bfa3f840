"""The named cast every view test uses, and the rule that CI never skips a test."""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.browser import (  # noqa: F401  (fixtures)
    PROBLEMS,
    Accessibility,
    accessibility,
    async_unsafe_allowed,
    axe_findings,
    browser,
    chromium,
    inspector,
    nojs_page,
    page,
    problems,
)

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _on_postgresql() -> bool:
    from django.db import connection

    return connection.vendor == "postgresql"


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """Count each suite's time (``SuiteTimes``) where the reports arrive: in the only process, or in
    pytest-xdist's controller, never in a worker.

    Build the JSON API as a server builds it at start-up, with every system it plays registered:
    here also the test-only Coin (tests/systems/coin/system.py), so that the API's schemas describe Coin's
    sheets. The registry is then left as it was: a test that plays Coin registers it itself
    (``coin_campaign``)."""
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(SuiteTimes(), "suite-times")

    from django.conf import settings

    # Exact chances in the test's own thread, where a test's stand-ins for the engine reach them; the
    # worker processes have tests of their own (tests/web/test_heavy.py), which turn them on.
    settings.CHANCE_WORKERS = 0
    # Every kept part of a page drawn again where it is shown and compared with what was kept: each page the
    # tests draw checks the keys of the parts it shows (web/templatetags/kept_blocks.py).
    settings.KEPT_CHECKED = True

    from django.urls import get_resolver

    from rules import systems
    from tests.systems.coin import system as coin

    systems.register(coin.SYSTEM)
    try:
        get_resolver().url_patterns  # noqa: B018 (imports every URLconf, the API's routers with it)
    finally:
        systems.unregister(coin.SYSTEM.key)


@pytest.fixture(autouse=True)
def fresh_chance_cache() -> None:
    """Each test starts with no chance remembered from another's (web/heavy.py): a test that stands in
    for part of the engine sees its own results."""
    from web import heavy

    heavy.RESULTS.clear()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    browser_tests_last(items)
    leave_out_postgres_tests_on_sqlite(config, items)


def browser_tests_last(items: list[pytest.Item]) -> None:
    """The tests that drive Chromium run after all the others, in their order: one Playwright and
    one Chromium then serve them all (``chromium`` in tests/browser.py), where starting them again
    for each module cost seconds a module. Playwright's synchronous API keeps an event loop running
    in the test thread until the end, where no test needs to run one of its own (``async_to_sync``)."""
    items.sort(key=lambda item: "chromium" in getattr(item, "fixturenames", ()))


def leave_out_postgres_tests_on_sqlite(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``postgres`` need PostgreSQL (row locks, triggers, concurrency).

    On SQLite they skip locally; under CI the SQLite pass leaves them out instead,
    because the PostgreSQL pass of the same CI run is where they run.
    """
    if _on_postgresql():
        return
    needs_postgres = [item for item in items if item.get_closest_marker("postgres")]
    if not needs_postgres:
        return
    if CI:
        config.hook.pytest_deselected(items=needs_postgres)
        items[:] = [item for item in items if not item.get_closest_marker("postgres")]
    else:
        for item in needs_postgres:
            item.add_marker(pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL=postgres://…"))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """With CI=true a skipped test is a failure: every tool a test needs must be there.

    Under pytest-xdist (``make test``), a worker also hands what its accessibility checks cost to
    the controller, which adds them up for the summary (``pytest_testnodedown``)."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None and ACCESSIBILITY_COST in session.config.stash:
        workeroutput["accessibility_cost"] = session.config.stash[ACCESSIBILITY_COST]
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter else 0
    if CI and skipped and session.exitstatus == 0:
        reporter.write_line(f"CI=true: {skipped} test(s) skipped; every test must run in CI", red=True)
        session.exitstatus = 1


#: What the accessibility checks of the run cost: page states checked, states seen again (their
#: findings kept from the first check), seconds spent.
ACCESSIBILITY_COST = pytest.StashKey[list[float]]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """A browser test that passed is then checked for accessibility: every page it saw, as it
    was after each load and htmx swap, and every page still open (``tests.browser.Accessibility``).
    It also fails on any console error, uncaught exception or CSP violation its pages reported
    (``problems``) that it did not expect and take off the list itself, whether it asserted on them or not."""
    __tracebackhide__ = True
    result = yield
    reported = item.stash.get(PROBLEMS, None)
    assert not reported, f"the test's pages reported {len(reported)} problem(s): {reported}"
    checker = getattr(item, "funcargs", {}).get("accessibility")
    if isinstance(checker, Accessibility):
        try:
            checker.check_all()
        finally:
            cost = item.config.stash.setdefault(ACCESSIBILITY_COST, [0, 0, 0.0])
            cost[0] += checker.inspected
            cost[1] += len(checker.checked) - checker.inspected
            cost[2] += checker.seconds
    return result


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    worker_cost = getattr(node, "workeroutput", {}).get("accessibility_cost")
    if worker_cost:
        cost = node.config.stash.setdefault(ACCESSIBILITY_COST, [0, 0, 0.0])
        for i, value in enumerate(worker_cost):
            cost[i] += value


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:
    if ACCESSIBILITY_COST in config.stash:
        pages, again, seconds = config.stash[ACCESSIBILITY_COST]
        terminalreporter.write_line(
            f"axe-core: {pages} page states checked in {seconds:.1f} s; {again} more seen again, found as first checked"
        )


class SuiteTimes:
    """Where the time of a run goes: each suite's tests and the seconds they took (setup, call and
    teardown), summed over the workers, in the summary of any run that covered more than one suite.

    A system's suite is its directory, ``tests/systems/<key>/``; a generic test's is its area
    (``tests/characters/``, …), or ``tests/`` for a module at the top. Under pytest-xdist the
    controller receives every worker's reports, so it alone keeps the count (``pytest_configure``)."""

    def __init__(self) -> None:
        self.suites: dict[str, list[float]] = {}

    @staticmethod
    def suite_of(nodeid: str) -> str:
        parts = nodeid.split("::", 1)[0].split("/")
        depth = 3 if parts[:2] == ["tests", "systems"] else 2
        return "/".join(parts[: min(depth, len(parts) - 1)]) + "/"

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        tests_and_seconds = self.suites.setdefault(self.suite_of(report.nodeid), [0, 0.0])
        tests_and_seconds[0] += report.when == "setup"
        tests_and_seconds[1] += report.duration

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if len(self.suites) < 2:
            return
        terminalreporter.write_sep("=", "time by suite (setup, call and teardown, summed over the workers)")
        total = sum(seconds for _, seconds in self.suites.values()) or 1.0
        for suite, (tests, seconds) in sorted(self.suites.items(), key=lambda item: -item[1][1]):
            terminalreporter.write_line(f"{suite:<26} {tests:>5.0f} tests {seconds:>8.1f} s {seconds / total:>6.1%}")


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix: None) -> None:
    """On SQLite the tests use a database file, as the embedded default does, not Django's shared in-memory one.

    Connections to a shared in-memory database lock whole tables and fail at once ("database table
    is locked") where a file waits its timeout: a page the browser tests load while the in-process
    server saves a table would be a 500 no user could ever see. Each worker has its own file, in
    memory where the machine offers it.
    """
    from django.conf import settings

    database = settings.DATABASES["default"]
    if not database["ENGINE"].endswith("sqlite3"):
        return
    shm = Path("/dev/shm")
    folder = shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir())
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    database.setdefault("TEST", {})["NAME"] = str(folder / f"dicehall-test-{os.getpid()}-{worker}.sqlite3")


@pytest.fixture(autouse=True)
def site_url_of_the_live_server(request: pytest.FixtureRequest, settings) -> None:
    """A browser test's links in mails and invitations lead to the server it drives, as SITE_URL does in use."""
    if "live_server" in request.fixturenames:
        settings.SITE_URL = request.getfixturevalue("live_server").url


@pytest.fixture(autouse=True)
def fast_password_hashing(settings) -> None:
    """Tests hash many passwords; the real hasher (PBKDF2) is slow on purpose and not under test."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    """Each test starts with an empty in-memory cache: the rate limits' counters are keyed by user id,
    and ids are reused once a test's transaction rolls back, so one test's requests must not count
    against the next one's user; and with the limits' memory of a failed cache forgotten, so that a test
    of Redis down leaves the next one limited. (A shared Redis cache is left alone: other workers use it.)"""
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    from accounts import sessions
    from web.limits import PROCESS_COUNTERS, cache_watch

    cache_watch.reset()
    PROCESS_COUNTERS.clear()

    default = caches["default"]
    if isinstance(default, LocMemCache):
        default.clear()
    sessions.READS.clear()


@pytest.fixture(autouse=True)
def fresh_sheet_regions() -> None:
    """Each test starts with no sheet page, nor its region, nor view of a table, nor head of a roll log, kept
    from another's (characters.views.pages, characters.sheets.regions, play.table_rows.VIEWS, play.rolls.heads):
    ids are reused once a test's transaction rolls back, and a test counts the queries of a region drawn afresh
    unless it shows the sheet twice, and those of a roll into a log whose head it wrote or read before."""
    from characters import sheets, views
    from play import rolls, table_rows

    views.pages.clear()
    sheets.regions.clear()
    table_rows.VIEWS.clear()
    rolls.heads.clear()


@pytest.fixture
def password() -> str:
    return "correct horse battery staple"


@pytest.fixture
def gm(django_user_model, password):
    return django_user_model.objects.create_user("gm", password=password)


@pytest.fixture
def player(django_user_model, password):
    return django_user_model.objects.create_user("player", password=password)


@pytest.fixture
def other_player(django_user_model, password):
    return django_user_model.objects.create_user("other_player", password=password)


@pytest.fixture
def outsider(django_user_model, password):
    return django_user_model.objects.create_user("outsider", password=password)


@pytest.fixture
def campaign(gm, player, other_player):
    from campaigns.models import Campaign, Membership

    # A table that lets players call their own rolls, as every test before the option assumed; the GM's
    # calls are tested with the option off (tests/play/test_requests.py).
    campaign = Campaign.objects.create(name="The Sunken Crown", system="lucky13", players_call_rolls=True)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    Membership.objects.create(campaign=campaign, user=other_player, role=Membership.Role.PLAYER)
    return campaign


@pytest.fixture
def character(campaign, player):
    from characters.models import Character

    return Character.objects.create(campaign=campaign, owner=player, name="Brunella", status="active")


@pytest.fixture
def bare_draft(campaign, player):
    """A draft with nothing on its sheet yet: a character just begun."""
    from characters.models import Character

    return Character.objects.create(campaign=campaign, owner=player, name="Hilde", status="draft")


@pytest.fixture
def coin_campaign(gm, player, other_player, settings):
    """A campaign of the test-only Coin system (tests/systems/coin/system.py), registered for the test with
    its templates (tests/systems/coin/templates), with the same members as ``campaign``."""
    from pathlib import Path

    from campaigns.models import Campaign, Membership
    from rules import systems
    from tests.systems.coin import system as coin

    templates = Path(coin.__file__).resolve().parent / "templates"
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], templates]}]
    systems.register(coin.SYSTEM)
    try:
        campaign = Campaign.objects.create(name="Heads", system="coin", options={}, players_call_rolls=True)
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
        Membership.objects.create(campaign=campaign, user=other_player, role=Membership.Role.PLAYER)
        yield campaign
    finally:
        systems.unregister(coin.SYSTEM.key)


@pytest.fixture
def d6_campaign(gm, player, other_player):
    """A D6 campaign with the defaults (six stats), players calling their own rolls, the same members as
    ``campaign``."""
    from campaigns.models import Campaign, Membership

    campaign = Campaign.objects.create(name="Ruins of the Ancients", system="d6", players_call_rolls=True)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    Membership.objects.create(campaign=campaign, user=other_player, role=Membership.Role.PLAYER)
    return campaign


def needs_redis(url: str, what: str) -> None:
    """Redis at ``url`` answers, or ``what`` cannot run: a skip locally, a failure under CI (CI must prove it)."""
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        message = f"needs Redis at {url} ({error})"
        if CI:
            pytest.fail(f"CI=true: {message}; {what} must run in CI")
        pytest.skip(message)


@pytest.fixture
def race() -> Callable[[list[Callable[[], str]]], list[str]]:
    """Runs every job at once, each on its own connection; returns what each said (a refusal by its
    name, anything else raised by its ``repr``, for the test's assertions to report)."""
    from django.db import connection

    from campaigns.errors import Refused

    def run_all(jobs: list[Callable[[], str]]) -> list[str]:
        start = threading.Barrier(len(jobs))
        outcomes: list[str] = []

        def run(job: Callable[[], str]) -> None:
            try:
                start.wait()
                outcomes.append(job())
            except Refused as refused:
                outcomes.append(type(refused).__name__)
            except BaseException as error:  # reported by the test's assertions
                outcomes.append(repr(error))
            finally:
                connection.close()

        threads = [threading.Thread(target=run, args=[job]) for job in jobs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        return outcomes

    return run_all
