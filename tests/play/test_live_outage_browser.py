"""The dashboard in a real browser while Redis (the channel layer) is out of reach: the page says its
live updates are paused (not "Connection lost", which would be for ever), keeps trying, later and
later, and once Redis answers again it is live once more and shows the roll made meanwhile. The
server closes the socket with 1013 rather than dropping it, so the browser reports no error."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from django.test import override_settings
from playwright.sync_api import expect

from play import rolls
from tests.browser import open_page
from tests.conftest import needs_redis
from tests.play.sockets import REDIS_URL, closed_port, redis_layer
from tests.play.test_live_browser import AsgiServer, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def server(async_unsafe_allowed: None) -> Iterator[AsgiServer]:
    running = AsgiServer()
    running.start()
    yield running
    running.stop()


def test_with_redis_away_the_dashboard_says_live_updates_are_paused_and_resumes_by_itself(
    server, browser, problems, campaign, gm, player
) -> None:
    needs_redis(REDIS_URL, "the channel layer's return")
    rolls.roll_free(campaign_id=campaign.pk, by=player, text="d4", explode=False, secret=False, rng=random.Random(2))
    dashboard = open_page(signed_in(browser, gm, server), problems)
    with override_settings(CHANNEL_LAYERS=redis_layer(f"redis://127.0.0.1:{closed_port()}/0")):
        dashboard.goto(f"{server.url}/campaigns/{campaign.pk}/dashboard/")
        expect(dashboard.locator("#live")).to_have_attribute("data-live", "paused")
        status = dashboard.get_by_role("status").filter(has_text="Live updates are paused")
        expect(status).to_contain_text("They resume by themselves")
        rolls.roll_free(
            campaign_id=campaign.pk, by=player, text="d12", explode=False, secret=False, rng=random.Random(3)
        )
        expect(dashboard.locator("#roll-feed > li")).to_have_count(1)

    with override_settings(CHANNEL_LAYERS=redis_layer(REDIS_URL)):
        expect(dashboard.locator("#roll-feed #roll-2")).to_contain_text("d12", timeout=20000)
        expect(dashboard.locator("#live")).to_have_attribute("data-live", "up")
        expect(dashboard.locator("#live-status")).to_be_hidden()
    dashboard.context.close()
    assert problems == []
