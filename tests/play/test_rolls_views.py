"""The roll log page, verifying it, revealing secret rolls, and the free dice box, for the whole cast."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign
from play import rolls
from play.models import Roll, RollKind
from rules import expressions
from tests.campaigns.helpers import assert_login_redirect, html, make_character, text
from tests.play.test_rolls import record

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def log_url(campaign: Campaign, **query) -> str:
    url = reverse("play:rolls", args=[campaign.pk])
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def free_url(campaign: Campaign) -> str:
    return reverse("play:free-roll", args=[campaign.pk])


# --- The log page ---------------------------------------------------------------------------------


def test_outsiders_get_a_404_and_visitors_a_login(client, outsider, campaign) -> None:
    for url in (log_url(campaign), reverse("play:verify-rolls", args=[campaign.pk])):
        assert_login_redirect(client.get(url))
    assert_login_redirect(client.post(free_url(campaign), {"expression": "d6"}))
    client.force_login(outsider)
    assert client.get(log_url(campaign)).status_code == 404
    assert client.get(reverse("play:verify-rolls", args=[campaign.pk])).status_code == 404
    assert client.post(free_url(campaign), {"expression": "d6"}).status_code == 404
    # A refused expression too: an outsider is told nothing of the campaign, not even the form's message.
    refused = client.post(free_url(campaign), {"expression": "2d6+x"}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 404
    assert "Cannot roll" not in refused.text
    assert not Roll.objects.exists()


@pytest.mark.parametrize("who", ["gm", "player", "other_player"])
def test_every_member_sees_every_open_roll_newest_first(client, request, campaign, gm, player, character, who) -> None:
    record(campaign, player, character_id=character.pk, total=5)
    record(campaign, gm, total=11)
    client.force_login(request.getfixturevalue(who))

    response = client.get(log_url(campaign))

    words = text(response)
    assert response.status_code == 200
    assert words.index("#2 gm · Free roll 2d6+1") < words.index("#1 player for Brunella · Free roll 2d6+1")
    assert "Total 11" in words
    assert "Chance before the roll of total ≥ 8: 58.3% (7/12)" in words
    assert 'class="die-name">d6</span>' in html(response)


def test_secret_rolls_are_the_gms_until_revealed(client, campaign, gm, player) -> None:
    record(campaign, gm, total=17, secret=True)
    client.force_login(player)
    words = text(client.get(log_url(campaign)))
    assert "#1 A secret roll by the GM" in words
    assert "Total 17" not in words
    # A filtered list leaves it out altogether: even its placeholder would tell its kind.
    assert "#1" not in text(client.get(log_url(campaign, kind="free")))
    assert client.post(reverse("play:reveal-roll", args=[campaign.pk, 1])).status_code == 403

    client.force_login(gm)
    words = text(client.get(log_url(campaign)))
    assert "Total 17" in words
    assert "Reveal roll #1 to everyone" in words
    response = client.post(reverse("play:reveal-roll", args=[campaign.pk, 1]), **HTMX)
    assert response.status_code == 200
    assert "Secret, revealed" in text(response)
    assert "Reveal roll" not in text(response)

    client.force_login(player)
    words = text(client.get(log_url(campaign)))
    assert "Total 17" in words
    assert "Secret, revealed" in words
    assert rolls.verify_chain(campaign) is None


def test_revealing_without_javascript_redirects_to_the_roll(client, campaign, gm) -> None:
    record(campaign, gm, secret=True)
    client.force_login(gm)
    response = client.post(reverse("play:reveal-roll", args=[campaign.pk, 1]))
    assert response.status_code == 302
    assert response["Location"] == log_url(campaign) + "#roll-1"
    again = client.post(reverse("play:reveal-roll", args=[campaign.pk, 1]))
    assert again.status_code == 409


def test_filters_by_character_and_kind(client, campaign, player, other_player, character) -> None:
    casimir = make_character(campaign, other_player, "Casimir")
    record(campaign, player, character_id=character.pk, total=1)
    record(campaign, other_player, character_id=casimir.pk, total=2)
    record(campaign, player, character_id=character.pk, kind=RollKind.CHECK, total=3)
    client.force_login(player)

    words = text(client.get(log_url(campaign, character=character.pk)))
    assert "#3" in words
    assert "#1" in words
    assert "#2" not in words
    words = text(client.get(log_url(campaign, character=character.pk, kind="free")))
    assert "#1" in words
    assert "#3" not in words
    fragment = client.get(log_url(campaign, kind="check"), **HTMX)
    assert html(fragment).startswith('\n<section id="roll-list"')
    assert "#3" in text(fragment)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ({"kind": "poker"}, "is not a kind of roll; choose one of check"),
        ({"character": "abc"}, "The character must be a whole number"),
        ({"character": "999999"}, "There is no such character in this campaign"),
        ({"before": "0"}, "The roll number must be a whole number of 1 or more"),
        ({"before": "-3"}, "The roll number must be a whole number"),
        ({"before": "²"}, "The roll number must be a whole number"),  # a digit to str.isdigit, not to int
        ({"character": "٣"}, "The character must be a whole number"),
    ],
)
def test_bad_filters_are_a_400_that_says_why(client, campaign, player, query, message) -> None:
    client.force_login(player)
    response = client.get(log_url(campaign, **query))
    assert response.status_code == 400
    assert message in text(response)


def test_pages_go_back_by_keyset_without_offset(client, campaign, player, settings) -> None:
    for i in range(30):
        record(campaign, player, total=i)
    client.force_login(player)

    with CaptureQueriesContext(connection) as queries:
        first = client.get(log_url(campaign))
    assert not any("OFFSET" in q["sql"].upper() for q in queries.captured_queries)
    words = text(first)
    assert "#30" in words
    assert "#6 " in words
    assert "#5 " not in words
    assert 'href="?before=6"' in html(first)

    with CaptureQueriesContext(connection) as queries:
        older = client.get(log_url(campaign, before=6))
    assert not any("OFFSET" in q["sql"].upper() for q in queries.captured_queries)
    words = text(older)
    assert "#5 " in words
    assert "#1 " in words
    assert "#6 " not in words
    assert "Older rolls" not in words
    assert "Newest rolls" in words


def test_the_log_page_takes_five_queries_however_long(
    client, campaign, gm, player, character, django_assert_num_queries
) -> None:
    for i in range(40):
        by, secret = (player, False) if i % 2 else (gm, i % 5 == 0)
        record(campaign, by, character_id=character.pk if i % 3 else None, secret=secret)
    rolls.reveal_roll(campaign_id=campaign.pk, seq=1, by=gm)
    client.force_login(player)
    # The session with its user, the campaign, its members, the characters for the filter, a page of rolls.
    with django_assert_num_queries(5):
        response = client.get(log_url(campaign))
    assert response.status_code == 200


# --- Verify ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("who", ["gm", "player"])
def test_verify_log_for_members(client, request, campaign, gm, who) -> None:
    for _ in range(3):
        record(campaign, gm)
    client.force_login(request.getfixturevalue(who))
    assert "All 3 rolls verified" in text(client.get(reverse("play:verify-rolls", args=[campaign.pk]), **HTMX))
    page = client.get(reverse("play:verify-rolls", args=[campaign.pk]))
    assert "<h1>Verify the roll log</h1>" in html(page)
    assert "All 3 rolls verified" in text(page)


def test_verify_log_names_the_first_broken_roll(client, campaign, gm) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE play_roll DISABLE TRIGGER play_roll_append_only")
    for _ in range(3):
        record(campaign, gm)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE play_roll SET total = 99 WHERE campaign_id = %s AND seq = 2", [campaign.pk])
    client.force_login(gm)
    response = client.get(reverse("play:verify-rolls", args=[campaign.pk]), **HTMX)
    assert "Roll #2 does not match: the chain is broken from there." in text(response)


# --- The free dice box ----------------------------------------------------------------------------


def test_the_campaign_page_has_the_dice_box(client, campaign, gm, player) -> None:
    client.force_login(player)
    page = html(client.get(reverse("campaigns:detail", args=[campaign.pk])))
    assert f'action="{free_url(campaign)}"' in page
    assert 'name="secret"' not in page
    assert 'id="free-roll-result" aria-live="polite"' in page
    client.force_login(gm)
    assert 'name="secret"' in html(client.get(reverse("campaigns:detail", args=[campaign.pk])))


@pytest.mark.parametrize("who", ["gm", "player", "other_player"])
def test_members_roll_free_dice_with_htmx(client, request, campaign, who) -> None:
    client.force_login(request.getfixturevalue(who))
    response = client.post(free_url(campaign), {"expression": "4d6kh3+1"}, **HTMX)
    assert response.status_code == 200
    roll = Roll.objects.get()
    assert roll.kind == RollKind.FREE
    assert roll.spec == {"expression": "4d6kh3+1", "typed": "4d6kh3+1", "explode": False}
    assert len(roll.dice[0]["dice"]) == 4
    assert sum(d["kept"] for d in roll.dice[0]["dice"]) == 3
    assert roll.chance_of == f"total ≥ {roll.total}"
    assert f"Total {roll.total}" in text(response)
    assert rolls.verify_chain(campaign) is None


@pytest.mark.parametrize("kept_checked", [True, False], ids=["checked", "unchecked"])
@pytest.mark.parametrize("secret", [False, True], ids=["open", "secret"])
def test_the_dice_box_answers_with_the_row_its_template_draws(client, settings, campaign, gm, secret, kept_checked):
    """The answer is drawn without its template (``roll_views._answer``) but for a row with the Reveal button:
    either way the same bytes as the template's, with the checks of ``KEPT_CHECKED`` on or off."""
    from django.template.loader import render_to_string

    from play.roll_views import ANSWER_TEMPLATE, roll_entry

    settings.KEPT_CHECKED = kept_checked
    client.force_login(gm)
    response = client.post(free_url(campaign), {"expression": "3d6", "secret": "1" if secret else ""}, **HTMX)
    assert response.status_code == 200
    roll = Roll.objects.select_related("campaign", "by", "character").get()
    assert roll.secret is secret
    context = {"campaign": roll.campaign, "is_gm": True, "entry": roll_entry(roll, gm=True)}
    expected = render_to_string(ANSWER_TEMPLATE, context, response.wsgi_request)
    page = response.content.decode()
    assert page.startswith('<ol class="roll-log"><li class="roll-entry')
    assert page.endswith("</li>\n</ol>\n")
    if secret:  # the Reveal button's form carries the page's own token: compared without it
        assert "Reveal" in page
        token = 'name="csrfmiddlewaretoken" value="'
        assert page.split(token)[0] == expected.split(token)[0]
    else:
        assert page == expected


