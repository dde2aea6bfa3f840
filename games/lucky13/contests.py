"""Lucky 13's contests outside a fight ("Opposed rolls": "a battle of wills, a test of strength"), one
path for the contest page (:mod:`games.lucky13.contest_views`) and the JSON API
(:mod:`games.lucky13.contest_api`): the character's Ability + Skill against another character in play,
against dice the GM names or against an NPC of the running encounter, each side with what a check
takes (rules README, "Contests outside combat").

The caller gives the contest in the engine's words (the situation of ``Lucky13.sheet_roll``, with the
other side); :func:`make` names the other side and builds both from the sheets as they are now, refusing
with a :class:`~rules.systems.base.SpecError` naming the field; :func:`roll` rolls it once and records
it in the campaign's log, with the exact chance before the roll, as every sheet roll is recorded
(:func:`play.sheet_rolls.roll`: who may roll it, and a draft or an archived character never does)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser

from campaigns.errors import NotAllowed
from characters.models import Character
from play import rolls, sheet_rolls
from play.encounters import MAX_COMBATANTS
from play.models import Encounter
from rules.systems import lucky13
from rules.systems.base import SheetRoll, SpecError
from rules.systems.lucky13 import encounter as encounter_rules
from web import heavy

#: The parts of a contest passed on to the engine as they are given, each side's (README, "Contests
#: outside combat"): the skill, the background or impairment and the other side are read apart.
SIDE_PARTS: Final = (
    "ability", "specialization", "asset", "helper", "help_with", "npc_helper", "npc_helper_die", "ability_steps",
    "skill_steps", "opponent", "opponent_skill", "opponent_name", "opponent_specialization", "opponent_ability_roll",
    "opponent_asset", "opponent_helper", "opponent_help_with", "opponent_npc_helper", "opponent_npc_helper_die",
    "opponent_ability_steps", "opponent_skill_steps", "resists",
)  # fmt: skip

ONE_SIDE: Final = "Name one other side: a character, the GM's dice or an NPC."
NO_SIDE: Final = "Name the other side: a character in play, the dice the GM names or an NPC."
GM_NPCS: Final = "Only the GM opposes a contest with an NPC of the encounter."


class NoOtherSide(SpecError):
    """The contest names no other side (the page opens before one is named: it refuses nothing yet)."""


@dataclass(frozen=True, slots=True)
class NpcSide:
    """One pool an NPC of the running encounter can oppose a contest with: its key (``"<npc>:<pool>"``),
    its words, the NPC's name and its dice."""

    key: str
    words: str
    name: str
    dice: tuple[str, ...]


def offered(character: Character) -> bool:
    """Whether the character's system has these contests: Lucky 13's."""
    return character.system == lucky13.KEY


def npc_sides(character: Character) -> list[NpcSide]:
    """For the GM: the pools of the NPCs of the campaign's running encounter (none without one), in
    the encounter's order; at most one encounter runs, and it holds at most ``MAX_COMBATANTS``."""
    if not character.viewer_is_gm:
        return []
    encounter = Encounter.objects.running().filter(campaign_id=character.campaign_id).first()
    if encounter is None:
        return []
    combat, settings = character.campaign.rules.combat, character.campaign.settings
    npcs = encounter.combatants.filter(character__isnull=True, removed=False).order_by("order", "pk")
    sides = []
    for npc in npcs[:MAX_COMBATANTS]:
        for key, words, dice in encounter_rules.contest_pools(combat.read_block(npc.block), settings):
            labels = tuple(die.label for die in dice)
            sides.append(NpcSide(f"{npc.pk}:{key}", f"{npc.name}: {words} ({' + '.join(labels)})", npc.name, labels))
    return sides


def situation_of(given: Mapping[str, Any], npcs: Sequence[NpcSide], *, gm: bool) -> dict[str, Any]:
    """The engine's situation for the contest ``given`` describes: the skill (by id), this side's and
    the other side's parts (:data:`SIDE_PARTS`, unset ones left out), and one other side — another
    character (``opponent``, by id), the GM's dice (``opponent_dice``, a list, the Ability die first) or
    an NPC of the running encounter (``opponent_npc``, one of ``npcs`` by key, the GM's alone)."""
    situation: dict[str, Any] = {"skill": given["skill"], "ability_roll": given.get("ability_roll") or "normal"}
    for key in SIDE_PARTS:
        if given.get(key) not in (None, "", 0):
            situation[key] = given[key]
    dice = list(given.get("opponent_dice") or ())
    named = given.get("opponent_npc") or ""
    if named:
        if not gm:
            raise NotAllowed(GM_NPCS)
        npc = next((side for side in npcs if side.key == named), None)
        if npc is None:
            raise SpecError("opponent_npc", f"{named} is not an NPC of the running encounter")
        if given.get("opponent") is not None or dice:
            raise SpecError("opponent_npc", ONE_SIDE)
        situation["opponent_name"], dice = npc.name, list(npc.dice)
    if given.get("opponent") is None and not dice:
        raise NoOtherSide("opponent", NO_SIDE)
    if dice:
        situation["opponent_dice"] = dice
    if situation.get("opponent_ability_roll") == "normal":
        del situation["opponent_ability_roll"]
    return situation


def make(
    character: Character, given: Mapping[str, Any], *, others: Sequence[Character], npcs: Sequence[NpcSide]
) -> SheetRoll:
    """The contest ``given`` describes (:func:`situation_of`), both sides built from the sheets as they
    are now: ``character``'s, and those of ``others``, the characters in play it may name by id (the other
    side, each side's helper). The GM's parts (extra steps, an NPC's help, an NPC as the other side) from
    anyone else are refused (:class:`~campaigns.errors.NotAllowed`); anything the sheets cannot take is a
    :class:`~rules.systems.base.SpecError` naming the field."""
    gm = character.viewer_is_gm
    return sheet_rolls.build(character, others, situation_of(given, npcs, gm=gm), gm=gm)


def chance(made: SheetRoll) -> lucky13.OpposedChance:
    """The exact chance of each outcome and of each side's dilemma, before anyone rolls."""
    return heavy.compute(lucky13.opposed_chance, lucky13.parse_opposed(made.spec))


def roll(
    character: Character, made: SheetRoll, *, by: AbstractBaseUser, rng: Random, secret: bool = False
) -> sheet_rolls.Rolled:
    """Roll the contest ``made`` once with ``rng`` (``secrets.SystemRandom()`` outside tests) and record
    it in the campaign's log with its exact chance before the roll, as :func:`play.sheet_rolls.roll`
    records every sheet roll: the GM's, in ``secret`` if the GM says so, or a player's own where the
    campaign lets players call their rolls; refused otherwise, and for a character not in play."""
    return sheet_rolls.roll(character, made, by=by, rng=rng, secret=secret)


def result_words(outcome: Mapping[str, Any]) -> str:
    """A contest's result for this side, as the roll log says it (:func:`play.rolls.contest_words`): the
    higher total wins; a draw holds for the side that resists, and in a race it is a draw (README,
    "Contests outside combat")."""
    return rolls.contest_words(outcome)
