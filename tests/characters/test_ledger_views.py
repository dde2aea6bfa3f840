"""The Adventure-Point pages with the whole cast: the ledger, corrections, "What should I buy?",
purchases, and the GM's end-of-adventure awards."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from characters import ledger
from characters.ledger import Award
from characters.ledger_views import CHART_ADVENTURES, PAGE_SIZE, AdventureTotal, adventure_totals, ledger_chart
from characters.models import Character, LedgerEntry, ReputationChange
from tests.characters.conftest import FIGHTING, LONGSWORD_SPEC, TELEPORT, make_character

pytestmark = pytest.mark.django_db


def level(character: Character, spec_id: int) -> int:
    character.refresh_from_db()
    return character.document.specialization(spec_id)[1].level


@pytest.fixture
def funded(campaign, gm, player) -> Character:
    brunella = make_character(campaign, player)
    ledger.award(
        campaign_id=campaign.pk, awards=[Award(brunella.pk, 12)], reason="Completing the mission",
        adventure="The Drowned Bell", by=gm,
    )  # fmt: skip
    brunella.refresh_from_db()
    return brunella


def login(client, request, who: str):
    user = request.getfixturevalue(who)
    client.force_login(user)
    return user


# --- The ledger page ------------------------------------------------------------------------------


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("player", 200), ("other_player", 200), ("outsider", 404)])
def test_the_ledger_page_is_for_the_campaigns_members(client, request, funded, who, status) -> None:
    login(client, request, who)
    response = client.get(reverse("characters:ledger", args=[funded.pk]))
    assert response.status_code == status
    if status == 200:
        assert "Completing the mission" in response.text
        assert "The Drowned Bell" in response.text
        assert 'id="ap-balance">12<' in response.text
        assert "<svg" in response.text  # the chart of points per adventure
        assert ("Reverse" in response.text) == (who == "gm")


def test_the_ledger_shows_a_running_balance_and_its_queries_stay_constant(
    client, gm, player, funded, django_assert_num_queries
) -> None:
    for i in range(2):
        ledger.buy(character_id=funded.pk, order=ledger.Order(f"specialization:{FIGHTING}", f"Trick {i}"), by=player)
    client.force_login(player)
    # the session with its user, access (character + role), the page of entries with who made them and what they
    # reverse, the page of the reputation history, the totals per adventure
    with django_assert_num_queries(5):
        response = client.get(reverse("characters:ledger", args=[funded.pk]))
    balances = [e.balance for e in LedgerEntry.objects.filter(character=funded)]
    assert balances == [4, 8, 12]
    assert response.text.index("New specialization Trick 1") < response.text.index("New specialization Trick 0")
    assert "Older entries" not in response.text
    assert "Newest entries" not in response.text


def test_the_chart_counts_a_correction_against_what_it_reverses(funded, gm) -> None:
    award = LedgerEntry.objects.get()
    ledger.award(campaign_id=funded.campaign_id, awards=[Award(funded.pk, 5)], reason="Heroic", by=gm)
    ledger.correct(character_id=funded.pk, entry_id=award.pk, reason="Wrong adventure", by=gm)
    chart = ledger_chart(adventure_totals(funded, limit=10))
    assert [(g["adventure"], g["earned"], g["spent"]) for g in chart["groups"]] == [
        ("The Drowned Bell", 0, 0),
        ("No adventure named", 5, 0),
    ]


def test_the_chart_counts_a_refund_against_what_was_spent(funded, gm, player) -> None:
    spend = ledger.buy(
        character_id=funded.pk, order=ledger.Order(f"specialization:{FIGHTING}", "Trick"), by=player,
        adventure="The Drowned Bell",
    )  # fmt: skip
    ledger.buy(character_id=funded.pk, order=ledger.Order(f"specialization:{FIGHTING}", "Feint"), by=player)
    ledger.correct(character_id=funded.pk, entry_id=spend.pk, reason="Bought by mistake", by=gm)
    totals = adventure_totals(funded, limit=10)
    assert totals == [AdventureTotal("The Drowned Bell", 12, 0), AdventureTotal("No adventure named", 0, 4)]


def test_the_tallies_the_writers_keep_are_what_the_entries_count(funded, gm, player) -> None:
    """The chart's tallies, kept entry by entry by the ledger's writers, are the sums of the entries:
    counted again from the entries alone, they come out the same."""
    spend = ledger.buy(
        character_id=funded.pk, order=ledger.Order(f"specialization:{FIGHTING}", "Trick"), by=player,
        adventure="Ashfall",
    )  # fmt: skip
    ledger.award(campaign_id=funded.campaign_id, awards=[Award(funded.pk, 7)], reason="Heroic", adventure="Ashfall",
                 by=gm)  # fmt: skip
    ledger.correct(character_id=funded.pk, entry_id=spend.pk, reason="Bought by mistake", by=gm)
    kept = adventure_totals(funded, limit=10)
    assert kept == [AdventureTotal("The Drowned Bell", 12, 0), AdventureTotal("Ashfall", 7, 0)]
    ledger.recount_adventures([funded.pk])
    assert adventure_totals(funded, limit=10) == kept


def test_the_chart_draws_the_latest_adventures_in_the_order_they_began(client, gm, player, funded) -> None:
    bulk_entries(funded, gm, CHART_ADVENTURES + 2, adventure=lambda i: f"Chapter {i}")
    client.force_login(player)
    text = client.get(reverse("characters:ledger", args=[funded.pk])).text
    chart = text[text.index("<figure") : text.index("</figure>")]
    drawn = [f"Chapter {i}" for i in range(2, CHART_ADVENTURES + 2)]
    assert [chart.index(f"<td>{name}</td>") for name in drawn] == sorted(chart.index(f"<td>{n}</td>") for n in drawn)
    assert "The Drowned Bell" not in chart
    assert "<td>Chapter 1</td>" not in chart
    assert f"the latest {CHART_ADVENTURES} adventures" in chart


def test_the_sheet_shows_the_balance_and_the_latest_entries(client, player, funded) -> None:
    client.force_login(player)
    response = client.get(reverse("characters:sheet", args=[funded.pk]))
    assert 'id="sheet-ap">12<' in response.text
    assert '<span class="num">+12</span> Completing the mission' in response.text
    assert reverse("characters:advance", args=[funded.pk]) in response.text


def bulk_entries(character: Character, by, n: int, *, adventure=lambda i: "") -> list[LedgerEntry]:
    """``n`` awards of 1 point after the character's last entry, written at once (the ledger is
    append-only, and bulk_create only appends); the character's own balance is left as it was."""
    last = LedgerEntry.objects.filter(character=character).first()
    balance = last.balance if last is not None else 0
    rows = [
        LedgerEntry(
            character=character,
            kind="award",
            currency="ap",
            amount=1,
            balance=balance + i + 1,
            reason=f"Bounty {i}",
            adventure=adventure(i),
            by=by,
        )
        for i in range(n)
    ]
    LedgerEntry.objects.bulk_create(rows)
    ledger.recount_adventures([character.pk])  # appended past the ledger's writers: its chart counts them again
    return list(LedgerEntry.objects.filter(character=character))  # newest first


