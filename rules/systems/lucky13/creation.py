"""Creating a Lucky 13 character: ability methods, skill dice by the campaign's method, the
starting specializations, and rolls on the campaign's tables of backgrounds and impairments
("Character creation", "Abilities", "Skills", "Backgrounds", "Impairments")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Final

from rules.dice import StepDie
from rules.systems.lucky13.vocabulary import ABILITIES, ABILITY_KEYS, MAX_ABILITY, TABLE_OPTIONS, SheetError

#: "Array method": one die per ability. Specialized lists seven dice, of which five are used.
BALANCED_ARRAY: Final = tuple(StepDie.of(s) for s in (4, 6, 6, 8, 10))


SPECIALIZED_ARRAY: Final = tuple(StepDie.of(s) for s in (4, 4, 6, 6, 6, 10, 12))


def ability_from_percentile(roll: int) -> StepDie:
    """ "Random ability method": d100 01–20 d4, 21–40 d6, 41–60 d8, 61–80 d10, 81–00 d12 (00 is 100)."""
    if not 1 <= roll <= 100:
        raise ValueError("a percentile roll is 1 … 100")
    return StepDie((roll - 1) // 20 + 1)


def abilities_from_percentiles(rolls: Sequence[int]) -> dict[str, StepDie]:
    """ "Random ability method": one d100 per ability, in order (Will, Charm, Pulse, Intellect, Reflex)."""
    if len(rolls) != len(ABILITY_KEYS):
        raise SheetError("abilities", "roll once for each of the five abilities")
    return {key: ability_from_percentile(roll) for key, roll in zip(ABILITY_KEYS, rolls, strict=True)}


def without_a_die(missing: Sequence[str], names: Sequence[str] = ABILITIES) -> str:
    """The abilities (by key) that have no die yet, said with the campaign's names for them."""
    named = dict(zip(ABILITY_KEYS, names, strict=True))
    said = [named[key] for key in missing]
    listed = said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"
    return f"give every ability a die ({listed} {'has' if len(said) == 1 else 'have'} none)"


def check_ability_array(array: str, dice: Mapping[str, StepDie], names: Sequence[str] = ABILITIES) -> None:
    """ "Array method": balanced gives each ability one of d4 d6 d6 d8 d10; specialized
    assigns five of the seven dice d4 d4 d6 d6 d6 d10 d12, one per ability. ``names`` are the
    campaign's names of the five abilities, for the message."""
    pool = {"balanced": BALANCED_ARRAY, "specialized": SPECIALIZED_ARRAY}.get(array)
    if pool is None:
        raise SheetError("array", "choose the balanced or the specialized array")
    missing = [key for key in ABILITY_KEYS if key not in dice]
    if missing:
        raise SheetError("abilities", without_a_die(missing, names))
    left = Counter(pool)
    left.subtract(dice[key] for key in ABILITY_KEYS)
    overused = sorted({d.label for d, n in left.items() if n < 0}, key=lambda label: StepDie.parse(label))
    if overused:
        shown = " ".join(d.label for d in pool)
        raise SheetError("abilities", f"the {array} array is {shown}: too many {', '.join(overused)}")


def skill_point_cost(die: StepDie) -> int:
    """ "Skills" leaves the point buy's prices to the GM; ours: d4 costs 1, d6 2, d8 3, d10 4, d12 5
    (a die's step on the ladder), against the campaign's ``skill_points``."""
    return die.rung


def skill_dice_allowed(method: str, options: Mapping[str, Any], abilities: Mapping[str, StepDie]) -> str:
    """What a player may choose for skill dice under the campaign's method, said for a player."""
    return {
        "ability": "each skill's die is its linked ability's die (d4 for a skill with no linked ability)",
        "array": f"assign the dice {' '.join(options['skill_array'])}, one per skill",
        "random": "the server rolls d100 for each skill, as for abilities",
        "point_buy": f"spend up to {options['skill_points']} points: d4 costs 1, d6 2, d8 3, d10 4, d12 5",
    }[method]


def skill_dice_by_ability(skills: Sequence[Mapping[str, Any]], abilities: Mapping[str, StepDie]) -> dict[str, StepDie]:
    """Skill method "equal to the linked ability" (Top Secret NWO's way, "Skills")."""
    return {s["name"]: abilities[s["ability"]] if s["ability"] else StepDie.of(4) for s in skills}


