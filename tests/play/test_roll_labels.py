"""Every roll says its system and, in words, what was rolled; the hash chain covers both, and the
chains recorded before they were stored still verify."""

from __future__ import annotations

import hashlib
import json
import random
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any

import pytest
from django.db import connection
from django.urls import reverse

from campaigns.models import Campaign
from play import chain, encounters, rolls
from play.models import Roll, RollKind
from tests.characters.conftest import make_character
from tests.play.npcs import GOBLIN

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


class Scripted(random.Random):
    """Dice that come up as listed, in order."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


def raw(sql: str, *params: Any) -> None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


@pytest.fixture
def tamperable() -> None:
    """On PostgreSQL the append-only trigger is off for this test's transaction only (rolled back with it)."""
    if connection.vendor == "postgresql":
        raw("ALTER TABLE play_roll DISABLE TRIGGER play_roll_append_only")


def record(campaign: Campaign, by: Any, **fields: Any) -> Roll:
    values: dict[str, Any] = {
        "kind": RollKind.FREE,
        "spec": {"expression": "2d6+1"},
        "dice": [{"label": "2d6", "dice": [{"sides": 6, "faces": [3, 4]}], "total": 7}],
        "total": 8,
        "outcome": {},
        "chance": Fraction(7, 12),
        "chance_of": "total ≥ 8",
        "label": "2d6+1",
    }
    return rolls.record_roll(campaign_id=campaign.pk, by=by, **{**values, **fields})


# --- A log from before labels ---------------------------------------------------------------------


def hash_as_before(row: Roll) -> str:
    """The hash exactly as rows were hashed before ``system`` and ``label`` existed: written out
    here, not taken from :func:`play.rolls.canonical`, so that the test pins the old form."""
    content = {
        "campaign": row.campaign_id, "seq": row.seq, "by": row.by_id, "character": row.character_id,
        "kind": row.kind, "spec": row.spec, "dice": row.dice, "total": row.total, "outcome": row.outcome,
        "chance": row.chance, "chance_of": row.chance_of, "secret": row.secret,
        "created_at": row.created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "prev_hash": row.prev_hash,
    }  # fmt: skip
    data = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(data.encode()).hexdigest()


OLD_SPECS = [
    # A sheet roll kept its words in its spec.
    ("check", {"label": "Reflex + Fighting (Longsword 1) vs Difficult", "ability": "d8", "skill": "d8+d4"}),
    ("free", {"expression": "2d6+1", "typed": "2d6 + 1", "explode": False}),
    ("attack", {"encounter": 1, "attacker": "Brunella", "target": "Goblin", "weapon": "Longsword"}),
    # A check the calculator's way: the system says it (Lucky 13 describes none, so its kind's name).
    ("check", {"ability": "d8", "skill": "d6", "difficulty": "d10"}),
    # Nothing to say it with.
    ("adjustment", {"who knows": True}),
]


@pytest.fixture
def old_log(campaign: Campaign, gm: Any, player: Any) -> list[Roll]:
    """Five rows as the log held them before labels: ``system`` and ``label`` empty, hashed the old way."""
    prev_hash, moment, rows = rolls.GENESIS, datetime(2026, 11, 22, 1, 55, 0, 123456, tzinfo=UTC), []
    for seq, (kind, spec) in enumerate(OLD_SPECS, start=1):
        row = Roll(
            campaign=campaign, by=gm if seq % 2 else player, kind=kind, spec=spec, dice=[], total=seq,
            outcome={}, chance=None, chance_of="an old roll", secret=seq == 1,
            created_at=moment + timedelta(seconds=seq), seq=seq, prev_hash=prev_hash,
        )  # fmt: skip
        row.hash = prev_hash = hash_as_before(row)
        row.save()
        rows.append(row)
    chain.mark_unkeyed_head(campaign.pk, (rows[-1].seq, rows[-1].hash))  # as migration play.0013 did
    return rows


def test_a_chain_recorded_before_labels_verifies_and_new_rows_join_it(campaign, gm, old_log) -> None:
    assert {(r.system, r.label) for r in Roll.objects.all()} == {("", "")}
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=5, broken=None)

    new = record(campaign, gm)

    assert (new.seq, new.prev_hash) == (6, old_log[-1].hash)
    assert (new.system, new.label) == ("lucky13", "2d6+1")
    assert json.loads(rolls.canonical(new))["label"] == "2d6+1"
    assert json.loads(rolls.canonical(new))["system"] == "lucky13"
    assert "label" not in json.loads(rolls.canonical(old_log[0]))
    assert rolls.check_chain(campaign) == rolls.ChainReport(count=6, broken=None)


