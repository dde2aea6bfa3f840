"""The character sheet pages, and editing the sheet in place, section by section.

Each region of the sheet is a partial of its system's ``systems/<key>/sheet.html`` named
``section-<region>``, whose DOM id is the region. With htmx, Edit swaps the
region for its form and Save swaps the region back, read-only and current;
without JavaScript, Edit is a link to a page with just that form, and Save
redirects to the sheet. Who may edit what is the system's ``edit_sections``; where each shows,
their ``region`` (sections may share one: each then has an Edit button that names it).
"""

from __future__ import annotations

import json
from typing import Any, Final

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.functional import SimpleLazyObject
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers

from campaigns.errors import Refused
from characters import access, exchange, operations, sheets, write
from characters.editing import SectionEdit, edit_for
from characters.models import Character, LedgerEntry
from rules.systems.base import EditSection
from web import whole_pages
from web.fields import version_number
from web.kept import Kept
from web.templatetags.urls import kept_reverse

#: How many of the latest Adventure-Point entries the sheet shows (the ledger page has them all).
LATEST_ENTRIES = 3
#: Sheet pages kept whole per process (:func:`sheet`; some 10 to 20 KB each, split at the CSRF token): one for each
#: sheet, viewer and browser looking while nothing it shows changes.
KEPT_PAGES: Final = 256
#: The sheet pages kept whole, each as the bytes around its CSRF token.
pages: Kept[tuple[bytes, ...]] = Kept(KEPT_PAGES)

CONFLICT = (
    "Someone else changed this section since you opened it. Here is what it says now; your changes were not saved"
)
NO_VERSION = (
    "This form did not say which version of the sheet it was made from, so nothing was saved. "
    "Here is what the section says now"
)


def _full(character: Character) -> Character:
    """The character as it is now, with everything its sheet shows, keeping what ``access`` found out."""
    full = sheets.with_sheet(Character.objects.filter(pk=character.pk)).get()
    full.can_edit, full.viewer_is_gm = character.can_edit, character.viewer_is_gm
    return full


def _edit_links(
    character: Character, request: HttpRequest, focus: str, region: str | None = None
) -> dict[str, list[dict[str, Any]]]:
    """The Edit buttons of each region (keyed with ``_`` for templates), only for sections this viewer may change;
    with ``region`` (as a section's ``where`` names it), those of that region only, the others left empty: a
    region drawn on its own shows no other's buttons, and asking whether the viewer may change each section
    of every other region cost it more than drawing its own."""
    editable = operations.editable_sections(character, request.user, where=region)
    sections = operations.sections_for(character).values()
    links: dict[str, list[dict[str, Any]]] = {section.where.replace("-", "_"): [] for section in sections}
    shared = {region for region in links if sum(s.where.replace("-", "_") == region for s in sections) > 1}
    for section in sections:
        where = section.where.replace("-", "_")
        if section.key in editable:
            links[where].append(
                {
                    "key": section.key,
                    "url": kept_reverse("characters:edit-section", (character.pk, section.key)),
                    "region": section.where,
                    "text": f"Edit {section.label}" if where in shared else "Edit",
                    "hidden": "" if where in shared else section.label,
                    "focus": section.key == focus,
                }
            )
    return links


def _edit_buttons(links: dict[str, list[dict[str, Any]]]) -> dict[str, SafeString]:
    """Each region's Edit buttons drawn once in Python, byte for byte what ``characters/_section_edit.html``
    draws of its links (a newline where there are none): a sheet shows up to eight regions, and an
    include per region cost the page more than all its Edit buttons together."""
    drawn = {}
    for region, shown in links.items():
        parts = []
        for link in shown:
            url, hidden = escape(link["url"]), link["hidden"]
            parts.append(
                f'\n  <a class="edit-link" id="edit-{escape(link["key"])}" href="{url}" hx-get="{url}"'
                f' hx-target="#{escape(link["region"])}" hx-swap="outerHTML"{" autofocus" if link["focus"] else ""}>'
                f"{escape(link['text'])}"
                f'{f"""<span class="visually-hidden"> {escape(hidden)}</span>""" if hidden else ""}</a>'
            )
        # Every value in it is escaped above.
        drawn[region] = mark_safe(f'<div class="edit-links">{"".join(parts)}\n</div>\n' if parts else "\n")  # noqa: S308
    return drawn


