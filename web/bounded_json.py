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

#: A JSON string, escapes included: brackets inside one do not nest anything. Its closing quote is optional: a
#: string left open runs to the end of the text in one match, where a required quote would have the search try
#: again from every quote after it, each to the end (quadratic: seconds for a 64 KiB frame of quotes).
_STRING: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_NOT_A_BRACKET: Final = re.compile(r"[^\[\]{}]+")
#: Objects nest as arrays do: one kind of bracket to count.
_SQUARE: Final = str.maketrans("{}", "[]")


class TooDeep(ValueError):
    """JSON nested more deeply than :data:`MAX_DEPTH`; nothing of it was read."""

    def __init__(self) -> None:
        super().__init__(f"The JSON is nested too deeply: at most {MAX_DEPTH} levels of objects and arrays.")


def depth_exceeds(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether ``text`` opens more than ``limit`` objects or arrays inside one another (outside its
    strings). Text that is not JSON is left to the parser, unless it opens too many.

    The brackets alone, each pass removes every innermost pair: well-formed text nested ``d`` deep is
    gone after ``d`` passes, each a scan in C. What is left after ``limit`` passes (deeper, or not
    balanced) is scanned bracket by bracket, on top of the levels removed, stopping at the first too deep."""
    brackets = _NOT_A_BRACKET.sub("", _STRING.sub("", text)).translate(_SQUARE)
    passes = 0
    while passes < limit and brackets:
        inner_removed = brackets.replace("[]", "")
        if inner_removed == brackets:
            break
        brackets, passes = inner_removed, passes + 1
    level = passes  # each pass took one level off whatever is left
    for bracket in brackets:
        level += 1 if bracket == "[" else -1
        if level > limit:
            return True
    return False


def loads(raw: str | bytes, **options: Any) -> Any:
    """``json.loads(raw, **options)`` for JSON nested at most :data:`MAX_DEPTH` deep; deeper is
    :class:`TooDeep` (a ``ValueError``, as any JSON that cannot be read). Bytes are read as
    ``json.loads`` reads them (UTF-8, -16 or -32)."""
    text = raw.decode(json.detect_encoding(raw), "surrogatepass") if isinstance(raw, bytes) else raw
    if depth_exceeds(text):
        raise TooDeep
    return json.loads(text, **options)
