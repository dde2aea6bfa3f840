"""The roll log: recording, the append-only rule, the hash chain, and secret rolls."""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
from datetime import UTC, datetime
from enum import IntEnum, StrEnum
from fractions import Fraction
from types import MappingProxyType

import pytest
from django.conf import settings
from django.db import DatabaseError, connection, transaction

from campaigns.models import AppendOnly
from campaigns.operations import Conflict, NotAllowed, NotFound
from characters.models import Character
from play import chain, rolls
from play.models import Roll, RollKind, RollReveal
from tests.campaigns.helpers import make_character

pytestmark = pytest.mark.django_db


def record(campaign, by, **fields) -> Roll:
    values = {
        "kind": RollKind.FREE,
        "spec": {"expression": "2d6+1"},
        "dice": [{"label": "2d6", "dice": [{"sides": 6, "faces": [3, 4]}], "total": 7}],
        "total": 8,
        "outcome": {},
        "chance": Fraction(7, 12),
        "chance_of": "total ≥ 8",
        "label": "2d6+1",
    }
    values.update(fields)
    return rolls.record_roll(campaign_id=campaign.pk, by=by, **values)


def test_rolls_are_numbered_and_chained(campaign, gm, player) -> None:
    first = record(campaign, player)
    second = record(campaign, gm, total=3, secret=True)
    assert (first.seq, second.seq) == (1, 2)
    assert first.prev_hash == rolls.GENESIS
    assert second.prev_hash == first.hash
    assert first.chance == "7/12"
    assert rolls.verify_chain(campaign) is None
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=2, broken=None)


def test_the_canonical_form_is_exactly_as_documented(campaign, player, character) -> None:
    roll = record(campaign, player, character_id=character.pk, spec={"b": "é", "a": [1, True, None]})
    roll = Roll.objects.get(pk=roll.pk)  # as read back from the database
    roll_time = roll.created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    expected = (
        f'{{"by":{player.pk},"campaign":{campaign.pk},"chance":"7/12","chance_of":"total ≥ 8",'
        f'"character":{character.pk},"created_at":"{roll_time}",'
        '"dice":[{"dice":[{"faces":[3,4],"sides":6}],"label":"2d6","total":7}],"key":"dev","kind":"free",'
        f'"label":"2d6+1","outcome":{{}},"prev_hash":"{rolls.GENESIS}","secret":false,"seq":1,'
        '"spec":{"a":[1,true,null],"b":"é"},"system":"lucky13","total":8}'
    )
    assert rolls.canonical(roll) == expected.encode()
    assert roll.key_id == "dev"  # the key development derives from SECRET_KEY
    secret = dict(settings.ROLL_CHAIN_KEYS)["dev"].encode()
    assert roll.hash == hmac.new(secret, expected.encode(), hashlib.sha256).hexdigest()


def test_the_timestamp_is_utc_with_microseconds(campaign, player) -> None:
    roll = record(campaign, player)
    stamp = json.loads(rolls.canonical(roll))["created_at"]
    assert stamp.endswith("Z")
    assert datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC) == roll.created_at


def test_floats_are_refused_so_the_hash_is_the_same_everywhere(campaign, player) -> None:
    with pytest.raises(TypeError):
        record(campaign, player, outcome={"p": 0.5})
    assert not Roll.objects.exists()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("spec", {1: "a"}, "spec: object keys must be strings, not 1"),
        ("dice", [{"faces": [1, None, (2.5,)]}], "dice: float is not allowed in a roll"),
        ("outcome", {"when": datetime(2026, 1, 1, tzinfo=UTC)}, "outcome: datetime is not allowed in a roll"),
    ],
)
def test_what_is_not_plain_json_is_refused_wherever_it_is(campaign, player, field, value, message) -> None:
    with pytest.raises(TypeError, match=message):
        record(campaign, player, **{field: value})
    assert not Roll.objects.exists()


def test_a_roll_holds_a_plain_copy_of_what_it_was_given(campaign, player) -> None:
    """Tuples become lists, mappings dicts, an enum's member its value (as the row reads them back); changing
    what was given afterwards changes nothing of the roll."""

    class Word(StrEnum):
        HIT = "hit"

    class Step(IntEnum):
        D8 = 8

    spec = {"expression": "2d6+1", "steps": (Step.D8, 4), "extra": MappingProxyType({"flag": True})}
    outcome = {"result": Word.HIT, "margins": [(1, 2)]}
    roll = record(campaign, player, spec=spec, outcome=outcome)
    spec["expression"] = "changed"
    assert roll.spec == {"expression": "2d6+1", "steps": [8, 4], "extra": {"flag": True}}
    assert [type(step) for step in roll.spec["steps"]] == [int, int]
    assert roll.outcome == {"result": "hit", "margins": [[1, 2]]}
    assert type(roll.outcome["result"]) is str
    stored = Roll.objects.get()
    assert (stored.spec, stored.outcome) == (roll.spec, roll.outcome)
    assert rolls.verify_chain(campaign) is None


