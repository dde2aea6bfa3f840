"""Two changes of a Lucky 13 character's hit points outside a fight, each a campaign option: a rest
(``resting``: "Healing") and the GM's word that a character healed from dying has recovered
(``recovery``, gritty: "Death & dying").

Both go through the sheet's one write path (:mod:`characters.write`): locked, made from the version
of the hit points the form showed (an older one is refused with :class:`StaleSection`, nothing
written), built by the engine (:mod:`rules.systems.lucky13.recovery`), validated, recorded in the
sheet's history and announced to open pages. An open hit point form goes stale, as after damage.
"""

from __future__ import annotations

from typing import Final

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from characters import write
from characters.models import Character
from characters.operations import locked_for_action
from rules.systems.base import EditSection, Role
from rules.systems.lucky13.encounter import HIT_POINTS_SECTION
from rules.systems.lucky13.health import Rested
from rules.systems.lucky13.recovery import recovered, rest_sheet

__all__ = ["MARK_RECOVERED", "REST", "mark_recovered", "rest"]

#: Who may rest a character: its player and the GM (as for the sections both may edit).
REST: Final = EditSection(HIT_POINTS_SECTION, "hit points", frozenset({Role.OWNER, Role.GM}))
#: Who may say a character has recovered: the GM, who judges "some period of rest and recuperation".
MARK_RECOVERED: Final = EditSection(
    HIT_POINTS_SECTION, "recovery", frozenset({Role.GM}), note="only the GM can say a character has recovered"
)


def _locked(character_id: int, action: EditSection, version: int, by: AbstractBaseUser) -> Character:
    """The character, locked, once ``by`` may do ``action`` and its hit points have not changed since
    ``version``: else :class:`NotAllowed` (why, for them) or :class:`StaleSection`."""
    return locked_for_action(character_id, action, version, by)[0]


@transaction.atomic
def rest(*, character_id: int, version: int, minutes: int, by: AbstractBaseUser) -> tuple[Character, Rested]:
    """The character rests ``minutes``: 1 hit point per whole 15 minutes, at most 4 since they were last
    at full (:func:`rules.systems.lucky13.health.rest`). Raises :class:`NotAllowed`, :class:`StaleSection`,
    or :class:`~rules.systems.base.SpecError` (``minutes`` or ``hit_points``: why the rest heals nothing);
    nothing is written."""
    character = _locked(character_id, REST, version, by)
    sheet, rested = rest_sheet(character.document, minutes, character.campaign.settings)
    points = f"{rested.healed} hit point{'' if rested.healed == 1 else 's'}"
    write.write(character, sheet, by=by, what=f"Rested {minutes} minutes: {points} healed", sections=[REST.key])
    return character, rested


@transaction.atomic
def mark_recovered(*, character_id: int, version: int, by: AbstractBaseUser) -> Character:
    """The GM says the character, healed from dying, has rested and recuperated: their Ability dice are
    no longer a step down. Raises :class:`NotAllowed` (a player), :class:`StaleSection`, or
    :class:`~rules.systems.base.SpecError` (a character who is not recovering); nothing is written."""
    character = _locked(character_id, MARK_RECOVERED, version, by)
    write.write(character, recovered(character.document), by=by, what="Recovered: back at full strength",
                sections=[MARK_RECOVERED.key])  # fmt: skip
    return character