@pytest.mark.parametrize(
    ("seq", "column", "value"),
    [
        (6, "label", "2d6+2"),  # new words for a new roll
        (6, "label", ""),  # a new roll's words taken away: its hash was taken with them
        (6, "system", ""),
        (6, "system", "coin"),
        (2, "label", "2d6+1"),  # words put on an old roll afterwards: its hash was taken without them
    ],
)
def test_changing_the_system_or_the_label_breaks_the_chain(
    tamperable, campaign, gm, old_log, seq, column, value
) -> None:
    record(campaign, gm)
    raw(f"UPDATE play_roll SET {column} = %s WHERE campaign_id = %s AND seq = %s", value, campaign.pk, seq)
    assert rolls.check_chain(campaign).broken == seq


def test_an_old_row_is_shown_with_the_words_its_spec_gives(campaign, old_log) -> None:
    assert [rolls.label_of(r) for r in old_log] == [
        "Reflex + Fighting (Longsword 1) vs Difficult",
        "2d6+1",
        "Brunella attacks Goblin with Longsword",
        "d8 + d6 + d10, 13 or more",  # the system's words for the spec
        "",
    ]
    roll = Roll.objects.select_related("campaign").get(seq=2)
    assert rolls.system_of(roll) == "lucky13"


def test_the_log_page_shows_old_and_new_rows_in_words(client, campaign, gm, player, old_log) -> None:
    record(campaign, player, spec={"expression": "3d6"}, label="3d6")
    client.force_login(player)
    body = client.get(reverse("play:rolls", args=[campaign.pk])).content.decode()
    assert "<code>3d6</code>" in body
    assert "<code>2d6+1</code>" in body
    assert '<span class="roll-label">Brunella attacks Goblin with Longsword</span>' in body
    assert '<span class="roll-label">d8 + d6 + d10, 13 or more</span>' in body
    # Roll 1 is the GM's secret, not revealed: its words stay with its dice.
    assert "Longsword 1" not in body
    client.force_login(gm)
    assert "Reflex + Fighting (Longsword 1) vs Difficult" in client.get(reverse("play:rolls", args=[campaign.pk])).text


# --- Recording ------------------------------------------------------------------------------------


def test_the_campaigns_system_and_the_callers_words_are_recorded(campaign, player) -> None:
    roll = record(campaign, player, label="  Reflex +\tFighting\n vs Difficult ")
    assert Roll.objects.get(pk=roll.pk).system == "lucky13"
    assert roll.label == "Reflex + Fighting vs Difficult"


def test_words_too_long_for_the_column_are_cut(campaign, player) -> None:
    roll = record(campaign, player, label="Reflex + " + "Very " * 60 + "Long Skill")
    assert len(roll.label) == rolls.LABEL_LENGTH == 200
    assert roll.label.endswith("…")
    assert Roll.objects.get(pk=roll.pk).label == roll.label
    assert rolls.check_chain(campaign).broken is None


def test_a_caller_without_words_gets_the_ones_its_spec_gives(campaign, player) -> None:
    assert record(campaign, player, label="").label == "2d6+1"
    calculator = {"ability": "d8", "skill": "d6", "difficulty": "d10"}
    check = record(campaign, player, kind=RollKind.CHECK, spec=calculator, label="")
    assert check.label == "d8 + d6 + d10, 13 or more"
    opposed = {"attacker": ["d8", "d6"], "defender": ["d6", "d6"], "weapon": "d8"}
    assert record(campaign, player, kind=RollKind.OPPOSED, spec=opposed, label="").label == "Opposed roll"
    # A spec the system cannot read still gets its kind's name, never an error.
    assert record(campaign, player, kind=RollKind.CHECK, spec={"ability": "d99"}, label="").label == "Skill check"


def test_a_check_is_said_by_its_own_systems_roll_kind(coin_campaign, gm) -> None:
    """Through ``rules.systems.get(campaign.system)`` and the roll kind's ``describe``: no system by name."""
    spec = {"system": "coin", "roll": "flip", "coins": 3, "need": 2}
    roll = record(coin_campaign, gm, kind=RollKind.CHECK, spec=spec, label="")
    assert (roll.system, roll.label) == ("coin", "3 coins, 2 heads needed")
    assert rolls.label_from_spec(RollKind.CHECK, {k: v for k, v in spec.items() if k != "system"}, "coin") == (
        "3 coins, 2 heads needed"
    )


