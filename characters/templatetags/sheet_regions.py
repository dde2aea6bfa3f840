"""``{% kept_region key %}…{% endkept_region %}``: a region of a sheet page drawn once for each ``key``
and kept (``characters.sheets.regions``), the same bytes a fresh render makes.

A sheet is read far more often than it changes, and drawing its regions cost the page more than all
its queries: so the page names in one key everything the region shows (the sheet's content, its
balances, the viewer's role and the rest: ``characters.views.region_key``) and the region is drawn
only for a key not seen before. A ``None`` key draws the region every time.

The one thing a region may show that no key names is the page's CSRF token (a form in it, for the
GM): it is drawn as a placeholder and the token of the page that shows it put in its place."""

from __future__ import annotations

from typing import Final

from django import template
from django.template.base import FilterExpression, NodeList, Parser, Token
from django.utils.safestring import SafeString, mark_safe

from characters import sheets

register = template.Library()

#: What a kept region holds where the page's CSRF token goes: letters only, so that escaping leaves it be.
CSRF_PLACE: Final = "keptregioncsrftokenplace"


class KeptRegion(template.Node):
    def __init__(self, key: FilterExpression, nodelist: NodeList) -> None:
        self.key = key
        self.nodelist = nodelist

    def render(self, context: template.Context) -> SafeString:
        key = self.key.resolve(context)
        if key is None:
            return self.nodelist.render(context)

        def draw() -> str:
            with context.push(csrf_token=CSRF_PLACE):
                return str(self.nodelist.render(context))

        drawn = sheets.regions.get(key, draw)
        if CSRF_PLACE in drawn:
            drawn = drawn.replace(CSRF_PLACE, str(context.get("csrf_token", "")))
        # Drawn by the template engine, which escaped it; the token is letters and digits.
        return mark_safe(drawn)  # noqa: S308


@register.tag
def kept_region(parser: Parser, token: Token) -> KeptRegion:
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("kept_region takes one argument: the region's key")
    nodelist = parser.parse(("endkept_region",))
    parser.delete_first_token()
    return KeptRegion(parser.compile_filter(bits[1]), nodelist)
