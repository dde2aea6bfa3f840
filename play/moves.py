"""The one pipeline that performs any move of any system (:mod:`rules.systems.moves`): a rest, a
recovery, and every stateful mechanic a system declares, through the same steps.

Lock the character, check who is making the move (its owner, the GM) and that the campaign offers it,
check that none of the parts it is made from changed since the version the maker read (one conflict
for every move: :class:`StaleMove`, a 409 with what is current, nothing written), read the input
through the move's own model, ask the system why the move may not be made now, apply it, and save the
new sheet through the one write path (:func:`characters.write.write`: validated, in the sheet's
history, announced to open pages). The page (:mod:`play.move_views`) and the API route both call
:func:`make`, and list what the caller may do with :func:`offered`.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from random import Random
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from pydantic import ValidationError

from campaigns.errors import Conflict, NotAllowed, NotFound, Refused
from campaigns.models import Membership
from characters import write
from characters.generated import refusal_words
from characters.models import Character
from characters.operations import sections_for
from play import rolls, sheet_rolls
from play.models import Roll
from rules.document import problems_of
from rules.systems.base import Role, SheetInvalid, SpecError
from rules.systems.moves import Made, Move, Scope, Situation, find

__all__ = [
    "Done",
    "Offered",
    "StaleMove",
    "allowed",
    "forbidden",
    "made_from",
    "make",
    "move_of",
    "offered",
    "perform",
    "read_input",
    "record",
    "viewer_role",
]


class StaleMove(Conflict):
    """A part the move is made from changed since the version the maker read: nothing was done.
    ``character`` is the character as it is now, for the 409 to show."""

    code = "stale_version"

    def __init__(self, character: Character, move: Move) -> None:
        section = sections_for(character).get(move.parts[0]) if move.parts else None
        #: What changed, in words that start a sentence ("The hit points").
        self.what = f"The {section.label}" if section is not None else f"{character.name}'s sheet"
        super().__init__(
            f"{self.what} changed since the version this {move.label.lower()} was made from, so nothing was done. "
            "This is how it stands now."
        )
        self.character = character
        self.move = move


def _sheet_moves(character: Character) -> tuple[Move, ...]:
    """The sheet moves the character's campaign offers, in the system's order."""
    options = character.campaign.settings
    return tuple(m for m in character.rules.moves if m.scope is Scope.SHEET and m.offered(options))


def move_of(character: Character, key: str) -> Move:
    """The sheet move ``key`` the character's campaign offers, or :class:`NotFound`."""
    move = find(_sheet_moves(character), key)
    if move is None:
        raise NotFound("There is no such move for this character in this campaign.")
    return move


def viewer_role(character: Character, user: AbstractBaseUser) -> Role | None:
    """The user's role for the character's sheet: the GM, its owner, or None."""
    is_gm = Membership.objects.filter(campaign_id=character.campaign_id, user_id=user.pk, role=Membership.Role.GM)
    if is_gm.exists():
        return Role.GM
    return Role.OWNER if character.owner_id == user.pk else None


def _situation(character: Character, role: Role, rng: Random | None = None) -> Situation:
    return Situation(character.document, character.campaign.settings, role, rng=rng)


def _forbidden(character: Character, move: Move, role: Role | None) -> str | None:
    """Why someone of ``role`` may not make ``move`` on the character at all (a 403), or None."""
    if character.campaign.archived_at is not None:
        return "This campaign is archived: its sheets can be read but not changed."
    if character.status == Character.Status.ARCHIVED:
        return "This character is archived and can no longer be changed."
    if character.status == Character.Status.DRAFT:
        return "This character is still a draft: finish it in the creation steps first."
    if role is None:
        return "Only the character's player and the GM can change this sheet."
    if role not in move.who:
        return write.sentence(move.note or f"only the GM can do this: {move.label.lower()}")
    return None


def _not_now(character: Character, move: Move, role: Role) -> str | None:
    """Why the rules refuse ``move`` on the character as it stands (a 400), or None."""
    why = move.why_not(_situation(character, role))
    return write.sentence(why) if why else None


def forbidden(character: Character, move: Move, user: AbstractBaseUser) -> str | None:
    """Why ``user`` may not make ``move`` on the character at all, in their words; None if they may
    (though the rules may refuse it now: :func:`allowed`)."""
    return _forbidden(character, move, viewer_role(character, user))


def allowed(character: Character, move: Move, user: AbstractBaseUser) -> str | None:
    """Why ``user`` may not make ``move`` on the character now, in their words (a sentence); None if
    they may."""
    role = viewer_role(character, user)
    forbidden = _forbidden(character, move, role)
    if forbidden is not None or role is None:
        return forbidden
    return _not_now(character, move, role)


def made_from(character: Character, move: Move) -> int:
    """The version a move made now is made from: the latest change of the parts it depends on."""
    return max((write.section_version(character, part) for part in move.parts), default=character.version)


