"""An award writes a whole party's entries, balances and adventure tallies in one statement each: its
queries do not grow with the party, and what it writes is what the same awards made one at a time
write, to the running balance, the tally and the version; racing awards and purchases on PostgreSQL
queue on their row locks and keep the books."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters import ledger, write
from characters.ledger import Award, Order
from characters.models import AdventureTally, Balance, Character, LedgerEntry, ReputationChange, SheetChange
from play import live
from rules.systems.base import Problem, SheetInvalid
from tests.characters.conftest import FIGHTING, HEALING, make_character
from tests.characters.test_ledger import assert_balanced

pytestmark = pytest.mark.django_db

#: An award's queries whatever the size of the party: see the comments where it is asserted.
AWARD_QUERIES = 16
#: What the open pages' announcements read once the award commits, whatever the size of the party: every
#: awarded character's party card (with its balances), its sheet's version and whether it fights in an
#: encounter, in one read of them all.
ANNOUNCED_QUERIES = 1


def party(campaign, player, size: int) -> list[Character]:
    return [make_character(campaign, player, name=f"Hero {i}") for i in range(size)]


def posted(characters: list[Character], turn: int) -> dict[str, str]:
    """What the bench's award posts: one point each, no reputation change."""
    body = {"amount": "1", "reason": f"Turn {turn}", "currency": "ap"}
    for c in characters:
        body |= {f"include-{c.pk}": "on", f"reputation-{c.pk}": "0"}
    return body


def tallies(characters: list[Character]) -> list[tuple[int, str, str, int, int]]:
    rows = AdventureTally.objects.filter(character__in=characters)
    return sorted(rows.values_list("character_id", "currency", "adventure", "earned", "spent"))


@pytest.mark.parametrize("size", [2, 8])
def test_an_awards_queries_do_not_grow_with_the_party(client, gm, player, campaign, size, django_assert_num_queries):
    heroes = party(campaign, player, size)
    client.force_login(gm)
    url = reverse("characters:award", args=[campaign.pk])
    assert client.post(url, posted(heroes, 0)).status_code == 302  # their balances and tallies exist
    # The session with its user, the campaign, its members (the GM's role), the form's characters with their
    # owners and balances, the others in play; then, in a savepoint: the campaign locked, the GM's role,
    # the characters locked, their balances locked, the entries, the balances, the tallies, the
    # characters' new versions, the campaign's last activity.
    with django_assert_num_queries(AWARD_QUERIES):
        assert client.post(url, posted(heroes, 1)).status_code == 302
    assert list(Balance.objects.filter(character__in=heroes).values_list("amount", flat=True)) == [2] * size
    assert tallies(heroes) == [(c.pk, "ap", "", 2, 0) for c in heroes]


@pytest.mark.parametrize("size", [2, 8])
def test_a_first_award_costs_the_same(gm, player, campaign, size, django_assert_num_queries) -> None:
    """The party's first points (no balance, no tally yet) are written by the same statements."""
    heroes = party(campaign, player, size)
    # The campaign locked, the GM's role, the characters and their balances locked, the entries, the
    # balances, the tallies, the versions, the campaign's last activity; and the savepoint around them.
    with django_assert_num_queries(AWARD_QUERIES - 5):
        ledger.award(campaign_id=campaign.pk, awards=[Award(c.pk, 5) for c in heroes], reason="Mission", by=gm)
    assert list(Balance.objects.filter(character__in=heroes).values_list("amount", flat=True)) == [5] * size
    for hero in heroes:
        assert_balanced(hero)


@pytest.mark.parametrize("size", [2, 8])
def test_each_awarded_character_is_announced_once_after_commit(
    gm, player, campaign, size, django_assert_num_queries, django_capture_on_commit_callbacks, monkeypatch
) -> None:
    """The open pages hear of every awarded character once the award commits, each as a fresh read of
    it shows it; what they read to show them is ``ANNOUNCED_QUERIES`` for the whole party (the award
    itself stays at its constant count)."""
    heroes = party(campaign, player, size)
    heard: list[list[int]] = []
    sent: list[dict] = []

    def listener(sender, character_ids, **kwargs) -> None:
        heard.append(list(character_ids))

    monkeypatch.setattr(live, "_send_each", lambda campaign_id, sends: sent.extend(event for _, event in sends))
    write.characters_changed.connect(listener)
    try:
        with (
            django_assert_num_queries(AWARD_QUERIES - 5 + ANNOUNCED_QUERIES),
            django_capture_on_commit_callbacks(execute=True),
        ):
            ledger.award(campaign_id=campaign.pk, awards=[Award(c.pk, 3) for c in heroes], reason="Mission", by=gm)
    finally:
        write.characters_changed.disconnect(listener)
    (announced,) = heard  # one announcement for the party
    assert sorted(announced) == sorted(c.pk for c in heroes)
    assert list(Character.objects.filter(pk__in=announced).values_list("version", flat=True)) == [2] * size
    expected = []
    for hero in heroes:
        fresh = Character.objects.select_related("owner", "campaign").with_balances().get(pk=hero.pk)
        card = live.party_row_html(live.party_row(fresh, fresh.campaign.settings))
        expected += [{"type": "party.changed", "id": f"party-{hero.pk}", "html": card},
                     {"type": "sheet.changed", "version": fresh.version}]  # fmt: skip
    assert sorted(map(repr, sent)) == sorted(map(repr, expected))