def shown_entries(text: str) -> list[int]:
    return [int(m) for m in re.findall(r'<tr id="entry-(\d+)">', text)]


def test_the_ledger_shows_a_page_of_the_newest_entries_and_the_next_by_key(client, gm, player, funded) -> None:
    everything = bulk_entries(funded, gm, PAGE_SIZE + 5)  # 31 with the funding award
    url = reverse("characters:ledger", args=[funded.pk])
    client.force_login(player)
    first = client.get(url)
    assert shown_entries(first.text) == [e.pk for e in everything[:PAGE_SIZE]]
    older = f'href="?before={everything[PAGE_SIZE - 1].pk}#entries-heading" rel="next">Older entries</a>'
    assert older in first.text
    assert "Newest entries" not in first.text

    second = client.get(url, {"before": everything[PAGE_SIZE - 1].pk})
    assert second.status_code == 200
    assert shown_entries(second.text) == [e.pk for e in everything[PAGE_SIZE:]]
    assert "Completing the mission" in second.text  # the oldest entry, on the last page
    assert 'href="?#entries-heading">Newest entries</a>' in second.text
    assert "Older entries" not in second.text
    assert 'id="ap-balance">12<' in second.text  # the balance and the chart are the whole ledger's
    assert "<svg" in second.text

    past_the_end = client.get(url, {"before": everything[-1].pk})
    assert shown_entries(past_the_end.text) == []
    assert "No entries before these." in past_the_end.text
    assert "Newest entries" in past_the_end.text


