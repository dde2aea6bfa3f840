"""A roll's row of the log drawn in Python: byte for byte what ``play/_roll.html`` draws of an entry with no
Reveal button (``play.roll_views.roll_entry``), its pools as ``pages/_pool.html`` draws them.

Every roll posted is drawn once, for the live feed and the dice box's answer, and every row of the log and
the dashboard's feed once per process: the template's interpreter spent some 1,100 Python calls on a row,
every value looked up and every tag rendered node by node, where this spends about a tenth of that. The
template stays the reference: under ``settings.KEPT_CHECKED`` (on in the tests) every row drawn here is drawn
by the template too and must be the same bytes, so each row the suite draws, of every system and kind, checks
it; a row with the GM's Reveal button, whose form carries the page's CSRF token, is the template's to draw.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from django.conf import settings
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe

from web.drawn import MISSING, lookup, shown, truthy
from web.templatetags.dice import dice_list, percent
from web.templatetags.times import time_of

#: The template the rows are drawn as.
TEMPLATE: Final = "play/_roll.html"


def _signed(value: Any) -> str:
    """``{% if value > 0 %}+{% endif %}{{ value }}``."""
    try:
        plus = value > 0
    except TypeError:
        plus = False
    return ("+" if plus else "") + shown(value)


def _pool(pool: Any) -> str:
    """``pages/_pool.html`` included with ``pool``, no ``damage`` named: the ability rolls and the other groups."""
    two = truthy(lookup(pool, "two_ability_rolls"))
    name = lookup(pool, "ability_name")
    parts = ['<div class="pool">\n  ']
    rolls = lookup(pool, "ability_rolls")
    for roll in rolls if truthy(rolls) else ():
        kept = truthy(lookup(roll, "kept"))
        which = f" ({'kept' if kept else 'not kept'})" if two else ""
        parts.append(
            f'\n  <div class="dice-row{" discarded" if two and not kept else ""}">\n'
            f'    <span class="dice-role">{shown(name)} {shown(lookup(roll, "label"))}{which}</span>\n'
            f"    {dice_list(roll, '')}\n"
            f'    <span class="subtotal">= {shown(lookup(roll, "total"))}</span>\n'
            "  </div>\n  "
        )
    parts.append("\n  ")
    others = lookup(pool, "others")
    for group in others if truthy(others) else ():
        parts.append(
            '\n  <div class="dice-row">\n'
            f'    <span class="dice-role">{shown(lookup(group, "name"))} {shown(lookup(group, "label"))}</span>\n'
            f"    {dice_list(group, '')}\n"
            f'    <span class="subtotal">= {shown(lookup(group, "total"))}</span>\n'
            "  </div>\n  "
        )
    parts.append("\n</div>\n")
    return "".join(parts)


def _head(roll: Any, entry: Any) -> str:
    """The row's head: its number, who rolled and for whom, its kind and words, its badges and its time."""
    character = lookup(roll, "character")
    label, kind = lookup(entry, "label"), lookup(roll, "kind")
    said = ""
    if truthy(label):
        said = (
            f" <code>{shown(label)}</code>" if kind == "free" else f': <span class="roll-label">{shown(label)}</span>'
        )
    follows = lookup(roll, "follows")
    replaces = (
        f'<span class="badge">replaces <a href="#roll-{shown(follows)}">#{shown(follows)}</a></span>'
        if truthy(follows)
        else ""
    )
    called = lookup(entry, "called")
    badge = (
        f'<span class="badge called{" self" if called == "self-called" else ""}">{shown(called)}</span>'
        if truthy(called)
        else ""
    )
    secret = ""
    if truthy(lookup(roll, "secret")):
        secret = f'<span class="badge">{"Secret, revealed" if truthy(lookup(roll, "revealed_at")) else "Secret"}</span>'
    whom = f" for {shown(lookup(character, 'name'))}" if truthy(character) else ""
    return (
        '  <p class="roll-head">\n'
        f'    <span class="roll-seq">#{shown(lookup(roll, "seq"))}</span>\n'
        f"    <strong>{shown(lookup(roll, 'by', 'get_username'))}</strong>{whom}\n"
        f"    · {shown(lookup(entry, 'kind_label'))}{said}\n"
        f"    {replaces}\n"
        f"    {badge}\n"
        f"    {secret}\n"
        f'    <span class="note">· {_time(roll)}</span>\n'
        "  </p>\n"
    )


def _time(roll: Any) -> str:
    created = lookup(roll, "created_at")
    return str(time_of(None if created is MISSING else created))