def test_a_character_the_award_changes_twice_is_announced_once(
    gm, player, campaign, django_capture_on_commit_callbacks
) -> None:
    """Points, a reputation change and the adventure's end for the same character: one announcement
    of each character the award changed, once it commits."""
    heroes = party(campaign, player, 2)
    heard: list[list[int]] = []
    single: list[int] = []

    def listener(sender, character_ids, **kwargs) -> None:
        heard.append(list(character_ids))

    def one(sender, character_id, **kwargs) -> None:
        single.append(character_id)

    write.characters_changed.connect(listener)
    write.character_changed.connect(one)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            ledger.award(campaign_id=campaign.pk, awards=[Award(heroes[0].pk, 3, reputation=1), Award(heroes[1].pk, 2)],
                         reason="Mission", ends_adventure=True, by=gm)  # fmt: skip
    finally:
        write.characters_changed.disconnect(listener)
        write.character_changed.disconnect(one)
    assert heard == [[heroes[0].pk, heroes[1].pk]] or heard == [[heroes[1].pk, heroes[0].pk]]
    assert single == []


def written(characters: list[Character]) -> list[tuple]:
    """What the ledger holds of ``characters``, by their place in the list: entries, balances,
    tallies, reputation changes and versions, without ids or times."""
    place = {c.pk: i for i, c in enumerate(characters)}
    entries = LedgerEntry.objects.filter(character__in=characters).order_by("pk")
    changes = ReputationChange.objects.filter(character__in=characters).order_by("pk")
    versions = Character.objects.filter(pk__in=place).order_by("pk")
    sheets = SheetChange.objects.filter(character__in=characters).order_by("pk")
    return [
        [(place[e.character_id], e.kind, e.currency, e.amount, e.balance, e.reason, e.adventure) for e in entries],
        sorted((place[b.character_id], b.currency, b.amount) for b in Balance.objects.filter(character__in=characters)),
        sorted((place[t[0]], *t[1:]) for t in tallies(characters)),
        [(place[c.character_id], c.change, c.reputation, c.reason, c.adventure) for c in changes],
        sorted((place[c.pk], c.version, c.sheet["reputation"]) for c in versions),
        [(place[c.character_id], c.version, c.what, c.sections) for c in sheets],
    ]


def test_a_party_award_writes_what_awards_one_at_a_time_write(campaign, gm, player, other_player) -> None:
    """Two parties alike (one with points and a tally in the adventure already, one with points from
    another adventure, one with nothing yet): one is awarded at once, the other one character at a
    time, in the same order; the ledgers, tallies, reputations and versions come out the same."""

    def alike() -> list[Character]:
        made = [
            make_character(campaign, player, name="Zora"),
            make_character(campaign, other_player, name="Abel", reputation=0),
            make_character(campaign, player, name="Mira"),
            make_character(campaign, player, name="Tam"),
        ]
        ledger.award(campaign_id=campaign.pk, awards=[Award(made[0].pk, 7)], reason="Before", adventure="Bell", by=gm)
        ledger.award(campaign_id=campaign.pk, awards=[Award(made[1].pk, 9)], reason="Before", adventure="Old", by=gm)
        ledger.buy(character_id=made[1].pk, order=Order(f"specialization:{HEALING}", "Salve"), by=other_player)
        return made

    def awards(characters: list[Character]) -> list[Award]:
        zora, abel, mira, tam = characters  # not in the order of their ids
        return [
            Award(tam.pk, 12, reputation=-1),
            Award(zora.pk, 12),
            Award(abel.pk, 20, reason="A heroic act"),
            Award(mira.pk, 0, reputation=2),
        ]

    at_once, one_by_one = alike(), alike()
    ledger.award(campaign_id=campaign.pk, awards=awards(at_once), reason="Mission", adventure="Bell", by=gm)
    for single in awards(one_by_one):
        ledger.award(campaign_id=campaign.pk, awards=[single], reason="Mission", adventure="Bell", by=gm)
    assert written(at_once) == written(one_by_one)
    assert written(at_once)[2] == [
        (0, "ap", "Bell", 19, 0),
        (1, "ap", "", 0, 4),
        (1, "ap", "Bell", 20, 0),
        (1, "ap", "Old", 9, 0),
        (3, "ap", "Bell", 12, 0),
    ]
    for hero in at_once:
        assert_balanced(hero)


