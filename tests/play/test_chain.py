"""The signed roll log: forgeries without the key, cut tails, unkeyed rows, key rotation and incremental Verify."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from html import unescape
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.urls import reverse

from play import chain, rolls
from play.models import ChainCheckpoint, Roll, RollKind
from tests.campaigns.helpers import text
from tests.play.test_rolls import raw, record

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}

#: Two keys as an operator would list them, each long enough.
KEY_A = ("a", "first-secret-" + "a" * 40)
KEY_B = ("b", "second-secret-" + "b" * 40)


@pytest.fixture
def tamperable() -> None:
    """Let raw SQL change and remove rolls, as someone with the database in hand could (PostgreSQL's trigger off
    for this test's transaction only)."""
    if connection.vendor == "postgresql":
        raw("ALTER TABLE play_roll DISABLE TRIGGER play_roll_append_only")


def rewrite_from(campaign, seq: int, *, unkeyed: bool, **changes) -> None:
    """Change roll ``seq`` and recompute the chain from there with the plain SHA-256 the log used before it was
    signed: every link holds again, as it did for anyone with the database before."""
    prev_hash = Roll.objects.get(campaign=campaign, seq=seq - 1).hash if seq > 1 else rolls.GENESIS
    for roll in Roll.objects.filter(campaign=campaign, seq__gte=seq).order_by("seq"):
        if roll.seq == seq:
            for name, value in changes.items():
                setattr(roll, name, value)
        if unkeyed:
            roll.key_id = chain.UNKEYED
        roll.prev_hash = prev_hash
        roll.hash = prev_hash = rolls.content_hash(roll)
        raw(
            "UPDATE play_roll SET total = %s, prev_hash = %s, hash = %s, key_id = %s WHERE id = %s",
            roll.total, roll.prev_hash, roll.hash, roll.key_id, roll.pk,
        )  # fmt: skip


def unkeyed_log(campaign, by, n: int) -> list[Roll]:
    """``n`` rolls as the log held them before it was signed (a plain SHA-256, no key id), and the head the
    migration that began signing recorded for them."""
    prev_hash, moment, rows = rolls.GENESIS, datetime(2026, 11, 22, 1, 55, 0, 123456, tzinfo=UTC), []
    for seq in range(1, n + 1):
        row = Roll(
            campaign=campaign, by=by, kind=RollKind.FREE, system="lucky13", label="2d6", spec={"expression": "2d6"},
            dice=[], total=seq, outcome={}, chance=None, chance_of="an old roll",
            created_at=moment + timedelta(seconds=seq), seq=seq, prev_hash=prev_hash,
        )  # fmt: skip
        row.hash = prev_hash = rolls.content_hash(row)
        row.save()
        rows.append(row)
    chain.mark_unkeyed_head(campaign.pk, (rows[-1].seq, rows[-1].hash))
    return rows


# --- Forging without the key ----------------------------------------------------------------------


@pytest.mark.parametrize("unkeyed", [False, True], ids=["keeping-the-key-id", "claiming-to-be-unkeyed"])
def test_a_total_rewritten_and_the_chain_recomputed_is_found_at_that_roll(
    tamperable, campaign, player, unkeyed
) -> None:
    for _ in range(5):
        record(campaign, player)
    rewrite_from(campaign, 2, unkeyed=unkeyed, total=12)
    report = rolls.check_chain(campaign)
    assert report == rolls.ChainReport(count=2, broken=2)
    assert "Roll #2" in report.reason


def test_an_unkeyed_log_verifies_as_it_was_and_signed_rolls_follow_it(campaign, gm) -> None:
    old = unkeyed_log(campaign, gm, 3)
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=3, broken=None)
    new = record(campaign, gm)
    assert (new.seq, new.prev_hash, new.key_id) == (4, old[-1].hash, "dev")
    assert rolls.check_chain(campaign, full=True) == rolls.ChainReport(count=4, broken=None)


