"""A large party, a page at a time: the dashboard and the campaign page cost the same with 500
characters as with five, each page of the dashboard's party starts just after the one before
(by name, then id), and a key typed wrong is a 400 that says why."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from django.utils.http import urlencode
from playwright.sync_api import expect

from campaigns.models import Campaign
from campaigns.presenters import MAX_KEY_NAME
from characters.models import Character
from play.campaign_views import LIST_PAGE_SIZE, PARTY_PREVIEW
from play.live import PARTY_PAGE_SIZE
from rules.dice import StepDie
from rules.systems import lucky13
from tests.browser import open_page
from tests.campaigns.helpers import html, text
from tests.play.test_live_browser import asgi_server, open_dashboard  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db

#: The size of the party the issue measured: 500 made an 871 KB dashboard.
LARGE = 500


def sheet_of(campaign: Campaign, status: str) -> dict[str, Any]:
    """The sheet ``tests.campaigns.helpers.make_character`` builds: a draft's, or (active and
    archived) five d8 abilities, d6 skills and 30 hit points."""
    sheet: dict[str, Any] = lucky13.SYSTEM.new_draft(campaign.settings).model_dump(mode="json")
    if status != Character.Status.DRAFT:
        sheet["abilities"] = {key: StepDie(3).label for key in lucky13.ABILITY_KEYS}
        sheet["skills"] = [{**skill, "die": "d6"} for skill in sheet["skills"]]
        sheet["hit_points"] = 30
        sheet["creation"]["step"] = ""
    return sheet


def many(campaign: Campaign, owners: list[Any], n: int, *, status: str = "active", name: str = "Hero") -> None:
    """``n`` characters in one INSERT (``bulk_create`` skips ``save()``, which sets the system).
    One name in ten is shared with the character before it, so that the id settles the order."""
    sheet = sheet_of(campaign, status)
    Character.objects.bulk_create(
        Character(
            campaign=campaign,
            owner=owners[i % len(owners)],
            name=f"{name} {i - (i % 10 == 1):03}",
            status=status,
            system=campaign.system,
            sheet=sheet,
        )
        for i in range(n)
    )


def in_order(campaign: Campaign, status: str = "active") -> list[int]:
    """The ids in the order the pages show them: the database's, by name then id."""
    rows = Character.objects.filter(campaign=campaign, status=status).order_by("name", "pk")
    return list(rows.values_list("pk", flat=True))


def dashboard_url(campaign: Campaign, **query: str) -> str:
    url = reverse("play:dashboard", args=[campaign.pk])
    return f"{url}?{urlencode(query)}" if query else url


def detail_url(campaign: Campaign, **query: str) -> str:
    url = reverse("campaigns:detail", args=[campaign.pk])
    return f"{url}?{urlencode(query)}" if query else url


def party_ids(page: str) -> list[int]:
    return [int(pk) for pk in re.findall(r'<li class="party-member" id="party-(\d+)">', page)]


def next_link(page: str, text: str) -> str | None:
    found = re.search(rf'<a href="([^"]+)"(?: rel="next")?>{text}</a>', page)
    return found.group(1).replace("&amp;", "&") if found else None


def kb(response: Any) -> float:
    return round(len(response.content) / 1024, 1)


@pytest.fixture
def large_party(campaign: Campaign, player, other_player) -> list[int]:
    many(campaign, [player, other_player], LARGE)
    return in_order(campaign)


# --- The dashboard ----------------------------------------------------------------------------------


def test_the_dashboard_of_a_party_of_500_is_one_page_of_it(
    client, campaign, gm, large_party, django_assert_num_queries
):
    client.force_login(gm)
    # The session with its user, the GM's membership with its campaign (and that no encounter runs, no roll
    # request or proposal is open and no character waits for the GM: none of those is read), the page of
    # characters with their owners (one more than a page: is there a next one? and as many as the GM's
    # call form offers), and the feed's rolls.
    with django_assert_num_queries(4):
        response = client.get(dashboard_url(campaign))

    page = html(response)
    assert response.status_code == 200
    assert party_ids(page) == large_party[:PARTY_PAGE_SIZE]
    assert kb(response) < 60  # 843.9 KB on this machine before the party was paged; 43.3 KB after
    assert "By name, Hero 000 to Hero 023" in text(response)
    assert next_link(page, "From the start of the party") is None


def test_a_later_page_costs_the_first_pages_queries_and_the_call_forms_characters(
    client, campaign, gm, large_party, django_assert_num_queries
):
    last = Character.objects.get(pk=large_party[-PARTY_PAGE_SIZE - 1])
    client.force_login(gm)
    with django_assert_num_queries(5):  # as the first page, and the first characters for the call form
        response = client.get(dashboard_url(campaign, after=f"{last.pk}:{last.name}"))

    page = html(response)
    assert party_ids(page) == large_party[-PARTY_PAGE_SIZE:]
    assert next_link(page, "More of the party") is None  # the last page
    assert next_link(page, "From the start of the party") == dashboard_url(campaign) + "#dashboard-party"
    assert f'data-party-after="{last.pk}:{last.name}"' in page  # what the socket asks for on reconnecting