def _dice(entry: Any) -> str:
    """The dice as the row shows them: the dice box's groups, a check's pool, the faces, or an opposed roll."""
    groups = lookup(entry, "groups")
    if truthy(groups):
        rows = []
        for group in groups:
            dropped = lookup(group, "dropped")
            shown_dropped = f'<span class="dropped">{dice_list(dropped, True)}</span>' if truthy(dropped) else ""
            rows.append(
                '\n    <div class="dice-row">\n'
                f'      <span class="dice-role">{shown(lookup(group, "label"))}</span>\n'
                f"      {dice_list(lookup(group, 'kept'), True)}\n"
                f"      {shown_dropped}\n"
                f'      <span class="subtotal">= {shown(lookup(group, "total"))}</span>\n'
                "    </div>"
            )
        return f'\n  <div class="pool">{"".join(rows)}\n  </div>\n  '
    pool = lookup(entry, "view", "pool")
    if truthy(pool):
        return f"{_pool(pool)}\n  "
    faces = lookup(entry, "faces")
    if truthy(faces):
        return f'<p class="rolled">Rolled {", ".join(shown(face) for face in faces)}</p>\n  '
    attacker = lookup(entry, "view", "attacker")
    if truthy(attacker):
        return f"{_pool(attacker)}{_pool(lookup(entry, 'view', 'defender'))}\n  "
    return ""


def _result(roll: Any, entry: Any) -> str:
    """The total, the modifier, the outcome in words, the margin and anything more the roll calls for."""
    total = lookup(roll, "total")
    modifier = lookup(roll, "outcome", "modifier")
    margin = lookup(roll, "outcome", "margin")
    worded = lookup(entry, "worded")
    more = lookup(worded, "more")
    shown_total = f"Total <strong>{shown(total)}</strong>" if total is not MISSING and total is not None else ""
    shown_modifier = f"(modifier {_signed(modifier)})" if truthy(modifier) else ""
    shown_words = (
        f'· <span class="outcome {shown(lookup(worded, "tone"))}">{shown(lookup(worded, "words"))}</span>'
        if truthy(worded)
        else ""
    )
    shown_margin = f"· margin {_signed(margin)}" if margin is not MISSING and margin is not None else ""
    called_out = "".join(
        f'· <strong class="called-out">{shown(said)}</strong>' for said in (more if truthy(more) else ())
    )
    return (
        '<p class="roll-result">\n'
        f"    {shown_total}\n    {shown_modifier}\n    {shown_words}\n    {shown_margin}\n    {called_out}\n"
        "  </p>\n"
    )


def _chance(roll: Any) -> str:
    chance, of = lookup(roll, "chance"), lookup(roll, "chance_of")
    if truthy(chance):
        return (
            f'<p class="roll-chance note">Chance before the roll of {shown(of)}: {shown(percent(chance))}'
            f" ({shown(chance)})</p>"
        )
    if truthy(of):
        return f'<p class="roll-chance note">No exact chance: {shown(of)}</p>'
    return ""


def _drawn(entry: Any) -> str:
    roll = lookup(entry, "roll")
    secret = " secret" if truthy(lookup(roll, "secret")) else ""
    start = f'<li class="roll-entry{secret}" id="roll-{shown(lookup(roll, "seq"))}">\n'
    if truthy(lookup(entry, "hidden")):
        return (
            f"{start}  \n"
            f'  <p class="roll-head"><span class="roll-seq">#{shown(lookup(roll, "seq"))}</span> A secret roll by'
            f' the GM <span class="note">· {_time(roll)}</span></p>\n  \n</li>\n'
        )
    summary = lookup(entry, "summary")
    shown_summary = f'<p class="roll-summary">{shown(summary)}</p>' if truthy(summary) else ""
    return (
        f"{start}  \n{_head(roll, entry)}"
        f"  {shown_summary}\n"
        f"  {_dice(entry)}\n  {_result(roll, entry)}  {_chance(roll)}\n  \n  \n</li>\n"
    )


def drawable(entry: Any) -> bool:
    """Whether the row of ``entry`` is drawn here: any but one with the GM's Reveal button."""
    return not truthy(lookup(entry, "can_reveal"))


def row(entry: Any, *, template: Callable[[], str] | None = None) -> SafeString:
    """The row of ``entry`` as ``play/_roll.html`` draws it (``template``: that drawing, for a row with the
    Reveal button and the check ``settings.KEPT_CHECKED`` asks for; by default the template drawn on its own)."""

    def by_template() -> str:
        return template() if template is not None else render_to_string(TEMPLATE, {"entry": entry})

    if not drawable(entry):
        return mark_safe(by_template())  # noqa: S308 - the template escaped it
    drawn = _drawn(entry)
    if settings.KEPT_CHECKED:
        expected = by_template()
        if drawn != expected:
            raise AssertionError(f"play.roll_rows drew the row otherwise than {TEMPLATE}:\n{drawn!r}\n{expected!r}")
    return mark_safe(drawn)  # noqa: S308 - every value in it is escaped above