def test_a_free_roll_from_the_dice_box_says_its_expression(client, campaign, player) -> None:
    client.force_login(player)
    response = client.post(reverse("play:free-roll", args=[campaign.pk]), {"expression": " 2d6 + 1 "}, **HTMX)
    assert response.status_code == 200
    roll = Roll.objects.get()
    assert (roll.system, roll.label) == ("lucky13", "2d6+1")
    assert "<code>2d6+1</code>" in response.text


def test_a_bad_expression_writes_nothing(client, campaign, player) -> None:
    client.force_login(player)
    response = client.post(reverse("play:free-roll", args=[campaign.pk]), {"expression": "2d"}, **HTMX)
    assert response.status_code == 400
    assert not Roll.objects.exists()


# --- Encounters -----------------------------------------------------------------------------------


@pytest.fixture
def fight(campaign: Campaign, gm: Any, player: Any) -> list[Roll]:
    """Brunella and two goblins: initiative, a hit and its damage, a GM's change, a reorder,
    a dying goblin stabilized, one goblin leaving; every roll the encounter wrote, oldest first."""
    brunella = make_character(campaign, player)
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="The bridge")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    (hero,) = encounters.add_characters(**ids, by=gm, character_ids=[brunella.pk])
    first, second = encounters.add_npcs(**ids, by=gm, **GOBLIN, count=2)
    encounters.roll_initiative(**ids, by=gm, rng=Scripted(7, 5, 3), group_rolls=False)
    encounters.attack(
        **ids,
        by=gm,
        attacker_id=hero.pk,
        target_id=first.pk,
        choices={"attacker_specialization": "none"},
        rng=Scripted(5, 6, 4, 2, 2, 1),
    )
    encounters.adjust(**ids, by=gm, combatant_id=hero.pk, amount=-4, reason="a fall")
    encounters.act(**ids, by=gm, action="stabilize", combatant_id=first.pk)
    encounters.move_in_order(**ids, by=gm, combatant_id=second.pk, direction="up")
    encounters.remove_combatant(**ids, by=gm, combatant_id=second.pk, reason="fled")
    return list(Roll.objects.of_encounter(encounter).order_by("seq"))


def test_every_encounter_roll_says_what_it_was(fight) -> None:
    assert [(r.kind, r.label) for r in fight] == [
        ("initiative", "Initiative for Brunella"),
        ("initiative", "Initiative for Goblin 1"),
        ("initiative", "Initiative for Goblin 2"),
        ("attack", "Brunella attacks Goblin 1"),
        ("damage", "Damage to Goblin 1"),
        ("adjustment", "Hit points of Brunella: a fall"),
        ("adjustment", "Goblin 1 is stabilized"),
        ("initiative", "Goblin 2 moves up the initiative order"),
        ("removal", "Goblin 2 leaves the fight"),
    ]
    assert {r.system for r in fight} == {"lucky13"}


def test_an_old_encounter_row_is_said_as_the_encounter_says_a_new_one(fight) -> None:
    """The words said from the spec (for rows written before labels) are the words recorded now."""
    for roll in fight:
        assert rolls.label_from_spec(roll.kind, roll.spec, roll.system) == roll.label


def test_the_dashboard_feed_shows_the_words(client, campaign, player, fight) -> None:
    client.force_login(player)
    response = client.get(reverse("play:dashboard", args=[campaign.pk]))
    assert response.status_code == 200
    assert '<span class="roll-label">Goblin 2 leaves the fight</span>' in response.text


# --- Secret rolls ---------------------------------------------------------------------------------


def test_a_secret_rolls_words_are_the_gms_until_revealed(client, campaign, gm, player) -> None:
    record(campaign, gm, secret=True, spec={"expression": "d20"}, label="The trap on the stair")
    log = reverse("play:rolls", args=[campaign.pk])
    client.force_login(player)
    assert "The trap on the stair" not in client.get(log).text
    assert "The trap on the stair" not in client.get(reverse("play:dashboard", args=[campaign.pk])).text

    client.force_login(gm)
    assert "The trap on the stair" in client.get(log).text
    client.post(reverse("play:reveal-roll", args=[campaign.pk, 1]))

    client.force_login(player)
    assert "The trap on the stair" in client.get(log).text
