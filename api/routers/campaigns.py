"""The API's campaigns endpoints: my campaigns, creating and changing one, invitations and joining.

Each loads through :mod:`campaigns.access` and changes through :mod:`campaigns.operations`,
as the campaign pages do; the rules system checks the options (``validate_options``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Final, Literal

from django.http import HttpRequest
from django.urls import reverse
from ninja import Field, Path, Router, Schema, Status
from pydantic import AfterValidator, ConfigDict, StrictInt, StringConstraints

from api.errors import responses
from api.params import LINES, ONE_LINE, PathId
from campaigns import access, operations
from campaigns.models import Campaign, Invitation, Membership
from campaigns.operations import MAX_INVITATION_DAYS, Refused
from characters import campaign_changes
from rules import systems
from rules.systems.base import OptionsError
from web.site import absolute_url

router = Router(tags=["Campaigns"])

#: More renames than any campaign's option lists hold (the rules system bounds each list itself).
MAX_RENAMES: Final = 100

#: What the campaign forms accept (``campaigns.forms.CampaignForm``): longer is a 422, never a database error.
MAX_NAME = 120
MAX_DESCRIPTION = 5000
#: The database's limit for a count of uses (a PositiveIntegerField on PostgreSQL).
MAX_USES = 2**31 - 1

SkillName = Annotated[str, StringConstraints(max_length=200, pattern=ONE_LINE)]


def _without_nul(value: Any) -> Any:
    """Options are any JSON the rules system reads; no text in them (key or value) may hold NUL,
    which PostgreSQL cannot store and the pages' forms refuse."""
    left = [value]
    while left:
        item = left.pop()
        if isinstance(item, str) and "\x00" in item:
            raise ValueError("text may not contain the NUL character")
        if isinstance(item, dict):
            left.extend([*item.keys(), *item.values()])
        elif isinstance(item, list):
            left.extend(item)
    return value


Options = Annotated[dict[str, Any], AfterValidator(_without_nul)]


# --- Schemas -------------------------------------------------------------------------------------


class MemberOut(Schema):
    id: int = Field(description="The membership's id.")
    username: str
    role: Literal["gm", "player"]
    joined_at: datetime


class CampaignOut(Schema):
    id: int
    name: str
    description: str
    system: str = Field(description='The rules system\'s key, e.g. "lucky13".')
    options: dict[str, Any] = Field(description="The options with their defaults filled in, as the rules read them.")
    role: Literal["gm", "player"] = Field(description="Your role in the campaign.")
    players_call_rolls: bool = Field(
        description="Players may roll freely, setting their own difficulty (self-called); otherwise they roll what "
        "the GM calls for."
    )
    archived_at: datetime | None = Field(description="When the GM archived it (read-only since); null if open.")
    created_at: datetime
    last_activity_at: datetime


class CampaignDetail(CampaignOut):
    members: list[MemberOut] = Field(description="The GM first, then the players by name.")


class CampaignIn(Schema):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, StringConstraints(max_length=MAX_NAME, pattern=ONE_LINE)]
    description: Annotated[str, StringConstraints(max_length=MAX_DESCRIPTION, pattern=LINES)] = ""
    system: Annotated[str, StringConstraints(max_length=20, pattern=ONE_LINE)] = Field(
        default_factory=systems.default_key, description="The rules system's key; the first that ships when left out."
    )
    options: Options | None = Field(
        None, description="Campaign options of the rules system; whatever is left out takes its default."
    )
    players_call_rolls: bool = Field(False, description="Players may roll freely, setting their own difficulty.")


class CampaignPatch(Schema):
    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, StringConstraints(max_length=MAX_NAME, pattern=ONE_LINE)] | None = None
    description: Annotated[str, StringConstraints(max_length=MAX_DESCRIPTION, pattern=LINES)] | None = None
    players_call_rolls: bool | None = None
    options: Options | None = Field(
        None,
        description="Merged key by key into the campaign's options (as JSON Merge Patch, RFC 7396): a key given "
        "replaces that option, a key set to null goes back to its default, a key left out stays as it is. "
        'To load a skill preset, send `{"skill_preset": "sci_fi", "skills": null}`.',
    )
    renames: dict[SkillName, SkillName] | None = Field(
        None,
        max_length=MAX_RENAMES,
        description="Old skill name → new name, for skills renamed in `options.skills`: characters' skills follow. "
        "A skill that characters have can be renamed but not removed.",
    )


class InvitationIn(Schema):
    model_config = ConfigDict(extra="forbid")

    days: StrictInt = Field(7, ge=1, le=MAX_INVITATION_DAYS, description="How many days the link stays open.")
    max_uses: StrictInt | None = Field(
        1, ge=1, le=MAX_USES, description="How many people can join with it; null for any number until it expires."
    )


class InvitationOut(Schema):
    id: int
    token: str
    url: str = Field(description="The join page to send to players.")
    expires: datetime
    max_uses: int | None


class MembershipOut(Schema):
    id: int = Field(description="The membership's id.")
    campaign: int = Field(description="The campaign's id.")
    role: Literal["gm", "player"]
    joined_at: datetime


# --- Helpers -------------------------------------------------------------------------------------


class InvalidOptions(Refused):
    code = "invalid_options"