def check_skill_dice(
    method: str, options: Mapping[str, Any], abilities: Mapping[str, StepDie], dice: Mapping[str, StepDie]
) -> None:
    """The skill dice a player chose, against the campaign's skill method."""
    skills = options["skills"]
    names = [s["name"] for s in skills]
    if sorted(dice) != sorted(names):
        raise SheetError("skills", f"give a die to each skill: {', '.join(names)}")
    if any(not StepDie.of(4) <= d <= MAX_ABILITY for d in dice.values()):
        raise SheetError("skills", "skill dice run from d4 to d12")
    if method == "ability":
        expected = skill_dice_by_ability(skills, abilities)
        wrong = [name for name in names if dice[name] != expected[name]]
        if wrong:
            raise SheetError("skills", f"{', '.join(wrong)}: {skill_dice_allowed(method, options, abilities)}")
    elif method == "array":
        left = Counter(StepDie.parse(label) for label in options["skill_array"])
        left.subtract(dice.values())
        if any(n < 0 for n in left.values()):
            raise SheetError("skills", skill_dice_allowed(method, options, abilities))
    elif method == "point_buy":
        spent = sum(skill_point_cost(d) for d in dice.values())
        if spent > options["skill_points"]:
            raise SheetError("skills", f"those dice cost {spent} points; the budget is {options['skill_points']}")
    elif method != "random":  # random dice come from the server's rolls, never from the player
        raise SheetError("skill_method", "this campaign's way of setting skill dice is not one this server knows")


def skill_dice_over(method: str, options: Mapping[str, Any], abilities: Mapping[str, StepDie],
                    dice: Mapping[str, StepDie]) -> str | None:  # fmt: skip
    """What the skill dice chosen so far already break, whatever the dice still to choose: a point buy
    over its budget (no die costs less than nothing), an array's die used more often than it holds; or
    None. Said while some skills have no die yet, so that the player hears it with them."""
    if method == "point_buy":
        spent = sum(skill_point_cost(d) for d in dice.values())
        if spent > options["skill_points"]:
            return f"those dice cost {spent} points already; the budget is {options['skill_points']}"
    elif method == "array":
        left = Counter(StepDie.parse(label) for label in options["skill_array"])
        left.subtract(dice.values())
        if any(n < 0 for n in left.values()):
            return skill_dice_allowed(method, options, abilities)
    return None


def specialization_allowance(options: Mapping[str, Any], *, impairment: bool) -> int:
    """ "Impairments": a player who takes one may select one additional specialization."""
    return options["starting_specializations"] + (1 if impairment else 0)


@dataclass(frozen=True, slots=True)
class TableDraw:
    """An entry drawn from a campaign's table: its place in the table (``number`` of ``of``), its
    name and its description, and among how many entries not yet taken it was drawn."""

    kind: str
    number: int
    of: int
    name: str
    description: str
    among: int

    @property
    def said(self) -> str:
        """ "Rolled 7 of 20: Smuggler"."""
        return f"Rolled {self.number} of {self.of}: {self.name}"


def roll_on_table(kind: str, options: Mapping[str, Any], taken: Collection[str], rng: Random) -> TableDraw:
    """A roll on the campaign's table of ``kind`` (background or impairment), with the injected ``rng``.

    "Backgrounds": "20 backgrounds that players may roll for or choose from during character
    creation"; "Impairments": "either rolled for or selected during character creation". The text
    gives neither table nor die, so the campaign keeps its own table (``background_table``,
    ``impairment_table``) and the roll is uniform among its entries. Our reading: a character has
    no trait twice, so an entry already ``taken`` (its name, case aside, on the sheet as that kind)
    is rolled again, which is the same as drawing uniformly among the entries not yet taken; when
    every entry is taken there is nothing to roll (:class:`SheetError`, said for the player)."""
    option = TABLE_OPTIONS.get(kind)
    if option is None:
        raise SheetError("kind", "a table is of backgrounds or of impairments")
    table = options.get(option) or []
    if not table:
        raise SheetError(f"{kind}_roll", f"this campaign has no table of {kind}s: choose or invent one instead")
    names = {name.casefold() for name in taken}
    left = [number for number, entry in enumerate(table, 1) if entry["name"].casefold() not in names]
    if not left:
        raise SheetError(
            f"{kind}_roll",
            f"every {kind} of the campaign's table ({len(table)}) is on this character already, so there is "
            f"nothing left to roll: invent one with your GM's approval instead",
        )
    number = left[rng.randrange(len(left))]
    entry = table[number - 1]
    return TableDraw(kind, number, len(table), entry["name"], entry.get("description", ""), len(left))


def table_entry(kind: str, options: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    """The entry of the campaign's table of ``kind`` with this name (case and spaces aside), if any:
    a trait chosen from the table by its name takes the entry's description."""
    wanted = " ".join(name.split()).casefold()
    table = options.get(TABLE_OPTIONS.get(kind, ""), None) or []
    return next((entry for entry in table if entry["name"].casefold() == wanted), None)