@pytest.mark.parametrize(
    ("who", "fields", "refusal"),
    [
        ("outsider", {}, NotFound),  # as to a campaign that does not exist
        ("player", {"secret": True}, NotAllowed),
        ("player", {"character_id": 10**6}, NotFound),
    ],
)
def test_refused_recordings_write_nothing(request, campaign, who, fields, refusal) -> None:
    with pytest.raises(refusal):
        record(campaign, request.getfixturevalue(who), **fields)
    assert not Roll.objects.exists()


def test_a_character_of_another_campaign_is_refused(campaign, player, other_player) -> None:
    from campaigns.models import Campaign, Membership

    elsewhere = Campaign.objects.create(name="Elsewhere")
    Membership.objects.create(campaign=elsewhere, user=other_player, role="gm")
    stranger = make_character(elsewhere, other_player, "Stranger")
    with pytest.raises(NotFound):
        record(campaign, player, character_id=stranger.pk)


def test_an_archived_campaign_refuses_rolls(campaign, player) -> None:
    from django.utils import timezone

    campaign.archived_at = timezone.now()
    campaign.save()
    with pytest.raises(Conflict):
        record(campaign, player)
    assert not Roll.objects.exists()


def test_a_chance_must_say_what_it_is_of(campaign, player) -> None:
    with pytest.raises(ValueError, match="chance of"):
        record(campaign, player, chance_of="")
    record(campaign, player, chance=None, chance_of="unbounded")


# --- Append-only in code --------------------------------------------------------------------------


def test_a_roll_is_never_saved_again_or_deleted(campaign, player) -> None:
    roll = record(campaign, player)
    roll.total = 12
    with pytest.raises(AppendOnly, match="never updated"):
        roll.save()
    with pytest.raises(AppendOnly, match="never deleted"):
        roll.delete()
    with pytest.raises(AppendOnly):
        Roll.objects.filter(pk=roll.pk).update(total=12)
    with pytest.raises(AppendOnly):
        Roll.objects.all().delete()
    with pytest.raises(AppendOnly):
        Roll.objects.bulk_update([roll], ["total"])
    assert Roll.objects.get().total == 8
    assert rolls.verify_chain(campaign) is None


def test_a_reveal_is_never_changed_either(campaign, gm) -> None:
    roll = record(campaign, gm, secret=True)
    reveal = rolls.reveal_roll(campaign_id=campaign.pk, seq=roll.seq, by=gm)
    with pytest.raises(AppendOnly):
        reveal.save()
    with pytest.raises(AppendOnly):
        reveal.delete()
    with pytest.raises(AppendOnly):
        RollReveal.objects.all().delete()


# --- The chain ------------------------------------------------------------------------------------


def raw(sql: str, *params) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


@pytest.fixture
def tamperable() -> None:
    """Let raw SQL change rolls, as someone with the database in hand could: on PostgreSQL the
    trigger is switched off for this test's transaction only (rolled back with it)."""
    if connection.vendor == "postgresql":
        raw("ALTER TABLE play_roll DISABLE TRIGGER play_roll_append_only")


@pytest.mark.parametrize(
    ("column", "value"),
    [("total", 12), ("secret", True), ("kind", "check"), ("dice", '[{"label": "2d6", "dice": [], "total": 12}]')],
)
def test_a_tampered_row_breaks_the_chain_at_that_row(tamperable, campaign, player, column, value) -> None:
    for _ in range(5):
        record(campaign, player)
    raw(f"UPDATE play_roll SET {column} = %s WHERE campaign_id = %s AND seq = 3", value, campaign.pk)
    assert rolls.verify_chain(campaign) == 3
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=3, broken=3)


def test_a_row_signed_again_with_the_key_still_breaks_the_next_link(tamperable, campaign, player) -> None:
    for _ in range(4):
        record(campaign, player)
    forged = Roll.objects.get(campaign=campaign, seq=2)
    forged.total = 99
    chain.seal(forged)  # as only someone holding the key could
    raw("UPDATE play_roll SET total = 99, hash = %s WHERE id = %s", forged.hash, forged.pk)
    assert rolls.verify_chain(campaign) == 3


