"""Browser fixtures for every test that drives the real pages: Playwright for Python with
the system Chromium at /usr/bin/chromium (never a downloaded browser).

Every page a test opens collects console errors, uncaught exceptions and Content
Security Policy violations into ``problems``, which the tests assert empty.

Every page a test visits is also checked for accessibility with axe-core, without the test
asking: the ``browser`` a test gets watches each context it opens (``Accessibility``), keeps a
copy of the page as it stands after each load and after each htmx swap, and of every page still
open when the test body ends, and the test fails on any violation of impact "serious" or
"critical" (rule, impact, the elements' selectors, the page's address and window size).
A page state is checked once per run: a test that sees a state another test saw gets that
state's findings again, and fails on them as well.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from axe_playwright_python.base import AXE_SCRIPT
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, Route, sync_playwright
from playwright.sync_api import Error as PlaywrightError

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: Runs in every page before its own scripts: reports CSP violations to the console
#: (where the tests collect them) and counts htmx requests and swaps.
WATCH_SCRIPT = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || "inline code"}`);
});
window.htmxRequests = 0;
window.htmxDone = 0;
document.addEventListener("htmx:beforeRequest", () => { window.htmxRequests += 1; });
document.addEventListener("htmx:afterRequest", () => { window.htmxDone += 1; });
"""
#: Runs in every page with JavaScript, before its own scripts: marks the page's root once its scripts
#: are ready. htmx sets a page up when the document is parsed, after every deferred script of the page
#: (htmx, ours) has run, then says so with ``htmx:load`` on the body; a page without htmx (one whose
#: script failed to arrive) is marked too, and fails on what it then lacks rather than wait forever.
READY_SCRIPT = """
document.addEventListener("DOMContentLoaded", () => {
  if (!window.htmx) document.documentElement.dataset.htmxReady = "none";
});
document.addEventListener("htmx:load", (event) => {
  if (event.target === document.body) document.documentElement.dataset.htmxReady = "true";
});
"""
#: What shows while a page's scripts are not ready for the test's next step: a new document htmx has not
#: yet set up (``READY_SCRIPT``). Its parsed elements show before its deferred scripts run, and a choice
#: made on them then goes unheard. ``open_page`` makes every action and every assertion of the test wait
#: until it is gone. (Content htmx swaps in is wired up when it settles, on a timer: a test waits for that
#: where it matters, as ``tests.walk.settled`` does, since some tests hold the page's clock still.)
NOT_READY = "html:not([data-htmx-ready])"

# --- Accessibility ---------------------------------------------------------------------------

#: The impacts that fail a test; "moderate" and "minor" findings are left to review.
FAILING_IMPACTS = frozenset({"serious", "critical"})
#: axe-core's default rule set (WCAG 2.0-2.2 A and AA, and best practices), violations only.
AXE_OPTIONS = {"resultTypes": ["violations"]}
#: The name of the binding through which a page hands over a copy of itself.
SNAPSHOT_BINDING = "dicehallPageShown"
#: Runs in every page of a context with JavaScript, before the page's own scripts: hands the
#: test a copy of the page once it is parsed, and again after every htmx swap, to be checked
#: where the swap landed (its target, when it has an id) or whole (an htmx-boosted link or form
#: changes the page without a load). Taken in the page, in the same task as the load or the swap,
#: so that nothing the test does next can come between; ``window.dicehallPagesCopied`` counts
#: the copies the test has received.
SNAPSHOT_SCRIPT = f"""
(() => {{
  if (window !== window.top || !/^https?:$/.test(location.protocol)) return;
  const shown = (region) => {{
    if (document.contentType !== "text/html") return;
    const doctype = document.doctype ? "<!DOCTYPE html>" : "";
    window.{SNAPSHOT_BINDING}(location.href, doctype + document.documentElement.outerHTML,
                              window.innerWidth, window.innerHeight, region)
      .then(() => {{ window.dicehallPagesCopied = (window.dicehallPagesCopied || 0) + 1; }});
  }};
  document.addEventListener("DOMContentLoaded", () => shown(""));
  document.addEventListener("htmx:afterSettle", (event) => {{
    const target = event.detail.target;
    const whole = event.detail.boosted || !target || !target.id || target === document.body;
    // Once the page's own listeners are done with the swap too (aria-busy back to false).
    queueMicrotask(() => shown(whole ? "" : `#${{CSS.escape(target.id)}}`));
  }});
}})();
"""
#: Django's masked CSRF token, different in every response: left out when telling copies apart.
CSRF_TOKEN = re.compile(r"\b[A-Za-z0-9]{64}\b")
NOSCRIPT = re.compile(r"<(/?)noscript\b")
#: Playwright's window size when a test sets none.
DEFAULT_VIEWPORT = {"width": 1280, "height": 720}


