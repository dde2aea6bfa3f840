"""``{% url %}`` for every template, as Django's, with each URL it makes kept (a builtin library of the
template engine, config/settings.py: it takes the place of Django's tag of the same name).

Django's tag reverses its URL anew each time: a page names a dozen URLs (the header's links alone are
five), and each reversal matches its arguments against the pattern's converters again. The URL of a view
name and its arguments never changes while the process runs, so it is made once for each and kept
(:data:`KEPT_URLS` of them, the least recently used dropped first), by everything it depends on: the
view name, the arguments, the current application and the script prefix the site is served under. Only
plain arguments (whole numbers and text) are kept by: anything else is made into its URL as Django does,
every time. A name that does not reverse is Django's NoReverseMatch (or nothing, with ``as``), as before.
"""

from __future__ import annotations

from typing import Any, Final

from django import template
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template import defaulttags
from django.template.base import Parser, Token
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape

from web.kept import Kept

register = template.Library()

#: URLs kept per process (some 60 bytes each, with their keys a few hundred).
KEPT_URLS: Final = 4096

urls: Kept[str] = Kept(KEPT_URLS)


@receiver(setting_changed)
def forget_kept_urls(**kwargs: Any) -> None:
    """A setting changed (tests do it; a running server never does): the URLs kept may be others now."""
    urls.clear()


def _current_app(context: template.Context) -> str | None:
    """The application namespace a URL is reversed in, as Django's tag finds it."""
    request = getattr(context, "request", None)
    current_app = getattr(request, "current_app", None)
    if current_app is not None:
        return str(current_app)
    match = getattr(request, "resolver_match", None)
    return getattr(match, "namespace", None)


def _plain(value: Any) -> bool:
    """A whole number (not a bool: True would be kept as 1) or text (a literal of the template is safe text)."""
    return type(value) is int or isinstance(value, str)


class KeptURLNode(defaulttags.URLNode):
    """Django's URL node, its URL kept by :func:`url_key`."""

    def render(self, context: template.Context) -> str:
        args = tuple(arg.resolve(context) for arg in self.args)
        kwargs = {name: value.resolve(context) for name, value in self.kwargs.items()}
        view_name = self.view_name.resolve(context)
        current_app = _current_app(context)
        key = url_key(view_name, args, kwargs, current_app)
        url = ""
        try:
            url = urls.get(key, lambda: reverse(view_name, args=args, kwargs=kwargs, current_app=current_app))
        except NoReverseMatch:
            if self.asvar is None:
                raise
        if self.asvar:
            context[self.asvar] = url
            return ""
        return conditional_escape(url) if context.autoescape else url


def kept_reverse(view_name: str, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> str:
    """Django's ``reverse(view_name, args=args, kwargs=kwargs)`` for a view's code, kept as the tag keeps its
    URLs (:func:`url_key`): a page that names the same URLs on every load (a sheet's Edit buttons) makes each
    once per process."""
    kwargs = kwargs or {}
    return urls.get(url_key(view_name, args, kwargs, None), lambda: reverse(view_name, args=args, kwargs=kwargs))


def url_key(view_name: Any, args: tuple[Any, ...], kwargs: dict[str, Any], current_app: str | None) -> Any:
    """What a URL depends on, or None (made every time) when an argument is not plain."""
    if not _plain(view_name) or not all(map(_plain, args)) or not all(map(_plain, kwargs.values())):
        return None
    return (view_name, args, tuple(sorted(kwargs.items())), current_app, get_script_prefix(), get_urlconf())


@register.tag
def url(parser: Parser, token: Token) -> KeptURLNode:
    """Django's ``{% url %}``, read the same way, its URL kept (see the module)."""
    node = defaulttags.url(parser, token)
    return KeptURLNode(node.view_name, node.args, node.kwargs, node.asvar)
