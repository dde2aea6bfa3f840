"""The roll log page, verifying it, revealing a secret roll, and the free dice box.

Thin views: load through :mod:`campaigns.access`, parse the query or the form,
call :mod:`play.rolls`, render a page or a partial. The log is read newest
first by keyset (``?before=<seq>``), never by OFFSET, so a deep page costs what
the first one does.
"""

from __future__ import annotations

import secrets
from typing import Any, Final

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_POST, require_safe
from django.views.decorators.vary import vary_on_headers

from campaigns import access
from campaigns.models import Campaign, Membership
from campaigns.operations import Refused
from campaigns.presenters import refusals
from characters import access as character_access
from characters.models import Character
from play import chain, roll_rows, rolls
from play.models import Roll
from play.presenters import roll_summary
from play.templatetags import kept
from web import limits
from web.fields import name_start, whole_key

#: Rolls on a page of the log.
PAGE_SIZE: Final = 25
#: Characters the log's character filter offers at once (by name); the rest are found by name.
CHARACTER_CHOICES: Final = 30
#: The longest start of a name the filter's name box takes: as long as the name column.
MAX_NAME_START: Final = Character._meta.get_field("name").max_length


def _is_gm(campaign: Campaign) -> bool:
    return campaign.viewer.role == Membership.Role.GM  # type: ignore[attr-defined]


def _group_view(group: dict[str, Any]) -> dict[str, Any]:
    """A stored group of dice, split into the dice that count and the dice a keep term dropped."""
    dice = group.get("dice", [])
    kept = [d for d in dice if d.get("kept", True)]
    dropped = [d for d in dice if not d.get("kept", True)]
    return {
        "label": group.get("label", ""),
        "total": group.get("total"),
        "kept": {"label": group.get("label", ""), "dice": kept},
        "dropped": {"label": f"{group.get('label', '')}, dropped", "dice": dropped} if dropped else None,
    }


def hidden_from(roll: Roll, *, gm: bool) -> bool:
    """Whether the viewer sees only the placeholder of the roll: a player, of a secret roll not yet revealed."""
    return bool(roll.secret and not gm and roll.revealed_at is None)


def roll_entry(roll: Roll, *, gm: bool) -> dict[str, Any]:
    """What the log shows of one roll. A secret roll not yet revealed is, to players, only a placeholder."""
    hidden = hidden_from(roll, gm=gm)
    entry: dict[str, Any] = {"roll": roll, "hidden": hidden, "can_reveal": gm and roll.secret and not roll.revealed_at}
    if hidden:
        return entry
    # Only past the placeholder: a secret roll's words are as secret as its dice.
    entry["label"] = rolls.label_of(roll)
    entry["kind_label"] = rolls.kind_label(roll)
    entry["worded"] = rolls.worded(roll)
    entry["summary"] = roll_summary(roll)
    entry["called"] = called_words(roll.spec)
    if isinstance(roll.dice, list) and all(isinstance(g, dict) and "dice" in g for g in roll.dice):
        entry["groups"] = [_group_view(g) for g in roll.dice]  # the dice box's groups
    elif isinstance(roll.dice, dict):  # a check or an opposed roll: the presenter's view, with its pools
        entry["view"] = roll.dice
    else:  # any other system's dice as it records them: their faces, in order
        entry["faces"] = [str(face) for face in _faces(roll.dice)]
    return entry


def called_words(spec: Any) -> str:
    """Who called a sheet roll ("The GM's calls"): the GM's request, the GM's own roll, or the player's
    own (self-called); "" for a roll that says nothing of it (older rows, the dice box, encounters)."""
    call = spec.get("call") if isinstance(spec, dict) else None
    if not isinstance(call, dict):
        return ""
    if call.get("request") is not None:
        return f"called by {call.get('by') or 'the GM'}"
    if call.get("self"):
        return "self-called"
    return "the GM's roll" if call.get("gm") else ""


def _faces(dice: Any) -> list[Any]:
    """Every face of a roll's recorded dice (JSON), nested lists flattened, in order."""
    if isinstance(dice, list | tuple):
        return [face for part in dice for face in _faces(part)]
    return [] if dice is None else [dice]


class BadQuery(Refused):
    status = 400


def _positive(value: str, name: str) -> int:
    number = whole_key(value)
    if number is None:
        raise BadQuery(f"The {name} must be a whole number of 1 or more, not {value[:20]!r}.")
    return number


