"""The campaign pages: my campaigns, creating and configuring a campaign, the
campaign page with the party, invitations and joining, and the GM's membership tools.

Views are thin: they load through :mod:`campaigns.access`, parse a form, call an
operation from :mod:`campaigns.operations`, and render a page or a partial. The pages that show or
change the campaign's characters too (the campaign page, the settings, a member leaving or removed)
are the table's (:mod:`play.campaign_views`); every campaign URL is in :mod:`play.campaign_urls`.
Pages are ``require_safe``; actions are ``require_POST``, each behind a
confirmation page that works without JavaScript; the two form pages (create,
settings) show their form on GET and save it on POST. A refusal is a page
with its message and the HTTP status it deserves; nothing changes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render, resolve_url
from django.urls import NoReverseMatch, reverse
from django.utils import dateformat, timezone
from django.utils.http import urlencode
from django.utils.timezone import localtime
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import reswap, retarget

from campaigns import access, operations
from campaigns.forms import OPTIONS_FORMS, CampaignForm, InvitationForm, NewCampaignForm, OptionsForm
from campaigns.models import Campaign, Invitation, Membership
from campaigns.operations import Refused
from campaigns.presenters import ago, refusals
from rules import systems
from web.site import absolute_url

# --- My campaigns --------------------------------------------------------------------------------


@require_safe
def campaign_list(request: HttpRequest) -> HttpResponse:
    campaigns = list(access.campaigns_of(request.user))
    now = timezone.now()
    for campaign in campaigns:
        campaign.activity = ago(campaign.last_activity_at, now)
    return render(
        request,
        "campaigns/list.html",
        {
            "campaigns": [c for c in campaigns if not c.archived_at],
            "archived": [c for c in campaigns if c.archived_at],
        },
    )


# --- Creating and configuring --------------------------------------------------------------------

#: The button that redraws the new-campaign page with the options of the rules system chosen (a plain
#: submit without JavaScript; with htmx, changing the system swaps the options alone, this partial).
CHOOSE_SYSTEM = "choose_system"
SYSTEM_OPTIONS = "system-options"
#: The hidden field naming the system whose options the page shows: options posted for another
#: system are never read as the chosen one's.
OPTIONS_SYSTEM = "options_system"


def refresh_partial(options_form: Any, data: Any) -> str | None:
    """The partial that the redraw button pressed redraws (None: no such button was pressed): a system's own
    options form names its buttons and partials in ``REFRESH``; the generated one redraws the options whole."""
    buttons = getattr(options_form, "REFRESH", None)
    if buttons is None:
        return SYSTEM_OPTIONS if OptionsForm.refresh(data) else None
    return next((partial for button, partial in buttons.items() if button in data), None)


def options_form_for(system: str, data: Any, *, options: dict[str, Any] | None = None) -> Any:
    """The options form of ``system`` (None if the system has no options to set), bound to
    ``data``, or, for a redraw button, redrawn as the person left it."""
    rules = systems.get(system)
    options = options or rules.default_options()
    form_class = OPTIONS_FORMS.get(system)
    if form_class is None:
        if not rules.option_fields:
            return None
        form = OptionsForm(data, system=rules, options=options)
        return form.redrawn() if OptionsForm.refresh(data) else form
    known = form_class.known(options)
    if data is not None and refresh_partial(form_class, data):
        preset = data.get("preset") if "load_preset" in data else None
        return form_class.refreshed(data, options=options, known_skills=known, preset=preset)
    return form_class(data, options=options, known_skills=known)


def campaign_form_page(
    request: HttpRequest, context: dict[str, Any], *, status: int = 200, refresh: str | None = None
) -> HttpResponse:
    # With htmx, a refresh button swaps just its list (or, choosing the system, the options); the
    # rest of the page keeps what was typed.
    partial = refresh and request.htmx and not request.htmx.history_restore_request
    if not partial:
        return render(request, "campaigns/form.html", context, status=status)
    if refresh == SYSTEM_OPTIONS:
        context = {**context, "swapped_in": CHOOSE_SYSTEM in request.POST or context.get("system_changed", False)}
        response = render(request, f"campaigns/form.html#{SYSTEM_OPTIONS}", context, status=status)
        # Whichever button asked (a refresh of the options shown for another system, too), the
        # options swap as a whole.
        return reswap(retarget(response, f"#{SYSTEM_OPTIONS}"), "outerHTML")
    return render(request, f"{context['options_form'].template}#{refresh}", context, status=status)


def _show_refusal(form: CampaignForm, options_form: Any, refused: Refused) -> None:
    """An operation's refusal, each message by the field it is about."""
    form.add_error(None, refused.message)
    for key, message in refused.errors.items():
        if key in form.fields:
            form.add_error(key, message)
        elif options_form is not None:
            options_form.add_option_errors({key: message})