def test_an_unkeyed_log_rewritten_and_recomputed_is_found_where_it_was_signed(tamperable, campaign, gm) -> None:
    unkeyed_log(campaign, gm, 4)
    rewrite_from(campaign, 2, unkeyed=True, total=12)
    report = rolls.check_chain(campaign)
    # The old rolls have no signature of their own: the head recorded when signing began no longer matches.
    assert report == rolls.ChainReport(count=4, broken=4)
    assert "written before the log was signed" in report.reason


def test_an_unkeyed_roll_after_the_signed_head_is_refused(tamperable, campaign, gm, player) -> None:
    unkeyed_log(campaign, gm, 2)
    record(campaign, player)
    rewrite_from(campaign, 3, unkeyed=True, total=12)  # a forged roll passed off as one from before
    report = rolls.check_chain(campaign)
    assert report == rolls.ChainReport(count=3, broken=3)
    assert "claims to be from before the log was signed" in report.reason


def test_unkeyed_rolls_with_no_signed_head_are_refused(campaign, gm) -> None:
    unkeyed_log(campaign, gm, 2)
    ChainCheckpoint.objects.filter(campaign=campaign).delete()  # as if the head had never been recorded
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=1, broken=1)


# --- Cut tails and checkpoints --------------------------------------------------------------------


def test_the_last_roll_removed_after_a_verify_is_found(tamperable, campaign, player) -> None:
    for _ in range(3):
        record(campaign, player)
    assert rolls.check_chain(campaign).broken is None  # signs the head: #3
    raw("DELETE FROM play_roll WHERE campaign_id = %s AND seq = 3", campaign.pk)
    report = rolls.check_chain(campaign)
    assert report == rolls.ChainReport(count=2, broken=3)
    assert "The log ends at #2, but it held #3" in report.reason


def test_a_log_rewritten_with_the_key_below_a_checkpoint_is_found(tamperable, campaign, player, monkeypatch) -> None:
    monkeypatch.setattr(chain, "CHECKPOINT_EVERY", 2)
    for _ in range(4):
        record(campaign, player)
    assert rolls.check_chain(campaign).broken is None
    forged = Roll.objects.get(campaign=campaign, seq=1)
    forged.total = 12
    prev_hash = rolls.GENESIS
    for roll in [forged, *Roll.objects.filter(campaign=campaign, seq__gt=1).order_by("seq")]:
        roll.prev_hash = prev_hash
        chain.seal(roll)  # every roll signed again, as only someone holding the key could
        prev_hash = roll.hash
        raw("UPDATE play_roll SET total = %s, prev_hash = %s, hash = %s WHERE id = %s", roll.total, roll.prev_hash,
            roll.hash, roll.pk)  # fmt: skip
    report = rolls.check_chain(campaign)
    assert report == rolls.ChainReport(count=4, broken=4)
    assert "the log was rewritten" in report.reason


def test_an_altered_checkpoint_is_reported(tamperable, campaign, player) -> None:
    for _ in range(3):
        record(campaign, player)
    rolls.check_chain(campaign)
    # Lower the signed head to #2 so that cutting roll 3 would pass: without the key it cannot be signed again.
    head = Roll.objects.get(campaign=campaign, seq=2)
    ChainCheckpoint.objects.filter(campaign=campaign, kind="head").update(seq=2, hash=head.hash)
    raw("DELETE FROM play_roll WHERE campaign_id = %s AND seq = 3", campaign.pk)
    report = rolls.check_chain(campaign)
    assert report == rolls.ChainReport(count=2, broken=2)
    assert report.reason == "The head of the log when last verified (#2) was altered: it does not match its signature."


def test_a_signature_rewritten_with_other_than_ascii_is_reported_changed_not_an_error(
    tamperable, campaign, player
) -> None:
    for _ in range(3):
        record(campaign, player)
    rolls.check_chain(campaign)
    raw("UPDATE play_roll SET hash = %s WHERE campaign_id = %s AND seq = 3", "é" * 64, campaign.pk)
    ChainCheckpoint.objects.filter(campaign=campaign, kind="head").update(mac="ü" * 64)
    report = rolls.check_chain(campaign)
    assert report.broken is not None
    assert "does not match its signature" in report.reason


# --- Rotating the key -----------------------------------------------------------------------------


