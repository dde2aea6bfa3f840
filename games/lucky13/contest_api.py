"""Lucky 13's contest in the JSON API, ``POST /characters/{id}/lucky13/contest``: an opposed roll outside
a fight ("Opposed rolls": "a battle of wills, a test of strength"), the character's Ability + Skill
against another character in play, dice the GM names or an NPC of the running encounter, each side
with what a check takes (rules README, "Contests outside combat").

It goes through :mod:`games.lucky13.contests`, as the contest page does: the same sides built from the
sheets, the same exact chance before the roll, one roll recorded in the log, and the same people may
roll it (the character's player where the campaign lets players call their rolls, and the GM)."""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Final, Literal

from django.http import Http404, HttpRequest
from ninja import Field, Router, Schema, Status
from pydantic import ConfigDict, StrictBool, StringConstraints

from api.errors import responses
from api.params import ONE_LINE, PathId
from campaigns.errors import Refused
from characters import access
from characters.write import sentence
from games.lucky13 import contests
from play import sheet_rolls
from rules.document import Name
from rules.systems import lucky13
from rules.systems.base import SpecError
from rules.systems.lucky13.checks import AbilityRoll
from rules.systems.lucky13.situation import CharacterRef, ItemRef, Steps
from rules.systems.lucky13.vocabulary import ABILITY_KEYS
from web import limits

#: The longest name of the other side a contest may give, as the contest page takes it.
OPPONENT_NAME: Final = 60

DieLabel = Annotated[str, StringConstraints(max_length=20, pattern=ONE_LINE)]
NpcKey = Annotated[str, StringConstraints(max_length=60, pattern=r"^[0-9]{1,19}:[a-z_]{1,40}$")]
NpcDie = Literal["d4", "d6", "d8", "d10", "d12"]
GM_ONLY: Final = "GM only: "

#: Lucky 13's own endpoints in the API (the moves every system has are :mod:`api.routers.moves`).
router = Router(tags=["Lucky 13"])


class InvalidContest(Refused):
    code = "invalid_roll"


class ContestIn(Schema):
    """A contest: this character's side, and one other side (`opponent`, `opponent_dice` or `opponent_npc`).
    Each side takes what a check takes; the GM's parts (extra steps, an NPC's help, an NPC as the other
    side) are the GM's alone."""

    model_config = ConfigDict(extra="forbid")

    skill: ItemRef = Field(..., description="This side's skill, by its id on the sheet.")
    specialization: ItemRef | None = Field(None, description="A specialization of the skill, by id.")
    ability: Literal[ABILITY_KEYS] | None = Field(  # type: ignore[valid-type]
        None, description="The ability rolled with the skill: by default the skill's linked one."
    )
    ability_roll: AbilityRoll = Field(
        AbilityRoll.NORMAL,
        description="Roll the Ability die twice: keep the higher (background) or the lower (impairment).",
    )
    asset: ItemRef | None = Field(None, description="An asset of the character that helps this skill, by id.")
    helper: CharacterRef | None = Field(None, description="Another character in play who assists, by id.")
    help_with: Literal["skill", "ability"] | None = Field(
        None, description="What the helper's die steps: the skill (by default) or the ability."
    )
    npc_helper: Annotated[Name, Field(min_length=1)] | None = Field(None, description=GM_ONLY + "an NPC who assists.")
    npc_helper_die: NpcDie | None = Field(None, description=GM_ONLY + "the NPC's die in what it helps with.")
    ability_steps: Steps = Field(0, description=GM_ONLY + "extra steps for the Ability die.")
    skill_steps: Steps = Field(0, description=GM_ONLY + "extra steps for the Skill die.")
    opponent: CharacterRef | None = Field(None, description="The other side: another character in play, by id.")
    opponent_skill: Annotated[Name, Field(min_length=1)] | None = Field(
        None, description="Their skill, by its name in the campaign's list: by default the same skill."
    )
    opponent_dice: list[DieLabel] | None = Field(
        None,
        min_length=1,
        max_length=lucky13.MAX_POOL,
        description='Or the other side is dice the GM names, the Ability die first: `["d10", "d10"]`.',
    )
    opponent_name: Annotated[Name, Field(max_length=OPPONENT_NAME)] | None = Field(
        None, description="Who rolls the GM's dice."
    )
    opponent_npc: NpcKey | None = Field(
        None,
        description=GM_ONLY + 'or the other side is an NPC of the running encounter, one of its pools: `"<id>:reflex"` '
        "(its Reflex), `reflex_combat`, `pulse` (its current Pulse) or `pulse_combat`.",
    )
    opponent_ability_roll: AbilityRoll = Field(AbilityRoll.NORMAL, description="Their background or impairment.")
    opponent_specialization: ItemRef | None = Field(None, description="Their specialization, by its id on their sheet.")
    opponent_asset: ItemRef | None = Field(None, description="Their asset, by its id on their sheet.")
    opponent_helper: CharacterRef | None = Field(None, description="Another character in play who assists them.")
    opponent_help_with: Literal["skill", "ability"] | None = Field(None, description="What their helper's die steps.")
    opponent_npc_helper: Annotated[Name, Field(min_length=1)] | None = Field(
        None, description=GM_ONLY + "an NPC who assists them."
    )
    opponent_npc_helper_die: NpcDie | None = Field(None, description=GM_ONLY + "that NPC's die.")
    opponent_ability_steps: Steps = Field(0, description=GM_ONLY + "extra steps for their Ability die.")
    opponent_skill_steps: Steps = Field(0, description=GM_ONLY + "extra steps for their Skill die.")
    resists: Literal["them", "us", "neither"] = Field(
        "them",
        description="Who resists, and so takes a draw: the other side (the status quo), this side, or neither "
        "(a race: a draw is a draw).",
    )
    secret: StrictBool = Field(False, description=GM_ONLY + "roll in secret (the players see it when revealed).")


