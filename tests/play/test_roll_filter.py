"""The roll log's character filter with a party of hundreds: a bounded choice (the first
``CHARACTER_CHOICES`` by name, narrowed by the start of a name), the filtered character always
among it, the same queries however large the party, and the viewer's rules of what they may see."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils.http import urlencode

from campaigns import access
from campaigns.models import Campaign, Membership
from characters import access as character_access
from characters.models import Character
from play.models import Roll, RollKind
from play.roll_views import CHARACTER_CHOICES, MAX_NAME_START
from tests.campaigns.helpers import html, make_character, text
from tests.play.test_rolls import record

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
#: The party of the tests here: far more than the filter offers at once.
PARTY = 300


def log_url(campaign: Campaign, **query: object) -> str:
    url = reverse("play:rolls", args=[campaign.pk])
    return url + (f"?{urlencode(query)}" if query else "")


def heroes(campaign: Campaign, owner, count: int = PARTY, *, status: str = "active", prefix: str = "Hero"):
    """``count`` characters named ``Hero 000`` … in one INSERT, ids in order of name."""
    return Character.objects.bulk_create(
        Character(campaign=campaign, owner=owner, name=f"{prefix} {i:03d}", status=status, system=campaign.system)
        for i in range(count)
    )


@pytest.fixture
def party(campaign, other_player) -> list[Character]:
    return heroes(campaign, other_player)


def choices(response) -> list[tuple[str, str, bool]]:
    """The character filter's options on the page, as (value, name, selected)."""
    select = re.search(r'<select id="filter-character"[^>]*>(.*?)</select>', html(response), re.DOTALL)
    assert select is not None
    return [
        (value, name, bool(selected))
        for value, selected, name in re.findall(r'<option value="(\d*)"( selected)?>([^<]*)</option>', select[1])
    ]


def names(response) -> list[str]:
    return [name for value, name, _ in choices(response) if value]


# --- Bounded, in the same queries ----------------------------------------------------------------


@pytest.mark.parametrize("who", ["gm", "player"])
def test_a_large_party_is_a_bounded_choice_in_the_same_five_queries(
    client, request, campaign, party, player, django_assert_num_queries, who
) -> None:
    for hero in party[::60]:
        record(campaign, player, character_id=hero.pk)
    client.force_login(request.getfixturevalue(who))

    # The session with its user, the campaign, its members, the first characters by name (one UNION ALL
    # of the index's ranges the viewer may see), a page of rolls.
    with django_assert_num_queries(5):
        response = client.get(log_url(campaign))

    assert response.status_code == 200
    offered = choices(response)
    assert len(offered) == CHARACTER_CHOICES + 1  # and "Everyone"
    assert offered[0] == ("", "Everyone", False)
    assert [name for _, name, _ in offered[1:]] == [f"Hero {i:03d}" for i in range(CHARACTER_CHOICES)]
    assert [value for value, _, _ in offered[1:]] == [str(c.pk) for c in party[:CHARACTER_CHOICES]]
    assert 'name="character_name"' in html(response)
    assert f"The first {CHARACTER_CHOICES} characters by name: for another, type the start of their name" in text(
        response
    )
    assert 'aria-describedby="character-choice-note"' in html(response)


def test_the_page_is_the_same_size_with_thirty_one_characters_or_three_hundred(client, campaign, other_player,
                                                                               player) -> None:  # fmt: skip
    heroes(campaign, other_player, CHARACTER_CHOICES + 1)
    client.force_login(player)
    small = html(client.get(log_url(campaign)))
    heroes(campaign, other_player, PARTY, prefix="Xeno")  # every one of them after the first page by name
    large = html(client.get(log_url(campaign)))
    every_kind = len(RollKind.choices) + 1
    assert large.count("<option") == small.count("<option") == CHARACTER_CHOICES + 1 + every_kind
    assert "Xeno" not in large
    assert len(large) == len(small)


def test_filtering_by_a_character_adds_one_query_by_its_id(
    client, campaign, party, player, django_assert_num_queries
) -> None:
    last = party[-1]
    record(campaign, player, character_id=last.pk, total=11)
    record(campaign, player, character_id=party[0].pk, total=12)
    client.force_login(player)

    # The session with its user, the campaign, its members, the filtered character by its id (may the
    # viewer see it?), the first characters by name, a page of rolls.
    with django_assert_num_queries(6):
        response = client.get(log_url(campaign, character=last.pk))

    assert response.status_code == 200
    offered = choices(response)
    assert len(offered) == CHARACTER_CHOICES + 2  # the first ones, "Everyone", and the filtered one
    assert offered[-1] == (str(last.pk), "Hero 299", True)
    assert [selected for _, _, selected in offered].count(True) == 1
    words = text(response)
    assert "#1 " in words
    assert "#2 " not in words