def test_rolls_signed_with_an_older_key_verify_after_a_rotation(campaign, player, settings) -> None:
    settings.ROLL_CHAIN_KEYS = [KEY_A]
    record(campaign, player)
    record(campaign, player)
    assert rolls.check_chain(campaign).broken is None
    settings.ROLL_CHAIN_KEYS = [KEY_B, KEY_A]  # B signs from now on; A only verifies
    record(campaign, player)
    record(campaign, player)
    assert list(Roll.objects.order_by("seq").values_list("key_id", flat=True)) == ["a", "a", "b", "b"]
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=4, broken=None)
    assert rolls.check_chain(campaign, full=True) == rolls.ChainReport(count=4, broken=None)
    # The checkpoint the rotation's first Verify wrote is signed with the new key.
    assert set(ChainCheckpoint.objects.values_list("key_id", flat=True)) == {"b"}


def test_a_key_removed_too_early_is_reported_not_an_error(client, campaign, gm, player, settings) -> None:
    settings.ROLL_CHAIN_KEYS = [KEY_A]
    record(campaign, player)
    settings.ROLL_CHAIN_KEYS = [KEY_B]  # A dropped while roll 1 still needs it
    record(campaign, player)
    report = rolls.check_chain(campaign)
    assert report == rolls.ChainReport(count=1, broken=1)
    assert report.reason == f"Roll #1 is signed with key 'a', {chain.KEY_GONE}"
    client.force_login(gm)
    response = client.get(reverse("play:verify-rolls", args=[campaign.pk]), **HTMX)
    assert response.status_code == 200
    assert f"Roll #1 does not match: the chain is broken from there. {report.reason}" in unescape(text(response))


# --- Incremental Verify ---------------------------------------------------------------------------


def test_a_second_verify_hashes_only_the_rolls_after_the_checkpoint(
    campaign, player, monkeypatch, django_assert_num_queries
) -> None:
    monkeypatch.setattr(chain, "CHECKPOINT_EVERY", 5)
    for _ in range(12):
        record(campaign, player)
    first = rolls.check_chain(campaign)
    assert (first.count, first.broken, first.hashed) == (12, None, 12)
    assert ChainCheckpoint.objects.get(kind="verified").seq == 10
    record(campaign, player)
    # The checkpoints; roll 10 still the one signed; the rolls after it, one page; then the new head is signed
    # (read it locked, then save it in a savepoint of its own).
    with django_assert_num_queries(3 + 6):
        second = rolls.check_chain(campaign)
    assert (second.count, second.broken, second.hashed) == (13, None, 3)
    with django_assert_num_queries(3):  # nothing new: nothing written
        assert rolls.check_chain(campaign).hashed == 3
    assert rolls.check_chain(campaign, full=True).hashed == 13


def test_a_long_stretch_is_verified_over_several_checks_each_within_its_budget(campaign, player, monkeypatch) -> None:
    monkeypatch.setattr(chain, "CHECKPOINT_EVERY", 5)
    for _ in range(23):
        record(campaign, player)
    first = rolls.check_chain(campaign, budget=10)
    assert (first.count, first.broken, first.hashed, first.complete) == (10, None, 10, False)
    assert ChainCheckpoint.objects.get(kind="verified").seq == 10
    assert not ChainCheckpoint.objects.filter(kind="head").exists()  # the head is signed once the whole log is
    second = rolls.check_chain(campaign, budget=10)
    assert (second.count, second.hashed, second.complete) == (20, 10, False)
    last = rolls.check_chain(campaign, budget=10)
    assert (last.count, last.broken, last.hashed, last.complete) == (23, None, 3, True)
    assert ChainCheckpoint.objects.get(kind="head").seq == 23


def test_a_check_that_spends_its_budget_on_the_last_roll_is_complete(campaign, player, monkeypatch) -> None:
    monkeypatch.setattr(chain, "CHECKPOINT_EVERY", 5)
    for _ in range(10):
        record(campaign, player)
    report = rolls.check_chain(campaign, budget=10)
    assert (report.count, report.hashed, report.complete) == (10, 10, True)
    assert ChainCheckpoint.objects.get(kind="head").seq == 10