def test_exploding_free_rolls_have_no_exact_chance(client, campaign, player) -> None:
    client.force_login(player)
    client.post(free_url(campaign), {"expression": "2d6", "explode": "1"}, **HTMX)
    roll = Roll.objects.get()
    assert roll.spec["expression"] == "2d6!"
    assert roll.chance is None
    assert roll.chance_of == "unbounded"


#: The free dice box's largest roll: as many dice as allowed, of the most sides, their exact chance the
#: longest the log keeps (a denominator of 1000**50); and an expression as long as allowed.
LARGEST = f"{expressions.MAX_DICE}d{expressions.MAX_SIDES}+{expressions.MAX_MODIFIER}"
LONGEST = "d1000+" * 16 + "1000"


@pytest.mark.parametrize(
    "expression", [LARGEST, LONGEST, "48d200", "40d250"], ids=["largest", "longest", "48d200", "40d250"]
)
def test_the_largest_free_rolls_keep_their_exact_chance(client, campaign, player, expression) -> None:
    """Their "p/q" is longer than the 200 characters the column once held: PostgreSQL refused it (a 500)."""
    assert len(expression) <= expressions.MAX_LENGTH
    client.force_login(player)
    response = client.post(free_url(campaign), {"expression": expression}, **HTMX)
    assert response.status_code == 200
    roll = Roll.objects.get()
    exact = expressions.chance_at_least(expressions.parse(expression), roll.total)
    if exact is not None:
        assert roll.chance == f"{exact.numerator}/{exact.denominator}"
        assert roll.chance_of == f"total ≥ {roll.total}"
    else:
        assert roll.chance is None
        assert roll.chance_of == "too costly to compute exactly"
    assert rolls.verify_chain(campaign) is None


