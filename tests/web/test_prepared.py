"""Querysets compiled once and run with other ids (web/prepared.py) give what the queryset itself gives:
the same rows in the same order, their related objects, annotations and prefetches, for any id."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.models import signals
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from campaigns.models import Campaign, Membership, moved_statement
from characters.models import Character, SheetChange
from tests.campaigns.helpers import make_character
from web.prepared import Prepared, fetch_together, insert, save_fields, write_together

pytestmark = pytest.mark.django_db


def characters_of(campaign: int):
    return Character.objects.filter(campaign_id=campaign).select_related("owner").with_balances().order_by("name", "pk")


def test_a_prepared_query_gives_the_querysets_rows_for_each_id(campaign, gm, player, other_player) -> None:
    other = Campaign.objects.create(name="Another table", system=campaign.system, options=campaign.options)
    Membership.objects.create(campaign=other, user=gm, role=Membership.Role.GM)
    for name in ("Casimir", "Brunella"):
        make_character(campaign, player, name)
    make_character(other, other_player, "Dorota")
    prepared = Prepared(Character, characters_of)

    for table in (campaign, other, campaign):
        got = prepared(campaign=table.pk)
        expected = list(characters_of(table.pk))
        assert [(c.pk, c.name, c.sheet, c.owner.username) for c in got] == [
            (c.pk, c.name, c.sheet, c.owner.username) for c in expected
        ]
        assert [c.__dict__["balances_held"] for c in got] == [c.__dict__["balances_held"] for c in expected]
    assert prepared(campaign=-1) == []


def test_a_prepared_query_runs_in_one_query_and_prefetches_as_its_queryset_does(campaign, gm, player) -> None:
    make_character(campaign, player, "Brunella")
    prepared = Prepared(Campaign, lambda campaign: Campaign.objects.filter(pk=campaign).prefetch_related("characters"))
    prepared(campaign=campaign.pk)  # compiled now
    with CaptureQueriesContext(connection) as captured:
        (got,) = prepared(campaign=campaign.pk)
        assert [c.name for c in got.characters.all()] == ["Brunella"]
    assert len(captured) == 2  # the campaign, and its characters prefetched


def test_a_query_that_does_not_use_its_argument_is_refused(campaign) -> None:
    prepared = Prepared(Campaign, lambda campaign: Campaign.objects.all())
    with pytest.raises(ValueError, match="does not use campaign"):
        prepared(campaign=campaign.pk)


def test_fetched_rows_give_their_columns_as_instances_hold_them_and_make_an_instance_only_when_asked(
    campaign, player
) -> None:
    for name in ("Casimir", "Brunella"):
        make_character(campaign, player, name)
    prepared = Prepared(Character, characters_of)
    fields = (Character._meta.pk, Character._meta.get_field("created_at"), player._meta.get_field("username"))
    prepared(campaign=campaign.pk)  # compiled now
    with CaptureQueriesContext(connection) as captured:
        fetched = prepared.fetch(campaign=campaign.pk)
        columns = fetched.columns(*fields)
        made = [fetched.instance(index) for index in range(len(fetched))]
    assert len(captured) == 1
    expected = list(characters_of(campaign.pk))
    assert columns == [(c.pk, c.created_at, c.owner.username) for c in expected]  # a datetime, whatever the database
    assert [(c.pk, c.name, c.sheet, c.owner.username) for c in made] == [
        (c.pk, c.name, c.sheet, c.owner.username) for c in expected
    ]
    assert fetched.instance(0) is made[0]  # made once
    with pytest.raises(ValueError, match=r"does not read Campaign\.name"):
        fetched.columns(Campaign._meta.get_field("name"))


def test_fetched_rows_give_their_annotations_as_instances_hold_them(campaign, player) -> None:
    """An annotation by its name, through its output field's converters (a JSON object of balances)."""
    for name, points in (("Casimir", 0), ("Brunella", 4)):
        make_character(campaign, player, name, ap_balance=points)
    fetched = Prepared(Character, characters_of).fetch(campaign=campaign.pk)
    columns = fetched.columns(Character._meta.pk, "balances_held")
    assert columns == [(c.pk, c.balances_held) for c in characters_of(campaign.pk)]
    assert any(held for _, held in columns)
    with pytest.raises(ValueError, match="does not read the annotation nothing"):
        fetched.columns("nothing")


def test_a_query_with_prefetches_cannot_be_fetched_row_by_row(campaign) -> None:
    prepared = Prepared(Campaign, lambda campaign: Campaign.objects.filter(pk=campaign).prefetch_related("characters"))
    with pytest.raises(ValueError, match="prefetches"):
        prepared.fetch(campaign=campaign.pk)