def _sheet_context(
    request: HttpRequest, character: Character, *, focus: str = "", region: str | None = None
) -> dict[str, Any]:
    """What the sheet shows of ``character`` (loaded through ``access``, with its campaign and owner):
    the document is on the row, so this costs no query but the latest ledger entries, and those
    only if the standing region is shown. ``edit_links`` are each region's Edit buttons as data (for
    ``characters/_section_edit.html``), ``edit_buttons`` the same drawn (for the systems' sheets)."""
    # Read (and built: the query costs more to build than a region to draw) only by a region that shows it.
    latest = SimpleLazyObject(lambda: list(LedgerEntry.objects.newest_of(character.pk)[:LATEST_ENTRIES]))
    links = _edit_links(character, request, focus, region)
    context = {**sheets.sheet(character), "edit_links": links, "edit_buttons": _edit_buttons(links),
               "ledger_latest": latest}  # fmt: skip
    return context


def region_key(request: HttpRequest, character: Character, context: dict[str, Any]) -> tuple[Any, ...]:
    """Everything the sheet page's region (``{% kept_region %}``, :mod:`characters.templatetags.sheet_regions`)
    shows, for it to be drawn once for each: the sheet's content and its campaign's options (a digest), the
    row's other fields the page shows, its campaign's and its player's names, the newest ledger entry (the
    latest ones are append-only), the balances, how the viewer sees it (their role decides the Edit buttons,
    the links and the forms), what shows beside it (a decision, the table as the viewer sees it) and the page's
    language and time zone. The character must come from :func:`access.sheet_character`."""
    campaign = character.campaign
    return (
        sheets.template(character, "sheet"),
        sheets.content_digest(character),
        character.pk,
        character.name,
        character.status,
        character.version,
        json.dumps(character.arrival, sort_keys=True),
        character.campaign_id,
        campaign.name,
        campaign.archived_at,
        character.owner.get_username(),
        json.dumps(character.balances_held, sort_keys=True),  # type: ignore[attr-defined]
        character.newest_entry,  # type: ignore[attr-defined]
        character.can_edit,
        character.viewer_is_gm,
        character.owner_id == request.user.pk,
        context["live_url"],
        repr(context.get("decision")),
        repr(context.get("table")),
        context.get("table_version"),
        timezone.get_current_timezone_name(),
        translation.get_language(),
    )


@require_safe
def sheet(request: HttpRequest, pk: int) -> HttpResponse:
    """The sheet page, kept whole (:mod:`web.whole_pages`) by its region's key (:func:`region_key`: the region
    is the page's whole content; around it the frame shows who is signed in) and the viewer's: shown again,
    while none of it changes, from its one query (and the session's), with a CSRF token of its own. Drawn,
    its region is kept by its key too: the latest ledger entries and the Edit buttons are read and drawn only
    when it is drawn."""
    character = access.sheet_character(request.user, pk)
    beside = {
        **sheets.shown_beside(character, request.user),
        # Live only when served over ASGI: a WSGI server has no WebSockets to offer (the page then
        # simply is not live, as without JavaScript).
        "live_url": f"/ws/characters/{character.pk}/" if hasattr(request, "scope") else "",
    }
    region = region_key(request, character, beside)

    def draw(kept_region: tuple[Any, ...] | None = region) -> HttpResponse:
        links = SimpleLazyObject(lambda: _edit_links(character, request, ""))
        context = {
            **sheets.sheet(character),
            **beside,
            "edit_links": links,
            "edit_buttons": SimpleLazyObject(lambda: _edit_buttons(links)),
            "ledger_latest": SimpleLazyObject(lambda: list(LedgerEntry.objects.newest_of(pk)[:LATEST_ENTRIES])),
            "region_key": kept_region,
        }
        return render(request, sheets.template(character, "sheet"), context)

    # Checked (in the tests) against the page drawn whole, its region too: the region's key is the page's.
    where = f"The sheet page of character {pk}"
    return whole_pages.shown(request, pages, region, draw, where, fresh=lambda: draw(None))


