"""The one write path of a character's sheet, for every system and every edge.

A page's section form, the API, an import, a GM's edit, a purchase, damage in an encounter,
a creation step: each builds the new sheet through the character's system and hands it to
:func:`write` (or :func:`change`, which also locks and checks the version). There the sheet is
validated by its system as the character stands (a finished character as finished, a draft as
a draft), saved with a new version, recorded in the sheet history (who, what, before, after)
and announced to open pages once the transaction commits. Nothing else saves ``sheet``.

No lost work: a change carries the version it was made from. :func:`change` refuses one made
from an older version with :class:`StaleSheet` (409, with the current character), before
anything is checked or written. A section form carries its section's version instead
(``section_versions``), so two people editing different sections do not refuse each other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import django.dispatch
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from campaigns.errors import Conflict, NotFound, Refused
from campaigns.models import moved, moved_statement
from characters.models import Character, Reader, SheetChange
from rules.systems.base import SheetInvalid
from web.prepared import save_fields, write_together

#: Sent after commit with ``character_id`` whenever a sheet is saved: the live pages listen. With ``saved``, the
#: character as its write saved it, read with all its announcement shows (see :func:`mark_changed`), or None.
character_changed = django.dispatch.Signal()
#: Sent after commit with ``character_ids`` when one write saved many characters (an award to a party),
#: instead of ``character_changed`` for each: the live pages read them all at once.
characters_changed = django.dispatch.Signal()


class StaleSheet(Conflict):
    """The sheet (or the section) changed since the change was made from it; nothing was written.
    ``character`` is the character as it is now, for the 409 to show."""

    code = "stale_version"

    def __init__(self, character: Character, message: str = "") -> None:
        super().__init__(
            message
            or f"{character.name}'s sheet was changed by someone else since you opened it, so nothing was saved. "
            "Here it is as it is now."
        )
        self.character = character


def refusal(error: SheetInvalid, *, prefix: str = "") -> Refused:
    """A sheet its system refused, as a 400 for a form or the API: each problem under its field
    (the document path, such as ``skills.3.die``, after ``prefix``), the first as the message."""
    errors: dict[str, str] = {}
    for problem in error.problems:  # every problem, those at one field one after the other
        said = sentence(problem.message)
        where = prefix + problem.field
        errors[where] = f"{errors[where]} {said}" if where in errors else said
    first = error.problems[0] if error.problems else None
    message = sentence(first.message) if first else "The sheet is not valid."
    return Refused(message, errors=errors)


def sentence(message: str) -> str:
    """An engine's message (lower case, no full stop) as a sentence for a page."""
    message = message.strip()
    if not message:
        return message
    message = message[0].upper() + message[1:]
    return message if message.endswith((".", "!", "?")) else message + "."


def lock(character_id: int, read: Reader | None = None, *, viewer: int | None = None) -> Character:
    """The character, locked for a write (its campaign first), or :class:`NotFound`; ``read``: what the
    caller reads with it under the lock, and ``viewer``, whose role it reads with it
    (:meth:`~characters.models.CharacterQuerySet.lock`)."""
    character = Character.objects.lock(character_id, read, viewer=viewer)
    if character is None:
        raise NotFound("No such character.")
    return character


def section_version(character: Character, section: str) -> int:
    """The version at which ``section`` last changed; 0 if it has not changed since creation."""
    return int(character.section_versions.get(section, 0))


def is_stale(character: Character, version: int, section: str | None = None) -> bool:
    """Whether a change made from ``version`` (of ``section``, or of the whole sheet) is too old."""
    if section is None:
        return version != character.version
    return section_version(character, section) > version or version > character.version


def mark_changed(
    character: Character,
    *sections: str,
    fields: Sequence[str] = (),
    campaign_moved: bool = False,
    announced: bool = True,
    history: SheetChange | None = None,
    as_saved: bool = False,
) -> None:
    """A new version (the caller holds the row lock): each of ``sections`` is now at it, so
    forms made from before it are refused; open pages hear of it once committed, unless not ``announced``:
    the caller announces it with the others it changed (:func:`announce_all`). The campaign's last
    activity moves to now, unless ``campaign_moved``: the caller moved it already in this transaction
    (a roll it recorded for the change, ``play.rolls.record_roll``), a moment before. ``history``: the
    change's row of the sheet's history, written at the new version with the rest, in one statement where
    the database allows (``web.prepared.write_together``: a write's every trip happens under the campaign's
    lock, which the campaign's other writes wait for). ``as_saved``: ``character`` was read under its lock with
    all its announcement shows (its owner, campaign, balances and encounter: ``play.announced``) and this write
    changes none of them, so it is announced as it stands at the commit, not read again. Announcements go
    in the order of their writes, each the whole card and version, so a later write of the same transaction
    (announced from a read) has the last word."""
    character.version += 1
    character.section_versions = {**character.section_versions, **dict.fromkeys(sections, character.version)}
    saved = [*fields, "version", "section_versions", "updated_at"]
    now = timezone.now()
    if history is None:
        save_fields(character, saved)
        if not campaign_moved:
            moved(character.campaign_id, now)
    else:
        history.version = character.version
        also = [] if campaign_moved else [moved_statement(character.campaign_id, now)]
        write_together(character, saved, history, *also)
    if announced:
        saved = character if as_saved else None
        transaction.on_commit(lambda: character_changed.send(sender=Character, character_id=character.pk, saved=saved))


