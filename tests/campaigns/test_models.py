"""The invariants the database itself holds for campaigns and characters."""

from __future__ import annotations

import json

import pytest
from django.db import IntegrityError, connection, transaction

from campaigns.models import SETTINGS, Campaign, Membership
from characters.models import Character

pytestmark = pytest.mark.django_db


def test_a_campaign_has_at_most_one_gm(campaign, other_player) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.filter(campaign=campaign, user=other_player).update(role=Membership.Role.GM)
    assert Membership.objects.filter(campaign=campaign, role=Membership.Role.GM).count() == 1


def test_a_user_joins_a_campaign_once(campaign, player) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)


def test_a_role_is_gm_or_player(campaign, outsider) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Membership.objects.create(campaign=campaign, user=outsider, role="overlord")


def test_names_are_never_blank(campaign, player) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Campaign.objects.create(name="")
    with pytest.raises(IntegrityError), transaction.atomic():
        Character.objects.create(campaign=campaign, owner=player, name="")


def test_a_campaign_with_characters_cannot_be_deleted(character) -> None:
    """Characters hold players' work: deleting their campaign is refused, not cascaded."""
    from django.db.models import ProtectedError

    with pytest.raises(ProtectedError):
        character.campaign.delete()
    assert Character.objects.filter(pk=character.pk).exists()


def test_visible_to_lists_only_my_campaigns(campaign, player, outsider) -> None:
    assert list(Campaign.objects.visible_to(player)) == [campaign]
    assert list(Campaign.objects.visible_to(outsider)) == []


def test_the_system_choices_come_from_the_rules_registry() -> None:
    field = Campaign._meta.get_field("system")
    assert ("lucky13", "Lucky 13") in field.choices


@pytest.mark.postgres
def test_the_one_gm_rule_is_a_partial_unique_index_on_postgresql() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = %s",
            ["campaigns_membership_one_gm"],
        )
        (definition,) = cursor.fetchone()
    assert "UNIQUE" in definition
    assert "WHERE" in definition


def test_the_settings_are_validated_once_for_the_options_held(campaign, monkeypatch) -> None:
    """A page reads the settings for every row it draws, and a write reads its campaign several times:
    they are the options validated once in the process, for every read of the campaign, and validated
    again only when the options are replaced."""
    SETTINGS.clear()
    calls = []
    validate = campaign.rules.validate_options
    monkeypatch.setattr(type(campaign.rules), "validate_options", lambda self, o: calls.append(o) or validate(o))
    first = campaign.settings
    assert campaign.settings is first
    assert len(calls) == 1
    again = Campaign.objects.get(pk=campaign.pk).settings  # another read of the same options
    assert again == first
    assert len(calls) == 1
    again["skills"][0]["name"] = "Changed"  # each read has its own: a change to one reaches no other
    assert Campaign.objects.get(pk=campaign.pk).settings == first
    campaign.options = {**campaign.options, "explosion": "gritty"}
    assert campaign.settings["explosion"] == "gritty"
    assert len(calls) == 2


def test_the_settings_key_is_what_the_settings_are_worked_out_from(campaign) -> None:
    """Kept fragments are keyed by the options held (``settings_key``) in place of the settings themselves: the
    same options, the same key and settings; other options or another system, another key."""
    key = campaign.settings_key
    assert key == (campaign.system, json.dumps(campaign.options, separators=(",", ":")))
    again = Campaign.objects.get(pk=campaign.pk)
    assert (again.settings_key, again.settings) == (key, campaign.settings)
    campaign.options = {**campaign.options, "explosion": "gritty"}
    assert campaign.settings_key != key
    assert campaign.settings["explosion"] == "gritty"
    campaign.system, campaign.options = "d6", {}
    assert campaign.settings_key == ("d6", "{}")