def test_a_correction_links_to_what_it_reverses_on_an_older_page(client, gm, funded) -> None:
    award = LedgerEntry.objects.get()
    bulk_entries(funded, gm, PAGE_SIZE)
    correction = ledger.correct(character_id=funded.pk, entry_id=award.pk, reason="Wrong character", by=gm)
    client.force_login(gm)
    text = client.get(reverse("characters:ledger", args=[funded.pk])).text
    assert correction.pk in shown_entries(text)
    assert award.pk not in shown_entries(text)
    assert f'<a href="?before={award.pk + 1}#entry-{award.pk}">Completing the mission</a>' in text
    older = client.get(reverse("characters:ledger", args=[funded.pk]), {"before": award.pk + 1}).text
    assert shown_entries(older) == [award.pk]


def test_the_reputation_history_is_paged_by_key_apart_from_the_entries(client, gm, player, funded) -> None:
    ReputationChange.objects.bulk_create(
        ReputationChange(
            character=funded, change=1 if i % 2 else -1, reputation=0 if i % 2 else -1, reason=f"Deed {i}", by=gm
        )
        for i in range(PAGE_SIZE + 3)
    )
    changes = list(ReputationChange.objects.filter(character=funded))
    url = reverse("characters:ledger", args=[funded.pk])
    client.force_login(player)
    first = client.get(url, {"before": LedgerEntry.objects.get().pk + 1}).text
    deeds = re.findall(r", (Deed \d+) <span", first)
    assert deeds == [c.reason for c in changes[:PAGE_SIZE]]
    last_shown = changes[PAGE_SIZE - 1].pk
    before = LedgerEntry.objects.get().pk + 1
    assert f'href="?before={before}&amp;reputation_before={last_shown}#reputation-heading">Older changes' in first
    second = client.get(url, {"reputation_before": last_shown}).text
    assert re.findall(r", (Deed \d+) <span", second) == [c.reason for c in changes[PAGE_SIZE:]]
    assert 'href="?#reputation-heading">Newest changes</a>' in second
    assert "Completing the mission" in second  # the entries are on their newest page still


@pytest.mark.parametrize("key", ["before", "reputation_before"])
@pytest.mark.parametrize("value", ["0", "-1", "abc", "²", "٣", "1" * 13, "1.5", " 1"])
def test_a_bad_page_key_is_a_400_that_says_why(client, player, funded, key, value) -> None:
    client.force_login(player)
    response = client.get(reverse("characters:ledger", args=[funded.pk]), {key: value})
    assert response.status_code == 400
    assert "must be given as a whole number of 1 or more" in response.text
    assert "Brunella" in response.text  # the refusal page names the character and links back


def test_an_outsider_gets_404_whatever_the_page_key(client, outsider, funded) -> None:
    client.force_login(outsider)
    assert client.get(reverse("characters:ledger", args=[funded.pk]), {"before": "abc"}).status_code == 404