@dataclass(frozen=True, slots=True)
class Offered:
    """A move as the caller sees it now: the move, why they may not make it (None: they may), and the
    version to make it from."""

    move: Move
    why_not: str | None
    version: int


def offered(character: Character, user: AbstractBaseUser) -> list[Offered]:
    """Every sheet move the character's campaign offers, each with why ``user`` may not make it now."""
    return [Offered(m, allowed(character, m, user), made_from(character, m)) for m in _sheet_moves(character)]


def read_input(move: Move, given: Mapping[str, Any]) -> Any:
    """``given`` read through the move's input model, or :class:`Refused` with every problem by its field."""
    try:
        return move.input.model_validate(dict(given))
    except ValidationError as error:
        own = refusal_words(move.input)
        errors: dict[str, str] = {}
        for problem in problems_of(error):
            # A problem at no path at all (a key with no name) is the input's as a whole.
            nowhere = problem.field == "sheet" and "sheet" not in given and "sheet" not in move.input.model_fields
            field = "input" if nowhere else problem.field
            said = own.get(field) or write.sentence(f"{field.replace('_', ' ')} {problem.message}")
            if said not in errors.get(field, ""):
                errors[field] = f"{errors[field]} {said}" if field in errors else said
        raise Refused(next(iter(errors.values())), errors=errors) from None


def perform(move: Move, situation: Situation, given: Mapping[str, Any]) -> Made:
    """The steps every move takes once its target is locked and its maker allowed: ``given`` read through
    the move's input model, every problem of it at once (:attr:`Move.check`), then the move applied.
    :class:`Refused` (400) with each problem by its field; nothing is changed by this function."""
    given_input = read_input(move, given)
    problems = move.check(situation, given_input.model_dump())
    if problems:
        errors: dict[str, str] = {}
        for problem in problems:
            said = write.sentence(problem.message)
            errors[problem.field] = f"{errors[problem.field]} {said}" if problem.field in errors else said
        raise Refused(next(iter(errors.values())), errors=errors)
    try:
        return move.apply(situation, given_input)
    except SpecError as error:
        message = write.sentence(error.message)
        raise Refused(message, errors={error.field: message}) from None


@transaction.atomic
def make(*, character_id: int, key: str, version: int, given: Mapping[str, Any], by: AbstractBaseUser) -> Done:
    """Make the sheet move ``key`` on the character, as ``by``, from the sheet ``version`` they read,
    with ``given`` for the move's input: the character as saved, what the move made and the rolls it logged
    (a use of a round is rolled by the roll page's own path, :func:`play.sheet_rolls.roll`).

    Raises :class:`NotFound` (no such character, or no such move in its campaign), :class:`NotAllowed`
    (why, for them), :class:`StaleMove` (409), or :class:`Refused` (400: the input, or the rules, with
    the reason by its field); nothing is written then."""
    character = write.lock(character_id)
    move = move_of(character, key)
    role = viewer_role(character, by)
    forbidden = _forbidden(character, move, role)
    if forbidden is not None or role is None:
        raise NotAllowed(forbidden or "")
    if version > character.version or made_from(character, move) > version:
        raise StaleMove(character, move)
    not_now = _not_now(character, move, role)
    if not_now is not None:
        raise Refused(not_now)
    rng = secrets.SystemRandom()
    made = perform(move, _situation(character, role, rng), given)
    logged = [sheet_rolls.roll(character, rolled, by=by, rng=rng).roll for rolled in made.sheet_rolls]
    logged += record(made, campaign_id=character.campaign_id, by=by, character_id=character.pk)
    state = made.state if made.then is None else made.then(made.state, tuple(r.seq for r in logged))
    try:
        write.write(character, state, by=by, what=made.words, sections=list(made.changed or move.parts))
    except SheetInvalid as error:
        raise write.refusal(error) from None
    return Done(character, made, logged)


@dataclass(frozen=True, slots=True)
class Done:
    """A move made on a sheet: the character as saved, what the move made, and the rolls it put in the log."""

    character: Character
    made: Made
    rolls: list[Roll]


def record(made: Made, *, campaign_id: int, by: AbstractBaseUser, character_id: int | None = None) -> list[Roll]:
    """The dice a move rolled, in the campaign's log, in order; a reroll as a new roll that follows the one it
    replaces (by the number the move's state kept)."""
    return [
        rolls.record_roll(
            campaign_id=campaign_id,
            by=by,
            character_id=character_id,
            kind=rolled.kind,
            spec=rolled.spec,
            dice=rolled.dice,
            total=rolled.total,
            outcome=rolled.outcome,
            chance=rolled.chance,
            chance_of=rolled.chance_of,
            label=rolled.label,
            follows=rolled.follows,
        )
        for rolled in made.rolls
    ]


def told(name: str, made: Made) -> str:
    """What the one who made a move is told: the character's name, then what the move says it did."""
    notice = made.notice
    return f"{name}{notice if notice.startswith((':', ',')) else ' ' + notice}."
