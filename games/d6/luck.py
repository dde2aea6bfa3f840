"""Spending a D6 luck point from the sheet, the GM's call on how heroic it was, and the GM's extra point for a
dramatic spend.

Both go through the sheet's one write path (:mod:`characters.write`): locked, made from the version of
the luck points the page showed (an older one is refused with :class:`StaleSection`, nothing written),
built by the engine (``D6.spend_luck``, ``D6.judge_luck``, ``D6.grant_extra``), validated, recorded in the sheet's
history (the luck point ledger: who spent what, when, and why) and announced to open pages. The GM's
end of the adventure returns what is owed (``ledger.award`` with ``ends_adventure``)."""

from __future__ import annotations

from typing import Final

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from characters import write
from characters.models import Character
from characters.operations import locked_for_action
from rules.systems.base import EditSection, Role

#: The sheet's section of the luck points: its open forms go stale when a point is spent.
LUCK: Final = "luck"
#: The sheet's section of the round in play: a luck point spent to double changes it too.
ROUND: Final = "round"
#: Who spends a luck point: the player and the GM ("Anytime at all during a scenario … you can say").
SPEND: Final = EditSection(LUCK, "luck points", frozenset({Role.OWNER, Role.GM}))
#: The sheet's section of the wounds: escaping certain death leaves a dead character incapacitated.
CONDITIONS: Final = "conditions"
#: Who says how heroic a spend was: the GM (rules README, "Heroism is the GM's call").
JUDGE: Final = EditSection(LUCK, "luck points", frozenset({Role.GM}),
                           note="only the GM says how heroic a luck point's spend was")  # fmt: skip
#: Who grants one more point for a dramatic spend: the GM ("probably another one as well").
GRANT: Final = EditSection(LUCK, "luck points", frozenset({Role.GM}), note="only the GM grants an extra luck point")


def _locked(character_id: int, action: EditSection, version: int, by: AbstractBaseUser) -> Character:
    return locked_for_action(character_id, action, version, by)[0]


@transaction.atomic
def spend(*, character_id: int, version: int, kind: str, explanation: str,
          by: AbstractBaseUser) -> tuple[Character, str]:  # fmt: skip
    """Spend one of the character's luck points (how heroic it was is the GM's call, :func:`judge`). Raises
    :class:`NotAllowed`, :class:`StaleSection`, or :class:`~rules.systems.base.SpecError` (none left, an
    escape with no explanation); nothing is written."""
    character = _locked(character_id, SPEND, version, by)
    sheet, words = character.rules.spend_luck(character.document, kind, explanation, character.campaign.settings)
    write.write(character, sheet, by=by, what=words,
                sections=[LUCK, ROUND] if kind == "double" else [LUCK, CONDITIONS])  # fmt: skip
    return character, words


@transaction.atomic
def judge(*, character_id: int, version: int, spend_id: int, heroism: str, by: AbstractBaseUser) -> Character:
    """The GM marks a spend of this adventure unheroic, heroic or dramatic (and may change it until the
    adventure ends), which decides what comes back."""
    character = _locked(character_id, JUDGE, version, by)
    sheet, words = character.rules.judge_luck(character.document, spend_id, heroism)
    write.write(character, sheet, by=by, what=words, sections=[LUCK])
    return character


@transaction.atomic
def grant(*, character_id: int, version: int, spend_id: int, granted: bool, by: AbstractBaseUser) -> Character:
    """The GM grants (or takes back) one more point for a dramatic spend, returned with it at the end."""
    character = _locked(character_id, GRANT, version, by)
    sheet, words = character.rules.grant_extra(character.document, spend_id, granted)
    write.write(character, sheet, by=by, what=words, sections=[LUCK])
    return character