def test_the_tallies_are_what_a_recount_of_the_entries_gives(campaign, gm, player, other_player) -> None:
    """Party awards in two adventures, purchases and corrections of both: the tallies kept as each was
    written are those counted again from the entries."""
    heroes = [make_character(campaign, player, name="Zora"), make_character(campaign, other_player, name="Abel")]
    everyone = [Award(c.pk, 10) for c in heroes]
    first = ledger.award(campaign_id=campaign.pk, awards=everyone, reason="Mission", adventure="Bell", by=gm)
    ledger.award(campaign_id=campaign.pk, awards=everyone, reason="Mission", adventure="Crypt", by=gm)
    ledger.award(campaign_id=campaign.pk, awards=[Award(heroes[0].pk, 3)], reason="Aside", by=gm)
    bought = ledger.buy(character_id=heroes[1].pk, order=Order(f"specialization:{FIGHTING}", "Feint"), by=other_player)
    ledger.correct(character_id=heroes[0].pk, entry_id=first.entries[0].pk, reason="Wrong adventure", by=gm)
    ledger.correct(character_id=heroes[1].pk, entry_id=bought.pk, reason="Not allowed", by=gm)
    kept = sorted(
        AdventureTally.objects.values_list("character_id", "currency", "adventure", "began", "earned", "spent")
    )
    ledger.recount_adventures([c.pk for c in heroes])
    counted = sorted(
        AdventureTally.objects.values_list("character_id", "currency", "adventure", "began", "earned", "spent")
    )
    assert kept == counted
    assert [row[2:] for row in kept if row[0] == heroes[0].pk] == [
        ("", first.entries[0].pk + 4, 3, 0),
        ("Bell", first.entries[0].pk, 0, 0),
        ("Crypt", first.entries[0].pk + 2, 10, 0),
    ]
    for hero in heroes:
        assert_balanced(hero)


def test_tallies_of_one_adventure_added_at_once_are_summed(campaign, player) -> None:
    """One statement may change a row only once: two tallies of the same adventure given together are
    added as one, begun by the earlier entry."""
    hero = make_character(campaign, player)
    same = {"character": hero, "campaign": campaign, "currency": "ap", "adventure": "Bell"}
    AdventureTally.objects.add([AdventureTally(**same, began=9, earned=5), AdventureTally(**same, began=4, spent=2)])
    AdventureTally.objects.add([AdventureTally(**same, began=12, earned=1), AdventureTally(**same, began=15, spent=1)])
    AdventureTally.objects.add([])
    assert list(AdventureTally.objects.values_list("adventure", "began", "earned", "spent")) == [("Bell", 4, 6, 3)]


def test_an_award_that_cannot_be_written_writes_nothing(campaign, gm, player, monkeypatch) -> None:
    """A party's award is one transaction: a sheet refused for the last character's reputation, after
    every entry was written, leaves no entry, balance, tally, reputation change or version for anyone."""
    heroes = party(campaign, player, 3)
    saved = write.write

    def refuse_the_last(character, sheet, **kwargs):
        if character.pk == heroes[-1].pk:
            raise SheetInvalid([Problem(field="reputation", message="is not allowed here")])
        return saved(character, sheet, **kwargs)

    monkeypatch.setattr(write, "write", refuse_the_last)
    with pytest.raises(ledger.Refused, match="Is not allowed here"):
        ledger.award(
            campaign_id=campaign.pk, awards=[Award(c.pk, 4, reputation=1) for c in heroes], reason="Mission", by=gm
        )
    assert not LedgerEntry.objects.exists()
    assert not Balance.objects.exists()
    assert not AdventureTally.objects.exists()
    assert not ReputationChange.objects.exists()
    assert set(Character.objects.values_list("version", flat=True)) == {1}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_party_awards_racing_with_each_other_and_with_spends(campaign, gm, player, race) -> None:
    """Awards to overlapping parties, listed in any order, race with purchases by each of them: the
    locks are taken in the order of the characters' ids, so nothing deadlocks; every award is
    written whole, each purchase fits or is refused, and the books and tallies add up."""
    heroes = party(campaign, player, 4)
    ids = [c.pk for c in heroes]
    orders = [ids, ids[::-1], ids[1:] + ids[:1], ids[2:] + ids[:2]]

    def award(order: list[int]):
        def job() -> str:
            ledger.award(campaign_id=campaign.pk, awards=[Award(pk, 4) for pk in order], reason="Mission", by=gm)
            return "awarded"

        return job

    def buy(pk: int, i: int):
        def job() -> str:
            ledger.buy(character_id=pk, order=Order(f"specialization:{HEALING}", f"Salve {i}"), by=player)
            return "bought"

        return job

    outcomes = race([award(orders[i % 4]) for i in range(8)] + [buy(ids[i % 4], i) for i in range(16)])
    assert outcomes.count("awarded") == 8
    assert outcomes.count("bought") + outcomes.count("NotEnoughPoints") == 16
    for hero in heroes:
        assert_balanced(hero)
        hero.refresh_from_db()
        spent = LedgerEntry.objects.filter(character=hero, kind="spend").count()
        assert ledger.balance(hero) == 32 - 4 * spent
        assert hero.version == 1 + 8 + spent  # a new version for each award and each purchase
    kept = sorted(AdventureTally.objects.values_list("character_id", "adventure", "began", "earned", "spent"))
    ledger.recount_adventures(ids)
    assert kept == sorted(AdventureTally.objects.values_list("character_id", "adventure", "began", "earned", "spent"))
    assert LedgerEntry.objects.filter(kind="award").count() == 32
