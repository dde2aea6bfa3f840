"""Parameters the routers share."""

from __future__ import annotations

from typing import Annotated, Final

from ninja import Path

#: The largest key a row can have (a BigAutoField). A larger number names nothing, and would
#: overflow the database's integer if it reached a query; the schema says so, so it is a 422.
MAX_ID: Final = 2**63 - 1

#: Text a request may send: anything but NUL, which PostgreSQL cannot store and the pages' forms
#: refuse (Django's ProhibitNullCharactersValidator). Use as ``Field(pattern=NO_NUL)``.
NO_NUL: Final = r"^[^\x00]*$"

#: An object's id in the path: ``/characters/{id}/…``.
PathId = Annotated[int, Path(ge=1, le=MAX_ID, description="The object's id.")]
