"""The writes that span campaigns, memberships, invitations and characters, called
directly: what each checks under its lock, and what it leaves behind."""

from __future__ import annotations

import functools
from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns import operations
from campaigns.models import Campaign, Invitation, Membership
from characters import campaign_changes
from characters.models import Character, SheetChange
from rules.systems import lucky13
from rules.systems.lucky13.campaign import skill_changes
from tests.campaigns.helpers import make_character

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("old", "new", "renames", "renamed", "removed"),
    [
        (["A", "B"], ["A", "B", "C"], {"A": "A", "B": "B"}, {}, []),
        (["A", "B"], ["A", "Z"], {"A": "A", "B": "Z"}, {"B": "Z"}, []),
        (["A", "B"], ["A"], {"A": "A"}, {}, ["B"]),
        (["A", "B"], ["B", "A"], {"A": "B", "B": "A"}, {"A": "B", "B": "A"}, []),
        # B removed, A renamed to B: B's old holders would collide with A's, so B counts as removed.
        (["A", "B"], ["B"], {"A": "B"}, {"A": "B"}, ["B"]),
        # A row that lost its identity but lists the same name keeps the skill.
        (["A", "B"], ["A", "B"], {}, {}, []),
        # An identity the saved list doesn't know (a stale page) is a new skill.
        (["A"], ["A", "Q"], {"A": "A", "X": "Q"}, {}, []),
    ],
    ids=["add", "rename", "remove", "swap", "rename-onto-removed", "by-name", "stale-identity"],
)
def test_what_a_new_skill_list_renames_and_removes(old, new, renames, renamed, removed) -> None:
    assert skill_changes(old, new, renames) == (renamed, removed)


def test_the_creator_is_the_gm_and_the_options_are_the_engines(gm) -> None:
    campaign = operations.create_campaign(
        by=gm, name=" Iron  Marches ", description="", system="lucky13", options={"explosion": "gritty"}
    )

    assert campaign.name == "Iron Marches"
    assert campaign.options == lucky13.validate_options({"explosion": "gritty"})
    assert list(campaign.memberships.values_list("user", "role")) == [(gm.pk, "gm")]


def test_bad_options_or_system_create_nothing(gm) -> None:
    with pytest.raises(lucky13.OptionsError):
        operations.create_campaign(by=gm, name="X", description="", system="lucky13", options={"skills": []})
    with pytest.raises(operations.Refused) as refused:
        operations.create_campaign(by=gm, name="X", description="", system="d20", options={})
    assert "system" in refused.value.errors
    assert not Campaign.objects.exists()


def test_renames_reach_every_characters_skills_and_versions(gm, player, campaign) -> None:
    make_character(campaign, player, "Brunella")
    make_character(campaign, player, "Hilde", status="draft")
    options = campaign.settings
    assert options["skills"][2]["name"] == "Healing"  # both sheets have it, as skill 3
    options["skills"][2]["name"] = "Medicine"

    campaign_changes.update_campaign(
        campaign_id=campaign.pk, by=gm, name=campaign.name, description="", options=options,
        renames={"Healing": "Medicine"},
    )  # fmt: skip

    characters = list(Character.objects.order_by("name"))
    for character in characters:
        names = [skill.name for skill in character.document.skills]
        assert "Healing" not in names
        assert character.document.skill(3).name == "Medicine"  # the same skill, by its id
    assert [c.version for c in characters] == [2, 2]
    # Through the one write path: each sheet's history records the rename, and who made it.
    changes = SheetChange.objects.order_by("character__name")
    assert [(c.character.name, c.by, c.sections) for c in changes] == [
        ("Brunella", gm, ["skills", "specializations"]),
        ("Hilde", gm, ["skills", "specializations"]),
    ]
    assert changes[0].before["skills"][2]["name"] == "Healing"
    assert changes[0].after["skills"][2]["name"] == "Medicine"


def test_a_sheet_without_the_renamed_skill_is_left_alone(gm, player, campaign) -> None:
    brunella = make_character(campaign, player, "Brunella")
    sheet = brunella.document.model_dump(mode="json")
    sheet["skills"] = [skill for skill in sheet["skills"] if skill["name"] != "Healing"]
    brunella.sheet = sheet
    brunella.save(update_fields=["sheet"])
    options = campaign.settings
    options["skills"][2]["name"] = "Medicine"

    campaign_changes.update_campaign(
        campaign_id=campaign.pk, by=gm, name=campaign.name, description="", options=options,
        renames={"Healing": "Medicine"},
    )  # fmt: skip

    brunella.refresh_from_db()
    assert brunella.version == 1
    assert not SheetChange.objects.exists()


def test_only_the_gm_updates_under_the_lock(player, campaign) -> None:
    with pytest.raises(operations.NotAllowed):
        campaign_changes.update_campaign(
            campaign_id=campaign.pk, by=player, name="Mine", description="", options={}, renames={}
        )
    campaign.refresh_from_db()
    assert campaign.name == "The Sunken Crown"


def test_handing_over_demotes_then_promotes(gm, player, campaign) -> None:
    target = Membership.objects.get(campaign=campaign, user=player)

    operations.hand_over_gm(campaign_id=campaign.pk, membership_id=target.pk, by=gm)

    assert dict(campaign.memberships.values_list("user__username", "role")) == {
        "gm": "player", "player": "gm", "other_player": "player",
    }  # fmt: skip
    with pytest.raises(operations.NotAllowed):  # the old GM has no GM powers left
        operations.hand_over_gm(campaign_id=campaign.pk, membership_id=target.pk, by=gm)


def test_removing_a_player_archives_and_never_deletes(gm, player, campaign) -> None:
    brunella = make_character(campaign, player, "Brunella")
    member = Membership.objects.get(campaign=campaign, user=player)

    assert campaign_changes.remove_member(campaign_id=campaign.pk, membership_id=member.pk, by=gm) == 1

    brunella.refresh_from_db()
    assert brunella.status == Character.Status.ARCHIVED
    assert not Membership.objects.filter(pk=member.pk).exists()


def test_joining_counts_a_use_and_twice_is_once(gm, outsider, campaign) -> None:
    invitation = Invitation.objects.create(
        campaign=campaign, created_by=gm, expires_at=timezone.now() + timedelta(days=1), max_uses=2
    )

    first = operations.join_campaign(token=invitation.token, user=outsider)
    second = operations.join_campaign(token=invitation.token, user=outsider)

    assert first[1] is True
    assert second == (first[0], False)
    invitation.refresh_from_db()
    assert invitation.uses == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_people_racing_for_a_single_use_link_one_gets_in(gm, campaign, django_user_model, race) -> None:
    """Both reach the invitation at once; the row lock makes the second wait, then see the
    link used up. Without the lock both would read ``uses == 0`` (and the check constraint,
    the last line, would turn the second into an IntegrityError rather than a refusal)."""
    invitation = Invitation.objects.create(
        campaign=campaign, created_by=gm, expires_at=timezone.now() + timedelta(days=1), max_uses=1
    )
    racers = [django_user_model.objects.create(username=f"racer{i}") for i in range(2)]

    def join(user) -> str:
        try:
            operations.join_campaign(token=invitation.token, user=user)
        except operations.Gone as refused:
            return refused.message
        return "joined"

    outcomes = race([functools.partial(join, user) for user in racers])
    assert sorted(outcomes) == sorted(["joined", operations.UNUSABLE["used up"]])
    assert Membership.objects.filter(campaign=campaign, user__in=racers).count() == 1
    invitation.refresh_from_db()
    assert invitation.uses == 1
