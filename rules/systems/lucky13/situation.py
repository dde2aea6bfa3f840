"""What a roll from a Lucky 13 sheet is asked with, as a JSON body: the situation of
:meth:`~rules.systems.lucky13.system.Lucky13.sheet_roll`, validated at the edge (the JSON API)
before the sheet is read ("Skill checks", "Characters assisting characters", "Reputation")."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt
from pydantic.config import JsonDict

from rules.document import MAX_ITEM_ID, Name
from rules.systems.lucky13.checks import AbilityRoll, Difficulty
from rules.systems.lucky13.vocabulary import ABILITY_KEYS

#: The GM's extra steps a roll may be asked with, either way (the sheet roll page offers the same).
MAX_GM_STEPS: Final = 10
#: Another character's id: any the database may hold.
MAX_CHARACTER_ID: Final = 2**63 - 1

ItemRef = Annotated[StrictInt, Field(ge=1, le=MAX_ITEM_ID)]
CharacterRef = Annotated[StrictInt, Field(ge=1, le=MAX_CHARACTER_ID)]
Steps = Annotated[StrictInt, Field(ge=-MAX_GM_STEPS, le=MAX_GM_STEPS)]

EXAMPLE: Final[JsonDict] = {
    "kind": "check",
    "skill": 5,
    "specialization": 8,
    "difficulty": "moderate",
    "ability_roll": "background",
}


class Situation(BaseModel):
    """A roll the sheet offers. Only ``skill`` is needed; the rest take the sheet roll page's defaults."""

    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_extra={"examples": [EXAMPLE]})

    kind: Literal["check", "reaction"] = Field(
        "check", description="A skill check, or a reaction check (Charm, stepped by reputation, + the skill)."
    )
    skill: ItemRef = Field(..., description="The skill, by its id on the sheet.")
    specialization: ItemRef | None = Field(None, description="A specialization of the skill, by id (a check only).")
    ability: Literal[ABILITY_KEYS] | None = Field(  # type: ignore[valid-type]
        None,
        description="The ability rolled with the skill (a check only): by default the skill's linked one; a skill "
        "linked to none needs one named.",
    )
    difficulty: Difficulty = Difficulty.MODERATE
    ability_roll: AbilityRoll = Field(
        AbilityRoll.NORMAL,
        description="Roll the Ability die twice: keep the higher (background) or lower (impairment).",
    )
    asset: ItemRef | None = Field(None, description="An asset of the character that helps this skill, by id.")
    helper: CharacterRef | None = Field(
        None, description="Another character in play in the campaign who assists, by the character's id."
    )
    help_with: Literal["skill", "ability"] = Field(
        "skill", description="What the helper's die steps: the skill or the ability."
    )
    npc_helper: Annotated[Name, Field(min_length=1)] | None = Field(
        None, description="GM only: an NPC who assists, by name (instead of `helper`)."
    )
    npc_helper_die: Literal["d4", "d6", "d8", "d10", "d12"] | None = Field(
        None, description="GM only: the NPC's die in what it helps with."
    )
    ability_steps: Steps = Field(0, description="GM only: extra steps for the Ability die.")
    skill_steps: Steps = Field(0, description="GM only: extra steps for the Skill die.")


class Call(BaseModel):
    """The GM's call for a roll ("The GM's calls"): what the GM names, for each character it is asked
    of; the player adds what only the sheet knows (a specialization, an asset, a helper). The call may
    name the ability, as the rule text does ("Roll a d10 plus your Pulse and your Fighting dice");
    without one, the skill's linked ability."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["check", "reaction"] = Field(
        "check",
        title="Kind of roll",
        description="A skill check, or a reaction check (Charm, stepped by reputation, + the skill).",
    )
    skill: Annotated[Name, Field(min_length=1)] | None = Field(
        None, description="The skill, by its name in the campaign's list (a reaction check may name none)."
    )
    ability: Literal[ABILITY_KEYS] | None = Field(  # type: ignore[valid-type]
        None,
        title="Ability",
        description="The ability rolled with the skill (a check only); without one, the skill's linked ability.",
    )
    difficulty: Difficulty = Field(Difficulty.MODERATE, title="Difficulty")
    ability_roll: AbilityRoll = Field(
        AbilityRoll.NORMAL,
        title="Background or impairment",
        description="Roll the Ability die twice: keep the higher (background) or lower (impairment).",
    )
    ability_steps: Steps = Field(0, title="Extra Ability steps", description="Situational steps for the Ability die.")
    skill_steps: Steps = Field(0, title="Extra Skill steps", description="Situational steps for the Skill die.")
