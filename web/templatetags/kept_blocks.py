"""``{% kept "name" %}…{% endkept %}``: a part of a page drawn once for each key and kept, the same bytes a
fresh render makes (a builtin library of the template engine, config/settings.py).

Every page draws the same frame around its content: the head with its style sheets and scripts, the
header with its links, the footer with its credit. They change with a handful of values (who is signed
in, which page this is, which rules system it is about) and cost each page more Python than its queries,
a thousand calls of the template engine for the header alone. So a part is marked in the template with
the name of its key (``{% kept "header" %}``), the key is worked out in Python by the function registered
under that name (:data:`KEYS`: each names everything its part shows, beside the template and the place
of the part in it), and the part is drawn only for a key not seen before. A key of ``None`` draws the
part every time.

The one thing a kept part may show that no key names is the page's CSRF token (the log-out form, the
token htmx sends): it is drawn as a placeholder (:data:`CSRF_PLACE`) and the token of the page that
shows it put in its place, so each response still carries a mask of its own. The sheet's regions
(``characters.templatetags.sheet_regions``) are kept the same way, through :func:`kept_html`.

A key that forgets something its part shows would show one page's part on another. With
``settings.KEPT_CHECKED`` (on in the tests) each kept part is drawn again every time it is shown and
compared with what was kept: any difference is an error naming the part, so every page the tests draw
checks the keys of the frame it shows. (Not the sheet's regions: drawing one reads the ledger, and the
tests count a kept region's queries; their keys have tests of their own.)
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, Final

from django import template
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template.base import NodeList, Parser, Token
from django.urls import get_script_prefix, get_urlconf
from django.utils import timezone, translation
from django.utils.safestring import SafeString, mark_safe

from web.kept import Kept

register = template.Library()

#: What a kept part holds where the page's CSRF token goes: letters only, so that escaping leaves it be.
CSRF_PLACE: Final = "keptregioncsrftokenplace"
#: Parts kept per process (the header some 1.5 KB): one for each user signed in and each kind of page.
KEPT_BLOCKS: Final = 2048

blocks: Kept[str] = Kept(KEPT_BLOCKS)

#: The key of each kind of kept part, by the name the template gives it: a function of the context.
KEYS: dict[str, Callable[[template.Context], Hashable | None]] = {}


class StaleKept(AssertionError):
    """A kept part is not what a fresh render of it makes: its key misses something the part shows."""


@receiver(setting_changed)
def forget_kept_blocks(**kwargs: Any) -> None:
    """A setting changed (tests do it; a running server never does): the parts kept may be others now."""
    blocks.clear()


def key_of(name: str) -> Callable[[Callable[[template.Context], Hashable | None]], Any]:
    """Registers the function below as the key of the parts named ``name``."""

    def register_key(function: Callable[[template.Context], Hashable | None]) -> Any:
        KEYS[name] = function
        return function

    return register_key


def kept_html(
    store: Kept[str],
    key: Hashable | None,
    nodelist: NodeList,
    context: template.Context,
    where: str,
    *,
    checked: bool = True,
) -> SafeString:
    """``nodelist`` drawn in ``context``, kept in ``store`` by ``key`` (drawn every time for None), its
    CSRF token the page's own; checked against a fresh render under ``settings.KEPT_CHECKED`` unless told
    not to (``checked``: a part whose drawing reads the database, which the tests count)."""
    if key is None:
        return SafeString(nodelist.render(context))

    def draw() -> str:
        with context.push(csrf_token=CSRF_PLACE):
            return str(nodelist.render(context))

    drawn = store.get(key, draw)
    if checked and settings.KEPT_CHECKED:
        fresh = draw()
        if fresh != drawn:
            raise StaleKept(f"The kept part {where} drew other bytes for the same key {key!r}:\n{drawn}\n---\n{fresh}")
    if CSRF_PLACE in drawn:
        drawn = drawn.replace(CSRF_PLACE, str(context.get("csrf_token", "")))
    # Drawn by the template engine, which escaped it; the token is letters and digits.
    return mark_safe(drawn)  # noqa: S308


class KeptBlock(template.Node):
    def __init__(self, name: str, nodelist: NodeList, where: str) -> None:
        self.name = name
        self.nodelist = nodelist
        self.where = where

    def render(self, context: template.Context) -> SafeString:
        key = KEYS[self.name](context)
        full = None if key is None else (self.where, key, *shown(context))
        return kept_html(blocks, full, self.nodelist, context, self.where)


@register.tag
def kept(parser: Parser, token: Token) -> KeptBlock:
    """``{% kept "name" %}…{% endkept %}``: the part kept by the key registered as ``name`` (:data:`KEYS`)."""
    bits = token.split_contents()
    if len(bits) != 2 or bits[1][0] not in "\"'" or bits[1][0] != bits[1][-1]:
        raise template.TemplateSyntaxError('kept takes one argument, the quoted name of its key: {% kept "header" %}')
    name = bits[1][1:-1]
    if name not in KEYS:
        raise template.TemplateSyntaxError(f"kept: no key is registered as {name!r} (kept_blocks.KEYS)")
    nodelist = parser.parse(("endkept",))
    parser.delete_first_token()
    origin = getattr(parser, "origin", None)
    where = f"{getattr(origin, 'template_name', None) or '?'}:{token.lineno} ({name})"
    return KeptBlock(name, nodelist, where)


def shown(context: template.Context) -> tuple[str, Any, str | None, str]:
    """What every kept part depends on beyond its key: the prefix the site is served under and the URLs (for
    the links it names), the language and the time zone the page is in. Each is the request's for all of its
    response: read once a request (on the request, where the context has one)."""
    request = context.get("request")
    made = getattr(request, "kept_shown", None)
    if made is None:
        made = (get_script_prefix(), get_urlconf(), translation.get_language(), timezone.get_current_timezone_name())
        if request is not None:
            request.kept_shown = made
    return made  # type: ignore[no-any-return]


# --- The keys of the frame every page shares (templates/base.html) -----------------------------------------


@key_of("head")
def head_key(context: template.Context) -> Hashable:
    """A part that links static files alone (the style sheets, scripts and icon a page loads): the same
    wherever it is shown (their hashed names change only when the files are collected again, before a
    server starts)."""
    return ()


@key_of("header")
def header_key(context: template.Context) -> Hashable | None:
    """The page's opening ``<body>`` (the token htmx sends, on a signed-in page) and the header's links:
    who is signed in, which page this is (the link that is the current page), and, for a visitor, the
    page to come back to once logged in. None without a request or a user (an error page drawn bare)."""
    request = context.get("request")
    user = context.get("user")
    if request is None or user is None:
        return None
    match = getattr(request, "resolver_match", None)
    signed_in = bool(user.is_authenticated)
    return (
        signed_in,
        user.get_username() if signed_in else None,
        getattr(match, "app_name", None),
        getattr(match, "url_name", None),
        None if signed_in else request.get_full_path(),
    )


@key_of("footer")
def footer_key(context: template.Context) -> Hashable:
    """The footer: the credit of the page's rules system (``dice.rules_credit``) and the link to the About page."""
    from web.templatetags.dice import credited_system

    return (credited_system(context),)