def test_fields_saved_directly_are_written_as_the_orm_writes_them(campaign, player, monkeypatch) -> None:
    """``save_fields`` writes what ``save(update_fields=…)`` writes (an ``auto_now`` field moved to now, a
    document as JSON), in one UPDATE, and a row that is gone is Django's error, as with ``save``."""
    hero = make_character(campaign, player, "Brunella")
    before = hero.updated_at
    hero.name, hero.sheet, hero.version = "Brunella the Bold", {**hero.sheet, "notes": "Ünïcode ✓"}, hero.version + 1
    with CaptureQueriesContext(connection) as captured:
        save_fields(hero, ["name", "sheet", "version", "updated_at"])
    assert len(captured) == 1
    assert captured[0]["sql"].startswith("UPDATE")
    read = Character.objects.get(pk=hero.pk)
    assert (read.name, read.sheet, read.version) == ("Brunella the Bold", hero.sheet, hero.version)
    assert read.updated_at == hero.updated_at > before
    Character.objects.filter(pk=hero.pk).update(status="draft")
    save_fields(hero, ["name"])  # only the fields named
    assert Character.objects.get(pk=hero.pk).status == "draft"
    gone = Character(pk=hero.pk + 1000, name="Nobody")
    gone._state.adding = False
    with pytest.raises(DatabaseError, match="did not affect any rows"):
        save_fields(gone, ["name"])


def test_a_row_inserted_directly_is_the_row_the_orm_inserts(campaign, gm, player) -> None:
    hero = make_character(campaign, player, "Brunella")
    direct = SheetChange(character=hero, version=7, what="Notes", sections=["notes"], before={}, after={"a": 1}, by=gm)
    with CaptureQueriesContext(connection) as captured:
        insert(direct)
    assert len(captured) == 1
    assert captured[0]["sql"].startswith("INSERT")
    assert direct.pk is not None
    assert not direct._state.adding
    through_orm = SheetChange.objects.create(
        character=hero, version=8, what="Notes", sections=["notes"], before={}, after={"a": 1}, by=gm
    )
    fields = ["character_id", "what", "sections", "before", "after", "by_id", "created_at"]
    one, other = SheetChange.objects.filter(pk__in=[direct.pk, through_orm.pk]).order_by("version").values(*fields)
    assert {**one, "created_at": None} == {**other, "created_at": None}
    assert one["created_at"] == direct.created_at


def test_a_model_whose_saves_are_listened_for_is_saved_through_the_orm(campaign, player) -> None:
    heard: list[Any] = []

    def listener(sender: Any, instance: Any, **kwargs: Any) -> None:
        heard.append(instance.pk)

    hero = make_character(campaign, player, "Brunella")
    signals.post_save.connect(listener, sender=Character)
    try:
        save_fields(hero, ["name"])
    finally:
        signals.post_save.disconnect(listener, sender=Character)
    assert heard == [hero.pk]


def written_together(campaign: Campaign, hero: Character, by: Any) -> tuple[SheetChange, list[str]]:
    """The hero renamed, the campaign's last activity moved and a change of its history added, by
    :func:`write_together`: the change, and the SQL sent."""
    hero.name, hero.version = "Brunella the Bold", hero.version + 1
    change = SheetChange(character=hero, version=hero.version, what="Renamed", sections=["identity"],
                         before={"a": 1}, after={"a": 2}, by=by)  # fmt: skip
    when = campaign.last_activity_at + timedelta(hours=1)
    with CaptureQueriesContext(connection) as captured:
        write_together(hero, ["name", "version", "updated_at"], change, moved_statement(campaign.pk, when))
    return change, [query["sql"] for query in captured.captured_queries]


def test_rows_written_together_are_the_rows_written_one_by_one(campaign, gm, player) -> None:
    """One statement on PostgreSQL (a WITH query for each UPDATE, then the INSERT), one a write elsewhere:
    the same rows either way, as :func:`save_fields`, the campaign's own UPDATE and :func:`insert` write them."""
    hero = make_character(campaign, player, "Brunella")
    before = hero.updated_at
    change, sent = written_together(campaign, hero, gm)
    if connection.vendor == "postgresql":
        assert len(sent) == 1
        assert sent[0].startswith("WITH saved AS (UPDATE")
    else:
        assert [sql.split()[0] for sql in sent] == ["UPDATE", "UPDATE", "INSERT"]
    read = Character.objects.get(pk=hero.pk)
    assert (read.name, read.version) == ("Brunella the Bold", hero.version)
    assert read.updated_at == hero.updated_at > before
    moved_to = Campaign.objects.get(pk=campaign.pk).last_activity_at
    assert moved_to == campaign.last_activity_at + timedelta(hours=1)
    assert change.pk is not None
    assert not change._state.adding
    alone = SheetChange(character=hero, version=hero.version + 1, what="Renamed", sections=["identity"],
                        before={"a": 1}, after={"a": 2}, by=gm)  # fmt: skip
    insert(alone)
    fields = ["character_id", "what", "sections", "before", "after", "by_id"]
    together, one_by_one = SheetChange.objects.filter(pk__in=[change.pk, alone.pk]).order_by("version").values(*fields)
    assert together == one_by_one
    assert SheetChange.objects.get(pk=change.pk).created_at == change.created_at


