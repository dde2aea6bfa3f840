"""Lucky 13's own forms of its creation steps, for the generic creation pages (``drafting.register``):
each reads what a step's page posted (the ability dice, the skill dice, and lists of rows such as
``spec-0-name`` or ``trait-2-kind``) as the step's value for ``Lucky13.fill_step``, and gives the
step's page (``systems/lucky13/create/<step>.html``) its context: the draft as it stands, or after a
refusal the picks as posted, with each message by the select, the row's field or the part of the step
it is about. The rules are the engine's (:mod:`rules.systems.lucky13.creation`); only reading a
posted form and placing a message are here."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Final

from django.http import QueryDict

from campaigns.errors import Refused
from characters import sheets, write
from characters.models import Character
from rules.dice import DiceError, StepDie
from rules.systems import lucky13
from rules.systems.base import CreationStep, SpecError
from rules.systems.lucky13 import creation

DIE_LABELS: Final = [StepDie(rung).label for rung in range(1, 6)]
BLANK_ROWS: Final = 2
BLANK_ASSET: Final = {"name": "", "kind": "thing", "level": 2, "skills": [], "description": ""}
BLANK_WEAPON: Final = {"name": "", "accuracy": "d6", "damage": "d6"}
BLANK_ARMOR: Final = {"name": "", "defense": "d4"}
#: The equipment step's lists, each with the fields of its rows.
EQUIPMENT_FIELDS: Final = {
    "asset": ("name", "kind", "level", "skills", "description"),
    "weapon": ("name", "accuracy", "damage"),
    "armor": ("name", "defense"),
}
#: What makes a posted row one the player filled in: anything given beyond what a blank row comes
#: with (a blank trait row says "background", a blank asset row "thing" at level 2, a blank weapon
#: row d6 and d6). A blank row is skipped; a filled-in one is read, and refused without a name.
_FILLED: Final[dict[str, Callable[[dict[str, Any]], bool]]] = {
    "spec": lambda row: bool(row["skill"] or row["name"]),
    "trait": lambda row: bool(row["name"] or row["description"] or row["kind"] == "impairment"),
    "asset": lambda row: bool(row["name"] or row["description"] or row["skills"]),
    "weapon": lambda row: bool(row["name"]),
    "armor": lambda row: bool(row["name"]),
}
#: What a name is called in the messages about a row of each list.
_NOUNS: Final = {"spec": "Each specialization", "trait": "Each background and impairment", "asset": "Each asset",
                 "weapon": "Each weapon", "armor": "Each armor"}  # fmt: skip
#: Where a problem the rules report about a whole part of a step is shown: by that part of the form.
_PARTS: Final = {
    "abilities": "abilities", "array": "abilities", "method": "abilities", "ability_method": "abilities",
    "skills": "skills", "skill_method": "skills", "specializations": "specializations", "traits": "traits",
    "assets": "assets", "asset level": "assets", "weapons": "weapons", "accuracy": "weapons", "damage": "weapons",
    "armor": "armor", "defensive": "armor", "kind": "traits", "equipment": "assets",
    "background_roll": "background_roll", "impairment_roll": "impairment_roll",
}  # fmt: skip


def _refused(errors: dict[str, str]) -> Refused:
    """What a step's form cannot read, each message by the form field it is about; the first is the error's."""
    message = next(iter(errors.values()))
    return Refused(write.sentence(message), errors=errors)


def _index(part: str) -> bool:
    """A form row's index: a few ASCII digits."""
    return part.isascii() and part.isdecimal() and len(part) < 5


def _control(text: str, allowed: str = "") -> bool:
    """Whether ``text`` holds a control character (C0, DEL, C1) other than ``allowed``, as the sheet refuses."""
    return any((ord(c) < 32 or 127 <= ord(c) < 160) and c not in allowed for c in text)


