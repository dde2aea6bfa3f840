"""``manage.py demo``: the demo campaign, created once however often it runs."""

from __future__ import annotations

from fractions import Fraction
from io import StringIO

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command

from campaigns.models import Campaign, Membership
from characters.models import Balance, Character, LedgerEntry, ReputationChange


def run_demo() -> str:
    out = StringIO()
    call_command("demo", stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_demo_twice_creates_everything_once_and_prints_the_password() -> None:
    first = run_demo()
    second = run_demo()

    users = get_user_model().objects.filter(username__in=["gm", "alice", "bob"])
    assert sorted(users.values_list("username", flat=True)) == ["alice", "bob", "gm"]
    assert get_user_model().objects.count() == 7  # and carol and dave (D6), erin and frank (D13)
    assert sorted(Campaign.objects.values_list("system", flat=True)) == ["d13", "d6", "lucky13"]  # one of each
    [campaign] = Campaign.objects.filter(system="lucky13")
    assert campaign.name == "The Sunken Crown"
    assert sorted(Character.objects.filter(campaign=campaign).values_list("owner__username", "name")) == [
        ("alice", "Brunella"),
        ("bob", "Casimir"),
    ]
    assert sorted(campaign.memberships.values_list("user__username", "role")) == [
        ("alice", Membership.Role.PLAYER),
        ("bob", Membership.Role.PLAYER),
        ("gm", Membership.Role.GM),
    ]
    # One adventure played: awards, a reputation change and a purchase, written once.
    assert sorted(
        LedgerEntry.objects.filter(character__campaign=campaign).values_list("character__name", "kind", "amount")
    ) == [
        ("Brunella", "award", 14),
        ("Brunella", "spend", -4),
        ("Casimir", "award", 17),
    ]
    assert sorted(
        Balance.objects.filter(character__campaign=campaign).values_list("character__name", "currency", "amount")
    ) == [
        ("Brunella", "ap", 10),
        ("Casimir", "ap", 17),
    ]
    assert list(ReputationChange.objects.values_list("character__name", "change")) == [("Casimir", 1)]
    # The sheets are documents made by the creation steps, each change in their history.
    brunella, casimir = Character.objects.filter(campaign=campaign).order_by("name")
    fighting = next(skill for skill in brunella.document.skills if skill.name == "Fighting")
    assert [(spec.name, spec.level) for spec in fighting.specializations] == [("Broadsword", 2)]
    assert [w.name for w in brunella.document.weapons] == ["Broadsword"]
    assert (casimir.document.concept, casimir.document.reputation) == ("Hedge knight in chainmail", 1)
    assert [a.name for a in casimir.document.armor] == ["Chainmail"]
    assert brunella.document.hit_points == 40  # d10 Pulse (four steps), 10 a step: full
    assert brunella.sheet_changes.filter(what="Finished", by__username="alice").exists()
    assert f"'{settings.DEMO_PASSWORD}'" in first
    assert f"'{settings.DEMO_PASSWORD}'" in second


@pytest.mark.django_db
def test_the_demo_users_sign_in_with_the_printed_password() -> None:
    run_demo()

    for username in ("gm", "alice", "bob"):
        assert get_user_model().objects.get(username=username).check_password(settings.DEMO_PASSWORD)


@pytest.mark.django_db
def test_demo_leaves_a_changed_password_alone() -> None:
    run_demo()
    alice = get_user_model().objects.get(username="alice")
    alice.set_password("alice's own password")
    alice.save()

    run_demo()

    alice.refresh_from_db()
    assert alice.check_password("alice's own password")


def counts() -> dict[str, int]:
    """How many of each thing the demo makes: a second run must add none of them."""
    from characters.models import SheetChange
    from play.models import Combatant, Encounter, Roll

    models = {"rolls": Roll, "encounters": Encounter, "combatants": Combatant, "sheet changes": SheetChange,
              "ledger entries": LedgerEntry, "characters": Character, "campaigns": Campaign}  # fmt: skip
    return {name: model.objects.count() for name, model in models.items()}


@pytest.mark.django_db
def test_the_demo_has_a_roll_log_made_by_the_roll_operations() -> None:
    from play.models import Roll, RollKind
    from play.rolls import check_chain

    run_demo()

    campaign = Campaign.objects.get(system="lucky13")
    log = list(Roll.objects.filter(campaign=campaign).order_by("seq").select_related("by", "character"))
    kinds = {roll.kind for roll in log}
    assert {RollKind.CHECK, RollKind.REACTION, RollKind.FREE, RollKind.INITIATIVE, RollKind.ATTACK} <= kinds
    assert check_chain(campaign).broken is None  # every roll chained by its hash, in order
    # The sheet rolls: each by its character's player, rebuilt from the sheet, with the exact chance first.
    sheet_rolls = [roll for roll in log if roll.kind in (RollKind.CHECK, RollKind.REACTION)]
    assert sorted((roll.character.name, roll.kind) for roll in sheet_rolls) == [
        ("Brunella", "check"), ("Brunella", "check"), ("Casimir", "check"), ("Casimir", "reaction"),
    ]  # fmt: skip
    for roll in sheet_rolls:
        assert roll.by == roll.character.owner
        assert roll.spec["sheet"]["character"] == roll.character.pk
        assert roll.chance is not None
        assert 0 < Fraction(roll.chance) < 1
        assert roll.dice
    broadsword = next(roll for roll in sheet_rolls if roll.spec["sheet"]["specialization"])
    assert broadsword.spec["sheet"]["specialization"]["name"] == "Broadsword"
    assert [roll.spec["sheet"]["asset"]["name"] for roll in sheet_rolls if roll.spec["sheet"]["asset"]] == [
        "Old harbour map", "Brother Aldo",
    ]  # fmt: skip
    # The GM's free rolls, one of them secret.
    free = [(roll.label, roll.secret, roll.by.username) for roll in log if roll.kind == RollKind.FREE]
    assert free == [("2d6+1", False, "gm"), ("d100", True, "gm")]
    assert all(1 <= total <= 100 for total in (roll.total for roll in log if roll.kind == RollKind.FREE))


@pytest.mark.django_db
def test_the_demo_has_an_ended_encounter_with_its_rolls() -> None:
    from play.models import Combatant, Encounter, Roll, RollKind

    run_demo()

    [encounter] = Encounter.objects.all()
    assert encounter.name == "Ambush at the Drowned Bell"
    assert encounter.ended_at is not None
    assert encounter.initiative_rolled
    combatants = Combatant.objects.filter(encounter=encounter)
    assert sorted(combatants.values_list("name", flat=True)) == [
        "Brunella", "Casimir", "Drowned sailor 1", "Drowned sailor 2",
    ]  # fmt: skip
    fought = Roll.objects.filter(campaign=encounter.campaign, seq__gt=encounter.log_after, seq__lte=encounter.log_until)
    kinds = list(fought.values_list("kind", flat=True))
    assert kinds.count(RollKind.ATTACK) == 2
    assert RollKind.INITIATIVE in kinds
    assert set(kinds) <= {RollKind.INITIATIVE, RollKind.ATTACK, RollKind.DAMAGE}
    # Only the sailors were attacked: the duelists keep their hit points.
    brunella, casimir = Character.objects.filter(campaign=encounter.campaign).order_by("name")
    assert (brunella.document.hit_points, casimir.document.hit_points) == (40, 30)  # d10 and d8 Pulse: full


@pytest.mark.django_db
def test_demo_a_second_time_adds_nothing() -> None:
    run_demo()
    first = counts()

    run_demo()

    assert counts() == first
    assert first["rolls"] >= 9  # four sheet rolls, two free rolls, initiative and two attacks at the least


@pytest.mark.django_db
def test_the_gm_sees_the_demos_roll_log_and_encounter(client) -> None:
    from django.urls import reverse

    from play.models import Encounter

    run_demo()
    campaign = Campaign.objects.get(system="lucky13")
    encounter = Encounter.objects.get()
    client.force_login(get_user_model().objects.get(username="gm"))

    log = client.get(reverse("play:rolls", args=[campaign.pk]))
    fight = client.get(reverse("play:encounter-history", args=[campaign.pk, encounter.pk]))

    assert log.status_code == 200
    assert "2d6+1" in log.content.decode()
    assert fight.status_code == 200
    assert "Ambush at the Drowned Bell" in fight.content.decode()