def test_rows_written_together_for_a_row_that_is_gone_write_nothing(campaign, gm, player) -> None:
    hero = make_character(campaign, player, "Brunella")
    gone = Character(pk=hero.pk + 1000, name="Nobody", campaign=campaign, owner=player, version=1)
    gone._state.adding = False
    change = SheetChange(character=hero, version=99, what="Never", sections=[], before={}, after={}, by=gm)
    with pytest.raises(DatabaseError, match="did not affect any rows"), transaction.atomic():
        write_together(gone, ["name"], change)
    assert not SheetChange.objects.filter(version=99).exists()


@pytest.mark.django_db(transaction=True)
def test_rows_are_written_together_only_in_a_transaction(campaign, gm, player) -> None:
    """A failed save of ``saved`` is found once the other writes are made: outside a transaction they would stay."""
    hero = make_character(campaign, player, "Brunella")
    change = SheetChange(character=hero, version=99, what="Never", sections=[], before={}, after={}, by=gm)
    with pytest.raises(TransactionManagementError, match="only in a transaction"):
        write_together(hero, ["name"], change)
    assert not SheetChange.objects.filter(version=99).exists()


def test_rows_written_together_whose_saves_are_listened_for_go_through_the_orm(campaign, gm, player) -> None:
    heard: list[Any] = []

    def listener(sender: Any, instance: Any, **kwargs: Any) -> None:
        heard.append((sender.__name__, instance.pk))

    hero = make_character(campaign, player, "Brunella")
    signals.post_save.connect(listener, sender=SheetChange)
    try:
        change, sent = written_together(campaign, hero, gm)
    finally:
        signals.post_save.disconnect(listener, sender=SheetChange)
    assert heard == [("SheetChange", change.pk)]
    assert [sql.split()[0] for sql in sent] == ["UPDATE", "UPDATE", "INSERT"]
    assert Character.objects.get(pk=hero.pk).name == "Brunella the Bold"


def test_queries_fetched_together_give_what_each_gives_alone(campaign, gm, player, other_player) -> None:
    for name in ("Casimir", "Brunella"):
        make_character(campaign, player, name)
    party = Prepared(Character, characters_of)
    members = Prepared(Membership, lambda campaign: Membership.objects.filter(campaign_id=campaign).order_by("pk"))
    apart = [party.fetch(campaign=campaign.pk), members.fetch(campaign=campaign.pk)]
    with CaptureQueriesContext(connection) as captured:
        together = fetch_together((party, {"campaign": campaign.pk}), (members, {"campaign": campaign.pk}))
    assert len(captured) == 2
    assert [fetched.rows for fetched in together] == [fetched.rows for fetched in apart]
    assert [c.name for c in (together[0].instance(i) for i in range(len(together[0])))] == ["Brunella", "Casimir"]
    assert fetch_together() == []


@pytest.mark.postgres
def test_on_postgresql_queries_fetched_together_are_read_in_one_trip(campaign, player, monkeypatch) -> None:
    """Both queries are sent in one pipeline (psycopg's), read at its one synchronisation."""
    make_character(campaign, player, "Brunella")
    connection.ensure_connection()
    raw = connection.connection
    entered: list[object] = []
    pipeline = type(raw).pipeline

    def noted(self: Any) -> Any:
        entered.append(self)
        return pipeline(self)

    monkeypatch.setattr(type(raw), "pipeline", noted)
    party = Prepared(Character, characters_of)
    campaigns = Prepared(Campaign, lambda campaign: Campaign.objects.filter(pk=campaign))
    got = fetch_together((party, {"campaign": campaign.pk}), (campaigns, {"campaign": campaign.pk}))
    assert entered == [raw]
    assert [len(fetched) for fetched in got] == [1, 1]
    # A failed query is Django's error, and the connection is still usable after it.
    broken = Prepared(Campaign, lambda campaign: Campaign.objects.filter(pk=campaign).extra(where=["1/0 = 1"]))
    with pytest.raises(DatabaseError), transaction.atomic():
        fetch_together((party, {"campaign": campaign.pk}), (broken, {"campaign": campaign.pk}))
    assert len(party(campaign=campaign.pk)) == 1
