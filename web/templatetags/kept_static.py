"""``{% static %}`` as Django's, each file's URL made once and kept: a builtin library of the template
engine (config/settings.py), so our templates use it without loading anything. A template that said
``{% load static %}`` would load Django's tag in its place; none of ours does (tests/web/test_static_tag.py).

A page names a handful of static files (its style sheets and scripts), and Django's tag asks the storage
for each of them anew on every page: some forty Python calls a file, for a URL that cannot change while the
process runs (the files are collected, and their hashed names written, before a server starts). Here the
URL of each path, and its escaped form, are kept for the process; a setting changed (tests do it) forgets
them. ``{% get_static_prefix %}`` and ``{% get_media_prefix %}`` are Django's own.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template.base import Parser, Token
from django.templatetags.static import StaticNode, get_media_prefix, get_static_prefix
from django.utils.html import conditional_escape

register = template.Library()
register.tag("get_static_prefix", get_static_prefix)
register.tag("get_media_prefix", get_media_prefix)

#: Each path's URL as the storage makes it, and escaped, by path: a few dozen files.
urls: dict[str, tuple[str, str]] = {}


@receiver(setting_changed)
def forget_static_urls(**kwargs: Any) -> None:
    """A setting changed (the storage, the prefix): the URLs kept may be others now."""
    urls.clear()


class KeptStaticNode(StaticNode):
    """Django's node, the URL of each path kept (see the module)."""

    def render(self, context: template.Context) -> str:
        path = self.path.resolve(context)
        made = urls.get(path) if isinstance(path, str) else None
        if made is None:
            url = self.handle_simple(path)
            made = (url, conditional_escape(url))
            if isinstance(path, str):
                urls[path] = made
        url = made[1] if context.autoescape else made[0]
        if self.varname is None:
            return url
        context[self.varname] = url
        return ""


@register.tag("static")
def do_static(parser: Parser, token: Token) -> KeptStaticNode:
    """Django's ``{% static path [as varname] %}``, read the same way, its URL kept."""
    node = StaticNode.handle_token(parser, token)
    return KeptStaticNode(node.varname, node.path)