def test_ten_thousand_entries_cost_what_forty_do(client, gm, player, funded, django_assert_num_queries) -> None:
    bulk_entries(funded, gm, 10_000, adventure=lambda i: f"Chapter {i // 100}")
    url = reverse("characters:ledger", args=[funded.pk])
    client.force_login(player)
    # the session with its user, access, a page of entries, a page of reputation changes, the totals per adventure
    with django_assert_num_queries(5):
        response = client.get(url)
    assert len(shown_entries(response.text)) == PAGE_SIZE
    assert response.text.count('<rect class="bar') == 2 * CHART_ADVENTURES
    deep = LedgerEntry.objects.filter(character=funded).order_by("pk")[10].pk
    with django_assert_num_queries(5):
        response = client.get(url, {"before": deep})
    assert shown_entries(response.text) == [e.pk for e in LedgerEntry.objects.filter(character=funded, pk__lt=deep)]
    assert len(shown_entries(response.text)) == 10


# --- Corrections ----------------------------------------------------------------------------------


def test_the_gm_reverses_an_entry_after_confirming(client, gm, funded) -> None:
    entry = LedgerEntry.objects.get()
    url = reverse("characters:correct-entry", args=[funded.pk, entry.pk])
    client.force_login(gm)
    page = client.get(url)
    assert page.status_code == 200
    assert "-12 AP" in page.text
    response = client.post(url, {"reason": "Wrong character"})
    assert response.status_code == 302
    funded.refresh_from_db()
    assert ledger.balance(funded) == 0
    assert LedgerEntry.objects.filter(kind="correction", reverses=entry).exists()


@pytest.mark.parametrize(("who", "status"), [("player", 403), ("other_player", 403), ("outsider", 404)])
def test_only_the_gm_reverses(client, request, funded, who, status) -> None:
    entry = LedgerEntry.objects.get()
    login(client, request, who)
    url = reverse("characters:correct-entry", args=[funded.pk, entry.pk])
    assert client.get(url).status_code == status
    assert client.post(url, {"reason": "Mine"}).status_code == status
    assert LedgerEntry.objects.count() == 1


def test_a_correction_needs_a_reason_and_a_real_entry(client, gm, funded) -> None:
    entry = LedgerEntry.objects.get()
    client.force_login(gm)
    response = client.post(reverse("characters:correct-entry", args=[funded.pk, entry.pk]), {"reason": ""})
    assert response.status_code == 400
    assert "This field is required" in response.text
    assert client.get(reverse("characters:correct-entry", args=[funded.pk, entry.pk + 99])).status_code == 404
    assert LedgerEntry.objects.count() == 1


def test_reversing_twice_is_refused_with_a_message(client, gm, funded) -> None:
    entry = LedgerEntry.objects.get()
    client.force_login(gm)
    url = reverse("characters:correct-entry", args=[funded.pk, entry.pk])
    client.post(url, {"reason": "Once"})
    response = client.post(url, {"reason": "Twice"})
    assert response.status_code == 409
    assert "already been reversed" in response.text
    assert LedgerEntry.objects.count() == 2


# --- What should I buy? and buying ----------------------------------------------------------------


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("player", 200), ("other_player", 403), ("outsider", 404)])
def test_what_should_i_buy_is_for_the_owner_and_the_gm(client, request, funded, who, status) -> None:
    login(client, request, who)
    response = client.get(reverse("characters:advance", args=[funded.pk]), {"difficulty": "challenging"})
    assert response.status_code == status
    if status == 200:
        text = response.text
        # Spellcasting d8, Teleport 2 → 3: d12 → d12+d4 with Intellect d6 against Challenging d6.
        assert "Teleport (Spellcasting) 2 → 3" in text
        assert "Spellcasting (Teleport) at Challenging" in text
        assert "Will d6 → d8: 24 AP" in text  # not affordable with 12: saved up for
        # Each offer's form names it by its key, with what the buyer sees now.
        assert f'name="offer" value="level:{TELEPORT}"><input type="hidden" name="before" value="2">' in text
        assert f'name="offer" value="specialization:{FIGHTING}"' in text
        assert "<!doctype html>" in text


