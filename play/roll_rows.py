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
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from web.templatetags.dice import dice_list, percent
from web.templatetags.times import time_of

#: The template the rows are drawn as.
TEMPLATE: Final = "play/_roll.html"
#: What a template's lookup gives for a name that is not there.
MISSING: Final = object()


def _lookup(value: Any, *path: str) -> Any:
    """``value.a.b`` as a template resolves it: a key, else an attribute (called, if callable), else an index;
    :data:`MISSING` where none is there."""
    for name in path:
        if value is MISSING:
            return MISSING
        try:
            value = value[name]
        except (TypeError, AttributeError, KeyError, ValueError, IndexError):
            try:
                value = getattr(value, name)
            except (TypeError, AttributeError):
                try:
                    value = value[int(name)]
                except (IndexError, ValueError, KeyError, TypeError):
                    return MISSING
        if callable(value) and not getattr(value, "do_not_call_in_templates", False):
            value = value()
    return value


def _if(value: Any) -> bool:
    """``{% if value %}``: a missing name is false."""
    return value is not MISSING and bool(value)


def _out(value: Any) -> str:
    """``{{ value }}`` with localization off: a missing name shows nothing, anything else its text, escaped."""
    if value is MISSING:
        return ""
    return str(conditional_escape(value if isinstance(value, str) else str(value)))


def _signed(value: Any) -> str:
    """``{% if value > 0 %}+{% endif %}{{ value }}``."""
    try:
        plus = value > 0
    except TypeError:
        plus = False
    return ("+" if plus else "") + _out(value)


def _pool(pool: Any) -> str:
    """``pages/_pool.html`` included with ``pool``, no ``damage`` named: the ability rolls and the other groups."""
    two = _if(_lookup(pool, "two_ability_rolls"))
    name = _lookup(pool, "ability_name")
    parts = ['<div class="pool">\n  ']
    rolls = _lookup(pool, "ability_rolls")
    for roll in rolls if _if(rolls) else ():
        kept = _if(_lookup(roll, "kept"))
        which = f" ({'kept' if kept else 'not kept'})" if two else ""
        parts.append(
            f'\n  <div class="dice-row{" discarded" if two and not kept else ""}">\n'
            f'    <span class="dice-role">{_out(name)} {_out(_lookup(roll, "label"))}{which}</span>\n'
            f"    {dice_list(roll, '')}\n"
            f'    <span class="subtotal">= {_out(_lookup(roll, "total"))}</span>\n'
            "  </div>\n  "
        )
    parts.append("\n  ")
    others = _lookup(pool, "others")
    for group in others if _if(others) else ():
        parts.append(
            '\n  <div class="dice-row">\n'
            f'    <span class="dice-role">{_out(_lookup(group, "name"))} {_out(_lookup(group, "label"))}</span>\n'
            f"    {dice_list(group, '')}\n"
            f'    <span class="subtotal">= {_out(_lookup(group, "total"))}</span>\n'
            "  </div>\n  "
        )
    parts.append("\n</div>\n")
    return "".join(parts)


def _head(roll: Any, entry: Any) -> str:
    """The row's head: its number, who rolled and for whom, its kind and words, its badges and its time."""
    character = _lookup(roll, "character")
    label, kind = _lookup(entry, "label"), _lookup(roll, "kind")
    said = ""
    if _if(label):
        said = f" <code>{_out(label)}</code>" if kind == "free" else f': <span class="roll-label">{_out(label)}</span>'
    follows = _lookup(roll, "follows")
    replaces = (
        f'<span class="badge">replaces <a href="#roll-{_out(follows)}">#{_out(follows)}</a></span>'
        if _if(follows)
        else ""
    )
    called = _lookup(entry, "called")
    badge = (
        f'<span class="badge called{" self" if called == "self-called" else ""}">{_out(called)}</span>'
        if _if(called)
        else ""
    )
    secret = ""
    if _if(_lookup(roll, "secret")):
        secret = f'<span class="badge">{"Secret, revealed" if _if(_lookup(roll, "revealed_at")) else "Secret"}</span>'
    whom = f" for {_out(_lookup(character, 'name'))}" if _if(character) else ""
    return (
        '  <p class="roll-head">\n'
        f'    <span class="roll-seq">#{_out(_lookup(roll, "seq"))}</span>\n'
        f"    <strong>{_out(_lookup(roll, 'by', 'get_username'))}</strong>{whom}\n"
        f"    · {_out(_lookup(entry, 'kind_label'))}{said}\n"
        f"    {replaces}\n"
        f"    {badge}\n"
        f"    {secret}\n"
        f'    <span class="note">· {_time(roll)}</span>\n'
        "  </p>\n"
    )


