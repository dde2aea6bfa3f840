"""``{% load static %}`` in every template: Django's library, its ``{% static %}`` with each URL it makes
kept (config/settings.py names this module the ``static`` library).

A static file's URL is a pure function of its path while the process runs: the storage's manifest of
hashed names is read once at start-up, and without hashing the URL is the path under ``STATIC_URL``. Django's
tag works it out again each time a page names the file (every page names the stylesheets, the scripts and the
icon): here it is made once for each path and kept (:data:`KEPT_STATIC_URLS` of them).
"""

from __future__ import annotations

from typing import Any, Final

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template.base import Parser, Token
from django.templatetags import static as django_static

from web.kept import Kept

register = template.Library()
register.tags.update(django_static.register.tags)
register.filters.update(django_static.register.filters)

#: Static URLs kept per process: one a file a page names.
KEPT_STATIC_URLS: Final = 1024

static_urls: Kept[str] = Kept(KEPT_STATIC_URLS)


@receiver(setting_changed)
def forget_kept_static_urls(**kwargs: Any) -> None:
    """A setting changed (tests do it; a running server never does): the static URLs kept may be others now."""
    static_urls.clear()


class KeptStaticNode(django_static.StaticNode):
    """Django's static node, its URL kept by the file's path."""

    def url(self, context: template.Context) -> Any:
        path = self.path.resolve(context)
        if not isinstance(path, str):
            return self.handle_simple(path)
        return static_urls.get(str(path), lambda: self.handle_simple(path))


@register.tag("static")
def do_static(parser: Parser, token: Token) -> KeptStaticNode:
    """Django's ``{% static path [as name] %}``, its URL kept (see the module)."""
    node = KeptStaticNode.handle_token(parser, token)
    assert isinstance(node, KeptStaticNode)
    return node