def test_with_htmx_a_choice_swaps_the_list_alone(client, campaign, party, player) -> None:
    """The <select> and the name box stay as they are: only a whole page brings a new choice."""
    record(campaign, player, character_id=party[200].pk)
    client.force_login(player)
    fragment = client.get(log_url(campaign, character=party[200].pk, character_name="hero 2"), **HTMX)
    body = html(fragment)
    assert fragment.status_code == 200
    assert body.startswith('\n<section id="roll-list"')
    assert "<option" not in body
    assert "for Hero 200" in text(fragment)
    older = client.get(log_url(campaign, character=party[200].pk, character_name="hero 2", before=2), **HTMX)
    assert "#1 " in text(older)
    assert "hero+2" in html(older)  # the link back to the newest keeps the name


def test_a_small_party_is_listed_whole_without_a_name_box(client, campaign, player, other_player) -> None:
    make_character(campaign, other_player, "Casimir")
    make_character(campaign, player, "Brunella")
    client.force_login(player)
    response = client.get(log_url(campaign))
    assert names(response) == ["Brunella", "Casimir"]
    assert 'name="character_name"' not in html(response)
    assert 'id="character-choice-note"' not in html(response)
    assert "aria-describedby" not in html(response)


# --- Finding by name -----------------------------------------------------------------------------


def test_the_start_of_a_name_narrows_the_choice_in_any_case(client, campaign, party, player) -> None:
    client.force_login(player)
    response = client.get(log_url(campaign, character_name="  hERO 02 "))
    assert response.status_code == 200
    assert names(response) == [f"Hero {i:03d}" for i in range(20, 30)]
    assert 'value="hERO 02"' in html(response)  # the box keeps what was typed, trimmed
    assert "The first" not in text(response)


def test_a_broad_start_is_still_cut_at_the_first_choices(client, campaign, party, player) -> None:
    client.force_login(player)
    response = client.get(log_url(campaign, character_name="Hero 1"))
    assert names(response) == [f"Hero {i:03d}" for i in range(100, 100 + CHARACTER_CHOICES)]
    assert f"The first {CHARACTER_CHOICES} characters whose name starts with “Hero 1”: type more of it." in text(
        response
    )


def test_a_start_that_matches_nobody_says_so_and_keeps_the_filtered_character(client, campaign, party,
                                                                               player) -> None:  # fmt: skip
    client.force_login(player)
    response = client.get(log_url(campaign, character_name="Zed"))
    assert choices(response) == [("", "Everyone", False)]
    assert "No character’s name starts with “Zed”." in text(response)
    response = client.get(log_url(campaign, character_name="Zed", character=party[7].pk))
    assert choices(response) == [("", "Everyone", False), (str(party[7].pk), "Hero 007", True)]


def test_a_search_takes_its_characters_literally(client, campaign, player, other_player) -> None:
    """``%`` and ``_`` are letters in a name, not patterns."""
    heroes(campaign, other_player, CHARACTER_CHOICES + 1)
    make_character(campaign, other_player, "100% Pure")
    make_character(campaign, other_player, "A_B")
    client.force_login(player)
    assert names(client.get(log_url(campaign, character_name="100%"))) == ["100% Pure"]
    assert names(client.get(log_url(campaign, character_name="A_"))) == ["A_B"]
    assert names(client.get(log_url(campaign, character_name="%"))) == []


def test_the_pages_of_the_log_keep_the_narrowed_choice(client, campaign, party, player) -> None:
    for _ in range(30):
        record(campaign, player, character_id=party[150].pk)
    client.force_login(player)
    first = client.get(log_url(campaign, character=party[150].pk, character_name="Hero 15"))
    older = urlencode({"character": party[150].pk, "character_name": "Hero 15", "before": 6})
    assert f'href="?{older.replace("&", "&amp;")}"' in html(first)
    second = client.get(log_url(campaign, character=party[150].pk, character_name="Hero 15", before=6))
    assert names(second) == [f"Hero {i:03d}" for i in range(150, 160)]
    newest = urlencode({"character": party[150].pk, "character_name": "Hero 15"})
    assert f'href="?{newest.replace("&", "&amp;")}"' in html(second)


# --- Who sees what ------------------------------------------------------------------------------


@pytest.fixture
def mixed(campaign, player, other_player) -> dict[str, Character]:
    """Active characters, a draft of each player's, and an archived one."""
    return {
        "Brunella": make_character(campaign, player, "Brunella"),
        "Casimir": make_character(campaign, other_player, "Casimir"),
        "Dagmar": make_character(campaign, player, "Dagmar", status="draft"),
        "Esk": make_character(campaign, other_player, "Esk", status="draft"),
        "Fennick": make_character(campaign, other_player, "Fennick", status="archived"),
    }