def _time(roll: Any) -> str:
    created = _lookup(roll, "created_at")
    return str(time_of(None if created is MISSING else created))


def _dice(entry: Any) -> str:
    """The dice as the row shows them: the dice box's groups, a check's pool, the faces, or an opposed roll."""
    groups = _lookup(entry, "groups")
    if _if(groups):
        rows = []
        for group in groups:
            dropped = _lookup(group, "dropped")
            shown_dropped = f'<span class="dropped">{dice_list(dropped, True)}</span>' if _if(dropped) else ""
            rows.append(
                '\n    <div class="dice-row">\n'
                f'      <span class="dice-role">{_out(_lookup(group, "label"))}</span>\n'
                f"      {dice_list(_lookup(group, 'kept'), True)}\n"
                f"      {shown_dropped}\n"
                f'      <span class="subtotal">= {_out(_lookup(group, "total"))}</span>\n'
                "    </div>"
            )
        return f'\n  <div class="pool">{"".join(rows)}\n  </div>\n  '
    pool = _lookup(entry, "view", "pool")
    if _if(pool):
        return f"{_pool(pool)}\n  "
    faces = _lookup(entry, "faces")
    if _if(faces):
        return f'<p class="rolled">Rolled {", ".join(_out(face) for face in faces)}</p>\n  '
    attacker = _lookup(entry, "view", "attacker")
    if _if(attacker):
        return f"{_pool(attacker)}{_pool(_lookup(entry, 'view', 'defender'))}\n  "
    return ""


def _result(roll: Any, entry: Any) -> str:
    """The total, the modifier, the outcome in words, the margin and anything more the roll calls for."""
    total = _lookup(roll, "total")
    modifier = _lookup(roll, "outcome", "modifier")
    margin = _lookup(roll, "outcome", "margin")
    worded = _lookup(entry, "worded")
    more = _lookup(worded, "more")
    shown_total = f"Total <strong>{_out(total)}</strong>" if total is not MISSING and total is not None else ""
    shown_modifier = f"(modifier {_signed(modifier)})" if _if(modifier) else ""
    shown_words = (
        f'· <span class="outcome {_out(_lookup(worded, "tone"))}">{_out(_lookup(worded, "words"))}</span>'
        if _if(worded)
        else ""
    )
    shown_margin = f"· margin {_signed(margin)}" if margin is not MISSING and margin is not None else ""
    called_out = "".join(f'· <strong class="called-out">{_out(said)}</strong>' for said in (more if _if(more) else ()))
    return (
        '<p class="roll-result">\n'
        f"    {shown_total}\n    {shown_modifier}\n    {shown_words}\n    {shown_margin}\n    {called_out}\n"
        "  </p>\n"
    )


def _chance(roll: Any) -> str:
    chance, of = _lookup(roll, "chance"), _lookup(roll, "chance_of")
    if _if(chance):
        return (
            f'<p class="roll-chance note">Chance before the roll of {_out(of)}: {_out(percent(chance))}'
            f" ({_out(chance)})</p>"
        )
    if _if(of):
        return f'<p class="roll-chance note">No exact chance: {_out(of)}</p>'
    return ""


def _drawn(entry: Any) -> str:
    roll = _lookup(entry, "roll")
    secret = " secret" if _if(_lookup(roll, "secret")) else ""
    start = f'<li class="roll-entry{secret}" id="roll-{_out(_lookup(roll, "seq"))}">\n'
    if _if(_lookup(entry, "hidden")):
        return (
            f"{start}  \n"
            f'  <p class="roll-head"><span class="roll-seq">#{_out(_lookup(roll, "seq"))}</span> A secret roll by'
            f' the GM <span class="note">· {_time(roll)}</span></p>\n  \n</li>\n'
        )
    summary = _lookup(entry, "summary")
    shown_summary = f'<p class="roll-summary">{_out(summary)}</p>' if _if(summary) else ""
    return (
        f"{start}  \n{_head(roll, entry)}"
        f"  {shown_summary}\n"
        f"  {_dice(entry)}\n  {_result(roll, entry)}  {_chance(roll)}\n  \n  \n</li>\n"
    )


def drawable(entry: Any) -> bool:
    """Whether the row of ``entry`` is drawn here: any but one with the GM's Reveal button."""
    return not _if(_lookup(entry, "can_reveal"))


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
