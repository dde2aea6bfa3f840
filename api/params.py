"""Parameters the routers share."""

from __future__ import annotations

from typing import Annotated, Final

from ninja import Path

from web import fields

#: The largest key a row can have (a BigAutoField). A larger number names nothing, and would
#: overflow the database's integer if it reached a query; the schema says so, so it is a 422.
MAX_ID: Final = 2**63 - 1

#: Text a request may send, as the pages' forms take it (:class:`web.fields.TextField`): one line
#: without control characters (a NUL, which PostgreSQL cannot store, among them), or lines. Use as
#: ``Field(pattern=ONE_LINE)``.
ONE_LINE: Final = fields.ONE_LINE
LINES: Final = fields.LINES

#: An object's id in the path: ``/characters/{id}/…``.
PathId = Annotated[int, Path(ge=1, le=MAX_ID, description="The object's id.")]