@pytest.mark.parametrize(
    ("who", "seen"),
    [
        ("gm", ["Brunella", "Casimir", "Dagmar", "Esk", "Fennick"]),
        ("player", ["Brunella", "Casimir", "Dagmar"]),
        ("other_player", ["Brunella", "Casimir", "Esk"]),
    ],
)
def test_the_choice_follows_what_the_campaign_page_lists(client, request, campaign, mixed, who, seen) -> None:
    viewer = request.getfixturevalue(who)
    campaign = access.campaign_for(viewer, campaign.pk)
    assert [c.name for c in character_access.listed_characters(campaign, viewer)] == seen
    assert [c.name for c in character_access.character_choices(campaign, viewer, limit=10)] == seen
    assert [c.name for c in character_access.character_choices(campaign, viewer, limit=2)] == seen[:2]
    for name, character in mixed.items():
        found = character_access.character_choice(campaign, viewer, character.pk)
        assert (found.name if found else None) == (name if name in seen else None)
    client.force_login(viewer)
    assert names(client.get(log_url(campaign))) == seen
    for name in seen:
        response = client.get(log_url(campaign, character=mixed[name].pk))
        assert response.status_code == 200
        assert (str(mixed[name].pk), name, True) in choices(response)


def test_the_choice_of_a_large_party_keeps_the_same_rules(client, campaign, gm, player, other_player) -> None:
    """Each status the viewer may see is read in its own range: the merge keeps the order by name."""
    heroes(campaign, other_player, 100, status="draft", prefix="Aaron")  # before every active one by name
    heroes(campaign, other_player, 100, prefix="Bard")
    heroes(campaign, player, 5, status="draft", prefix="Bard")
    heroes(campaign, other_player, 100, status="archived", prefix="Abel")
    client.force_login(player)
    seen = names(client.get(log_url(campaign)))
    assert seen[:10] == [f"Bard {i:03d}" for i in range(5) for _ in ("active", "own draft")]
    assert len(seen) == CHARACTER_CHOICES
    assert not any(name.startswith(("Aaron", "Abel")) for name in seen)
    client.force_login(gm)
    seen = names(client.get(log_url(campaign)))
    assert seen == [f"Aaron {i:03d}" for i in range(CHARACTER_CHOICES)]
    assert names(client.get(log_url(campaign, character_name="abel"))) == [
        f"Abel {i:03d}" for i in range(CHARACTER_CHOICES)
    ]


# --- Bad input -----------------------------------------------------------------------------------


@pytest.fixture
def elsewhere(gm, other_player) -> Character:
    """A character of another campaign, whose player is also in this one."""
    other = Campaign.objects.create(name="The Ashen Vale", system="lucky13")
    Membership.objects.create(campaign=other, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=other, user=other_player, role=Membership.Role.PLAYER)
    return make_character(other, other_player, "Wanderer")


@pytest.mark.parametrize(
    ("who", "character", "message"),
    [
        ("player", "٣", "The character must be a whole number of 1 or more"),  # a digit to Python, not to int
        ("player", "²", "The character must be a whole number of 1 or more"),
        ("player", "0", "The character must be a whole number of 1 or more"),
        ("player", "-4", "The character must be a whole number of 1 or more"),
        ("player", "1 ", "The character must be a whole number of 1 or more"),
        ("player", "9" * 13, "The character must be a whole number of 1 or more"),  # longer than any key
        ("player", "999999", "There is no such character in this campaign."),
        ("gm", "elsewhere", "There is no such character in this campaign."),
        ("other_player", "elsewhere", "There is no such character in this campaign."),
        ("player", "others_draft", "There is no such character in this campaign."),
        ("player", "archived", "There is no such character in this campaign."),
    ],
)
def test_bad_characters_are_a_400_that_says_why(
    client, request, campaign, party, mixed, elsewhere, who, character, message
) -> None:
    # Fennick rolled while in play, before being archived (a draft never rolls).
    Character.objects.filter(pk=mixed["Fennick"].pk).update(status="active")
    record(campaign, request.getfixturevalue("other_player"), character_id=mixed["Fennick"].pk)
    Character.objects.filter(pk=mixed["Fennick"].pk).update(status="archived")
    known = {"elsewhere": elsewhere.pk, "others_draft": mixed["Esk"].pk, "archived": mixed["Fennick"].pk}
    client.force_login(request.getfixturevalue(who))
    for headers in ({}, HTMX):
        response = client.get(log_url(campaign, character=known.get(character, character)), **headers)
        assert response.status_code == 400
        assert message in text(response)
        assert "Esk" not in text(response)
        assert "Fennick" not in text(response)
    assert Roll.objects.count() == 1


@pytest.mark.parametrize(
    "typed",
    ["Hero\x00", "Hero\n000", "\x1b[31m", "x" * (MAX_NAME_START + 1)],
)
def test_a_bad_name_start_is_a_400_that_says_why(client, campaign, party, player, typed) -> None:
    client.force_login(player)
    response = client.get(log_url(campaign, character_name=typed))
    assert response.status_code == 400
    assert f"one line of at most {MAX_NAME_START} characters" in text(response)


def test_the_longest_name_start_is_taken(client, campaign, party, player, other_player) -> None:
    longest = make_character(campaign, other_player, "Hero " + "n" * (MAX_NAME_START - 5))
    client.force_login(player)
    response = client.get(log_url(campaign, character_name=longest.name))
    assert response.status_code == 200
    assert names(response) == [longest.name]
