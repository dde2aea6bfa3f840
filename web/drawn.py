"""What a template does with a value, done in Python: for the fragments drawn by hand, byte for byte as their
templates draw them (``play.roll_rows``, ``play.party_cards``), each checked against its template under
``settings.KEPT_CHECKED`` (on in the tests)."""

from __future__ import annotations

import html
from typing import Any, Final

#: What a template's lookup gives for a name that is not there.
MISSING: Final = object()


def lookup(value: Any, *path: str) -> Any:
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


def truthy(value: Any) -> bool:
    """``{% if value %}``: a missing name is false."""
    return value is not MISSING and bool(value)


def shown(value: Any) -> str:
    """``{{ value }}`` with localization off: a missing name shows nothing, anything else its text, escaped."""
    if value is MISSING:
        return ""
    text = value if isinstance(value, str) else str(value)
    if hasattr(text, "__html__"):  # marked safe: as it is (Django's conditional_escape)
        return str(text.__html__())
    return html.escape(text)  # what Django's escape does, without its wrappers for lazy text
