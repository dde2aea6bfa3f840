"""The round a D6 character is in, played and kept on the sheet: declaring it, rolling each use, the GM's
wound and stun mid-round, and its end (a round of nothing prepares the next).

Every step goes through the sheet's one write path (:mod:`characters.write`): locked, made from the
version of the round the page showed (an older one is refused with :class:`StaleSection`, nothing
written), built by the engine (:mod:`rules.systems.d6.round_state`), validated, recorded in the sheet's
history and announced to open pages. A use is rolled on the server and logged (:func:`play.sheet_rolls.roll`)
in the same transaction as the step that records it, with the roll's number; so a round's record and the
log never disagree."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random
from typing import Final

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from characters import write
from characters.models import Character
from characters.operations import NotAllowed, locked_for_action, section_version
from play import sheet_rolls
from play.sheet_rolls import Rolled
from rules.systems import d6
from rules.systems.base import EditSection, Role, SheetRoll
from rules.systems.d6 import round_state
from rules.systems.d6.luck_moves import LUCK, ROUND
from rules.systems.d6.rounds import RoundError, Use
from rules.systems.d6.sheet import RoundStep, Sheet

#: Who plays the round: the player and the GM.
PLAY: Final = EditSection(ROUND, "round", frozenset({Role.OWNER, Role.GM}))
#: Who wounds or stuns a character mid-round: the GM ("conditions the GM sets").
BEFALL: Final = EditSection(ROUND, "round", frozenset({Role.GM}), note="only the GM wounds or stuns a character")


#: The sections whose change changes what the round rolls: the round itself, the codes the GM corrects, the
#: conditions (wounds, stun) and the luck points (a point spent doubles the round).
ROUND_SECTIONS: Final = (ROUND, "codes", "conditions", LUCK)


def version_of(character: Character) -> int:
    """The round's version as a page shows it: the latest change to anything it rolls."""
    return max(section_version(character, section) for section in ROUND_SECTIONS)


def _locked(character_id: int, action: EditSection, version: int, by: AbstractBaseUser) -> Character:
    character, _ = locked_for_action(character_id, action, version, by, watched=ROUND_SECTIONS)
    if character.system != d6.KEY or character.status != Character.Status.ACTIVE:
        raise NotAllowed("Only a D6 character in play has a round.")
    return character


@transaction.atomic
def declare(*, character_id: int, version: int, actions: Sequence[tuple[int, int | None]], running: bool,
            use_preparation: bool, by: AbstractBaseUser) -> Character:  # fmt: skip
    """The round's declared actions (stat or skill id, difficulty), running, and the preparation taken."""
    character = _locked(character_id, PLAY, version, by)
    sheet = round_state.declare(character.document, actions, running=running, use_preparation=use_preparation,
                                given=character.campaign.settings)  # fmt: skip
    count = len(actions)
    words = f"The round declared: {count} action{'s' if count != 1 else ''}{', running' if running else ''}"
    return write.write(character, sheet, by=by, what=words, sections=[ROUND])


def _made(use: Use, item: int) -> SheetRoll:
    if use.difficulty is None:
        raise RoundError("difficulty", f"name the difficulty of {use.label} to roll it")
    spec = {"system": d6.KEY, "roll": "check", "code": str(use.code), "difficulty": use.difficulty}
    steps = tuple(str(m) for m in use.modifiers)
    if steps:
        spec["steps"] = list(steps)
    name = use.label.split(". ", 1)[-1]
    label = f"{name} {use.code} against {use.difficulty} ({'a reaction' if use.reaction else 'a round'})"
    return SheetRoll("check", spec, label, details={"round": True, "item": item, "name": name}, steps=steps)


@transaction.atomic
def roll(*, character_id: int, version: int, step: RoundStep, by: AbstractBaseUser, rng: Random) -> Rolled:
    """One use of the round rolled now (``step``: an action attempted, with its difficulty if the declaration
    had none, or a reaction used), logged, and recorded in the round with its roll's number."""
    character = _locked(character_id, PLAY, version, by)
    sheet: Sheet = character.document
    if step.what == "attempt" and step.difficulty is not None and sheet.round is not None:
        actions = sheet.round.actions
        if step.action is not None and 0 <= step.action < len(actions) and actions[step.action].difficulty is None:
            named = actions[step.action].model_copy(update={"difficulty": step.difficulty})
            record = sheet.round.model_copy(
                update={"actions": (*actions[: step.action], named, *actions[step.action + 1 :])}
            )
            sheet = sheet.model_copy(update={"round": record})
    sheet, use = round_state.take(sheet, step, character.campaign.settings)
    record = sheet.round
    assert record is not None
    item = step.item if step.what == "reaction" else record.actions[step.action or 0].item
    rolled = sheet_rolls.roll(character, _made(use, item or 0), by=by, rng=rng)  # type: ignore[arg-type]
    write.write(character, round_state.with_roll(sheet, rolled.roll.seq), by=by,
                what=f"The round: {use.label} rolled at {use.code}", sections=[ROUND])  # fmt: skip
    return rolled


@transaction.atomic
def befall(*, character_id: int, version: int, what: round_state.Befalls, by: AbstractBaseUser) -> Character:
    """The GM wounds or stuns the character now, mid-round."""
    character = _locked(character_id, BEFALL, version, by)
    sheet = round_state.befall(character.document, what, character.campaign.settings)
    return write.write(character, sheet, by=by, what=f"{what.capitalize()} mid-round", sections=[ROUND, "conditions"])


@transaction.atomic
def end(*, character_id: int, version: int, prepare: int | None, by: AbstractBaseUser) -> tuple[Character, str]:
    """The round is over (its doubling with it); a round of nothing may prepare a stat or skill for the next."""
    character = _locked(character_id, PLAY, version, by)
    sheet, words = round_state.end(character.document, prepare, character.campaign.settings)
    return write.write(character, sheet, by=by, what=words, sections=[ROUND]), words