def submit_campaign_form(
    request: HttpRequest,
    context: dict[str, Any],
    save: Callable[[dict[str, Any], dict[str, Any], dict[str, str]], Campaign],
    success: str,
) -> HttpResponse:
    """A POST of the campaign form: redraw it for a refresh button, show what is wrong (400),
    or ``save(fields, options, renames)`` and go to the campaign with the ``success`` message."""
    form, options_form, data = context["form"], context["options_form"], request.POST
    refresh = refresh_partial(options_form, data) if options_form is not None else None
    if refresh:
        context["form"] = type(form)(initial=data.dict())
        return campaign_form_page(request, context, refresh=refresh)
    options_valid = options_form.is_valid() if options_form is not None else True
    if not (form.is_valid() and options_valid):
        return campaign_form_page(request, context, status=400)
    try:
        campaign = save(
            form.cleaned_data,
            options_form.options if options_form is not None else {},
            options_form.renames if options_form is not None else {},
        )
    except Refused as refused:
        _show_refusal(form, options_form, refused)
        return campaign_form_page(request, context, status=refused.status)
    messages.success(request, success.format(name=campaign.name))
    return redirect("campaigns:detail", pk=campaign.pk)


def chosen_system(key: object) -> str:
    """The registered system ``key`` names, or the one offered first."""
    return key if isinstance(key, str) and key in systems.registered_keys() else systems.default_key()


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def create_campaign(request: HttpRequest) -> HttpResponse:
    """The new-campaign page, with the options of the system chosen (``?system=<key>``, or the one
    offered first) at their defaults. Choosing another system redraws the page with its options;
    so does a POST whose options were shown for another system than the one now chosen."""
    data = request.POST if request.method == "POST" else None
    if data is None:
        system = chosen_system(request.GET.get("system"))
        return campaign_form_page(request, new_campaign_context(NewCampaignForm(initial={"system": system}), system))
    system = chosen_system(data.get("system"))
    switched = data.get("system") == system and data.get(OPTIONS_SYSTEM, system) != system
    if CHOOSE_SYSTEM in data or switched:
        context = new_campaign_context(NewCampaignForm(initial=data.dict()), system)
        context["system_changed"] = CHOOSE_SYSTEM not in data
        return campaign_form_page(request, context, refresh=SYSTEM_OPTIONS)
    context = new_campaign_context(NewCampaignForm(data), system, data)

    def save(fields: dict[str, Any], options: dict[str, Any], renames: dict[str, str]) -> Campaign:
        return operations.create_campaign(
            by=request.user,
            name=fields["name"],
            description=fields["description"],
            system=fields["system"],
            options=options,
            players_call_rolls=fields["players_call_rolls"],
        )

    return submit_campaign_form(request, context, save, "{name} is ready. Invite your players when you like.")


def new_campaign_context(form: NewCampaignForm, system: str, data: Any = None) -> dict[str, Any]:
    return {
        "form": form,
        "options_form": options_form_for(system, data),
        "system_name": systems.get(system).name,
        "options_system": system,
    }


# --- Invitations ---------------------------------------------------------------------------------


def _invitations_page(
    request: HttpRequest, campaign: Campaign, form: InvitationForm, *, status: int = 200, created: Any = None
) -> HttpResponse:
    invitations = [
        {
            "invitation": i,
            "state": i.state(),
            "url": absolute_url(reverse("campaigns:join", args=[i.token])),
        }
        for i in campaign.invitations.all()
    ]
    partial = request.method == "POST" and request.htmx
    template = "campaigns/invitations.html" + ("#invitations" if partial else "")
    context = {"campaign": campaign, "form": form, "invitations": invitations, "created": created}
    return render(request, template, context, status=status)


