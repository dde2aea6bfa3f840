"""A character is archived by its player or the GM and restored by the GM, after a confirmation,
through the sheet's one write path: into play if it was finished, as its draft otherwise."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns import operations as campaign_operations
from campaigns.errors import Conflict, NotAllowed
from campaigns.models import Membership
from characters import campaign_changes, lifecycle, write
from characters.models import Character, SheetChange
from tests.characters.conftest import make_character
from tests.systems.lucky13 import drafts as creation

pytestmark = pytest.mark.django_db


def archive_url(character: Character) -> str:
    return reverse("characters:archive", args=[character.pk])


def restore_url(character: Character) -> str:
    return reverse("characters:restore", args=[character.pk])


def history(character: Character) -> list[str]:
    return list(SheetChange.objects.filter(character=character).order_by("pk").values_list("what", flat=True))


def test_the_player_archives_after_confirming_and_the_gm_restores(client, campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    sheet = brunella.sheet
    client.force_login(player)
    assert archive_url(brunella) in client.get(reverse("characters:sheet", args=[brunella.pk])).text
    confirm = client.get(archive_url(brunella))
    assert confirm.status_code == 200
    assert "Archive Brunella?" in confirm.text
    assert f'name="version" value="{brunella.version}"' in confirm.text
    assert Character.objects.get(pk=brunella.pk).status == "active"  # a GET changes nothing

    response = client.post(archive_url(brunella), {"version": str(brunella.version)})
    assert response.status_code == 302
    assert response["Location"] == reverse("characters:sheet", args=[brunella.pk])
    archived = Character.objects.get(pk=brunella.pk)
    assert (archived.status, archived.version, archived.sheet) == ("archived", brunella.version + 1, sheet)
    assert history(archived)[-1] == "Archived"
    page = client.get(reverse("characters:sheet", args=[brunella.pk])).text
    assert restore_url(brunella) not in page  # the GM's to restore
    assert archive_url(brunella) not in page

    client.force_login(gm)
    assert restore_url(brunella) in client.get(reverse("campaigns:detail", args=[campaign.pk])).text
    assert restore_url(brunella) in client.get(reverse("characters:sheet", args=[brunella.pk])).text
    assert "comes back into play" in client.get(restore_url(brunella)).text
    response = client.post(restore_url(brunella), {"version": str(archived.version)})
    assert response.status_code == 302
    restored = Character.objects.get(pk=brunella.pk)
    assert (restored.status, restored.sheet) == ("active", sheet)
    assert history(restored)[-2:] == ["Archived", "Restored"]


@pytest.mark.parametrize(("who", "status"), [("other_player", 403), ("outsider", 404)])
def test_only_the_player_and_the_gm_archive(client, campaign, player, request, who, status) -> None:
    brunella = make_character(campaign, player)
    client.force_login(request.getfixturevalue(who))
    assert client.get(archive_url(brunella)).status_code == status
    assert client.post(archive_url(brunella), {"version": str(brunella.version)}).status_code == status
    assert Character.objects.get(pk=brunella.pk).status == "active"


def test_the_gm_archives_too_and_a_player_cannot_restore(client, campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    client.force_login(gm)
    assert client.post(archive_url(brunella), {"version": str(brunella.version)}).status_code == 302
    brunella.refresh_from_db()
    client.force_login(player)
    assert client.get(restore_url(brunella)).status_code == 403
    assert client.post(restore_url(brunella), {"version": str(brunella.version)}).status_code == 403
    with pytest.raises(NotAllowed):
        lifecycle.restore(character_id=brunella.pk, version=brunella.version, by=player)
    assert Character.objects.get(pk=brunella.pk).status == "archived"


def test_a_stale_or_missing_version_changes_nothing(client, campaign, player) -> None:
    brunella = make_character(campaign, player)
    client.force_login(player)
    stale = client.post(archive_url(brunella), {"version": str(brunella.version - 1)})
    assert stale.status_code == 409
    assert "Nothing was changed." in stale.text
    for bad in ("", "²", "-1", "x"):
        response = client.post(archive_url(brunella), {"version": bad})
        assert response.status_code == 400
    assert Character.objects.get(pk=brunella.pk).status == "active"
    assert "Archived" not in history(brunella)


def test_archiving_twice_is_refused(campaign, player) -> None:
    brunella = make_character(campaign, player, status="archived")
    with pytest.raises(Conflict, match="already archived"):
        lifecycle.archive(character_id=brunella.pk, version=brunella.version, by=player)


def test_a_removed_players_character_waits_for_them_to_come_back(client, campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    member = campaign.memberships.get(user=player)
    campaign_changes.remove_member(campaign_id=campaign.pk, membership_id=member.pk, by=gm)
    brunella.refresh_from_db()
    assert brunella.status == "archived"
    client.force_login(gm)
    response = client.post(restore_url(brunella), {"version": str(brunella.version)})
    assert response.status_code == 409
    assert "invite them back first" in response.text
    assert Character.objects.get(pk=brunella.pk).status == "archived"

    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    restored = lifecycle.restore(character_id=brunella.pk, version=brunella.version, by=gm)
    assert restored.status == "active"


def test_an_unfinished_draft_comes_back_as_the_draft_it_was(client, campaign, gm, player) -> None:
    draft = creation.start_character(campaign=campaign, owner=player, name="Half-done Hilde")
    member = campaign.memberships.get(user=player)
    campaign_changes.remove_member(campaign_id=campaign.pk, membership_id=member.pk, by=gm)
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    draft.refresh_from_db()
    client.force_login(gm)
    assert "comes back as a draft" in client.get(restore_url(draft)).text
    assert client.post(restore_url(draft), {"version": str(draft.version)}).status_code == 302
    assert Character.objects.get(pk=draft.pk).status == "draft"


def test_nothing_moves_in_an_archived_campaign(campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    campaign_operations.archive_campaign(campaign_id=campaign.pk, by=gm)
    with pytest.raises(Conflict, match="campaign is archived"):
        lifecycle.archive(character_id=brunella.pk, version=brunella.version, by=gm)


def test_the_move_is_announced_to_open_pages(campaign, player, django_capture_on_commit_callbacks) -> None:
    brunella = make_character(campaign, player)
    heard = []

    def listen(sender, character_id, **kwargs) -> None:
        heard.append(character_id)

    write.character_changed.connect(listen)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            lifecycle.archive(character_id=brunella.pk, version=brunella.version, by=player)
    finally:
        write.character_changed.disconnect(listen)
    assert heard == [brunella.pk]


def test_the_message_after_a_move_is_a_status_that_keeps_its_list(client, campaign, player) -> None:
    brunella = make_character(campaign, player)
    client.force_login(player)
    page = client.post(archive_url(brunella), {"version": str(brunella.version)}, follow=True).text
    assert '<div role="status"><ul class="messages"><li class="message success">Brunella is archived' in page


def test_a_departure_is_in_each_characters_history_with_who_and_why(client, campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    draft = creation.start_character(campaign=campaign, owner=player, name="Half-done Hilde")
    member = campaign.memberships.get(user=player)
    assert campaign_changes.remove_member(campaign_id=campaign.pk, membership_id=member.pk, by=gm) == 2
    for character in (brunella, draft):
        before = character.sheet
        character.refresh_from_db()
        entry = SheetChange.objects.filter(character=character).latest("pk")
        assert entry.what == f"Archived: {player.get_username()} was removed from the campaign by the GM"
        assert (entry.by, entry.version, entry.before, entry.after) == (gm, character.version, before, before)
    client.force_login(gm)
    assert (
        "was removed from the campaign by the GM" in client.get(reverse("characters:history", args=[brunella.pk])).text
    )


def test_a_player_who_leaves_is_named_in_their_characters_history(campaign, player) -> None:
    brunella = make_character(campaign, player)
    campaign_changes.leave_campaign(campaign_id=campaign.pk, user=player)
    entry = SheetChange.objects.filter(character=brunella).latest("pk")
    assert (entry.what, entry.by) == (f"Archived: {player.get_username()} left the campaign", player)
    assert Character.objects.get(pk=brunella.pk).status == "archived"
