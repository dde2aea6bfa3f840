"""Who may see and change a character: the campaign's members see it; its owner and
the campaign's GM change it; anyone else gets a 404. Views load characters only through here."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404

from campaigns.models import Membership
from characters.models import Character


def character_for(user: AbstractBaseUser | AnonymousUser, pk: int, *, write: bool = False) -> Character:
    """The character ``pk`` as ``user`` may see it, with ``can_edit`` set; 404 or 403 otherwise."""
    if not user.is_authenticated:
        raise Http404("No such character")
    character = (
        Character.objects.select_related("campaign", "owner").filter(pk=pk).annotate_role(user).with_balances().first()
    )
    # Members see the campaign's characters; a player who left or was removed still sees their own.
    if character is None or (character.viewer_role is None and character.owner_id != user.pk):
        raise Http404("No such character")
    is_gm = character.viewer_role == Membership.Role.GM
    is_owner = character.owner_id == user.pk
    # A draft is the owner's work in progress: the GM may look, other players may not.
    if character.status == Character.Status.DRAFT and not (is_owner or is_gm):
        raise Http404("No such character")
    archived = character.status == Character.Status.ARCHIVED or character.campaign.archived_at is not None
    member = character.viewer_role is not None
    character.can_edit = (is_owner or is_gm) and member and not archived
    character.viewer_is_gm = is_gm
    if write and not character.can_edit:
        if character.campaign.archived_at is not None:
            raise PermissionDenied("This campaign is archived: its sheets can be read but not changed.")
        if character.status == Character.Status.ARCHIVED:
            raise PermissionDenied("This character is archived and can no longer be changed.")
        raise PermissionDenied("Only the character's player and the GM can change this sheet.")
    return character