#: Where the inspector (below) stands on the server under test: a blank page whose policy refuses
#: every script. axe-core is not refused: the browser adds it to each page it opens (an init script),
#: outside the page's policy. The copies are then written into this page, so no script they name runs.
INSPECTOR_PATH = "/__axe-inspector__/"
INSPECTOR_ADDRESS = re.compile(rf"^https?://[^/]+{re.escape(INSPECTOR_PATH)}$")
INSPECTOR_PAGE = '<!DOCTYPE html><html lang="en"><head><title>axe-core</title></head><body></body></html>'
NO_SCRIPTS = {"Content-Security-Policy": "script-src 'none'"}
#: Runs axe-core in the inspector on the copy written there (or the part of it a swap changed), and
#: hands back only the failing findings: the whole report is large, and most of it is passes.
RUN_AXE = """async ([region, options, impacts]) => {
  const results = await axe.run(region && document.querySelector(region) || document, options);
  return results.violations.filter((violation) => impacts.includes(violation.impact)).map((violation) => ({
    rule: violation.id, impact: violation.impact, help: violation.help,
    targets: violation.nodes.map((node) => node.target.map(String).join(" ")),
  }));
}"""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A page as a test saw it: its address, its whole document, the window's size, and the
    part of it to check (a CSS selector: what an htmx swap changed; empty: all of it)."""

    url: str
    html: str
    width: int
    height: int
    region: str = ""

    @property
    def key(self) -> str:
        """What tells page states apart: everything axe-core is given, but the CSRF token (a digest)."""
        state = "\0".join([self.url, CSRF_TOKEN.sub("", self.html), str(self.width), str(self.height), self.region])
        return hashlib.sha256(state.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Finding:
    """A serious or critical violation axe-core found in a page state: its rule, impact and help,
    and the CSS selectors of the elements at fault."""

    rule: str
    impact: str
    help: str
    targets: tuple[str, ...]


def describe(snapshot: Snapshot, finding: Finding) -> str:
    targets = "\n".join(f"      {target}" for target in finding.targets)
    where = f" in {snapshot.region}" if snapshot.region else ""
    return (
        f"  {finding.rule} ({finding.impact}) on {snapshot.url}{where} at {snapshot.width}×{snapshot.height}: "
        f"{finding.help}\n{targets}"
    )


class Inspector:
    """The page where axe-core checks the copies, one after another: the page of one context of
    its own, kept for every browser test of the run.

    A copy is written into the inspector's page at the copy's address (``history.replaceState``,
    then ``document.write``), so it gets the same stylesheet, images and window size, while the
    inspector's policy refuses the copy's scripts (the copy already holds what they did). The page
    keeps its window and axe-core in it: nothing is reloaded or parsed again but the copy.
    """

    def __init__(self, chromium: Browser) -> None:
        self.context = chromium.new_context()
        self.context.add_init_script(AXE_SCRIPT)
        self.context.route(INSPECTOR_ADDRESS, self._serve_blank)
        self.page = self.context.new_page()
        self.origin = ""

    @staticmethod
    def _serve_blank(route: Route) -> None:
        route.fulfill(status=200, content_type="text/html; charset=utf-8", headers=NO_SCRIPTS, body=INSPECTOR_PAGE)

    def findings(self, snapshot: Snapshot) -> tuple[Finding, ...]:
        """The serious and critical violations of ``snapshot``, checked now."""
        parts = urlsplit(snapshot.url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin != self.origin:
            self.page.goto(origin + INSPECTOR_PATH)
            self.origin = origin
        if self.page.viewport_size != {"width": snapshot.width, "height": snapshot.height}:
            self.page.set_viewport_size({"width": snapshot.width, "height": snapshot.height})
        self.page.evaluate("(url) => history.replaceState(null, '', url)", snapshot.url)
        self.page.set_content(snapshot.html)
        found = self.page.evaluate(RUN_AXE, [snapshot.region, AXE_OPTIONS, sorted(FAILING_IMPACTS)])
        return tuple(Finding(f["rule"], f["impact"], f["help"], tuple(f["targets"])) for f in found)

    def close(self) -> None:
        self.context.close()


class Accessibility:
    """The axe-core check of every page one test visits.

    The test's own pages keep the strict Content Security Policy: nothing is bypassed, so the
    CSP watcher above still hears every violation (``bypass_csp=True`` would silence it: the
    browser then enforces no policy and reports none). axe-core runs instead in a page of its
    own (the ``Inspector``), on a copy of each page the test saw.

    A page state is checked once in the whole run, however often and by however many tests it is
    seen: its findings are kept (``findings``, for the session, by ``Snapshot.key``) and every test
    that sees the state again gets them again, and fails on them as the first one did.
    """

    def __init__(self, inspector: Inspector, findings: dict[str, tuple[Finding, ...]]) -> None:
        self.inspector = inspector
        self.findings = findings
        self.contexts: list[BrowserContext] = []
        self.scriptless: list[BrowserContext] = []
        self.snapshots: dict[str, Snapshot] = {}
        self.checked: set[str] = set()
        self.inspected = 0  # states axe-core checked for this test; the others were checked before
        self.seconds = 0.0

    # What the test's pages show.

    def watch(self, context: BrowserContext, *, javascript: bool = True) -> None:
        """Keep a copy of every page of ``context`` after each load (and each htmx swap)."""
        self.contexts.append(context)
        if javascript:
            context.expose_binding(SNAPSHOT_BINDING, self._shown)
            context.add_init_script(SNAPSHOT_SCRIPT)
        else:
            # No script runs in these pages, ours neither: the copy is asked for on each load.
            self.scriptless.append(context)
            context.on("page", self._watch_page)

    def _shown(self, source: dict[str, Any], url: str, html: str, width: int, height: int, region: str) -> None:
        self.add(Snapshot(url, html, width, height, region))

    def _watch_page(self, page: Page) -> None:
        page.on("domcontentloaded", lambda page: self.take(page))

    def add(self, snapshot: Snapshot) -> None:
        if snapshot.url.startswith(("http://", "https://")):
            self.snapshots.setdefault(snapshot.key, snapshot)

    def take(self, page: Page) -> Snapshot | None:
        """A copy of ``page`` as it stands; ``None`` if it is closed or gone elsewhere meanwhile."""
        try:
            if page.is_closed():
                return None
            url, html = page.url, page.content()
        except PlaywrightError:
            return None
        if any(page.context is context for context in self.scriptless):
            # Without scripts the browser shows what a <noscript> holds; the inspector, which runs
            # axe-core, has them: the same elements, shown there too.
            html = NOSCRIPT.sub(r"<\1div", html)
        size = page.viewport_size or DEFAULT_VIEWPORT
        snapshot = Snapshot(url, html, size["width"], size["height"])
        self.add(snapshot)
        return snapshot

    # The check.

    def violations(self, snapshots: list[Snapshot] | None = None) -> list[str]:
        """The serious and critical violations of the pages not yet checked (or of ``snapshots``)."""
        if snapshots is None:
            snapshots = [s for key, s in self.snapshots.items() if key not in self.checked]
        started = time.monotonic()
        found: list[str] = []
        try:
            for snapshot in snapshots:
                key = snapshot.key
                if key not in self.findings:
                    self.findings[key] = self.inspector.findings(snapshot)
                    self.inspected += 1
                found += [describe(snapshot, finding) for finding in self.findings[key]]
                self.checked.add(key)
        finally:
            self.seconds += time.monotonic() - started
        return found

    def check(self, page: Page) -> None:
        """Fail now if ``page``, as it stands, has a serious or critical violation."""
        __tracebackhide__ = True
        snapshot = self.take(page)
        assert snapshot is not None, f"{page.url} could not be copied"
        found = self.violations([snapshot])
        assert not found, report(found)

    def check_all(self) -> None:
        """Fail if any page seen, or open now, has a serious or critical violation."""
        __tracebackhide__ = True
        for context in self.contexts:
            for page in context.pages:
                self.take(page)
        found = self.violations()
        assert not found, report(found)


def report(found: list[str]) -> str:
    """The violations found, each once (a page seen twice in the same state shows it twice)."""
    found = list(dict.fromkeys(found))
    return f"axe-core found {len(found)} serious or critical accessibility violation(s):\n" + "\n".join(found)


class AuditedBrowser:
    """The run's Chromium, for one test: every context it opens is watched by ``Accessibility``, and
    every page ``new_page`` opens reports to the test's ``problems`` (``open_page``)."""

    def __init__(self, chromium: Browser, accessibility: Accessibility, problems: list[str]) -> None:
        self.chromium = chromium
        self.accessibility = accessibility
        self.problems = problems

    def new_context(self, **options: Any) -> BrowserContext:
        """A context whose pages are watched (``WATCH_SCRIPT``) and say when their scripts are ready
        (``READY_SCRIPT``): open its pages with ``open_page``."""
        javascript = options.get("java_script_enabled", True)
        context = self.chromium.new_context(**options)
        self.accessibility.watch(context, javascript=javascript)
        if javascript:
            context.add_init_script(WATCH_SCRIPT)
            context.add_init_script(READY_SCRIPT)
        return context

    def new_page(self, **options: Any) -> Page:
        context = self.new_context(**options)
        return open_page(context, self.problems, javascript=options.get("java_script_enabled", True))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.chromium, name)