def test_a_broken_log_keeps_the_progress_made_before_the_break(tamperable, campaign, player, monkeypatch) -> None:
    monkeypatch.setattr(chain, "CHECKPOINT_EVERY", 5)
    for _ in range(18):
        record(campaign, player)
    raw("UPDATE play_roll SET total = 12 WHERE campaign_id = %s AND seq = 17", campaign.pk)
    first = rolls.check_chain(campaign)
    assert (first.broken, first.hashed) == (17, 17)
    again = rolls.check_chain(campaign)  # from roll 15, checkpointed on the way: the rolls before it are not hashed
    assert (again.broken, again.hashed) == (17, 2)


def test_the_page_and_the_api_go_onVERIFYING_a_long_log_where_they_stopped(
    client, api, campaign, gm, player, monkeypatch
) -> None:
    monkeypatch.setattr(chain, "CHECKPOINT_EVERY", 2)
    monkeypatch.setattr(chain, "VERIFY_BUDGET", 2)
    for _ in range(5):
        record(campaign, player)
    client.force_login(gm)
    url = reverse("play:verify-rolls", args=[campaign.pk])
    page = text(client.get(url, **HTMX))
    assert "Rolls 1 to 2 verified; checking the rest" in page
    fragment = client.get(url, **HTMX).content.decode()
    assert f'hx-get="{url}" hx-trigger="load"' in fragment  # the page asks for the rest by itself
    answer = api(gm).get(f"/campaigns/{campaign.pk}/rolls/verify").json()
    assert (answer["count"], answer["ok"], answer["complete"]) == (5, True, True)
    assert "All 5 rolls verified." in text(client.get(url, **HTMX))


def test_a_recent_roll_changed_after_a_verify_is_still_found(tamperable, campaign, player) -> None:
    for _ in range(4):
        record(campaign, player)
    assert rolls.check_chain(campaign).broken is None
    raw("UPDATE play_roll SET total = 12 WHERE campaign_id = %s AND seq = 3", campaign.pk)
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=3, broken=3)


# --- The full check, from the command line --------------------------------------------------------


def test_the_command_hashes_every_roll_again_and_names_a_broken_log(tamperable, campaign, player, monkeypatch) -> None:
    monkeypatch.setattr(chain, "CHECKPOINT_EVERY", 2)
    for _ in range(4):
        record(campaign, player)
    out = StringIO()
    call_command("verify_rolls", stdout=out)
    assert f"Campaign {campaign.pk}: all 4 rolls verified." in out.getvalue()
    first = Roll.objects.get(campaign=campaign, seq=1)
    raw("UPDATE play_roll SET total = 12 WHERE id = %s", first.pk)
    # Roll 1 is behind the checkpoint at #4 that the page's Verify goes on from: only a full check hashes it again.
    assert rolls.check_chain(campaign).hashed == 0
    out = StringIO()
    with pytest.raises(CommandError, match=r"1 roll log\(s\) broken"):
        call_command("verify_rolls", str(campaign.pk), stdout=out)
    assert f"Campaign {campaign.pk}: broken at roll #1. Roll #1 does not match its signature" in out.getvalue()


def test_the_command_refuses_a_campaign_that_is_not_there(campaign) -> None:
    with pytest.raises(CommandError, match=r"No campaign 999999\."):
        call_command("verify_rolls", str(campaign.pk), "999999", stdout=StringIO())


def test_a_verify_that_finds_another_under_way_is_refused_busy_with_retry_after(
    client, api, campaign, gm, settings
) -> None:
    settings.CHANCE_WAIT = 0
    client.force_login(gm)
    url = reverse("play:verify-rolls", args=[campaign.pk])
    assert chain.VERIFYING.acquire(timeout=1)  # another Verify, holding the only slot
    try:
        page = client.get(url)
        answer = api(gm).get(f"/campaigns/{campaign.pk}/rolls/verify")
    finally:
        chain.VERIFYING.release()
    assert (page.status_code, page["Retry-After"]) == (503, "2")
    assert "busy checking another roll log" in text(page)
    assert (answer.status_code, answer["Retry-After"], answer.json()["code"]) == (503, "2", "busy")
    assert client.get(url).status_code == 200  # free again
