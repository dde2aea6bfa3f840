from __future__ import annotations

from fractions import Fraction

from django import template

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