def test_a_removed_row_breaks_the_chain_where_it_was(tamperable, campaign, player) -> None:
    for _ in range(4):
        record(campaign, player)
    raw("DELETE FROM play_roll WHERE campaign_id = %s AND seq = 2", campaign.pk)
    assert rolls.verify_chain(campaign) == 2


def test_the_chain_is_read_in_chunks(campaign, player, django_assert_num_queries, monkeypatch) -> None:
    for _ in range(5):
        record(campaign, player)
    monkeypatch.setattr(chain, "CHUNK", 2)
    # The checkpoints; three pages of at most two rolls: 2, 2, 1; then the head is signed, in a savepoint
    # (read it locked, then insert it in a savepoint of its own).
    with django_assert_num_queries(1 + 3 + 6):
        assert rolls.check_chain(campaign, full=True) == rolls.ChainReport(count=5, broken=None)


def test_each_campaign_has_its_own_chain(campaign, player, gm) -> None:
    from campaigns.models import Campaign, Membership

    other = Campaign.objects.create(name="Other")
    Membership.objects.create(campaign=other, user=gm, role="gm")
    record(campaign, player)
    mine = record(other, gm)
    assert mine.seq == 1
    assert mine.prev_hash == rolls.GENESIS


# --- Secret rolls ---------------------------------------------------------------------------------


def test_the_gm_reveals_a_secret_roll_once(campaign, gm, player) -> None:
    roll = record(campaign, gm, secret=True)
    with pytest.raises(NotAllowed):
        rolls.reveal_roll(campaign_id=campaign.pk, seq=roll.seq, by=player)
    reveal = rolls.reveal_roll(campaign_id=campaign.pk, seq=roll.seq, by=gm)
    assert Roll.objects.select_related("reveal").get().revealed_at == reveal.created_at
    with pytest.raises(Conflict, match="already revealed"):
        rolls.reveal_roll(campaign_id=campaign.pk, seq=roll.seq, by=gm)
    open_roll = record(campaign, player)
    with pytest.raises(Conflict, match="never secret"):
        rolls.reveal_roll(campaign_id=campaign.pk, seq=open_roll.seq, by=gm)
    with pytest.raises(NotFound):
        rolls.reveal_roll(campaign_id=campaign.pk, seq=99, by=gm)
    # Revealing changes no roll: the chain holds.
    assert rolls.verify_chain(campaign) is None


def test_the_recorded_signal_fires_after_commit(campaign, player, django_capture_on_commit_callbacks) -> None:
    heard = []

    def listener(sender, roll, **kwargs) -> None:
        heard.append(roll.seq)

    rolls.roll_recorded.connect(listener)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            record(campaign, player)
        assert heard == [1]
    finally:
        rolls.roll_recorded.disconnect(listener)


# --- PostgreSQL: the trigger and concurrency ------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE play_roll SET total = 12 WHERE campaign_id = %s",
        "DELETE FROM play_roll WHERE campaign_id = %s",
        "UPDATE play_rollreveal SET created_at = now() WHERE roll_id IN "
        "(SELECT id FROM play_roll WHERE campaign_id = %s)",
        "DELETE FROM play_rollreveal WHERE roll_id IN (SELECT id FROM play_roll WHERE campaign_id = %s)",
    ],
)
def test_postgresql_refuses_raw_updates_and_deletes(campaign, gm, sql) -> None:
    roll = record(campaign, gm, secret=True)
    rolls.reveal_roll(campaign_id=campaign.pk, seq=roll.seq, by=gm)
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        raw(sql, campaign.pk)
    assert Roll.objects.get().total == 8
    assert RollReveal.objects.count() == 1
    assert rolls.verify_chain(campaign) is None


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_recordings_never_fork_the_chain(campaign, gm, player, other_player, race) -> None:
    count = 12
    users = [gm, player, other_player]

    def roll_once(i: int) -> str:
        record(campaign, users[i % 3], total=i)
        return "rolled"

    assert race([functools.partial(roll_once, i) for i in range(count)]) == ["rolled"] * count
    assert sorted(Roll.objects.values_list("seq", flat=True)) == list(range(1, count + 1))
    assert sorted(Roll.objects.values_list("total", flat=True)) == list(range(count))
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=count, broken=None)


@pytest.mark.parametrize(
    ("status", "words"),
    [("draft", "A draft cannot roll until it is finished"), ("archived", "archived and no longer rolls")],
)
def test_only_a_character_in_play_rolls(campaign, gm, character, status, words) -> None:
    Character.objects.filter(pk=character.pk).update(status=status)
    with pytest.raises(Conflict, match=words):
        record(campaign, gm, character_id=character.pk)
    assert not Roll.objects.exists()
