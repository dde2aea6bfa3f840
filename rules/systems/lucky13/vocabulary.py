"""The words of a Lucky 13 sheet that every part of the engine shares: the five abilities, names,
levels and reputation, and the error a player reads when a sheet breaks a rule."""

from __future__ import annotations

from typing import Any, Final

from rules import document
from rules.dice import StepDie
from rules.reading import clean_name as clean_name  # the names of a sheet are read as every document reads them
from rules.systems.base import SpecError

#: The five abilities, by the key the code uses; a campaign may rename them ("Abilities").
ABILITY_KEYS: Final = ("will", "charm", "pulse", "intellect", "reflex")
ABILITIES: Final = ("Will", "Charm", "Pulse", "Intellect", "Reflex")


#: The most skills a campaign's list may hold.
MAX_SKILLS: Final = 20
MAX_NAME: Final = document.MAX_NAME
#: The most entries a campaign's table of backgrounds (or of impairments) may hold.
MAX_TABLE_ENTRIES: Final = 100
#: Trait kinds that a campaign may keep a table of, each with its option ("Backgrounds", "Impairments").
TABLE_OPTIONS: Final = {"background": "background_table", "impairment": "impairment_table"}


class SheetError(SpecError):
    """A character sheet that breaks a creation rule; the message is for the player."""


def indefinite(noun: str) -> str:
    """ "a" or "an", for the messages players read."""
    return "an" if noun[:1].lower() in "aeiou" else "a"


def check_level(level: Any, what: str = "level") -> int:
    """Specialization and asset levels run 1 … 5 ("Specializations", "Equipment / assets")."""
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= MAX_SPECIALIZATION_LEVEL:
        raise SheetError(what, f"{indefinite(what)} {what} is from 1 to {MAX_SPECIALIZATION_LEVEL}")
    return level


def check_reputation(value: Any) -> int:
    """ "Reputation": from −5 to +5."""
    if isinstance(value, bool) or not isinstance(value, int) or not -5 <= value <= 5:
        raise SheetError("reputation", "reputation runs from -5 to +5")
    return value


ASSET_LEVELS: Final = ((1, "Inferior"), (2, "Adequate"), (3, "Standard"), (4, "Excellent"), (5, "Perfect"))
MAX_SPECIALIZATION_LEVEL: Final = 5
MAX_ABILITY: Final = StepDie.of(12)
