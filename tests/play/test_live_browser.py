"""The live dashboard in a real browser, served as production serves it (uvicorn, the ASGI
application, the in-memory channel layer) from a thread of the test process: a roll made by a
player appears on the GM's dashboard without a reload, within the strict CSP (connect-src 'self'
lets the page open its socket), and a dropped socket is announced, reconnected and caught up."""

from __future__ import annotations

import random
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from django.test import Client
from playwright.sync_api import Browser, BrowserContext, Page, expect

from campaigns.models import Membership
from config.asgi import application
from play import rolls
from tests.browser import open_page, without_expected
from tests.campaigns.helpers import make_character

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class AsgiServer:
    """uvicorn in a thread, stopped and started again on the same port to drop every socket."""

    def __init__(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        config = uvicorn.Config(
            application,
            host="127.0.0.1",
            port=self.port,
            ws="websockets-sansio",
            lifespan="off",
            log_level="warning",
            timeout_graceful_shutdown=1,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()


@pytest.fixture
def asgi_server(async_unsafe_allowed: None) -> Iterator[AsgiServer]:
    server = AsgiServer()
    server.start()
    yield server
    if server.thread.is_alive():
        server.stop()


def signed_in(browser: Browser, user, server: AsgiServer) -> BrowserContext:
    client = Client()
    client.force_login(user)
    context = browser.new_context()
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": server.url}])
    return context


def open_dashboard(browser: Browser, user, server: AsgiServer, campaign, problems: list[str]) -> Page:
    page = open_page(signed_in(browser, user, server), problems)
    page.goto(f"{server.url}/campaigns/{campaign.pk}/dashboard/")
    page.evaluate("window.sameDocument = true")
    expect(page.locator("#live")).to_have_attribute("data-live", "up")  # the socket is open
    return page


def test_a_players_roll_appears_on_the_gms_dashboard_without_a_reload(
    asgi_server, browser, problems, campaign, gm, player
) -> None:
    make_character(campaign, player, "Brunella")
    dashboard = open_dashboard(browser, gm, asgi_server, campaign, problems)
    expect(dashboard.get_by_text("No rolls yet.")).to_be_visible()

    table = open_page(signed_in(browser, player, asgi_server), problems)
    table.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/")
    table.get_by_label("Dice", exact=True).fill("2d6+3")
    table.get_by_role("button", name="Roll", exact=True).click()

    roll = dashboard.locator("#roll-feed #roll-1")
    expect(roll).to_contain_text("2d6+3", timeout=5000)
    expect(roll).to_contain_text("player")
    expect(dashboard.get_by_text("No rolls yet.")).to_be_hidden()
    assert dashboard.evaluate("window.sameDocument") is True  # swapped in, not reloaded
    table.context.close()
    dashboard.context.close()
    assert problems == []


def test_a_dropped_socket_is_announced_and_the_missed_roll_arrives_on_reconnecting(
    asgi_server, browser, problems, campaign, gm, player
) -> None:
    rolls.roll_free(campaign_id=campaign.pk, by=player, text="d4", explode=False, secret=False, rng=random.Random(2))
    dashboard = open_dashboard(browser, gm, asgi_server, campaign, problems)
    expect(dashboard.locator("#roll-feed > li")).to_have_count(1)

    asgi_server.stop()
    status = dashboard.get_by_role("status").filter(has_text="Connection lost")
    expect(status).to_have_text("Connection lost — reconnecting…")
    rolls.roll_free(campaign_id=campaign.pk, by=player, text="d12", explode=False, secret=False, rng=random.Random(3))

    asgi_server.start()
    expect(dashboard.locator("#roll-feed #roll-2")).to_contain_text("d12", timeout=15000)
    expect(dashboard.locator("#live-status")).to_be_hidden()
    expect(dashboard.locator("#roll-feed > li")).to_have_count(2)
    assert dashboard.evaluate("window.sameDocument") is True
    dashboard.context.close()
    # The browser reports the refused connections while the server was down; nothing else.
    assert without_expected(problems, "WebSocket connection") == []  # the socket refused while the server was down


def test_a_revealed_roll_takes_its_place_in_the_players_feed_and_the_gms_row_says_so(
    asgi_server, browser, problems, campaign, gm, player
) -> None:
    def roll(by, text: str, *, secret: bool = False) -> None:
        rolls.roll_free(campaign_id=campaign.pk, by=by, text=text, explode=False, secret=secret, rng=random.Random(4))

    roll(gm, "d20", secret=True)
    roll(player, "d6")
    table = open_dashboard(browser, player, asgi_server, campaign, problems)
    dashboard = open_dashboard(browser, gm, asgi_server, campaign, problems)
    expect(table.locator("#roll-feed > li")).to_have_count(1)
    expect(dashboard.locator("#roll-1 .badge")).to_have_text("Secret")

    # Revealed from the roll log, through the server: this thread's event loop belongs to Playwright.
    log = open_page(dashboard.context, problems)
    log.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/rolls/")
    log.get_by_role("button", name="Reveal roll #1 to everyone").click()
    expect(log.locator("#roll-1 .badge")).to_have_text("Secret, revealed")

    expect(table.locator("#roll-feed > li")).to_have_count(2, timeout=5000)
    assert table.locator("#roll-feed > li").evaluate_all("items => items.map(li => li.id)") == ["roll-2", "roll-1"]
    expect(table.locator("#roll-1")).to_contain_text("d20")
    expect(dashboard.locator("#roll-1 .badge")).to_have_text("Secret, revealed", timeout=5000)
    expect(dashboard.locator("#roll-feed > li")).to_have_count(2)
    for page in (table, dashboard):
        assert page.evaluate("window.sameDocument") is True
        page.context.close()
    assert problems == []


def test_a_removed_players_dashboard_stops_at_once_and_says_why(
    asgi_server, browser, problems, campaign, gm, player
) -> None:
    member = Membership.objects.get(campaign=campaign, user=player)
    table = open_dashboard(browser, player, asgi_server, campaign, problems)
    # The page's timers from now on run when the test says, and each socket the page opens is counted.
    table.clock.install()
    table.evaluate("""() => {
      window.socketsOpened = 0;
      const Socket = window.WebSocket;
      window.WebSocket = class extends Socket {
        constructor(...args) { super(...args); window.socketsOpened += 1; }
      };
    }""")

    # Removed by the GM through the server: this thread's event loop belongs to Playwright.
    gm_page = open_page(signed_in(browser, gm, asgi_server), problems)
    gm_page.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/members/{member.pk}/remove/confirm/")
    gm_page.get_by_role("button", name="Remove player").click()
    expect(gm_page.get_by_text("player has left")).to_be_visible()

    status = table.get_by_role("status")
    expect(status).to_have_text("Live updates are off: you are no longer a member here. Reload the page.")
    expect(table.locator("#live")).to_have_attribute("data-live", "off")  # refused: not a drop to reconnect after
    assert table.evaluate("window.sameDocument") is True
    table.clock.run_for(60_000)  # longer than any wait before reconnecting (10 s at most): no new socket
    assert table.evaluate("window.socketsOpened") == 0
    expect(status).to_have_text("Live updates are off: you are no longer a member here. Reload the page.")
    gm_page.context.close()
    table.context.close()
    assert problems == []