def _filters(request: HttpRequest, system: str) -> dict[str, Any]:
    """The log's query as typed: ``character`` (an id; whether the viewer may see it is the view's
    one query), ``kind`` (one of the kinds a campaign of ``system`` logs), ``before`` (a seq)."""
    query: dict[str, Any] = {}
    if character := request.GET.get("character", ""):
        query["character"] = _positive(character, "character")
    if kind := request.GET.get("kind", ""):
        known = rolls.log_kinds(system)
        if kind not in known:
            raise BadQuery(f"{kind[:20]!r} is not a kind of roll; choose one of {', '.join(known)}.")
        query["kind"] = kind
    if before := request.GET.get("before", ""):
        query["before"] = _positive(before, "roll number")
    return query


def _name_start(request: HttpRequest) -> str:
    """``character_name``: the start of a name that narrows the character filter's choice, trimmed;
    one line that fits the name column, or a 400."""
    typed = name_start(request.GET.get("character_name", ""), MAX_NAME_START)
    if typed is None:
        raise BadQuery(f"Find a character by the start of their name: one line of at most {MAX_NAME_START} characters.")
    return typed


def _character_filter(request: HttpRequest, campaign: Campaign, query: dict[str, Any]) -> dict[str, Any]:
    """What the character filter offers: the first :data:`CHARACTER_CHOICES` characters the viewer
    may see by name (those whose name starts with ``character_name`` when it is given), and the
    filtered character among them wherever it falls. Two queries at most, however large the party:
    the choice, and the filtered character by its id (a 400 if the viewer may not see it)."""
    name_start = _name_start(request)
    selected = None
    if "character" in query:
        selected = character_access.character_choice(campaign, request.user, query["character"])
        if selected is None:
            raise BadQuery("There is no such character in this campaign.")
    choices = character_access.character_choices(
        campaign, request.user, limit=CHARACTER_CHOICES + 1, name_starts=name_start
    )
    more = len(choices) > CHARACTER_CHOICES
    choices = choices[:CHARACTER_CHOICES]
    found = len(choices)
    if selected is not None and all(c.pk != selected.pk for c in choices):
        choices = sorted([*choices, selected], key=lambda c: (c.name, c.pk))
    if name_start and not found:
        note = f"No character’s name starts with “{name_start}”."
    elif more and name_start:
        note = f"The first {CHARACTER_CHOICES} characters whose name starts with “{name_start}”: type more of it."
    elif more:
        note = f"The first {CHARACTER_CHOICES} characters by name: for another, type the start of their name and Show."
    else:
        note = ""
    return {
        "choices": choices,
        "note": note,
        "name_start": name_start,
        "max_length": MAX_NAME_START,
        # The name box only where a choice can be cut short: a small party is simply listed.
        "searchable": more or bool(name_start),
    }


@require_safe
@vary_on_headers("HX-Request")
@refusals
def roll_log(request: HttpRequest, pk: int) -> HttpResponse:
    """Newest first, a page at a time. Five queries however long the log and however large the party:
    the session with its user, the campaign and its members (access.campaign_for), the first characters
    by name for the filter, and the page of rolls with who rolled, their character and any reveal;
    a sixth, by its id, when the log is filtered by a character."""
    campaign = access.campaign_for(request.user, pk)
    gm = _is_gm(campaign)
    query = _filters(request, campaign.system)
    character_filter = _character_filter(request, campaign, query)
    filtered = "character" in query or "kind" in query
    rows = Roll.objects.filter(campaign=campaign).for_viewer(gm=gm, filtered=filtered)
    if "character" in query:
        rows = rows.filter(character_id=query["character"])
    if "kind" in query:
        rows = rows.filter(kind=query["kind"])
    if "before" in query:
        rows = rows.filter(seq__lt=query["before"])
    page = list(rows.select_related("by", "character", "reveal").newest_first()[: PAGE_SIZE + 1])
    more = len(page) > PAGE_SIZE
    page = page[:PAGE_SIZE]
    for roll in page:  # the campaign at hand, should an old row need its system for its words
        roll.campaign = campaign
    keep = {k: v for k, v in query.items() if k != "before"}
    if character_filter["name_start"]:  # the pages keep the narrowed choice too
        keep["character_name"] = character_filter["name_start"]
    context = {
        "campaign": campaign,
        "is_gm": gm,
        "entries": [roll_entry(r, gm=gm) for r in page],
        "character_filter": character_filter,
        "kinds": list(rolls.log_kinds(campaign.system).items()),
        "query": query,
        "older_url": f"?{urlencode({**keep, 'before': page[-1].seq})}" if more else None,
        "newest_url": f"?{urlencode(keep)}" if "before" in query else None,
    }
    partial = request.htmx and not request.htmx.history_restore_request
    return render(request, "play/rolls.html" + ("#roll-list" if partial else ""), context)


