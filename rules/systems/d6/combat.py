"""D6's fights, for the generic encounter: initiative, an attack against a difficulty number (a range
band's, "Ranged weapon combat is similar -- Point Blank Range: 3-5 …") or against the target's reaction
("If someone shoots at you, you can dodge right there"), and wounds.

The text gives no combat procedure beyond these; our readings (``docs/rules/d6.md``):

- **Initiative**: each combatant rolls its initiative code (a character: the campaign's initiative
  stat, Perception by default, or its highest stat; an NPC: the code the GM gives), highest first; a
  tie goes to the higher code, then to the order the combatants joined in. A luck point's doubling
  doubles the initiative roll of its round (rules README, "Initiative").
- **An attack skill is a role**: the campaign's skill list marks which skills attack (melee, ranged,
  brawling) and which defend (dodge, parry), as Lucky 13 marks its Combat skill; a character attacks only
  with one of its attack skills (its best by default) and defends with its best defence skill. A
  character of a campaign that marks no attack skill attacks with its best stat ("Each time you attempt
  to use a Stat or Skill").
- **An attack** rolls the attacker's skill (a character's, chosen on the form; an NPC's attack code) as a use
  of the attacker's round (rules README, "The round is one": a character's declared round, or one the attack
  declares; an NPC's, the uses the GM gives), against the number the GM names, or against the target's
  reaction (dodge, parry), a use of the target's round (an NPC's: one more than the uses the GM gives). The
  reaction is the defender's choice, made before the roll with each answer's exact chance shown (rules
  README, "A dodge or a parry is the defender's choice"): a parry answers no ranged attack. The higher total
  hits; a tie goes to the side that resists (rules README, "Opposed").
- **A hit** costs the target one wound level (unhurt → wounded → incapacitated → dead); the GM heals a
  level. Wounded is −1d to every roll ("If you are wounded when you use a skill, your skill code is
  reduced by 1d"); incapacitated and dead cannot act.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from random import Random
from typing import Annotated, Any, ClassVar, Final, Literal, TypeAlias

from pydantic import Field, ValidationError

from rules.document import MAX_NAME, Document, Problem, ShortText, problems_of
from rules.systems.base import (
    AttackPlan,
    AttackRoll,
    CombatAction,
    CombatRefused,
    Defence,
    Fighter,
    Harm,
    Initiative,
    Kept,
    Logged,
    SheetInvalid,
    SpecError,
    Track,
    Vitals,
)
from rules.systems.d6 import round_state
from rules.systems.d6.chance import opposed_chance, p_at_least
from rules.systems.d6.codes import DieCode, DieCodeError
from rules.systems.d6.options import ATTACKS, DEFENCES, combat_roles
from rules.systems.d6.rolling import roll
from rules.systems.d6.rolls import dice_groups
from rules.systems.d6.rounds import MAX_ACTIONS, one_use
from rules.systems.d6.sheet import MAX_WOUNDS, WOUND_LEVELS, RoundStep, Sheet

Code = Annotated[str, Field(pattern=r"^[0-9]{1,2}d(\+[12])?$")]
#: The difficulty an attack is made against when the GM names none and the target cannot react.
DEFAULT_DIFFICULTY: Final = 10
#: A target's extra uses this round, as the GM gives them (its reaction comes on top).
MAX_USES: Final = MAX_ACTIONS - 1


class StatBlock(Document):
    """What a combatant fights with: an NPC's whole stat block, or what a character brought (its best
    attack skill, its best reaction skill and its initiative code; its wounds stay on its sheet)."""

    schema_version: Literal[1] = 1
    attack: Code
    defence: Code | None = None
    initiative: Code
    #: The name of the attack skill or weapon, for the log.
    weapon: Annotated[ShortText, Field(max_length=MAX_NAME)] = ""
    #: An NPC's wound level (:data:`rules.systems.d6.sheet.WOUND_LEVELS`); None for a character.
    wounds: Annotated[int, Field(ge=0, le=MAX_WOUNDS, strict=True)] | None = None
    stunned: bool = False
    #: Whether the attack is ranged, which no parry answers (a character's: its attack skill's role).
    ranged: bool = False


#: A combatant of a D6 fight: its stat block and, for a character, its sheet.
D6Fighter: TypeAlias = Fighter[StatBlock, Sheet]


def _code(values: Mapping[str, str], key: str, what: str, *, required: bool = True) -> str | None:
    text = str(values.get(key, "") or "").strip()
    if not text:
        if required:
            raise SheetInvalid([Problem(field=key, message=f"{what} needs a die code such as 3d+1.")])
        return None
    try:
        return str(DieCode.parse(text, field=key))
    except DieCodeError as error:
        raise SheetInvalid([Problem(field=key, message=f"{what}: {error.message}.")]) from None


def _wounds(fighter: D6Fighter) -> int:
    if fighter.sheet is not None:
        return fighter.sheet.wounds
    return fighter.block.wounds or 0


def _stunned(fighter: D6Fighter) -> bool:
    if fighter.sheet is not None:
        return fighter.sheet.stunned
    return fighter.block.stunned


def _uses(value: object, field: str, low: int, high: int) -> int:
    text = str(value if value is not None else "").strip() or str(low)
    if not (text.isascii() and text.isdigit() and len(text) <= 2 and low <= int(text) <= high):
        raise SpecError(field, f"a whole number from {low} to {high}")
    return int(text)


def _at_round(
    fighter: D6Fighter, name: str, code: DieCode, uses: int, *, reacting: bool = False
) -> tuple[DieCode, tuple[str, ...]]:
    """A fighter's code for one use this round: ``uses`` declared (a reaction comes on top, as "reaction
    skills" says), wounded and stunned as the fighter is, doubled when a character's luck point doubles its
    round (:class:`rules.systems.d6.rounds.RoundPlan`)."""
    doubled = isinstance(fighter.sheet, Sheet) and round_state.doubled_now(fighter.sheet)
    return one_use(name, code, uses, wounded=_wounds(fighter) >= 1, stunned=_stunned(fighter), doubled=doubled,
                   reacting=reacting)  # fmt: skip


#: The section of the sheet a use of the round changes.
ROUND: Final = "round"


def _round_use(
    fighter: D6Fighter, item: int, options: Mapping[str, Any], *, uses: int = 1, running: bool = False
) -> tuple[DieCode, tuple[str, ...], Kept]:
    """A character's use of its round in the fight (the rules README, "The round is one"): in a declared round,
    the use it is there (:func:`round_state.use_of`: a declared action of that skill still to attempt, a
    reaction, or a use not declared); with no round declared, an attack declares one of ``uses`` actions of
    its skill (``running`` or not), taking the +1d an aim prepared for it when it is the round's one action,
    and a reaction starts a round of no declared action. Gives the code, the words of each change, and the
    sheet the use keeps once the attack has its number in the log."""
    sheet = fighter.sheet
    if sheet is None:
        raise SpecError("skill", f"{fighter.name} is an NPC: it has no round and no skills of a sheet to use")
    in_round = round_state.use_of(sheet, item, None, options)
    if in_round is None:
        skill = sheet.skill(item)
        if skill is None or not skill.reaction:
            prepared = uses == 1 and sheet.prepared == item
            declared = round_state.declare(sheet, [(item, None)] * uses, running=running,
                                           use_preparation=prepared, given=options)  # fmt: skip
            in_round = round_state.use_of(declared, item, None, options)
        else:
            in_round = round_state.take(sheet, RoundStep(what="reaction", item=item), options)
    assert in_round is not None
    after, use = in_round
    words = tuple(str(m) for m in use.modifiers) + ((use.warning,) if use.warning else ())
    how = "as a use not declared" if use.undeclared else "as a reaction" if use.reaction else f"as {use.label}"
    kept = Kept(lambda seq: round_state.with_roll(after, seq), f"{use.skill} in a fight, {how}, at {use.code}",
                (ROUND,))  # fmt: skip
    return use.code, words, kept


def _skills_in(sheet: Sheet, options: Mapping[str, Any], roles: Sequence[str]) -> list[tuple[Any, DieCode]]:
    """The sheet's skills whose role in the campaign's list is one of ``roles``, each with its code."""
    marked = combat_roles(options) if options.get("stats") else {}
    return [
        (skill, code)
        for skill in sheet.skills
        if marked.get(skill.name.casefold()) in roles and (code := sheet.code_of(skill.id)) is not None
    ]


class D6Combat:
    stat_block_model: ClassVar = StatBlock
    attack_fields: Final = frozenset({"skill", "against", "difficulty", "uses", "running", "target_uses"})
    #: A player attacking on their turn picks the skill and says the uses they declared; what the attack
    #: is against (a range band's difficulty) and the target's declared uses are the GM's calls.
    gm_attack_fields: Final = frozenset({"against", "difficulty", "target_uses"})
    actions: Final[tuple[CombatAction, ...]] = (
        CombatAction(
            "round-over",
            "The round is over",
            "Every character's round ends: a luck point's doubling with it, and any declared action not attempted; "
            "a round of nothing keeps its preparation.",
            per_fighter=False,
        ),
        CombatAction(
            "aim",
            "Aim",
            "The character does nothing else this round and aims: +1d to one roll of its attack skill next round "
            "(its one action then).",
            per_fighter=True,
        ),
    )
    track_label: Final = "Wounds"

    def amount_words(self, amount: int) -> str:
        """The log counts the levels left before dead (:meth:`harm`): said as the wound level."""
        return WOUND_LEVELS[MAX_WOUNDS - max(0, min(MAX_WOUNDS, amount))]

    def left_words(self, outcome: Mapping[str, Any]) -> str:
        return WOUND_LEVELS[outcome["wounds"]]

    def read_block(self, document: Mapping[str, Any]) -> StatBlock:
        try:
            return StatBlock.model_validate(document)
        except ValidationError as error:
            raise SheetInvalid(problems_of(error)) from None

    def npc(self, values: Mapping[str, str], options: Mapping[str, Any]) -> StatBlock:
        """An NPC from the GM's form: its attack code, its reaction code (none: it cannot dodge or parry),
        its initiative code, and the name of its weapon."""
        problems: list[Problem] = []
        found: dict[str, Any] = {}
        for key, what, required in (("attack", "Attack", True), ("defence", "Dodge or parry", False),
                                    ("initiative", "Initiative", True)):  # fmt: skip
            try:
                found[key] = _code(values, key, what, required=required)
            except SheetInvalid as invalid:
                problems.extend(invalid.problems)
        if problems:
            raise SheetInvalid(problems)
        weapon = " ".join(str(values.get("weapon", "") or "").split())[:MAX_NAME]
        ranged = str(values.get("ranged", "") or "").casefold() in ("1", "on", "true", "yes")
        return StatBlock(**found, weapon=weapon, wounds=0, ranged=ranged)

    def _initiative_code(self, sheet: Sheet, options: Mapping[str, Any]) -> DieCode:
        wanted = str(options.get("initiative_stat") or "").casefold()
        stats = [(s.name, sheet.code_of(s.id)) for s in sheet.stats]
        named = [code for name, code in stats if code is not None and name.casefold() == wanted]
        codes = named or [code for _, code in stats if code is not None]
        return max(codes, default=DieCode(1))

    def joins(self, sheet: Sheet, options: Mapping[str, Any]) -> StatBlock:
        """A character's best attack skill (of the skills the campaign marks as attacking; with none, its best
        stat), its best defence skill (dodge or parry) and its initiative code; the attack form may choose
        another of its attack skills."""
        attacks = [(code, s.name) for s, code in _skills_in(sheet, options, ATTACKS)]
        defences = [code for _, code in _skills_in(sheet, options, DEFENCES)]
        if not attacks:
            attacks = [(code, s.name) for s in sheet.stats if (code := sheet.code_of(s.id)) is not None]
        attack, weapon = max(attacks, default=(DieCode(1), ""), key=lambda pair: pair[0])
        roles = combat_roles(options) if options.get("stats") else {}
        return StatBlock(
            attack=str(attack),
            defence=str(max(defences)) if defences else None,
            initiative=str(self._initiative_code(sheet, options)),
            weapon=weapon,
            ranged=roles.get(weapon.casefold()) == "ranged",
        )

    def vitals(self, fighter: D6Fighter, options: Mapping[str, Any]) -> Vitals:
        wounds = _wounds(fighter)
        level = WOUND_LEVELS[wounds]
        track = Track("wounds", "Wounds", wounds, maximum=MAX_WOUNDS, minimum=0)
        conditions = tuple(c for c, on in ((level, wounds > 0), ("stunned", _stunned(fighter))) if on)
        if wounds >= 2:
            return Vitals((track,), level, can_act=False, why_not=f"{level}: cannot act", conditions=conditions)
        return Vitals((track,), level if wounds else "up", conditions=conditions)

    def _rolls(
        self, groups: Sequence[Sequence[D6Fighter]], rng: Random
    ) -> tuple[dict[int, tuple[int, DieCode]], list[Logged]]:
        values: dict[int, tuple[int, DieCode]] = {}
        logged = []
        for group in groups:
            first = group[0]
            code = DieCode.parse(first.block.initiative)
            doubled = isinstance(first.sheet, Sheet) and round_state.doubled_now(first.sheet)
            if doubled:  # a luck point doubles every roll of its round, initiative too (rules README, "Initiative")
                code = code.doubled()
            rolled = roll(code, rng)
            names = [f.name for f in group]
            for fighter in group:
                values[fighter.key] = (rolled.total, code)
            how = f"{code}, doubled by a luck point" if doubled else str(code)
            spec = {"for": names, "code": str(code)} | ({"doubled": True} if doubled else {})
            outcome = {"combatants": names, "wild": list(rolled.wild_chain)}
            logged.append(Logged("initiative", f"Initiative for {', '.join(names)} ({how})", spec, first.key,
                                 dice_groups(rolled), rolled.total, outcome, None, "an order"))  # fmt: skip
        return values, logged

    def initiative(self, groups: Sequence[Sequence[D6Fighter]], options: Mapping[str, Any], rng: Random) -> Initiative:
        """Each group rolls its initiative code once; the highest total first, then the higher code."""
        values, logged = self._rolls(groups, rng)
        joined = {fighter.key: i for i, group in enumerate(groups) for fighter in group}
        order = tuple(sorted(values, key=lambda key: (-values[key][0], -values[key][1].steps, joined[key], key)))
        return Initiative({key: total for key, (total, _) in values.items()}, order, tuple(logged))

    def join(
        self,
        groups: Sequence[Sequence[D6Fighter]],
        standing: Sequence[tuple[D6Fighter, int]],
        options: Mapping[str, Any],
        rng: Random,
    ) -> Initiative:
        """Newcomers roll as everyone did and take their place by their total: after everyone with as
        much or more (the order as it stands keeps its own)."""
        rolled = self.initiative(groups, options, rng)
        values = {fighter.key: value for fighter, value in standing} | dict(rolled.values)
        order = [fighter.key for fighter, _ in standing]
        start = 0
        for key in rolled.order:
            later = [i for i in range(start, len(order)) if values[key] > values[order[i]]]
            place = later[0] if later else len(order)
            order.insert(place, key)
            start = place + 1
        return Initiative(rolled.values, tuple(order), rolled.logged)

    def attack_choices(self, fighters: Sequence[D6Fighter], options: Mapping[str, Any]) -> Mapping[str, Any]:
        """Each character's attack skills (the campaign's melee, ranged and brawling skills) with their codes
        (``<character id>:<skill id>``), for the attacker's skill; NPCs attack with their attack code."""
        skills = []
        for fighter in fighters:
            if fighter.sheet is None:
                continue
            for skill, code in _skills_in(fighter.sheet, options, ATTACKS):
                skills.append((f"{fighter.sheet_key}:{skill.id}", f"{fighter.name}: {skill.name} {code}"))
        return {"skills": skills, "max_uses": MAX_ACTIONS}

    def _attack_code(
        self, attacker: D6Fighter, choice: str, options: Mapping[str, Any]
    ) -> tuple[str, DieCode, int | None, bool]:
        """The attacker's skill: its name, its code, its id on the sheet (None for an NPC) and whether it is
        ranged (which no parry answers)."""
        block = attacker.block
        sheet = attacker.sheet
        if not isinstance(sheet, Sheet):
            return block.weapon or "Attack", DieCode.parse(block.attack), None, block.ranged
        roles = combat_roles(options) if options.get("stats") else {}
        if not choice:
            named: list[tuple[int, str]] = [(s.id, s.name) for s in sheet.stats] + [
                (s.id, s.name) for s in sheet.skills
            ]
            found = next((pair for pair in named if pair[1].casefold() == block.weapon.casefold()), None)
            if found is None or (code := sheet.code_of(found[0])) is None:
                raise SpecError("skill", f"choose one of {attacker.name}'s attack skills")
            return found[1], code, found[0], roles.get(found[1].casefold()) == "ranged"
        owner, _, item = choice.partition(":")
        if owner != str(attacker.sheet_key) or not (item.isascii() and item.isdigit()):
            raise SpecError("skill", f"choose one of {attacker.name}'s attack skills")
        skills = _skills_in(sheet, options, ATTACKS)
        chosen = next(((s, c) for s, c in skills if s.id == int(item)), None)
        if chosen is None:
            raise SpecError("skill", f"choose one of {attacker.name}'s attack skills (melee, ranged or brawling)")
        return chosen[0].name, chosen[1], chosen[0].id, roles.get(chosen[0].name.casefold()) == "ranged"

    def _defences(
        self, target: D6Fighter, ranged: bool, options: Mapping[str, Any]
    ) -> list[tuple[str, str, int | None, DieCode]]:
        """How the target may answer the attack (the rules README: "A parry answers only melee or brawling; a
        dodge answers anything"): each ``(value, words, item, code)``, the code before the round's penalties;
        none when it cannot act."""
        if _wounds(target) >= 2:
            return []
        if target.sheet is None:
            reaction = target.block.defence
            return [("react", f"Dodge or parry {reaction}", None, DieCode.parse(reaction))] if reaction else []
        roles = combat_roles(options) if options.get("stats") else {}
        found: list[tuple[str, str, int | None, DieCode]] = []
        for skill, code in _skills_in(target.sheet, options, DEFENCES):
            if ranged and roles.get(skill.name.casefold()) == "parry":
                continue
            found.append((f"{target.sheet_key}:{skill.id}", f"{skill.name} {code}", skill.id, code))
        return found

    def plan_attack(
        self,
        attacker: D6Fighter,
        target: D6Fighter,
        choices: Mapping[str, str],
        options: Mapping[str, Any],
        others: Sequence[D6Fighter] = (),
    ) -> AttackPlan:
        """An attack and its exact chance. A character's attack is a use of its round (:func:`_round_use`); so
        is a character target's dodge or parry. ``against`` is the defender's choice (the rules README, "A dodge
        or a parry is the defender's choice"): ``number`` lets the difficulty stand, ``react`` (an NPC's
        reaction code, or a character's best defence that answers the attack) or ``<character>:<skill>`` sets the
        reaction's total as the number to beat. Left empty while the target may react, the attack waits for the
        defender: the plan lists each choice with the attack's exact chance (:attr:`AttackPlan.defences`). The
        plan's details list them too (``defences``), for a preview."""
        if attacker.key == target.key:
            raise SpecError("target", "A combatant cannot attack itself.")
        if _wounds(attacker) >= 2:
            raise CombatRefused(f"{attacker.name} is {WOUND_LEVELS[_wounds(attacker)]} and cannot act.")
        skill, base, item, ranged = self._attack_code(attacker, str(choices.get("skill", "") or ""), options)
        uses = _uses(choices.get("uses"), "uses", 1, MAX_ACTIONS)
        running = str(choices.get("running", "") or "").casefold() in ("1", "on", "true", "yes")
        kept: dict[int, Kept] = {}
        if item is not None:
            code, steps, kept[attacker.key] = _round_use(attacker, item, options, uses=uses, running=running)
        else:
            code, steps = _at_round(attacker, skill, base, uses)
        difficulty = _uses(choices.get("difficulty") or DEFAULT_DIFFICULTY, "difficulty", 1, 1000)
        kept_choices = {"skill": str(choices.get("skill", "") or ""), "uses": str(uses), "difficulty": str(difficulty)}
        if running:
            kept_choices["running"] = "on"
        defences = self._defences(target, ranged, options)
        against = str(choices.get("against", "") or ("" if defences else "number"))
        target_uses = _uses(choices.get("target_uses"), "target_uses", 0, MAX_USES)
        by_number = p_at_least(code, difficulty)
        offered = [Defence("number", f"No dodge or parry: the difficulty {difficulty} stands", by_number)]
        offered += [Defence(value, words, self._reacting(target, base_of, item_of, code, options, target_uses)[0])
                    for value, words, item_of, base_of in defences]  # fmt: skip
        shown = [{"value": d.value, "words": d.label, "chance": d.chance} for d in offered]
        if against in ("", "number"):
            kept_choices["against"] = against
            label = f"{attacker.name} attacks {target.name}: {skill} {code} against {difficulty}"
            details = {"code": str(code), "difficulty": difficulty, "steps": steps, "defences": shown}
            waiting = tuple(offered) if not against else ()  # the defender's choice, still to make
            return AttackPlan(attacker=attacker.key, target=target.key, chance=by_number, chance_of="hit",
                              choices=kept_choices, label=label, details=details,
                              dice=("number", code, difficulty, attacker.name, target.name, kept),
                              defences=waiting, defence_field="against")  # fmt: skip
        if against == "react" and defences:
            against = defences[0][0]
        chosen = next((d for d in defences if d[0] == against), None)
        if chosen is None:
            raise SpecError("against", f"{target.name} cannot answer this attack so: choose a dodge or a parry of "
                                       "theirs that fits it, or no reaction")  # fmt: skip
        value, words, target_item, target_base = chosen
        chance, theirs, their_steps, their_kept = self._reacting(target, target_base, target_item, code, options,
                                                                 target_uses)  # fmt: skip
        if their_kept is not None:
            kept[target.key] = their_kept
        kept_choices["against"] = value
        if not isinstance(target.sheet, Sheet):
            kept_choices["target_uses"] = str(target_uses)
        label = f"{attacker.name} attacks {target.name}: {skill} {code} against {words.rsplit(' ', 1)[0]} {theirs}"
        details = {"code": str(code), "defence": str(theirs), "steps": steps, "target_steps": their_steps,
                   "defences": shown}  # fmt: skip
        return AttackPlan(attacker=attacker.key, target=target.key, chance=chance, chance_of="hit",
                          choices=kept_choices, label=label, details=details,
                          dice=("react", code, theirs, attacker.name, target.name, kept))  # fmt: skip

    def _reacting(
        self, target: D6Fighter, base: DieCode, item: int | None, code: DieCode, options: Mapping[str, Any], uses: int
    ) -> tuple[Fraction, DieCode, tuple[str, ...], Kept | None]:
        """The attack's exact chance to hit against the target's reaction, the reaction's code and its words, and
        what it keeps on a character's sheet: a use of the target's round (a character), or a reaction on top of
        the ``uses`` the GM gives (an NPC: "reaction skills")."""
        if item is not None:
            theirs, their_steps, kept = _round_use(target, item, options)
        elif uses:
            theirs, their_steps = _at_round(target, "reaction", base, uses, reacting=True)
            kept = None
        else:
            theirs, their_steps = _at_round(target, "reaction", base, 1)
            kept = None
        return opposed_chance(code, theirs).p_attacker_wins, theirs, their_steps, kept

    def roll_attack(self, plan: AttackPlan, options: Mapping[str, Any], rng: Random) -> AttackRoll:
        if plan.defences:
            raise SpecError("against", "the target chooses first: a dodge or a parry, or none")
        how, code, against, attacker, target, kept = plan.dice
        rolled = roll(code, rng)
        spec: dict[str, Any] = {"attacker": attacker, "target": target, "code": str(code)}
        groups = dice_groups(rolled)
        if how == "react":
            resisted = roll(against, rng)
            hit = rolled.total > resisted.total
            spec["defence"] = str(against)
            groups += [{**g, "label": f"{target}'s {g['label'].lower()}"} for g in dice_groups(resisted)]
            outcome: dict[str, Any] = {"hit": hit, "margin": rolled.total - resisted.total, "defence": resisted.total}
        else:
            hit = rolled.succeeds(against)
            spec["difficulty"] = against
            outcome = {"hit": hit, "margin": rolled.margin(against)}
        outcome["wild"] = list(rolled.wild_chain)
        logged = Logged("attack", plan.label, spec, plan.attacker, groups, rolled.total, outcome, plan.chance,
                        plan.chance_of)  # fmt: skip
        if not hit:
            return AttackRoll(logged, kept=kept)
        damage = Logged("damage", f"{target} takes a wound", {"target": target}, plan.target, (), 1)
        return AttackRoll(logged, 1, damage, kept=kept)

    def harm(self, fighter: D6Fighter, amount: int, options: Mapping[str, Any]) -> Harm:
        """``amount`` wound levels healed (positive) or taken (negative); the log counts the levels left
        before dead (3 unhurt … 0 dead), so that damage is a loss as everywhere else."""
        before = _wounds(fighter)
        after = max(0, min(MAX_WOUNDS, before - amount))
        # "was" and "condition" are the words the log says the change in (never "hit points").
        outcome = {
            "before": MAX_WOUNDS - before, "after": MAX_WOUNDS - after,
            "was": WOUND_LEVELS[before], "condition": WOUND_LEVELS[after],
        }  # fmt: skip
        words = f"{fighter.name}: {WOUND_LEVELS[before]} → {WOUND_LEVELS[after]}"
        if fighter.sheet is not None:
            sheet = fighter.sheet.model_copy(update={"wounds": after})
            return Harm(fighter.key, fighter.block, sheet, fighter.state, outcome, words, ("conditions",))
        block = fighter.block.model_copy(update={"wounds": after})
        return Harm(fighter.key, block, None, fighter.state, outcome, words)

    def _aimed(self, fighter: D6Fighter) -> int | None:
        """The stat or skill a character aims with: the attack skill it brought to the fight (an NPC has none)."""
        sheet = fighter.sheet
        if sheet is None:
            return None
        weapon = fighter.block.weapon.casefold()
        found = [s.id for s in sheet.stats if s.name.casefold() == weapon]
        found += [s.id for s in sheet.skills if s.name.casefold() == weapon]
        return found[0] if found else None

    def why_not(self, action: str, fighter: D6Fighter, options: Mapping[str, Any]) -> str:
        if action not in ("round-over", "aim"):
            return f"D6 has no move {action!r}."
        if not isinstance(fighter.sheet, Sheet):
            if action == "aim":
                return f"{fighter.name} is an NPC: the GM gives its aim as +1d on its attack code."
            return f"{fighter.name} is in no round."
        if action == "round-over":
            return "" if fighter.sheet.round is not None else f"{fighter.name} is in no round."
        if not fighter.sheet.can_act:
            return f"{fighter.name} is {WOUND_LEVELS[fighter.sheet.wounds]} and cannot aim."
        plan = round_state.plan_of(fighter.sheet, options)
        if plan is not None and not plan.did_nothing:
            return f"{fighter.name} has done something this round: aiming is a round of nothing else."
        if self._aimed(fighter) is None:
            return f"{fighter.name} has no attack skill to aim with."
        return ""

    def act(self, action: str, fighter: D6Fighter, options: Mapping[str, Any]) -> Harm | None:
        """The round is over for a character (rules text, "luck points": "The doubling effect only lasts for
        that combat round"): its kept round ends (:func:`rules.systems.d6.round_state.round_over`). Or the
        character aims (rules text, "game time": "You do nothing at all during one round and in the next, you
        make your skill roll, but get to add 1d"): its round ends now as a round of nothing that prepares its
        attack skill; its next attack, the one action of its next round, takes the +1d once."""
        sheet = fighter.sheet
        if sheet is None or self.why_not(action, fighter, options):  # an NPC is in no round (:meth:`why_not`)
            return None
        level = MAX_WOUNDS - sheet.wounds
        if action == "aim":  # rules text, "game time": a round of nothing, +1d next round
            aimed, words = round_state.end(sheet, self._aimed(fighter), options)
            still = {"before": level, "after": level, "was": WOUND_LEVELS[sheet.wounds],
                     "condition": WOUND_LEVELS[sheet.wounds]}  # fmt: skip
            said = f"aims: {words[:1].lower()}{words[1:]}"
            return Harm(fighter.key, fighter.block, aimed, fighter.state, still, said, ("round", "conditions"))
        outcome = {
            "before": level,
            "after": level,
            "was": WOUND_LEVELS[sheet.wounds],
            "condition": WOUND_LEVELS[sheet.wounds],
        }
        after = round_state.round_over(sheet, options)
        if after.stunned != sheet.stunned:
            return Harm(fighter.key, fighter.block, after, fighter.state, outcome,
                        "the round is over; no longer stunned", ("round", "conditions"))  # fmt: skip
        return Harm(fighter.key, fighter.block, after, fighter.state, outcome, "the round is over", ("round",))


COMBAT: Final = D6Combat()
