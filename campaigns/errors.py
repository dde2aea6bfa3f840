"""The refusals every write of the domain raises, each with the HTTP status an edge answers with."""

from __future__ import annotations

from collections.abc import Mapping


class Refused(Exception):
    """An action the campaign's state or the asker's role does not allow."""

    status = 400

    def __init__(self, message: str, *, errors: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        #: Messages by option or field, for a form to show next to its fields.
        self.errors = dict(errors or {})


class NotAllowed(Refused):
    status = 403


class NotFound(Refused):
    status = 404


class Conflict(Refused):
    """The campaign is in a state that forbids this (archived, already so, in use by characters)."""

    status = 409


class Gone(Refused):
    """An invitation that was real but can no longer be used."""

    status = 410


__all__ = ["Conflict", "Gone", "NotAllowed", "NotFound", "Refused"]