def test_following_the_pages_shows_every_character_once_in_order(client, campaign, gm, large_party) -> None:
    client.force_login(gm)
    seen: list[int] = []
    url: str | None = dashboard_url(campaign)
    pages = 0
    while url is not None:
        page = html(client.get(url if url.startswith("/") else dashboard_url(campaign) + url))
        ids = party_ids(page)
        assert 0 < len(ids) <= PARTY_PAGE_SIZE
        if seen:  # each page starts just after the last row of the one before
            assert large_party.index(ids[0]) == large_party.index(seen[-1]) + 1
        seen += ids
        pages += 1
        url = next_link(page, "More of the party")
    assert seen == large_party  # none twice, none missing, by name then id
    assert pages == -(-LARGE // PARTY_PAGE_SIZE)


def test_names_shared_by_two_characters_are_ordered_by_id_across_a_page_boundary(client, campaign, gm, player) -> None:
    # Six "Twin"s: a page of the party ends between them however it is cut.
    many(campaign, [player], PARTY_PAGE_SIZE - 3, name="Aldo")
    for _ in range(6):
        Character.objects.create(
            campaign=campaign, owner=player, name="Twin", status="active", sheet=sheet_of(campaign, "active")
        )
    client.force_login(gm)
    first = html(client.get(dashboard_url(campaign)))
    second = html(client.get(dashboard_url(campaign) + next_link(first, "More of the party")))
    twins = list(Character.objects.filter(name="Twin").order_by("pk").values_list("pk", flat=True))
    assert party_ids(first)[-3:] == twins[:3]
    assert party_ids(second) == twins[3:]


def test_a_key_is_a_place_in_the_order_not_a_row(client, campaign, gm, large_party) -> None:
    # No character 999999 exists: the page starts after where it would be, by name then id; both
    # "Hero 250"s have smaller ids, and "Hero 251" is "Hero 250" (see many), so "Hero 252" is next.
    client.force_login(gm)
    page = html(client.get(dashboard_url(campaign, after="999999:Hero 250")))
    names = dict(Character.objects.filter(pk__in=large_party).values_list("pk", "name"))
    assert [names[pk] for pk in party_ids(page)][:2] == ["Hero 252", "Hero 253"]


def test_a_key_after_the_last_character_is_an_empty_page_with_a_way_back(client, campaign, gm, large_party) -> None:
    client.force_login(gm)
    response = client.get(dashboard_url(campaign, after="1:Zz"))
    assert response.status_code == 200
    assert party_ids(html(response)) == []
    assert "No more characters in play." in text(response)
    assert next_link(html(response), "From the start of the party") == dashboard_url(campaign) + "#dashboard-party"


BAD_KEYS = [
    "Hero 001",  # no id
    "12",  # no name
    "12:",
    ":Hero 001",
    "0:Hero 001",
    "-3:Hero 001",
    "²:Hero 001",  # a digit to str.isdigit, not to int
    "٣:Hero 001",
    "1" * 13 + ":Hero 001",  # beyond any key
    "12:Hero\x00001",  # PostgreSQL refuses a NUL in text: a 500 if it reached the query
    "12:Hero\n001",
    "12:" + "x" * (MAX_KEY_NAME + 1),
]


@pytest.mark.parametrize("key", BAD_KEYS)
def test_a_bad_key_is_a_400_that_says_why(client, campaign, gm, player, key) -> None:
    many(campaign, [player], 3)
    client.force_login(gm)
    response = client.get(dashboard_url(campaign, after=key))
    assert response.status_code == 400
    assert "The page of the party must" in text(response)
    assert "Hero 000" not in text(response)


def test_an_outsider_gets_a_404_whatever_the_key(client, campaign, outsider) -> None:
    client.force_login(outsider)
    assert client.get(dashboard_url(campaign, after="nonsense")).status_code == 404


# --- The campaign page ------------------------------------------------------------------------------


@pytest.fixture
def crowded(campaign: Campaign, gm, player, other_player, large_party) -> Campaign:
    """The large party, with 30 drafts of the GM's, 30 of the players' and 30 archived characters."""
    many(campaign, [gm], 30, status="draft", name="GM draft")
    many(campaign, [player, other_player], 30, status="draft", name="Player draft")
    many(campaign, [player, other_player], 30, status="archived", name="Old hero")
    return campaign


@pytest.mark.parametrize(("who", "queries"), [("gm", 8), ("player", 5)])
def test_the_campaign_page_of_a_crowded_campaign_shows_a_bounded_glance(
    client, request, crowded, large_party, who, queries, django_assert_num_queries
) -> None:
    client.force_login(request.getfixturevalue(who))
    # The session with its user, the campaign, its members, the party's first characters with their
    # players, the viewer's drafts; for the GM, the players' drafts, the archived characters and those waiting
    # (each list one more than it shows: is there more?).
    with django_assert_num_queries(queries):
        response = client.get(detail_url(crowded))

    page = html(response)
    assert response.status_code == 200
    assert page.count('<li class="party-member">') == PARTY_PREVIEW
    assert kb(response) < 40  # 207.9 KB on this machine before; 10.8 KB after (the GM, with no drafts)
    rest = next_link(page, "The rest of the party, a page at a time, on the live dashboard")
    last = Character.objects.get(pk=large_party[PARTY_PREVIEW - 1])
    assert rest == dashboard_url(crowded, after=f"{last.pk}:{last.name}") + "#dashboard-party"
    own = len(re.findall(r"</span> <a [^>]+>Finish creating<span", page))
    others = len(re.findall(r'Player draft \d+</a> <span class="badge">Draft', page))
    archived = len(re.findall(r'">Old hero \d+</a>', page))
    if who == "gm":
        assert (own, others, archived) == (LIST_PAGE_SIZE,) * 3
    else:  # the player's own 15 drafts, a page of them
        assert (own, others, archived) == (LIST_PAGE_SIZE, 0, 0)


def test_the_dashboard_carries_on_where_the_campaign_page_stops(client, crowded, gm, large_party) -> None:
    client.force_login(gm)
    rest = next_link(
        html(client.get(detail_url(crowded))), "The rest of the party, a page at a time, on the live dashboard"
    )
    assert party_ids(html(client.get(rest))) == large_party[PARTY_PREVIEW : PARTY_PREVIEW + PARTY_PAGE_SIZE]


def test_each_list_of_the_campaign_page_pages_on_its_own(client, crowded, gm) -> None:
    client.force_login(gm)
    first = html(client.get(detail_url(crowded)))
    archived = in_order(crowded, "archived")
    more_archived = next_link(first, "More of the archived characters")
    assert more_archived is not None
    assert more_archived.startswith("?archived_after=")
    second = html(client.get(detail_url(crowded) + more_archived))
    shown = [int(pk) for pk in re.findall(r'<a href="/characters/(\d+)/">Old hero', second)]
    assert shown == archived[LIST_PAGE_SIZE : 2 * LIST_PAGE_SIZE]
    # Paging the players' drafts keeps the archived list's page.
    more_drafts = next_link(second, "More of the players' drafts")
    assert more_drafts is not None
    assert "archived_after=" in more_drafts
    assert "others_drafts_after=" in more_drafts
    third = html(client.get(detail_url(crowded) + more_drafts))
    assert [int(pk) for pk in re.findall(r'<a href="/characters/(\d+)/">Old hero', third)] == shown
    back = next_link(third, "Back to the first of the archived characters")
    assert back is not None
    assert "archived_after" not in back
    assert "others_drafts_after=" in back


@pytest.mark.parametrize("key", ["drafts_after", "others_drafts_after", "archived_after"])
def test_a_bad_key_on_the_campaign_page_is_a_400(client, campaign, gm, key) -> None:
    client.force_login(gm)
    response = client.get(detail_url(campaign, **{key: "²:Hero"}))
    assert response.status_code == 400
    assert "The page of characters must be given as" in text(response)


# --- Live, in a browser -----------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_later_page_updates_its_own_rows_and_gains_none(asgi_server, browser, problems, campaign, gm, player) -> None:  # noqa: F811
    many(campaign, [player], PARTY_PAGE_SIZE + 5)
    order = in_order(campaign)
    last = Character.objects.get(pk=order[PARTY_PAGE_SIZE - 1])
    dashboard = open_dashboard(browser, gm, asgi_server, campaign, problems)
    dashboard.goto(f"{asgi_server.url}{dashboard_url(campaign, after=f'{last.pk}:{last.name}')}")
    dashboard.evaluate("window.sameDocument = true")
    expect(dashboard.locator("#live")).to_have_attribute("data-live", "up")
    rows = dashboard.locator("#dashboard-party .party-member")
    expect(rows).to_have_count(5)

    # The GM changes hit points in another tab: one character on the first page, one on this one.
    sheet = open_page(dashboard.context, problems)
    for pk, hit_points in ((order[0], "7"), (order[-1], "12")):
        sheet.goto(f"{asgi_server.url}{reverse('characters:edit-section', args=[pk, 'hit-points'])}")
        sheet.get_by_label("Current hit points").fill(hit_points)
        sheet.get_by_role("button", name="Save").click()
        sheet.wait_for_url(re.compile(rf"/characters/{pk}/(#.*)?$"))  # saved: back on the sheet, loaded
    expect(dashboard.locator(f"#party-{order[-1]}")).to_contain_text("12 of 30", timeout=5000)
    expect(rows).to_have_count(5)
    expect(dashboard.locator(f"#party-{order[0]}")).to_have_count(0)
    assert dashboard.evaluate("window.sameDocument") is True
    dashboard.context.close()
    assert problems == []