def _posted_rows(data: QueryDict, prefix: str, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """Indexed form rows (``spec-0-name``…) as posted, in order, each with the ``index`` it was posted at;
    ``skills`` (an asset's) is a list, every other field a trimmed text."""
    indexes = sorted(
        {int(part) for part in (key.split("-")[1] for key in data if key.startswith(f"{prefix}-")) if _index(part)}
    )
    rows = []
    for i in indexes[: creation.MAX_ROWS + BLANK_ROWS]:
        row: dict[str, Any] = {"index": i}
        for field in fields:
            key = f"{prefix}-{i}-{field}"
            row[field] = data.getlist(key) if field == "skills" else data.get(key, "").strip()
        rows.append(row)
    return rows


def _filled(data: QueryDict, prefix: str, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    return [row for row in _posted_rows(data, prefix, fields) if _FILLED[prefix](row)]


def _unnamed(prefix: str, row: dict[str, Any]) -> str:
    """What a filled-in row without a name is told (an impairment's name is what the page shows of it)."""
    if prefix == "trait":
        return f"give this {row['kind'] if row['kind'] in dict(creation.TRAIT_KINDS) else 'entry'} a name"
    return f"give this {'specialization' if prefix == 'spec' else prefix} a name"


def _row_problems(rows: list[dict[str, Any]], prefix: str) -> dict[str, str]:
    """Each filled-in row that lacks its name (or, for a specialization, its skill), or whose name or
    description will not do, by the row's field."""
    problems: dict[str, str] = {}
    for row in rows:
        at = f"{prefix}-{row['index']}"
        if prefix == "spec" and not row["skill"]:
            named = row["name"]
            problems[f"{at}-skill"] = f"choose the skill {named} falls under" if named else "choose this row's skill"
        if not row["name"]:
            problems[f"{at}-name"] = _unnamed(prefix, row)
        elif _control(row["name"]):
            problems[f"{at}-name"] = "keep the name on one line, without control characters"
        else:
            try:
                lucky13.clean_name(row["name"], _NOUNS[prefix])
            except ValueError as error:
                problems[f"{at}-name"] = str(error)
        description = row.get("description", "")
        if len(description) > creation.MAX_DESCRIPTION:
            problems[f"{at}-description"] = f"keep descriptions under {creation.MAX_DESCRIPTION} characters"
        elif _control(description, allowed="\n\r\t"):
            problems[f"{at}-description"] = "remove the control characters from the description"
    return problems


def _die(value: str, what: str) -> str | None:
    """A die a select offered (d4 … d12), as its label; None when none was chosen."""
    try:
        die = StepDie.parse(value)
    except DiceError:
        return None
    return die.label if StepDie.of(4) <= die <= lucky13.MAX_ABILITY else None


def _skill(value: str) -> str | int:
    """A skill as a form names it: by its id (a name is taken too)."""
    return int(value) if value.isascii() and value.isdecimal() and len(value) < 17 else value


class _StepForm:
    """What every step's form shares: the draft, what was posted (None: the page as the draft has it)."""

    template: ClassVar[str]
    partial: ClassVar[str] = ""

    def __init__(self, character: Character, step: CreationStep, data: QueryDict | None = None) -> None:
        self.character = character
        self.step = step
        self.data = data
        self.options = character.campaign.settings
        self.doc = character.document

    def value(self) -> Mapping[str, Any]:
        return {}

    def shown(self) -> dict[str, Any]:
        """The step's own context, as the draft has it."""
        return {}

    def as_posted(self, context: dict[str, Any]) -> None:
        """The context's picks as the player posted them, after a refusal."""

    def mark(self, context: dict[str, Any], errors: dict[str, str]) -> None:
        """Each row's messages, by the index it was posted at (``trait-2-name``)."""

    lists: ClassVar[dict[str, str]] = {}

    def ability_names(self) -> list[tuple[str, str]]:
        return list(zip(lucky13.ABILITY_KEYS, self.options["ability_names"], strict=True))

    def context(self, error: str, errors: Mapping[str, str]) -> dict[str, Any]:
        context: dict[str, Any] = {"options": self.options, "dice": DIE_LABELS, "ability_names": self.ability_names()}
        context.update(self.shown())
        if self.data is not None and (error or errors):
            self.as_posted(context)  # show what was typed, not what was saved before
        said = {field: write.sentence(message) for field, message in errors.items()}
        context["part_errors"] = {_PARTS[field]: m for field, m in reversed(said.items()) if field in _PARTS}
        self.mark(context, said)
        for prefix, name in self.lists.items():
            context[name] = [
                {**row, "errors": {
                    key.rsplit("-", 1)[1]: message for key, message in said.items()
                    if "index" in row and key.startswith(f"{prefix}-{row['index']}-")
                }}
                for row in context[name]
            ]  # fmt: skip
        if len(said) > 1:
            error = f"nothing was saved: please check the {len(said)} things marked below"
        context["error"] = write.sentence(error) if error else None
        return context


class Abilities(_StepForm):
    template = "systems/lucky13/create/abilities.html"

    def value(self) -> Mapping[str, Any]:
        assert self.data is not None
        if self.doc.creation.ability_method == "random":
            return {}  # rolled already: nothing to choose
        problems, dice = {}, {}
        for key, name in self.ability_names():
            label = _die(self.data.get(key, ""), name)
            if label is None:
                problems[key] = f"choose a die for {name}"
            else:
                dice[key] = label
        if problems:
            raise _refused(problems)
        return {"ability_method": self.data.get("method", ""), "abilities": dice}

    def shown(self) -> dict[str, Any]:
        doc = self.doc
        return {
            "methods": list(creation.ability_methods(self.options)),
            "method": doc.creation.ability_method,
            "rolls": dict(zip(lucky13.ABILITY_KEYS, doc.creation.ability_rolls, strict=False)),
            "current": {key: getattr(doc.abilities, key) or "" for key in lucky13.ABILITY_KEYS},
            "balanced": " ".join(d.label for d in lucky13.BALANCED_ARRAY),
            "specialized": " ".join(d.label for d in lucky13.SPECIALIZED_ARRAY),
        }

    def as_posted(self, context: dict[str, Any]) -> None:
        assert self.data is not None
        if self.data.get("action") != "roll":
            context["method"] = self.data.get("method", "")
            context["current"] = {key: self.data.get(key, "") for key in lucky13.ABILITY_KEYS}

    def mark(self, context: dict[str, Any], errors: dict[str, str]) -> None:
        context["ability_fields"] = [
            {"key": key, "name": name, "current": context["current"].get(key, ""), "error": errors.get(key, "")}
            for key, name in context["ability_names"]
        ]


class Skills(_StepForm):
    template = "systems/lucky13/create/skills.html"

    def skills(self) -> Any:
        try:
            return creation.campaign_skills(self.doc, self.options).skills
        except SpecError:
            return self.doc.skills

    def value(self) -> Mapping[str, Any]:
        assert self.data is not None
        method = self.options["skill_method"]
        if method in ("ability", "random"):
            return {}
        chosen, problems = {}, {}
        for skill in self.skills():
            label = _die(self.data.get(f"skill-{skill.id}", ""), skill.name)
            if label is None:
                problems[f"skill-{skill.id}"] = f"choose a die for {skill.name}"
            else:
                chosen[skill.name] = label
        if problems:
            # The dice chosen so far may break the method's rule already, whatever the rest will be: said
            # with the dice still to choose, in the same answer.
            try:
                abilities = creation.abilities_of(self.doc)
            except SpecError:
                raise _refused(problems) from None
            picked = {name: StepDie.parse(label) for name, label in chosen.items()}
            over = lucky13.skill_dice_over(method, self.options, abilities, picked)
            raise _refused({**problems, "skills": over} if over else problems)
        return {"skills": {str(skill.id): chosen[skill.name] for skill in self.skills()}}

    def shown(self) -> dict[str, Any]:
        doc, skills = self.doc, self.skills()
        abilities = doc.abilities.dice()
        names = dict(self.ability_names())
        context: dict[str, Any] = {
            "skills": [
                {"index": s.id, "name": s.name, "ability": names.get(s.ability or "", ""), "current": s.die or "",
                 "from_ability": abilities[s.ability].label if s.ability in abilities else "d4", "roll": s.rolled}
                for s in skills
            ],
            "to_roll": any(s.rolled is None for s in skills),
            "method": self.options["skill_method"],
        }  # fmt: skip
        if len(abilities) == len(lucky13.ABILITY_KEYS):
            context["method_help"] = lucky13.skill_dice_allowed(self.options["skill_method"], self.options, abilities)
        return context

    def as_posted(self, context: dict[str, Any]) -> None:
        assert self.data is not None
        for skill in context["skills"]:
            if f"skill-{skill['index']}" in self.data:
                skill["current"] = self.data[f"skill-{skill['index']}"]

    def mark(self, context: dict[str, Any], errors: dict[str, str]) -> None:
        for skill in context["skills"]:
            skill["error"] = errors.get(f"skill-{skill['index']}", "")
        context["points"] = self.points(context)

    def points(self, context: dict[str, Any]) -> dict[str, Any] | None:
        """With point-bought skills, the points the dice on the page cost and the campaign's budget, said
        as the page says them (``static/js/dicehall.js`` says the same as the player changes a die)."""
        if self.options["skill_method"] != "point_buy":
            return None
        costs = {label: lucky13.skill_point_cost(StepDie.parse(label)) for label in DIE_LABELS}
        spent = sum(costs.get(skill["current"], 0) for skill in context["skills"])
        budget = self.options["skill_points"]
        left = f"{budget - spent} left" if spent <= budget else f"{spent - budget} over the budget"
        said = f"Points spent: {spent} of {budget}; {left}."
        return {"budget": budget, "costs_json": json.dumps(costs), "said": said}


class Specializations(_StepForm):
    template = "systems/lucky13/create/specializations.html"
    lists = {"spec": "rows"}

    def value(self) -> Mapping[str, Any]:
        assert self.data is not None
        rows = _filled(self.data, "spec", ("skill", "name"))
        problems = _row_problems(rows, "spec")
        if problems:
            raise _refused(problems)
        return {
            "specializations": [{"skill": _skill(row["skill"]), "name": row["name"]} for row in rows],
            "took_impairment": self.data.get("took_impairment") == "on",
        }

    def shown(self) -> dict[str, Any]:
        doc = self.doc
        current = [
            {"skill": str(skill.id), "name": spec.name} for skill in doc.skills for spec in skill.specializations
        ]
        allowance = lucky13.specialization_allowance(self.options, impairment=True)
        return {
            "rows": current + [{"skill": "", "name": ""}] * max(allowance - len(current), 0),
            "skill_choices": [(str(s.id), s.name) for s in doc.skills],
            "allowance": lucky13.specialization_allowance(self.options, impairment=False),
            "took_impairment": doc.creation.took_impairment,
        }

    def as_posted(self, context: dict[str, Any]) -> None:
        assert self.data is not None
        context["rows"] = _filled(self.data, "spec", ("skill", "name")) + [{"skill": "", "name": ""}] * BLANK_ROWS
        context["took_impairment"] = self.data.get("took_impairment") == "on"


class Traits(_StepForm):
    template = "systems/lucky13/create/traits.html"
    partial = "traits-form"
    lists = {"trait": "rows"}

    def value(self) -> Mapping[str, Any]:
        assert self.data is not None
        rows = _filled(self.data, "trait", ("kind", "name", "description"))
        problems = _row_problems(rows, "trait")
        if problems:
            raise _refused(problems)
        if self.rolling() and not any(key.startswith("trait-") for key in self.data):
            return {}  # a roll without the step's rows leaves the draft's traits as they are
        return {"traits": [{"kind": r["kind"], "name": r["name"], "description": r["description"]} for r in rows]}

    def rolling(self) -> str:
        """The kind of trait a "Roll on the table" button asked for ("": another button)."""
        action = self.data.get("action", "") if self.data is not None else ""
        return action.removeprefix("roll-") if action.removeprefix("roll-") in dict(creation.TRAIT_KINDS) else ""

    def shown(self) -> dict[str, Any]:
        doc, options = self.doc, self.options
        current = [{"kind": t.kind, "name": t.name, "description": t.description} for t in doc.traits]
        labels = dict(creation.TRAIT_KINDS)
        tables = [
            {"kind": kind, "label": labels[kind].lower(), "article": lucky13.indefinite(kind),
             "entries": options[key], "list": f"{kind}-table-entries"}
            for kind, key in lucky13.TABLE_OPTIONS.items() if options[key]
        ]  # fmt: skip
        return {
            "rows": current + [{"kind": "background", "name": "", "description": ""}] * BLANK_ROWS,
            "kinds": creation.TRAIT_KINDS,
            "tables": tables,
            "table_lists": {table["kind"]: table["list"] for table in tables},
            "table_rolls": [
                {"kind": labels[r.kind], "said": f"Rolled {r.roll} of {r.of}: {r.name}"}
                for r in doc.creation.table_rolls
            ],
        }

    def as_posted(self, context: dict[str, Any]) -> None:
        assert self.data is not None
        rows = _filled(self.data, "trait", ("kind", "name", "description"))
        context["rows"] = rows + [{"kind": "background", "name": "", "description": ""}] * BLANK_ROWS

    def context(self, error: str, errors: Mapping[str, str]) -> dict[str, Any]:
        rolling = self.rolling()
        if rolling and error and not any(field in _PARTS or field.startswith("trait-") for field in errors):
            errors = {f"{rolling}_roll": error}  # said by the button that rolled, in its part of the page
        context = super().context(error, errors)
        for table in context["tables"]:
            table["error"] = context["part_errors"].get(f"{table['kind']}_roll", "")
        return context


class Equipment(_StepForm):
    template = "systems/lucky13/create/equipment.html"
    lists = {"asset": "assets", "weapon": "weapons", "armor": "armor"}

    def value(self) -> Mapping[str, Any]:
        assert self.data is not None
        rows = {prefix: _filled(self.data, prefix, fields) for prefix, fields in EQUIPMENT_FIELDS.items()}
        problems: dict[str, str] = {}
        for prefix, listed in rows.items():
            problems.update(_row_problems(listed, prefix))
        for r in rows["asset"]:
            if not (_index(r["level"]) and 1 <= int(r["level"]) <= lucky13.MAX_SPECIALIZATION_LEVEL):
                problems[f"asset-{r['index']}-level"] = "an asset level is from 1 (Inferior) to 5 (Perfect)"
        for prefix, dice in (("weapon", ("accuracy", "damage")), ("armor", ("defense",))):
            for r in rows[prefix]:
                for what in dice:
                    if _die(r[what], what) is None:
                        problems.setdefault(f"{prefix}-{r['index']}-{what}", f"choose a die for {what}")
        if problems:
            raise _refused(problems)
        return {
            "assets": [
                {"name": r["name"], "kind": r["kind"] or "thing", "level": int(r["level"]),
                 "skills": [_skill(s) for s in r["skills"]], "description": r["description"]}
                for r in rows["asset"]
            ],
            "weapons": [{"name": r["name"], "accuracy": r["accuracy"], "damage": r["damage"]} for r in rows["weapon"]],
            "armor": [{"name": r["name"], "defense": r["defense"]} for r in rows["armor"]],
        }  # fmt: skip

    def shown(self) -> dict[str, Any]:
        doc = self.doc
        assets = [
            {"name": a.name, "kind": a.kind, "level": a.level, "skills": [str(i) for i in a.skills],
             "description": a.description}
            for a in doc.assets
        ]  # fmt: skip
        return {
            "assets": assets + [BLANK_ASSET] * BLANK_ROWS,
            "weapons": [{"name": w.name, "accuracy": w.accuracy, "damage": w.damage} for w in doc.weapons]
            + [BLANK_WEAPON] * BLANK_ROWS,
            "armor": [{"name": a.name, "defense": a.defense} for a in doc.armor] + [BLANK_ARMOR] * BLANK_ROWS,
            "skill_choices": [(str(s.id), s.name) for s in doc.skills],
            "asset_levels": lucky13.ASSET_LEVELS,
            "asset_kinds": creation.ASSET_KINDS,
        }

    def as_posted(self, context: dict[str, Any]) -> None:
        assert self.data is not None
        assets = [
            {**r, "level": int(r["level"]) if _index(r["level"]) else r["level"]}
            for r in _filled(self.data, "asset", EQUIPMENT_FIELDS["asset"])
        ]
        context["assets"] = assets + [BLANK_ASSET] * BLANK_ROWS
        context["weapons"] = _filled(self.data, "weapon", EQUIPMENT_FIELDS["weapon"]) + [BLANK_WEAPON] * BLANK_ROWS
        context["armor"] = _filled(self.data, "armor", EQUIPMENT_FIELDS["armor"]) + [BLANK_ARMOR] * BLANK_ROWS


class Review(_StepForm):
    template = "systems/lucky13/create/review.html"

    def shown(self) -> dict[str, Any]:
        context: dict[str, Any] = {"sheet": sheets.sheet(self.character), "asset_levels": lucky13.ASSET_LEVELS}
        pulse = self.doc.abilities.dice().get("pulse")
        if pulse is not None:  # what the character joins the party with
            context["pulse"] = pulse.label
            context["max_hit_points"] = lucky13.max_hit_points(pulse, self.options["hit_points_per_step"])
        return context


#: Lucky 13's form of each creation step, for ``drafting.register``.
STEP_FORMS: Final = {
    "abilities": Abilities,
    "skills": Skills,
    "specializations": Specializations,
    "traits": Traits,
    "equipment": Equipment,
    "review": Review,
}