@pytest.mark.postgres
@pytest.mark.parametrize("expression", [LARGEST, LONGEST, "50d200"], ids=["largest", "longest", "50d200"])
def test_postgresql_keeps_the_longest_exact_chance(client, campaign, player, expression) -> None:
    client.force_login(player)
    for _ in range(3):  # three rolls, three totals: each its own long fraction
        assert client.post(free_url(campaign), {"expression": expression}, **HTMX).status_code == 200
    assert Roll.objects.count() == 3
    if expression != LONGEST:
        assert max(len(chance) for chance in Roll.objects.values_list("chance", flat=True)) > 200
    assert rolls.verify_chain(campaign) is None


def test_a_chance_too_long_for_its_column_is_kept_rounded_and_said_so(campaign, player, monkeypatch) -> None:
    """No bounded input makes one, but should one come, the roll is kept, never refused."""
    monkeypatch.setattr(rolls, "CHANCE_LENGTH", 20)
    exact = Fraction(1, 3**60)
    roll = rolls.record_roll(
        campaign_id=campaign.pk, by=player, kind=RollKind.FREE, spec={"expression": "d6"}, dice=[],
        total=1, outcome={}, chance=exact, chance_of="total ≥ 1", label="d6",
    )  # fmt: skip
    assert Fraction(roll.chance) == exact.limit_denominator(rolls.ROUNDED_DENOMINATOR)
    assert roll.chance_of == "total ≥ 1 (rounded)"
    assert rolls.verify_chain(campaign) is None