@require_safe
@refusals
def invitations(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    return _invitations_page(request, campaign, InvitationForm())


@require_POST
@vary_on_headers("HX-Request")
@refusals
def create_invitation(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    form = InvitationForm(request.POST)
    if not form.is_valid():
        return _invitations_page(request, campaign, form, status=400)
    invitation = operations.create_invitation(
        campaign_id=campaign.pk, by=request.user, days=form.cleaned_data["days"], max_uses=form.max_uses
    )
    if request.htmx:
        return _invitations_page(request, campaign, InvitationForm(), created=invitation)
    messages.success(request, "A new invitation link is ready: copy it from the list and send it to your players.")
    return redirect("campaigns:invitations", pk=campaign.pk)


@require_safe
@refusals
def confirm_revoke_invitation(request: HttpRequest, pk: int, invitation_pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    invitation = access.invitation_for(request.user, campaign, invitation_pk)
    return _confirm(
        request,
        campaign,
        heading="Revoke this invitation?",
        body=[
            f"The link created on {dateformat.format(localtime(invitation.created_at), 'j F Y, H:i')} "
            "stops working at once. "
            "People who already joined with it stay in the campaign."
        ],
        action=reverse("campaigns:revoke-invitation", args=[campaign.pk, invitation.pk]),
        button="Revoke the link",
        cancel=reverse("campaigns:invitations", args=[campaign.pk]),
    )


@require_POST
@refusals
def revoke_invitation(request: HttpRequest, pk: int, invitation_pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    invitation = access.invitation_for(request.user, campaign, invitation_pk)
    operations.revoke_invitation(campaign_id=campaign.pk, invitation_id=invitation.pk, by=request.user)
    messages.success(request, "The invitation is revoked: the link no longer works.")
    return redirect("campaigns:invitations", pk=campaign.pk)


def _unusable(request: HttpRequest, message: str, status: int) -> HttpResponse:
    return render(request, "campaigns/invitation_unusable.html", {"message": message}, status=status)


def _optional_url(name: str) -> str | None:
    try:
        return reverse(name)
    except NoReverseMatch:
        return None


@login_not_required
@require_safe
def join(request: HttpRequest, token: str) -> HttpResponse:
    """The page an invitation link opens: who invites you where, and a Join button.
    Signed out, it offers to log in or sign up and come back here."""
    invitation = Invitation.objects.select_related("campaign").filter(token=token).first()
    if invitation is None:
        return _unusable(request, operations.UNKNOWN_INVITATION, 404)
    campaign = invitation.campaign
    if request.user.is_authenticated and Membership.objects.filter(campaign=campaign, user=request.user).exists():
        messages.info(request, f"You're already a member of {campaign.name}.")
        return redirect("campaigns:detail", pk=campaign.pk)
    state = invitation.state()
    if state != "active":
        return _unusable(request, operations.UNUSABLE[state], 410)
    if campaign.archived_at:
        return _unusable(request, operations.ARCHIVED_NO_JOIN, 410)
    context: dict[str, Any] = {"campaign": campaign, "invitation": invitation}
    if not request.user.is_authenticated:
        back = urlencode({"next": request.get_full_path()})
        context["join_login_url"] = f"{resolve_url(settings.LOGIN_URL)}?{back}"
        signup = _optional_url("signup")
        context["join_signup_url"] = f"{signup}?{back}" if signup else None
    else:
        context["gm"] = next(
            (m.user for m in campaign.memberships.select_related("user") if m.role == Membership.Role.GM), None
        )
    return render(request, "campaigns/join.html", context)


@login_not_required
@require_POST
def accept_invitation(request: HttpRequest, token: str) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("campaigns:join", args=[token]))
    try:
        member, joined = operations.join_campaign(token=token, user=request.user)
    except Refused as refused:
        return _unusable(request, refused.message, refused.status)
    campaign = member.campaign
    if joined:
        messages.success(request, f"Welcome to {campaign.name}! You joined as a player.")
    else:
        messages.info(request, f"You're already a member of {campaign.name}.")
    return redirect("campaigns:detail", pk=campaign.pk)


# --- Members and the campaign's state ------------------------------------------------------------


def _confirm(
    request: HttpRequest,
    campaign: Campaign,
    *,
    heading: str,
    body: list[str],
    action: str,
    button: str,
    cancel: str,
    danger: bool = True,
) -> HttpResponse:
    return render(
        request,
        "campaigns/confirm.html",
        {
            "campaign": campaign,
            "heading": heading,
            "body": body,
            "action": action,
            "button": button,
            "cancel": cancel,
            "danger": danger,
        },
    )


def count_of(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@require_safe
@refusals
def confirm_remove_member(request: HttpRequest, pk: int, member_pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    member = access.member_of(request.user, campaign, member_pk)
    if member.role == Membership.Role.GM:
        raise Refused("The GM can't be removed. Hand the GM role to another member first.")
    name = member.user.get_username()
    return _confirm(
        request,
        campaign,
        heading=f"Remove {name} from {campaign.name}?",
        body=[
            f"{name} will no longer see the campaign.",
            "Their characters here are archived, not deleted: you still find them on the campaign page.",
        ],
        action=reverse("campaigns:remove-member", args=[campaign.pk, member.pk]),
        button=f"Remove {name}",
        cancel=reverse("campaigns:detail", args=[campaign.pk]),
    )


@require_safe
@refusals
def confirm_make_gm(request: HttpRequest, pk: int, member_pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    member = access.member_of(request.user, campaign, member_pk)
    if member.role == Membership.Role.GM:
        raise Refused("You are the GM already.")
    name = member.user.get_username()
    return _confirm(
        request,
        campaign,
        heading=f"Make {name} the GM of {campaign.name}?",
        body=[
            f"{name} becomes the game master: the settings, invitations and members are theirs to manage.",
            "You stay in the campaign as a player. Only the new GM can hand the role back.",
        ],
        action=reverse("campaigns:make-gm", args=[campaign.pk, member.pk]),
        button=f"Make {name} the GM",
        cancel=reverse("campaigns:detail", args=[campaign.pk]),
    )


@require_POST
@refusals
def make_gm(request: HttpRequest, pk: int, member_pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    member = access.member_of(request.user, campaign, member_pk)
    operations.hand_over_gm(campaign_id=campaign.pk, membership_id=member.pk, by=request.user)
    messages.success(request, f"{member.user.get_username()} is now the GM; you are a player.")
    return redirect("campaigns:detail", pk=campaign.pk)


@require_safe
@refusals
def confirm_archive(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    return _confirm(
        request,
        campaign,
        heading=f"Archive {campaign.name}?",
        body=[
            "An archived campaign is read-only: no new invitations, members or characters, and no changes to "
            "its settings. Everything in it stays, and everyone can still look.",
            "You can unarchive it at any time.",
        ],
        action=reverse("campaigns:archive", args=[campaign.pk]),
        button="Archive the campaign",
        cancel=reverse("campaigns:detail", args=[campaign.pk]),
    )


@require_POST
@refusals
def archive(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    operations.archive_campaign(campaign_id=campaign.pk, by=request.user)
    messages.success(request, f"{campaign.name} is archived.")
    return redirect("campaigns:detail", pk=campaign.pk)


@require_safe
@refusals
def confirm_unarchive(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    return _confirm(
        request,
        campaign,
        heading=f"Unarchive {campaign.name}?",
        body=["The campaign opens again: invitations, new characters and settings work as before."],
        action=reverse("campaigns:unarchive", args=[campaign.pk]),
        button="Unarchive the campaign",
        cancel=reverse("campaigns:detail", args=[campaign.pk]),
        danger=False,
    )


@require_POST
@refusals
def unarchive(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    operations.unarchive_campaign(campaign_id=campaign.pk, by=request.user)
    messages.success(request, f"{campaign.name} is open again.")
    return redirect("campaigns:detail", pk=campaign.pk)


@require_safe
@refusals
def confirm_leave(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk)
    if campaign.viewer.role == Membership.Role.GM:
        raise Refused("The GM can't leave their campaign. Hand the GM role to another member first.")
    return _confirm(
        request,
        campaign,
        heading=f"Leave {campaign.name}?",
        body=[
            "You will no longer see the campaign. Your characters here are archived, not deleted.",
            "To come back you need a new invitation from the GM.",
        ],
        action=reverse("campaigns:leave", args=[campaign.pk]),
        button="Leave the campaign",
        cancel=reverse("campaigns:detail", args=[campaign.pk]),
    )