def test_what_should_i_buy_notes_what_the_odds_do_not_show(client, gm, player, funded) -> None:
    ledger.award(campaign_id=funded.campaign_id, awards=[Award(funded.pk, 30)], reason="Treasure", by=gm)
    client.force_login(player)
    text = client.get(reverse("characters:advance", args=[funded.pk])).text
    # Brunella links no skill to Charm or Pulse: there is no check to compare, and the page says why.
    assert "No skill is linked to this ability; it still adds to every roll made with it.</p>" in text
    assert "it still adds to every roll made with it, and brings a new row of hit points.</p>" in text
    assert '<label>Name <input name="name" required maxlength="60" autocomplete="off"></label>' in text
    assert text.count('name="name"') == 5  # a new specialization under each of the five skills, and nothing else


def test_what_should_i_buy_with_nothing_to_spend_names_the_cheapest(client, campaign, player) -> None:
    brunella = make_character(campaign, player)
    client.force_login(player)
    text = client.get(reverse("characters:advance", args=[brunella.pk])).text
    assert "Nothing yet: Brunella needs at least 4 Adventure Points for the cheapest purchase," in text
    assert "Adventure Points history</a>" in text


def test_the_comparison_swaps_in_with_htmx(client, player, funded) -> None:
    client.force_login(player)
    response = client.get(
        reverse("characters:advance", args=[funded.pk]), {"difficulty": "easy"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="offers"')
    assert "at Easy" in response.text


def test_a_bad_difficulty_falls_back_to_moderate(client, player, funded) -> None:
    client.force_login(player)
    response = client.get(reverse("characters:advance", args=[funded.pk]), {"difficulty": "impossible"})
    assert response.status_code == 200
    assert "at Moderate" in response.text


def test_the_player_buys_a_level(client, player, funded) -> None:
    client.force_login(player)
    data = {"offer": f"level:{TELEPORT}", "before": "2"}
    response = client.post(reverse("characters:buy", args=[funded.pk]), data, follow=True)
    assert response.redirect_chain[-1][0] == reverse("characters:advance", args=[funded.pk])
    assert "Bought: Teleport (Spellcasting) 2 → 3 for 4 AP. 8 AP left." in response.text
    assert level(funded, TELEPORT) == 3


def test_the_gm_buys_a_new_specialization_on_the_players_behalf(client, gm, funded) -> None:
    client.force_login(gm)
    data = {"offer": f"specialization:{FIGHTING}", "name": "Shield wall", "before": "0"}
    assert client.post(reverse("characters:buy", args=[funded.pk]), data).status_code == 302
    assert LedgerEntry.objects.filter(kind="spend", by=gm).get().amount == -4
    funded.refresh_from_db()
    assert [p.name for p in funded.document.skill(FIGHTING).specializations] == ["Longsword", "Shield wall"]


@pytest.mark.parametrize(
    ("data", "status", "message"),
    [
        ({"offer": "ability:will", "before": "2"}, 409, "has 12 Adventure Points; this needs 24"),
        ({"offer": f"level:{TELEPORT}", "before": "1"}, 409, "changed since you looked"),
        ({"offer": f"specialization:{FIGHTING}", "name": ""}, 400, "needs a name"),
        ({"offer": f"specialization:{FIGHTING}", "name": "Longsword"}, 400, "already has a specialization"),
        ({"offer": "teleport"}, 400, "Choose what to buy"),
        ({"offer": "level:999"}, 400, "The sheet has no such specialization"),
        ({"offer": f"level:{LONGSWORD_SPEC}", "name": "Blade"}, 400, "This purchase takes no name"),
        ({}, 400, "What to buy: This field is required."),
        ({"offer": f"level:{TELEPORT}", "before": "x"}, 400, "What you saw: Enter a whole number"),
        ({"offer": f"level:{TELEPORT}", "before": "10001"}, 400, "What you saw: Ensure this value is less than"),
        ({"offer": f"level:{TELEPORT}", "before": "6"}, 409, "changed since you looked"),
    ],
)
def test_a_purchase_that_cannot_be_made_says_why_and_changes_nothing(client, player, funded, data, status, message):
    client.force_login(player)
    response = client.post(reverse("characters:buy", args=[funded.pk]), data)
    assert response.status_code == status
    assert message in response.text
    funded.refresh_from_db()
    assert ledger.balance(funded) == 12
    assert LedgerEntry.objects.count() == 1
    assert level(funded, TELEPORT) == 2


def test_a_dying_character_is_not_offered_pulse_and_buying_it_says_why(client, campaign, gm, player) -> None:
    casimir = make_character(campaign, player, name="Casimir", hit_points=-2)
    ledger.award(campaign_id=campaign.pk, awards=[Award(casimir.pk, 40)], reason="Completing the mission", by=gm)
    client.force_login(player)
    page = client.get(reverse("characters:advance", args=[casimir.pk]))
    assert page.status_code == 200
    assert "Will d6 → d8" in page.text
    assert "Pulse d8 → d10" not in page.text
    response = client.post(reverse("characters:buy", args=[casimir.pk]), {"offer": "ability:pulse", "before": "3"})
    assert response.status_code == 409
    assert "The character is dying: Adventure Points buy training, not healing" in response.text
    casimir.refresh_from_db()
    assert (ledger.balance(casimir), casimir.document.abilities.pulse, casimir.document.hit_points) == (40, "d8", -2)


@pytest.mark.parametrize(("who", "status"), [("other_player", 403), ("outsider", 404)])
def test_others_cannot_buy(client, request, funded, who, status) -> None:
    login(client, request, who)
    data = {"offer": f"level:{TELEPORT}"}
    assert client.post(reverse("characters:buy", args=[funded.pk]), data).status_code == status
    assert LedgerEntry.objects.count() == 1


def test_buying_is_a_post(client, player, funded) -> None:
    client.force_login(player)
    assert client.get(reverse("characters:buy", args=[funded.pk])).status_code == 405


# --- Awards ---------------------------------------------------------------------------------------


@pytest.fixture
def party(campaign, player, other_player) -> list[Character]:
    return [make_character(campaign, player), make_character(campaign, other_player, name="Tam", reputation=0)]


def test_the_gm_awards_the_party_in_one_form(client, gm, campaign, party) -> None:
    brunella, tam = party
    client.force_login(gm)
    url = reverse("characters:award", args=[campaign.pk])
    page = client.get(url)
    assert page.status_code == 200
    assert "Saving another character&#x27;s life" in page.text
    assert "Characters typically earn 10–20 Adventure Points per adventure." in page.text
    data = {
        "adventure": "The Drowned Bell",
        "amount": "12",
        "reason": "Completing the mission",
        f"include-{brunella.pk}": "on",
        f"include-{tam.pk}": "on",
        f"amount-{tam.pk}": "15",
        f"reason-{tam.pk}": "A heroic act",
        f"reputation-{tam.pk}": "2",
        f"reputation-{brunella.pk}": "0",
    }
    response = client.post(url, data, follow=True)
    assert response.redirect_chain[-1][0] == reverse("campaigns:detail", args=[campaign.pk])
    assert "Awarded: Brunella 12 AP, Tam 15 AP, Tam reputation +2." in response.text
    assert list(LedgerEntry.objects.order_by("pk").values_list("character__name", "amount", "reason", "adventure")) == [
        ("Brunella", 12, "Completing the mission", "The Drowned Bell"),
        ("Tam", 15, "A heroic act", "The Drowned Bell"),
    ]
    assert ReputationChange.objects.get().change == 2


def test_a_character_left_out_gets_nothing(client, gm, campaign, party) -> None:
    brunella, _ = party
    client.force_login(gm)
    data = {"amount": "10", "reason": "Mission", f"include-{brunella.pk}": "on"}
    assert client.post(reverse("characters:award", args=[campaign.pk]), data).status_code == 302
    assert list(LedgerEntry.objects.values_list("character__name", flat=True)) == ["Brunella"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"amount": "1001"}, "less than or equal to 1000"),
        ({"amount": "-3"}, "greater than or equal to 0"),
        ({"amount": "ten"}, "Enter a whole number"),
        ({"reason": ""}, "Give a reason for the award"),
        ({"amount": "0"}, "Give at least one character some points"),
        ({"reputation-TAM": "6"}, "would take it past the limits"),
    ],
)
def test_a_bad_award_says_why_and_changes_nothing(client, gm, campaign, party, changes, message) -> None:
    brunella, tam = party
    client.force_login(gm)
    data = {"amount": "12", "reason": "Mission", f"include-{brunella.pk}": "on", f"include-{tam.pk}": "on"}
    data.update({key.replace("TAM", str(tam.pk)): value for key, value in changes.items()})
    response = client.post(reverse("characters:award", args=[campaign.pk]), data)
    assert response.status_code == 400
    assert message in response.text.replace("&#x27;", "'")
    assert not LedgerEntry.objects.exists()
    assert not ReputationChange.objects.exists()