def test_without_javascript_the_result_shows_once_on_the_campaign_page(client, campaign, player) -> None:
    client.force_login(player)
    response = client.post(free_url(campaign), {"expression": "d20+2"})
    assert response.status_code == 302
    assert response["Location"] == reverse("campaigns:detail", args=[campaign.pk]) + "#dice-box"
    roll = Roll.objects.get()
    page = text(client.get(response["Location"]))
    assert f"You rolled d20+2: {roll.total} (d20: {roll.total - 2})." in page
    assert "You rolled" not in text(client.get(response["Location"]))


def test_only_the_gm_rolls_in_secret(client, campaign, gm, player) -> None:
    client.force_login(player)
    assert client.post(free_url(campaign), {"expression": "d6", "secret": "1"}).status_code == 403
    assert not Roll.objects.exists()
    client.force_login(gm)
    client.post(free_url(campaign), {"expression": "d6", "secret": "1"}, **HTMX)
    assert Roll.objects.get().secret


@pytest.mark.parametrize(
    ("expression", "message"),
    [("", "write the dice to roll"), ("2d6+x", "at position 5"), ("51d6", "at most 50 dice"), ("d1", "from 2 to 1000")],
)
def test_bad_expressions_are_a_400_and_nothing_is_rolled(client, campaign, player, expression, message) -> None:
    client.force_login(player)
    fragment = client.post(free_url(campaign), {"expression": expression}, **HTMX)
    assert fragment.status_code == 400
    assert message in text(fragment)
    page = client.post(free_url(campaign), {"expression": expression})
    assert page.status_code == 400
    assert message in text(page)
    assert 'id="free-expression"' in html(page)
    assert not Roll.objects.exists()


def test_an_archived_campaign_refuses_free_rolls(client, campaign, player) -> None:
    campaign.archived_at = timezone.now()
    campaign.save()
    client.force_login(player)
    assert client.post(free_url(campaign), {"expression": "d6"}).status_code == 409
    assert not Roll.objects.exists()
    assert f'action="{free_url(campaign)}"' not in html(client.get(reverse("campaigns:detail", args=[campaign.pk])))


def test_free_rolls_are_post_only(client, campaign, player) -> None:
    client.force_login(player)
    assert client.get(free_url(campaign)).status_code == 405
    assert client.get(reverse("play:reveal-roll", args=[campaign.pk, 1])).status_code == 405
