"""What a rules system adds to the JSON API beyond its sheet document, registered by its Django
package (``games/<key>/``) when Django starts, before the API is built: the fields a character of
the system shows beside its sheet (Lucky 13's export fields), a PATCH of a partial character, and
endpoints of its own for what its pages do beyond the sheet's sections (D6's round and luck points),
each under ``/characters/{id}/<key>/…``.

A system that registers nothing is read as its sheet and changed a section at a time
(``PUT /characters/{id}/sections/{key}``), which every system has. The API's schemas are made
from what is registered when it is built, as the union of the sheets is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from ninja import Router, Schema

from characters.models import Character


class StalePatch(Exception):
    """The sheet is not at the version a PATCH was made from; nothing was saved."""


#: Saves a PATCH's changes to the character (locked by the caller, in its transaction), as the user,
#: given the character as the API reads it now; raises :class:`StalePatch`, or a refusal (a 400, a
#: 403) naming the document's fields, and then the caller's transaction saves nothing.
ApplyPatch = Callable[[Character, Any, AbstractBaseUser, Mapping[str, Any]], None]


@dataclass(frozen=True, slots=True)
class SystemApi:
    #: The fields a character of the system shows beside its sheet (each optional: other systems' are null).
    named_fields: type[Schema] | None = None
    #: A PATCH's body (with the ``version`` it was made from), and how it is saved.
    patch: type[Schema] | None = None
    apply_patch: ApplyPatch | None = None
    #: The system's own endpoints, added to the API as they are (their paths name the system).
    router: Router | None = None


_EXTENSIONS: dict[str, SystemApi] = {}


def register(system: str, extension: SystemApi) -> None:
    """Add ``extension`` to the API for ``system``'s characters (before the API is built). Its own
    endpoints stay under the system's name: ``/characters/{id}/<key>/…`` or ``/campaigns/{id}/<key>/…``."""
    if extension.router is not None:
        allowed = (f"/characters/{{id}}/{system}/", f"/campaigns/{{id}}/{system}/")
        stray = sorted(path for path in extension.router.path_operations if not path.startswith(allowed))
        if stray:
            raise ValueError(f"{system}'s API endpoints must be under {' or '.join(allowed)}: {', '.join(stray)}")
    _EXTENSIONS[system] = extension


def of(system: str) -> SystemApi | None:
    return _EXTENSIONS.get(system)


def registered() -> list[SystemApi]:
    return list(_EXTENSIONS.values())