class ContestSide(Schema):
    name: str
    dice: list[str] = Field(..., description="Its dice, the Ability die first (`d12+d4`: a die stepped past d12).")
    ability_roll: str = Field(..., description="`normal`, or `background`/`impairment`: the Ability rolled twice.")
    total: int
    dilemma: bool = Field(..., description="A die that counts came up 1.")


class ContestChance(Schema):
    """The exact chance of each outcome before the roll, "p/q": `attacker` is this side, `defender` the other."""

    p_attacker_wins: str
    p_draw: str
    p_defender_wins: str
    p_attacker_prevails: str = Field(..., description="This side wins, or holds on a draw.")
    p_defender_prevails: str = Field(..., description="The other side wins, or holds on a draw.")
    p_attacker_dilemma: str
    p_defender_dilemma: str
    exact: bool


class ContestOut(Schema):
    label: str = Field(..., description="What was rolled, in words, as the log keeps it.")
    steps: list[str] = Field(..., description="What stepped each side's dice, in words.")
    sides: list[ContestSide] = Field(..., description="This side, then the other side, as rolled.")
    chance: ContestChance
    prevails: Literal["us", "them", "neither"] = Field(
        ..., description="The side that won or held on a draw; `neither` for a draw in a race."
    )
    result: str = Field(
        ..., description='This side\'s result, as the log says it: "Wins", "Loses", "A draw: the other side holds"…'
    )
    roll: dict[str, Any] = Field(..., description="The roll as the log gives it (`GET /campaigns/{id}/rolls`).")


PREVAILS: Final = {"attacker": "us", "defender": "them", "": "neither"}


@router.post(
    "/characters/{id}/lucky13/contest",
    response=responses({201: ContestOut}, 400, 403, 404, 409, 413),
    summary="Lucky 13: a contest",
)
def contest(request: HttpRequest, id: PathId, body: ContestIn) -> Status[dict[str, Any]]:
    """Both sides built from the sheets as they are now, as the contest page builds them; the exact chance
    of each outcome and of each side's dilemma worked out before the roll; both sides rolled on the server
    and recorded once in the campaign's log. The character's player (where the campaign lets players call
    their own rolls) and the GM roll it, in secret if the GM says so; anyone else in the campaign gets a 403,
    anyone outside it a 404. A choice the sheets do not offer, or no other side, is a 400 naming the field;
    the GM's parts from anyone else a 403; a draft or an archived character, or an archived campaign, a 409."""
    limits.check(request, limits.ROLLS)
    character = access.character_for(request.user, id, write=True, at_table=True)
    if not contests.offered(character):
        raise Http404("No contests here")
    given = body.model_dump(mode="json")
    others = sheet_rolls.helpers_for(character, helper=sheet_rolls.named_in(character, given), limit=0)
    try:
        made = contests.make(character, given, others=others, npcs=contests.npc_sides(character))
    except SpecError as problem:
        message = sentence(problem.message)
        raise InvalidContest(message, errors={problem.field: message}) from None
    rolled = contests.roll(character, made, by=request.user, rng=secrets.SystemRandom(), secret=body.secret)
    from api.routers.rolls import roll_out  # the rolls router reads every system's situation when imported

    chance = lucky13.opposed_chance_json(made.spec)
    outcome = rolled.roll.outcome
    ours = _side(character.name, made.spec["attacker"], made.spec["attacker_roll"], rolled.result.attacker)
    theirs = _side(made.details["opponent"]["name"], made.spec["defender"], made.spec["defender_roll"],
                   rolled.result.defender)  # fmt: skip
    return Status(
        201,
        {
            "label": made.label,
            "steps": list(made.steps),
            "sides": [ours, theirs],
            "chance": {key: chance[key] for key in ContestChance.model_fields},
            "prevails": PREVAILS[outcome["winner"]],
            "result": contests.result_words(outcome),
            "roll": roll_out(rolled.roll, gm=character.viewer_is_gm),
        },
    )


def _side(name: str, dice: list[str], ability_roll: str, rolled: Any) -> dict[str, Any]:
    return {"name": name, "dice": dice, "ability_roll": ability_roll, "total": rolled.total, "dilemma": rolled.dilemma}
