"""``{% kept_region key %}…{% endkept_region %}``: a region of a sheet page drawn once for each ``key``
and kept (``characters.sheets.regions``), the same bytes a fresh render makes.

A sheet is read far more often than it changes, and drawing its regions cost the page more than all
its queries: so the page names in one key everything the region shows (the sheet's content, its
balances, the viewer's role and the rest: ``characters.views.region_key``) and the region is drawn
only for a key not seen before. A ``None`` key draws the region every time.

The one thing a region may show that no key names is the page's CSRF token (a form in it, for the
GM): it is drawn as a placeholder and the token of the page that shows it put in its place, as every kept
part of a page is (``web.templatetags.kept_blocks.kept_html``, which also checks the keys in the tests)."""

from __future__ import annotations

from django import template
from django.template.base import FilterExpression, NodeList, Parser, Token
from django.utils.safestring import SafeString

from characters import sheets
from web.templatetags.kept_blocks import CSRF_PLACE, kept_html

__all__ = ["CSRF_PLACE", "KeptRegion", "kept_region"]

register = template.Library()


class KeptRegion(template.Node):
    def __init__(self, key: FilterExpression, nodelist: NodeList, where: str) -> None:
        self.key = key
        self.nodelist = nodelist
        self.where = where

    def render(self, context: template.Context) -> SafeString:
        # Not checked by drawing again (``KEPT_CHECKED``): drawing a region reads the ledger, and the tests count
        # a kept region's queries (tests/characters/test_sheet_regions.py checks its keys).
        key = self.key.resolve(context)
        return kept_html(sheets.regions, key, self.nodelist, context, self.where, checked=False)


@register.tag
def kept_region(parser: Parser, token: Token) -> KeptRegion:
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("kept_region takes one argument: the region's key")
    nodelist = parser.parse(("endkept_region",))
    parser.delete_first_token()
    origin = getattr(parser, "origin", None)
    where = f"{getattr(origin, 'template_name', None) or '?'}:{token.lineno} (region)"
    return KeptRegion(parser.compile_filter(bits[1]), nodelist, where)