@pytest.mark.parametrize(("who", "status"), [("player", 403), ("other_player", 403), ("outsider", 404)])
def test_only_the_gm_awards(client, request, campaign, party, who, status) -> None:
    login(client, request, who)
    url = reverse("characters:award", args=[campaign.pk])
    assert client.get(url).status_code == status
    data = {"amount": "12", "reason": "Me", f"include-{party[0].pk}": "on"}
    assert client.post(url, data).status_code == status
    assert not LedgerEntry.objects.exists()


def test_the_award_page_with_no_party_says_so(client, gm, campaign) -> None:
    client.force_login(gm)
    response = client.get(reverse("characters:award", args=[campaign.pk]))
    assert "No characters in play yet" in response.text


def test_the_campaign_page_links_the_gm_to_awards(client, gm, player, campaign) -> None:
    url = reverse("characters:award", args=[campaign.pk])
    client.force_login(gm)
    assert url in client.get(reverse("campaigns:detail", args=[campaign.pk])).text
    client.force_login(player)
    assert url not in client.get(reverse("campaigns:detail", args=[campaign.pk])).text


@pytest.mark.parametrize("headers", [{}, {"HTTP_HX_REQUEST": "true"}], ids=["plain", "htmx"])
def test_a_bad_award_shows_every_mistake_at_once(client, gm, campaign, party, headers) -> None:
    brunella, tam = party
    client.force_login(gm)
    data = {
        "adventure": "x" * (ledger.MAX_ADVENTURE + 1),
        "amount": "ten",
        "reason": "",
        f"include-{brunella.pk}": "on",
        f"reputation-{brunella.pk}": "11",
        f"include-{tam.pk}": "on",
        f"amount-{tam.pk}": "15",
        f"reputation-{tam.pk}": "6",
    }
    response = client.post(reverse("characters:award", args=[campaign.pk]), data, **headers)
    assert response.status_code == 400
    page = response.text.replace("&#x27;", "'")
    assert "Enter a whole number." in page  # the party's points
    assert f"at most {ledger.MAX_ADVENTURE} characters" in page  # the adventure
    assert "less than or equal to 10" in page  # Brunella's reputation change
    assert "Give a reason for the award." in page  # Tam's 15 points need one
    assert "Tam's reputation is +0; a change of +6 would take it past the limits" in page
    # Brunella's points are the party's, which could not be read: "at least one" waits for them.
    assert "Give at least one character" not in page
    assert 'value="ten"' in page
    assert 'value="15"' in page
    assert 'value="6"' in page
    assert not LedgerEntry.objects.exists()
    assert not ReputationChange.objects.exists()
