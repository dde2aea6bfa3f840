from __future__ import annotations

from fractions import Fraction
from typing import Any

from django import template
from django.utils.formats import localize
from django.utils.html import conditional_escape, escape
from django.utils.safestring import mark_safe

register = template.Library()


@register.filter
def percent(p: Fraction | str) -> str:
    """A chance for display: one decimal, and never "0%" or "100%" for what is merely close."""
    p = Fraction(p)
    if p == 0:
        return "0%"
    if p == 1:
        return "100%"
    value = float(p) * 100
    if value < 0.1:
        return "<0.1%"
    if value > 99.9:
        return ">99.9%"
    return f"{value:.1f}%"


@register.filter
def ratio(p: Fraction | str) -> str:
    p = Fraction(p)
    return f"{p.numerator}/{p.denominator}"


@register.filter
def decimal(p: Fraction | str, places: int = 2) -> str:
    return f"{float(Fraction(p)):.{places}f}"


def credited_system(context: template.Context) -> str | None:
    """The key of the system whose credit the page shows (:func:`rules_credit`): the one the page names
    (``rules_system``), else that of its character or campaign; None on a page of no system."""
    key = context.get("rules_system")
    for name in ("character", "campaign"):
        if key:
            break
        key = getattr(context.get(name), "system", None)
    return key if isinstance(key, str) and key else None


@register.simple_tag(takes_context=True)
def rules_credit(context: template.Context) -> str:
    """The credit a page's rules system asks for ("… was originally created by …"), in the words of
    its own package: the system of the page's character or campaign, or the one a page names
    (``rules_system``); nothing on a page of no system. Each system speaks for itself alone."""
    from rules import systems

    key = credited_system(context)
    if key is None:
        return ""
    try:
        system = systems.get(key)
    except systems.UnknownSystem:
        return ""
    return f"Rules: {system.name}. {system.attribution}"


@register.filter
def inline_code(text: object) -> str:
    """Text whose `backticked` parts are code, as the API's descriptions write them: escaped first, then each
    pair of backticks made a ``<code>``; an unpaired backtick stays as it is."""
    parts = escape(str(text)).split("`")
    if len(parts) % 2 == 0:  # an odd number of backticks: the last one has no pair
        parts[-2:] = ["`".join(parts[-2:])]
    return mark_safe("".join(f"<code>{part}</code>" if i % 2 else part for i, part in enumerate(parts)))  # noqa: S308


def _lookup(thing: Any, name: str) -> Any:
    """``thing.name`` as a template variable reads it: a key of a mapping first, then an attribute; ""
    (the templates' value for what is missing) when it has neither."""
    try:
        return thing[name]
    except (TypeError, KeyError, IndexError, AttributeError):
        return getattr(thing, name, "")


def _shown(value: Any) -> str:
    """A value as ``{{ value }}`` shows it: escaped, and localized (a whole number is its digits, as no
    thousands separator is used)."""
    if type(value) is int:
        return str(value)
    return str(conditional_escape(localize(value)))


#: What ``_dice.html`` drew with a loop in the template for every die and every face: the same markup.
_BOOM = '<span class="boom" aria-label="explodes, then">+</span>'


@register.simple_tag
def dice_list(group: Any, damage: Any = False) -> str:
    """A group's dice (``group.label``; ``group.dice``, each with its ``sides``, ``faces``, ``value``,
    ``imploded``, ``exploded``), as a list of dice, each face shown and each explosion marked; an
    implosion marked unless the dice are ``damage`` (damage dice do not implode). Drawn here rather
    than by a template loop: a page of the roll log or the dashboard's feed draws hundreds of dice, and
    a loop in a template costs a render of every node for every die and face."""
    parts = [f'<ul class="dice" aria-label="{_shown(_lookup(group, "label"))}">']
    dice = _lookup(group, "dice") or ()
    for die in dice:
        imploded = bool(_lookup(die, "imploded")) and not damage
        exploded = bool(_lookup(die, "exploded"))
        classes = "die" + (" imploded" if imploded else "") + (" exploded" if exploded else "")
        faces = _BOOM.join(f'<span class="face">{_shown(face)}</span>' for face in _lookup(die, "faces") or ())
        parts.append(
            f'\n  <li class="{classes}">\n    <span class="die-name">d{_shown(_lookup(die, "sides"))}</span>\n'
            f'    <span class="faces">{faces}</span>\n    '
            + (f'<span class="note">exploded: {_shown(_lookup(die, "value"))}</span>' if exploded else "")
            + "\n    "
            + ('<span class="note">imploded</span>' if imploded else "")
            + "\n  </li>"
        )
    if not dice:
        parts.append('<li class="die none">no die (0)</li>')
    parts.append("\n</ul>\n")
    return mark_safe("".join(parts))  # noqa: S308 - every value in it is escaped above


@register.filter
def slots(full: Any, size: Any) -> str:
    """A track's ``size`` slots, the first ``full`` of them filled, drawn in one go (a template loop
    renders each slot's nodes: a party of long tracks is hundreds of slots)."""
    size = int(size)
    filled = max(0, min(int(full), size))
    return mark_safe('<span class="slot full"></span>' * filled + '<span class="slot"></span>' * (size - filled))  # noqa: S308
