"""A character's JSON export, its import into a campaign, and the printable sheet."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import content_disposition_header
from django.views.decorators.csrf import csrf_exempt, csrf_protect
from django.views.decorators.http import require_http_methods, require_safe

from campaigns.access import campaign_for
from characters import access, exchange, sheets
from characters.models import Character


def _full(character: Character) -> Character:
    """The character with its whole sheet loaded, and what ``access`` found out about the viewer."""
    full = sheets.with_sheet(Character.objects.filter(pk=character.pk)).get()
    full.can_edit, full.viewer_is_gm = character.can_edit, character.viewer_is_gm
    return full


@require_safe
def export_character(request: HttpRequest, pk: int) -> HttpResponse:
    """The character as a document of the export schema (docs/character-schema.md), as a download."""
    character = _full(access.character_for(request.user, pk))
    body = json.dumps(exchange.export_character(character), ensure_ascii=False, indent=2) + "\n"
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, exchange.filename(character))
    response["Cache-Control"] = "private, no-store"
    return response


def _submitted(request: HttpRequest) -> bytes | str:
    """The uploaded file or the pasted text; :class:`exchange.DocumentError` if neither or both."""
    upload = request.FILES.get("file")
    pasted = request.POST.get("document", "")
    if upload and pasted.strip():
        raise exchange.DocumentError([("document", "choose a file or paste the document, not both")])
    if upload:
        if upload.size is not None and upload.size > exchange.MAX_BYTES:
            size, limit = upload.size / 1024, exchange.MAX_BYTES // 1024
            raise exchange.DocumentError([("document", f"the file is {size:,.0f} KB; the limit is {limit} KB")])
        return upload.read(exchange.MAX_BYTES + 1)
    if not pasted.strip():
        raise exchange.DocumentError([("document", "choose an exported file, or paste its text")])
    return pasted


def _context(campaign: Any) -> dict[str, Any]:
    return {"campaign": campaign, "fresh_rules": exchange.fresh_rules(campaign), "errors": [], "pasted": ""}


@csrf_exempt  # the CSRF check runs in _import, once the body is known to fit the form's limit
@require_http_methods(["GET", "HEAD", "POST"])
def import_character(request: HttpRequest, campaign_pk: int) -> HttpResponse:
    """Upload or paste an exported character (see :func:`_import`). A body past what the site reads
    at all (more text pasted than the page accepts) is the form again with its message, a 400, and
    nothing read or changed."""
    campaign = campaign_for(request.user, campaign_pk)
    if request.method == "POST":
        try:
            request.POST  # noqa: B018 (reads the body, which may be past the site's limit)
        except (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent):
            size = int(request.META.get("CONTENT_LENGTH") or 0) / 1024
            context = _context(campaign)
            context["errors"] = [
                f"document: what was sent is {size:,.0f} KB; a character document is at most "
                f"{exchange.MAX_BYTES // 1024} KB"
            ]
            return render(request, "characters/import.html", context, status=400)
    return _import(request, campaign)


@csrf_protect
def _import(request: HttpRequest, campaign: Any) -> HttpResponse:
    """Upload or paste an exported character: it joins the campaign as it was exported (a draft
    as that draft, an archived character archived), or as a fresh creation if it is unsigned, or
    waits for the GM if it comes from another campaign."""
    context = _context(campaign)
    if request.method != "POST":
        return render(request, "characters/import.html", context)
    context["pasted"] = request.POST.get("document", "")[: exchange.MAX_BYTES]
    try:
        document = exchange.load_document(_submitted(request))
        character = exchange.import_character(campaign=campaign, owner=request.user, document=document)
    except exchange.DocumentError as problem:
        context["errors"] = problem.messages()
        return render(request, "characters/import.html", context, status=400)
    if exchange.waits_for_gm(character):
        words = exchange.arrival_words(character)
        approval = "it, and it is taken in as said," if character.arrival.get("differs") else "it as it stands"
        messages.success(
            request,
            f"{character.name} joined {campaign.name} as a draft that waits for the GM: {words[0].lower()}{words[1:]}. "
            f"The GM approves {approval} or has it checked as a fresh creation of this campaign."
            + (f" Left behind: {'; '.join(character.arrival['left'])}." if character.arrival.get("left") else ""),
        )
        return redirect("characters:sheet", pk=character.pk)
    reset = exchange.resets(campaign=campaign, document=document, importer=request.user)
    status = {"draft": "a draft", "active": "an active character", "archived": "an archived character"}
    messages.success(
        request,
        f"{character.name} joined {campaign.name} as {status[character.status]}. Started afresh: {'; '.join(reset)}.",
    )
    return redirect("characters:sheet", pk=character.pk)


@require_safe
def print_sheet(request: HttpRequest, pk: int) -> HttpResponse:
    """The whole sheet on one or two A4 or Letter pages (the print rules in static/css/print.css)."""
    character = _full(access.character_for(request.user, pk))
    context = sheets.sheet(character)
    context["attribution"] = character.rules.attribution
    return render(request, sheets.template(character, "print"), context)