def _options_refused(error: OptionsError) -> InvalidOptions:
    """The rules system's message for each bad option, as a 400 that names them."""
    listed = "; ".join(f"{key}: {message}" for key, message in error.errors.items())
    return InvalidOptions(f"Some options are not valid: {listed}.", errors=error.errors)


def _campaign(campaign: Campaign, role: str) -> dict[str, Any]:
    return {
        "id": campaign.pk,
        "name": campaign.name,
        "description": campaign.description,
        "system": campaign.system,
        "options": campaign.settings,
        "role": role,
        "players_call_rolls": campaign.players_call_rolls,
        "archived_at": campaign.archived_at,
        "created_at": campaign.created_at,
        "last_activity_at": campaign.last_activity_at,
    }


def _detail(campaign: Campaign) -> dict[str, Any]:
    """A campaign loaded by :func:`campaigns.access.campaign_for`, with its members."""
    return {
        **_campaign(campaign, campaign.viewer.role),
        "members": [
            {"id": m.pk, "username": m.user.get_username(), "role": m.role, "joined_at": m.joined_at}
            for m in campaign.memberships.all()
        ],
    }


def _invitation(invitation: Invitation) -> dict[str, Any]:
    return {
        "id": invitation.pk,
        "token": invitation.token,
        "url": absolute_url(reverse("campaigns:join", args=[invitation.token])),
        "expires": invitation.expires_at,
        "max_uses": invitation.max_uses,
    }


def _membership(member: Membership) -> dict[str, Any]:
    return {"id": member.pk, "campaign": member.campaign_id, "role": member.role, "joined_at": member.joined_at}


# --- Endpoints -----------------------------------------------------------------------------------


@router.get("/campaigns", response=responses({200: list[CampaignOut]}), summary="My campaigns")
def list_campaigns(request: HttpRequest) -> list[dict[str, Any]]:
    """Every campaign you are a member of, the most recently active first (archived ones too)."""
    return [_campaign(campaign, campaign.my_role) for campaign in access.campaigns_of(request.user)]


@router.post("/campaigns", response=responses({201: CampaignDetail}, 400, 413), summary="Create a campaign")
def create_campaign(request: HttpRequest, campaign: CampaignIn) -> Status:
    """A new campaign with you as its GM. The rules system checks the options; each bad one is
    named in `errors` (400)."""
    try:
        created = operations.create_campaign(
            by=request.user,
            name=campaign.name,
            description=campaign.description,
            system=campaign.system,
            options=campaign.options or {},
            players_call_rolls=campaign.players_call_rolls,
        )
    except OptionsError as error:
        raise _options_refused(error) from None
    return Status(201, _detail(access.campaign_for(request.user, created.pk)))


@router.get("/campaigns/{id}", response=responses({200: CampaignDetail}, 404), summary="A campaign")
def get_campaign(request: HttpRequest, id: PathId) -> dict[str, Any]:
    """The campaign and its members; only members see it (404 for anyone else)."""
    return _detail(access.campaign_for(request.user, id))


@router.patch(
    "/campaigns/{id}",
    response=responses({200: CampaignDetail}, 400, 403, 404, 409, 413),
    summary="Change a campaign (GM)",
)
def update_campaign(request: HttpRequest, id: PathId, changes: CampaignPatch) -> dict[str, Any]:
    """The GM changes the name, the description and the options; players get 403. Nobody's
    character loses anything: a skill characters have can be renamed (`renames`) but not
    removed, and an option the characters' played state is measured by stays fixed once they
    have one (409, as for an archived campaign)."""
    campaign = access.campaign_for(request.user, id, gm=True)
    options = dict(campaign.options)
    for key, value in (changes.options or {}).items():
        if value is None:
            options.pop(key, None)
        else:
            options[key] = value
    try:
        campaign_changes.update_campaign(
            campaign_id=campaign.pk,
            by=request.user,
            name=changes.name if changes.name is not None else campaign.name,
            description=changes.description if changes.description is not None else campaign.description,
            options=options,
            renames=changes.renames or {},
            players_call_rolls=changes.players_call_rolls,
        )
    except OptionsError as error:
        raise _options_refused(error) from None
    return _detail(access.campaign_for(request.user, campaign.pk))


@router.post(
    "/campaigns/{id}/invitations",
    response=responses({201: InvitationOut}, 400, 403, 404, 409, 413),
    summary="Create an invitation link (GM)",
)
def create_invitation(request: HttpRequest, id: PathId, invitation: InvitationIn) -> Status:
    """A link that lets signed-in people join as players: single use by default, open for
    `days` days. Send its `url` to your players; an API client accepts with the `token`."""
    campaign = access.campaign_for(request.user, id, gm=True)
    created = operations.create_invitation(
        campaign_id=campaign.pk, by=request.user, days=invitation.days, max_uses=invitation.max_uses
    )
    return Status(201, _invitation(created))


@router.post(
    "/invitations/{token}/accept",
    response=responses({200: MembershipOut, 201: MembershipOut}, 404, 410),
    summary="Join a campaign with an invitation",
)
def accept_invitation(request: HttpRequest, token: Annotated[str, Path(pattern=ONE_LINE)]) -> Status:
    """You join the invitation's campaign as a player (201), or get your membership if you are
    a member already (200, no use counted). An unknown token is a 404; a link that was revoked,
    has expired or is used up, or a campaign that is archived, is a 410 that says which."""
    member, joined = operations.join_campaign(token=token, user=request.user)
    return Status(201 if joined else 200, _membership(member))