def _section(character: Character, key: str) -> EditSection:
    section = operations.sections_for(character).get(key)
    if section is None:
        raise Http404("No such section")
    return section


def _sheet_url(character: Character, key: str) -> str:
    return f"{kept_reverse('characters:sheet', (character.pk,))}#{_section(character, key).where}"


def _read_view(
    request: HttpRequest, character: Character, key: str, *, fresh: bool = False, notice: str = ""
) -> HttpResponse:
    """The section's region as the sheet shows it, with the keyboard back on its Edit button
    (``fresh``: read the character again first, as after a save; ``notice``: what just happened, for
    the region to say)."""
    if not request.htmx:
        return redirect(_sheet_url(character, key))
    region = _section(character, key).where
    context = _sheet_context(request, _full(character) if fresh else character, focus=key, region=region)
    context["notice"] = notice
    return render(request, f"{sheets.template(character, 'sheet')}#section-{region}", context)


def saved_region(
    request: HttpRequest, character: Character, section: str, *, notice: str = "", saved: Character | None = None
) -> HttpResponse:
    """After a system's own action on a section (a rest, say), made through the one write path: the
    section's region as it is now (htmx), or the sheet at that region. ``saved``: the character as the
    action saved it, read (under its lock) with everything its sheet shows, which is then not read again;
    ``character`` is read again otherwise. Either keeps what ``access`` found out of ``character``."""
    if saved is None:
        return _read_view(request, character, section, fresh=True, notice=notice)
    saved.can_edit, saved.viewer_is_gm = character.can_edit, character.viewer_is_gm
    return _read_view(request, saved, section, notice=notice)


@require_safe
@vary_on_headers("HX-Request")
def sheet_section(request: HttpRequest, pk: int, section: str) -> HttpResponse:
    """Cancel: the region read-only again (with htmx), or the sheet at that region."""
    character = access.character_for(request.user, pk)
    _section(character, section)
    return _read_view(request, character, section)


def _render_edit(
    request: HttpRequest,
    character: Character,
    edit: SectionEdit,
    *,
    version: int,
    status: int = 200,
    conflict: str = "",
    typed: list[str] | None = None,
) -> HttpResponse:
    key = edit.section.key
    context = {
        "character": character,
        "section": edit.section,
        "region": edit.section.where,
        "edit": edit,
        "version": version,
        "edit_url": kept_reverse("characters:edit-section", (character.pk, key)),
        "cancel_url": kept_reverse("characters:sheet-section", (character.pk, key)),
        "sheet_url": _sheet_url(character, key),
        "conflict": conflict,
        "typed": typed or [],
        "in_place": bool(request.htmx),
    }
    template = "characters/edit_section.html" + ("#edit-form" if request.htmx else "")
    return render(request, template, context, status=status)


def _current(request: HttpRequest, character: Character, typed: SectionEdit, message: str, status: int) -> HttpResponse:
    """The section's form with what it says now, and what the player had typed, saved nowhere."""
    fresh = _full(character)
    edit = edit_for(fresh, typed.section.key)(fresh, gm=character.viewer_is_gm)
    version = operations.section_version(fresh, typed.section.key)
    return _render_edit(request, fresh, edit, version=version, status=status, conflict=message, typed=typed.typed())