@require_safe
@vary_on_headers("HX-Request")
@limits.limited(limits.VERIFY)
@refusals
def verify_log(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk)
    report = chain.verify(campaign)
    template = "play/_roll_verify.html" if request.htmx else "play/rolls_verify.html"
    return render(request, template, {"campaign": campaign, "report": report})


@require_POST
@refusals
def reveal_roll(request: HttpRequest, pk: int, seq: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    reveal = rolls.reveal_roll(campaign_id=campaign.pk, seq=seq, by=request.user)
    if request.htmx:
        roll = Roll.objects.select_related("by", "character", "reveal").get(pk=reveal.roll_id)
        return render(request, "play/_roll.html", {"entry": roll_entry(roll, gm=True), "campaign": campaign})
    messages.success(request, f"Roll #{seq} is now visible to every member.")
    return redirect(reverse("play:rolls", args=[campaign.pk]) + f"#roll-{seq}")


def _summary(roll: Roll) -> str:
    """A free roll in one line, for the message shown after a roll made without JavaScript."""

    def die(d: dict[str, Any]) -> str:
        return "+".join(map(str, d["faces"])) + ("" if d["kept"] else " dropped")

    dice = "; ".join(f"{g['label']}: " + ", ".join(die(d) for d in g["dice"]) for g in roll.dice)
    secret = " (secret)" if roll.secret else ""
    return f"You rolled {roll.label}{secret}: {roll.total} ({dice})."


#: The dice box's answer: the roll's row of the log, or why nothing was rolled.
ANSWER_TEMPLATE: Final = "play/_roll_free_result.html"


def _answer(request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
    """The dice box's answer to the roll of ``context["entry"]``, as :data:`ANSWER_TEMPLATE` draws it: the row
    the live feed drew of the roll a moment ago (``kept.rows``), in its list, with no template run (the
    template's interpreter cost as much as the row). A row with the Reveal button, whose form carries the page's
    CSRF token, is the template's to draw; under ``settings.KEPT_CHECKED`` the template draws every answer too,
    and must draw the same bytes."""
    entry = context["entry"]
    if not roll_rows.drawable(entry):
        return render(request, ANSWER_TEMPLATE, context)
    drawn = f'<ol class="roll-log">{kept.row_of(entry)}</ol>\n'
    if settings.KEPT_CHECKED:
        expected = render_to_string(ANSWER_TEMPLATE, context, request)
        if drawn != expected:
            raise AssertionError(
                f"the dice box's answer was drawn otherwise than {ANSWER_TEMPLATE}:\n{drawn!r}\n{expected!r}"
            )
    return HttpResponse(drawn)


@require_POST
@limits.limited(limits.ROLLS, limits.DICE_BOX)
@refusals
def free_roll(request: HttpRequest, pk: int) -> HttpResponse:
    """Roll a free expression; with htmx the result replaces the dice box's result region. The campaign and
    the roller's role in it are read once, locked, as the roll is recorded (``rolls.record_roll``: a 404 for
    anyone but a member, nothing written); only an expression refused before that reads the membership here,
    so that an outsider gets the 404 and not the form's message."""
    text = request.POST.get("expression", "")
    explode, secret = bool(request.POST.get("explode")), bool(request.POST.get("secret"))
    typed = {"typed": text[:200], "explode": explode, "secret": secret}
    try:
        roll = rolls.roll_free(
            campaign_id=pk,
            by=request.user,
            text=text,
            explode=explode,
            secret=secret,
            rng=secrets.SystemRandom(),
        )
    except Refused as refused:
        if refused.status != 400:
            raise
        campaign = access.campaign_of_member(request.user, pk)  # it shows none of the other members
        context = {"campaign": campaign, "is_gm": _is_gm(campaign), "error": refused.message, **typed}
        template = "play/_roll_free_result.html" if request.htmx else "play/rolls_free.html"
        return render(request, template, context, status=400)
    campaign = roll.campaign
    if request.htmx:
        gm = campaign.roller_role == Membership.Role.GM  # type: ignore[attr-defined]
        context = {"campaign": campaign, "is_gm": gm, "entry": roll_entry(roll, gm=True), **typed}
        return _answer(request, context)
    messages.success(request, _summary(roll))
    return redirect(reverse("campaigns:detail", args=[campaign.pk]) + "#dice-box")
