"""JSON read from outside (an API body, a socket's frame, an uploaded document) with its nesting
bounded: Python's ``json`` parser recurses once per level, so a body of 50,000 ``[`` is a
``RecursionError`` deep inside a request, not a clear refusal. The depth is measured first, on the
text, without recursion and without building anything; only a document within :data:`MAX_DEPTH`
reaches the parser.

No document the application reads or writes comes near the limit: a character's sheet, the
deepest of them, is a handful of levels (a sheet, its skills, a skill, its specializations).
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

#: The deepest nesting of objects and arrays any JSON the application reads may have.
MAX_DEPTH: Final = 64

#: A JSON string, escapes included: brackets inside one do not nest anything.
_STRING: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET: Final = re.compile(r"[\[\]{}]")
_OPENING: Final = frozenset("[{")


class TooDeep(ValueError):
    """JSON nested more deeply than :data:`MAX_DEPTH`; nothing of it was read."""

    def __init__(self) -> None:
        super().__init__(f"The JSON is nested too deeply: at most {MAX_DEPTH} levels of objects and arrays.")


def depth_exceeds(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether ``text`` opens more than ``limit`` objects or arrays inside one another (outside its
    strings). A scan, stopping at the first level too deep; text that is not JSON is left to the parser."""
    level = 0
    for bracket in _BRACKET.finditer(_STRING.sub("", text)):
        if bracket.group() in _OPENING:
            level += 1
            if level > limit:
                return True
        else:
            level -= 1
    return False


def loads(raw: str | bytes, **options: Any) -> Any:
    """``json.loads(raw, **options)`` for JSON nested at most :data:`MAX_DEPTH` deep; deeper is
    :class:`TooDeep` (a ``ValueError``, as any JSON that cannot be read). Bytes are read as
    ``json.loads`` reads them (UTF-8, -16 or -32)."""
    text = raw.decode(json.detect_encoding(raw), "surrogatepass") if isinstance(raw, bytes) else raw
    if depth_exceeds(text):
        raise TooDeep
    return json.loads(text, **options)