def _refused(request: HttpRequest, character: Character, message: str) -> HttpResponse:
    context = {"character": character, "message": message}
    return render(request, "characters/edit_refused.html", context, status=403)


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def edit_section(request: HttpRequest, pk: int, section: str) -> HttpResponse:
    """One section's form (GET) and its save (POST), made from the version the form carries."""
    character = access.character_for(request.user, pk)
    spec = _section(character, section)
    is_owner, is_gm = character.owner_id == request.user.pk, character.viewer_is_gm
    reason = operations.refusal(character, spec, is_owner=is_owner, is_gm=is_gm)
    if reason:
        return _refused(request, character, reason)
    form = edit_for(character, section)
    if request.method != "POST":
        edit = form(character, gm=is_gm)
        edit.focus_first()
        return _render_edit(request, character, edit, version=operations.section_version(character, section))

    edit = form(character, request.POST, gm=is_gm)
    version = version_number(request.POST.get("version", ""))
    if version is None:
        return _current(request, character, edit, NO_VERSION, status=400)
    if operations.is_stale(character, section, version):
        return _current(request, character, edit, CONFLICT, status=409)
    if not edit.is_valid():
        return _render_edit(request, character, edit, version=version, status=400)
    try:
        edit.save(version=version, by=request.user)
    except operations.StaleSection:
        return _current(request, character, edit, CONFLICT, status=409)
    except operations.InvalidSection as problem:
        edit.add_errors(problem.errors)
        return _render_edit(request, character, edit, version=version, status=400)
    except PermissionDenied as refusal:
        return _refused(request, character, str(refusal))
    return _read_view(request, character, section, fresh=True)


#: Where the GM's decision on a waiting item goes back to: the page it was made on.
DECIDED_BACK = {"campaign": ("campaigns:detail", "#awaiting-gm"), "dashboard": ("play:dashboard", "#awaiting-gm")}


@require_POST
def decide_awaiting(request: HttpRequest, pk: int) -> HttpResponse:
    """The GM approves or refuses one waiting item of a sheet (``item``, ``decision``), in one click from
    the campaign page or the dashboard, and goes back there."""
    character = access.character_for(request.user, pk)
    campaign = character.campaign
    item, decision = request.POST.get("item", ""), request.POST.get("decision", "")
    if item == access.ARRIVAL_ITEM:
        return _decide_arrival(request, character, decision)
    named = bool(item) and len(item) <= operations.MAX_ITEM_LENGTH and item.isprintable()
    if not character.viewer_is_gm:
        message, status = "Only the campaign's GM approves or refuses what waits.", 403
    elif decision not in ("approve", "refuse") or not named:
        message, status = "Choose Approve or Refuse for one of the items that wait.", 400
    else:
        try:
            operations.decide_awaiting(character_id=character.pk, item=item, approve=decision == "approve",
                                       by=request.user)  # fmt: skip
        except Refused as refused:
            message, status = refused.message, refused.status
        else:
            name, anchor = DECIDED_BACK.get(request.POST.get("back", ""), DECIDED_BACK["campaign"])
            done = "approved" if decision == "approve" else "refused"
            messages.success(request, f"{character.name}: {done}.")
            return redirect(reverse(name, args=[campaign.pk]) + anchor)
    return render(request, "campaigns/refused.html", {"message": message, "campaign": campaign}, status=status)


def _decide_arrival(request: HttpRequest, character: Character, decision: str) -> HttpResponse:
    """The GM's decision on an imported character that waits: ``approve`` takes it in by this campaign's
    rules (its items matched by name, its values counted at this campaign's rates), ``fresh`` checks it
    as a fresh creation under this campaign's rules (a 400 listing what they
    refuse, nothing changed)."""
    campaign = character.campaign
    if not character.viewer_is_gm:
        messages_, status = ["Only the campaign's GM decides on an imported character."], 403
    elif decision not in ("approve", "fresh"):
        messages_, status = ["Choose Approve as it stands or Check as a fresh creation."], 400
    else:
        try:
            decided, reset = exchange.decide_arrival(
                character_id=character.pk, approve=decision == "approve", by=request.user
            )
        except exchange.ArrivalRefused as refused:
            messages_, status = refused.messages, refused.status
        else:
            name, anchor = DECIDED_BACK.get(request.POST.get("back", ""), DECIDED_BACK["campaign"])
            if decision == "approve":
                done = "approved" if reset else "approved as it stands"
                extra = f" Changed as it joined: {'; '.join(reset)}." if reset else ""
            else:
                done, extra = "checked as a fresh creation", f" Started afresh: {'; '.join(reset)}." if reset else ""
            messages.success(request, f"{decided.name}: {done}.{extra}")
            return redirect(reverse(name, args=[campaign.pk]) + anchor)
    message = " ".join(write.sentence(m) for m in messages_)
    return render(request, "campaigns/refused.html", {"message": message, "campaign": campaign}, status=status)