def announce_all(character_ids: Sequence[int]) -> None:
    """Open pages hear of each of ``character_ids`` (saved in this transaction, each once) once it commits,
    all in one announcement (:data:`characters_changed`)."""
    if character_ids:
        ids = list(dict.fromkeys(character_ids))
        transaction.on_commit(lambda: characters_changed.send(sender=Character, character_ids=ids))


def write(
    character: Character,
    sheet: Any,
    *,
    by: AbstractBaseUser | None,
    what: str,
    sections: Sequence[str] = (),
    status: str | None = None,
    fields: Sequence[str] = (),
    campaign_moved: bool = False,
    announced: bool = True,
    as_saved: bool = False,
) -> Character:
    """Save ``sheet`` (a document of the character's system) as the character's sheet.

    The caller holds the row lock (:func:`lock`) and has checked who may do this. The sheet is
    validated by the system under :attr:`Character.counted_by` (raising
    :class:`~rules.systems.base.SheetInvalid`, nothing written), as finished when the character is
    active; ``status`` moves the character (draft → active …) in the same save; ``fields`` are other
    columns the caller changed; ``campaign_moved``: the caller moved the campaign's last activity already in
    this transaction; not ``announced``: the caller announces the character itself (:func:`mark_changed`);
    ``as_saved``: it is announced as saved, not read again (:func:`mark_changed`).
    """
    after_status = status or character.status
    # An active character is checked as finished; a draft as a draft; an archived one as what it
    # was (a player who left mid-creation leaves an unfinished draft archived), and restoring it
    # to active checks it as finished. An import that waits for the GM is counted as where it came from.
    problems = character.rules.validate(sheet, character.counted_by, finished=after_status == Character.Status.ACTIVE)
    if problems:
        raise SheetInvalid(problems)
    before = character.sheet
    after = sheet.model_dump(mode="json")
    if after == before and after_status == character.status and not fields:
        # A save that changes nothing writes nothing: the version stays, so no one's open form
        # turns stale, and the history holds only changes.
        return character
    character.sheet = after
    character.status = after_status
    character.awaiting = len(character.rules.awaiting(sheet)) + (1 if character.arrival else 0)
    change = SheetChange(character=character, what=what[:200], sections=list(sections), before=before, after=after,
                         by=by)  # fmt: skip
    mark_changed(
        character,
        *sections,
        fields=["sheet", "status", "awaiting", *fields],
        campaign_moved=campaign_moved,
        announced=announced,
        history=change,
        as_saved=as_saved,
    )
    return character


def record_status(character: Character, status: str, *, by: AbstractBaseUser | None, what: str) -> Character:
    """Move the locked character to ``status`` with its sheet as it is, in the history like any
    change (who, when, and ``what`` says why). The sheet is not checked again: it does not change,
    and a departure must never be refused for what a sheet holds."""
    character.status = status
    mark_changed(character, fields=["status"])
    SheetChange.objects.create(
        character=character, version=character.version, what=what[:200], sections=[],
        before=character.sheet, after=character.sheet, by=by,
    )  # fmt: skip
    return character


@transaction.atomic
def change(
    character_id: int,
    *,
    version: int | None,
    by: AbstractBaseUser | None,
    what: str,
    edit: Callable[[Character], Any],
    section: str | None = None,
    sections: Sequence[str] = (),
) -> Character:
    """Lock, check the version, build the new sheet with ``edit(character)``, and :func:`write` it.

    ``version`` is the version the change was made from (of ``section`` when given; ``None``
    for a change that reads the sheet under the lock, such as damage); ``edit`` may raise to
    refuse, and nothing is written.
    """
    character = lock(character_id)
    if version is not None and is_stale(character, version, section):
        raise StaleSheet(character)
    sheet = edit(character)
    return write(character, sheet, by=by, what=what, sections=sections or ([section] if section else []))


def history(character: Character, *, before: int | None = None, limit: int = 25) -> list[SheetChange]:
    """The character's sheet changes, newest first, ``limit`` at a time from ``before`` (a change id)."""
    return list(SheetChange.objects.newest_of(character.pk, before=before).select_related("by")[:limit])