# --- Fixtures --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def async_unsafe_allowed() -> Iterator[None]:
    # Playwright's sync API keeps an event loop running in this thread, and Django
    # refuses database access (the test database's setup and flush) from such a thread.
    # From the first browser test to the end: the browser tests run last (tests/conftest.py).
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


@pytest.fixture(scope="session")
def chromium(async_unsafe_allowed: None) -> Iterator[Browser]:
    """One Chromium for every browser test of the run (they run last: tests/conftest.py)."""
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing; install the system Chromium (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def inspector(chromium: Browser) -> Iterator[Inspector]:
    """Where axe-core checks the pages the browser tests see."""
    inspector = Inspector(chromium)
    yield inspector
    inspector.close()


@pytest.fixture(scope="session")
def axe_findings() -> dict[str, tuple[Finding, ...]]:
    """The findings of every page state checked in this run, by ``Snapshot.key``."""
    return {}


@pytest.fixture
def accessibility(inspector: Inspector, axe_findings: dict[str, tuple[Finding, ...]]) -> Accessibility:
    """The test's accessibility check: run on every page it saw once its body has passed
    (``pytest_runtest_call`` in tests/conftest.py); ``accessibility.check(page)`` checks a page now."""
    return Accessibility(inspector, axe_findings)


@pytest.fixture
def browser(chromium: Browser, accessibility: Accessibility, problems: list[str]) -> Iterator[AuditedBrowser]:
    audited = AuditedBrowser(chromium, accessibility, problems)
    yield audited
    for context in accessibility.contexts:
        context.close()


#: Where a test's ``problems`` list is kept for the check after its body (``pytest_runtest_call`` in
#: tests/conftest.py), whatever the test's own parameters are called.
PROBLEMS = pytest.StashKey[list[str]]()


@pytest.fixture
def problems(request: pytest.FixtureRequest) -> list[str]:
    """Console errors, uncaught exceptions and CSP violations seen by the test's pages."""
    reported: list[str] = []
    request.node.stash[PROBLEMS] = reported
    return reported


#: A stress run's slow scripts, in milliseconds (``DICEHALL_SLOW_SCRIPTS=1000 pytest -m browser``): every
#: script a page loads (htmx, ours) arrives this much later than the rest of the page, and none comes from
#: the browser's cache, as on a slow connection or a busy machine. A page then shows everything it has
#: parsed for that long before htmx and our scripts listen to it, so a step that acts on a page before
#: its scripts are ready fails. Chromium's own network emulation does it, for scripts only (by rule).
SLOW_SCRIPTS_MS = int(os.environ.get("DICEHALL_SLOW_SCRIPTS") or 0)


def slow_scripts(page: Page) -> None:
    """Make the scripts of ``page`` arrive late, if the run asks for it (``SLOW_SCRIPTS_MS``)."""
    if not SLOW_SCRIPTS_MS:
        return
    session = page.context.new_cdp_session(page)
    session.send("Network.enable")
    session.send("Network.setCacheDisabled", {"cacheDisabled": True})
    late = {"urlPattern": "*://*:*/*.js", "latency": SLOW_SCRIPTS_MS, "downloadThroughput": -1, "uploadThroughput": -1}
    session.send("Network.emulateNetworkConditionsByRule", {"offline": False, "matchedNetworkConditions": [late]})


def open_page(
    context: BrowserContext, problems: list[str], *, javascript: bool = True, ready_first: bool = True
) -> Page:
    """A new page of ``context`` (a context of the ``browser`` fixture) that reports its console errors,
    uncaught exceptions and CSP violations to ``problems``.

    With JavaScript (the default), every action and every assertion the test makes on the page first
    waits until the page's scripts are ready (``NOT_READY``): after a click that opens another page, the
    test's next step acts on it only once htmx and our scripts listen to it, whatever the step is and
    however early the new page shows what the step looks for. A test of what a page does with a choice
    made before its scripts are ready opens it with ``ready_first=False``."""

    def on_console(message: ConsoleMessage) -> None:
        where = message.location.get("url", "") if message.location else ""
        if message.type == "error" and "favicon" not in f"{message.text} {where}":
            problems.append(message.text)

    page = context.new_page()
    page.on("console", on_console)
    page.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))
    if javascript and ready_first:
        # Playwright looks for the locator before each action and each assertion (and each retry of
        # one), and when it shows, waits for it to go before going on: nothing here needs doing.
        page.add_locator_handler(page.locator(NOT_READY), lambda: None)
    slow_scripts(page)
    return page


def without_expected(problems: list[str], *phrases: str) -> list[str]:
    """Take off ``problems`` each one the test expects (containing one of ``phrases``, such as Chromium's
    console note about a refusal's status) and return what is left, for the test to assert empty: anything
    left there fails the test at its end (tests/conftest.py)."""
    problems[:] = [problem for problem in problems if not any(phrase in problem for phrase in phrases)]
    return problems


@pytest.fixture
def page(browser: AuditedBrowser, problems: list[str]) -> Iterator[Page]:
    context = browser.new_context()
    yield open_page(context, problems)
    context.close()


@pytest.fixture
def nojs_page(browser: AuditedBrowser, problems: list[str]) -> Iterator[Page]:
    context = browser.new_context(java_script_enabled=False)
    yield open_page(context, problems, javascript=False)
    context.close()
