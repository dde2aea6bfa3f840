from __future__ import annotations

from fractions import Fraction

from django import template
from django.utils.html import escape
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


@register.simple_tag(takes_context=True)
def rules_credit(context: template.Context) -> str:
    """The credit a page's rules system asks for ("… was originally created by …"), in the words of
    its own package: the system of the page's character or campaign, or the one a page names
    (``rules_system``); nothing on a page of no system. Each system speaks for itself alone."""
    from rules import systems

    key = context.get("rules_system")
    for name in ("character", "campaign"):
        if key:
            break
        key = getattr(context.get(name), "system", None)
    if not isinstance(key, str) or not key:
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
