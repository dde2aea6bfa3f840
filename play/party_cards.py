"""A card of the party drawn in Python: byte for byte what ``play/dashboard_party_row.html`` (the dashboard's,
with each track's slots) and ``play/campaign_party_card.html`` (the campaign page's) draw of a row
(``play.live.PartyCard``), its standing as ``characters/_standing.html`` draws it.

A card is kept while what it shows is the same (``play.templatetags.kept.card_key``), its balances among
it: an award to a party of eight drew eight cards again for every page that showed them next, some 9 ms a
dashboard on this machine's bench, most of it the template's interpreter going node by node over each
track, note and balance. The templates stay the reference: under ``settings.KEPT_CHECKED`` (on in the tests)
every card drawn here is drawn by its template too and must be the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from django.conf import settings
from django.urls import reverse
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from web.drawn import lookup, shown, truthy
from web.templatetags.dice import slots as slots_of

#: The templates a card is drawn as here, each with the indent of its lines, that of its last line, what ends
#: the file, and whether it draws each track's slots.
DASHBOARD: Final = "play/dashboard_party_row.html"
CAMPAIGN: Final = "play/campaign_party_card.html"
LAYOUTS: Final = {DASHBOARD: ("  ", "", "\n", True), CAMPAIGN: ("      ", "    ", "", False)}


def _standing(character: Any, vitals: Any, holdings: Any, *, slots: bool) -> str:
    """``characters/_standing.html`` with ``vitals`` and ``holdings`` (``slots``: each track's rows drawn)."""
    notes = list(vitals.notes)
    tracks = list(vitals.tracks)
    first_note = ""
    if notes:
        label, value = notes[0]
        first_note = f'<div><dt>{shown(label)}</dt><dd class="die-label">{shown(value)}</dd></div>'
    drawn_tracks = []
    for n, track in enumerate(tracks):
        of = f" of {shown(track.maximum)}" if track.maximum is not None else ""
        badge = ""
        if n == 0 and not vitals.can_act and vitals.state != "draft":
            state = str(vitals.state)
            badge = f' <span class="badge {shown(state)}">{shown(state[:1].upper() + state[1:])}</span>'
        drawn_tracks.append(f"<div><dt>{shown(track.label)}</dt><dd>{shown(track.value)}{of}{badge}</dd></div>")
    if not tracks:
        drawn_tracks.append("<div><dt>In play</dt><dd>not yet</dd></div>")
    balances = "".join(
        f"<div><dt>{shown(lookup(held, 'currency', 'name'))}</dt><dd>{shown(lookup(held, 'amount'))}</dd></div>"
        for held in holdings
    )
    other_notes = "".join(f"<div><dt>{shown(label)}</dt><dd>{shown(value)}</dd></div>" for label, value in notes[1:])
    rows = ""
    if slots:
        for track in tracks:
            if track.segments:
                each = "".join(
                    f'\n  <li><span class="die-label">{shown(label)}</span> <span class="slots" role="img" '
                    f'aria-label="{shown(full)} of {shown(size)}">{slots_of(full, size)}</span></li>'
                    for label, full, size in track.segments
                )
                name = shown(character.name)
                rows += f'<ul class="dashboard-slots" aria-label="{shown(track.label)} of {name}">{each}\n</ul>'
    return (
        f'\n<dl class="standing">\n  {first_note}\n  {"".join(drawn_tracks)}\n  {balances}\n  {other_notes}\n'
        f"</dl>\n{rows}\n"
    )


def _drawn(template_name: str, row: Any) -> str:
    indent, last, end, slots = LAYOUTS[template_name]
    character = lookup(row, "character")
    concept = lookup(row, "summary", "concept")
    more = f" · {shown(concept)}" if truthy(concept) else ""
    url = conditional_escape(reverse("characters:sheet", args=[character.pk]))
    anchor = f' id="party-{shown(character.pk)}"' if template_name == DASHBOARD else ""
    standing = _standing(character, lookup(row, "vitals"), lookup(row, "holdings"), slots=slots)
    return (
        f'<li class="party-member"{anchor}>\n'
        f'{indent}<h3><a href="{url}">{shown(character.name)}</a></h3>\n'
        f'{indent}<p class="sheet-meta">played by {shown(character.owner.get_username())}{more}</p>\n'
        f"{indent}{standing}\n{last}</li>{end}"
    )


def card(template_name: str, row: Any, *, template: Callable[[], str]) -> SafeString:
    """The card of ``row`` as ``template_name`` draws it (``template``: that drawing, for a template not drawn
    here and for the check ``settings.KEPT_CHECKED`` asks for)."""
    if template_name not in LAYOUTS:
        return mark_safe(template())  # noqa: S308 - the template escaped it
    drawn = _drawn(template_name, row)
    if settings.KEPT_CHECKED:
        expected = template()
        if drawn != expected:
            raise AssertionError(
                f"play.party_cards drew the card otherwise than {template_name}:\n{drawn!r}\n{expected!r}"
            )
    return mark_safe(drawn)  # noqa: S308 - every value in it is escaped above
