"""``manage.py demo``: the demo campaign, created once however often it runs."""

from __future__ import annotations

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
    assert get_user_model().objects.count() == 3
    [campaign] = Campaign.objects.all()
    assert campaign.name == "The Sunken Crown"
    assert sorted(Character.objects.values_list("owner__username", "name")) == [
        ("alice", "Brunella"),
        ("bob", "Casimir"),
    ]
    assert sorted(campaign.memberships.values_list("user__username", "role")) == [
        ("alice", Membership.Role.PLAYER),
        ("bob", Membership.Role.PLAYER),
        ("gm", Membership.Role.GM),
    ]
    # One adventure played: awards, a reputation change and a purchase, written once.
    assert sorted(LedgerEntry.objects.values_list("character__name", "kind", "amount")) == [
        ("Brunella", "award", 14),
        ("Brunella", "spend", -4),
        ("Casimir", "award", 17),
    ]
    assert sorted(Balance.objects.values_list("character__name", "currency", "amount")) == [
        ("Brunella", "ap", 10),
        ("Casimir", "ap", 17),
    ]
    assert list(ReputationChange.objects.values_list("character__name", "change")) == [("Casimir", 1)]
    # The sheets are documents made by the creation steps, each change in their history.
    brunella, casimir = Character.objects.order_by("name")
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
