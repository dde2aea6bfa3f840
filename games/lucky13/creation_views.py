"""The guided creation of a Lucky 13 character: name and concept, then one page per step.

Plain forms throughout (the flow works without JavaScript; with htmx the
pages are boosted). Every step saves the draft; "Save and finish later" leaves
it on the campaign page.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from typing import Any, Final

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse

from campaigns.models import Campaign
from characters import sheets, write
from characters.models import Character
from games.lucky13 import creation
from games.lucky13.creation import ArmorChoice, AssetChoice, SpecializationChoice, TraitChoice, WeaponChoice
from rules.dice import DiceError, StepDie
from rules.systems import lucky13
from rules.systems.base import SpecError
from rules.systems.lucky13 import SheetError
from web.fields import version_number

DIE_LABELS = [StepDie(rung).label for rung in range(1, 6)]
BLANK_ROWS = 2
BLANK_ASSET: Final = {"name": "", "kind": "thing", "level": 2, "skills": [], "description": ""}
BLANK_WEAPON: Final = {"name": "", "accuracy": "d6", "damage": "d6"}
BLANK_ARMOR: Final = {"name": "", "defense": "d4"}
#: The equipment step's lists, each with the fields of its rows.
EQUIPMENT_FIELDS: Final = {
    "asset": ("name", "kind", "level", "skills", "description"),
    "weapon": ("name", "accuracy", "damage"),
    "armor": ("name", "defense"),
}


def start(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """Name and concept (the campaign is loaded by ``drafting_views.start``)."""
    values = {"name": request.POST.get("name", ""), "concept": request.POST.get("concept", "")}
    error = None
    field_errors = {}
    if request.method == "POST":
        try:
            character = creation.start_character(
                campaign=campaign, owner=request.user, name=values["name"], concept=values["concept"]
            )
        except (SpecError, ValueError) as problem:
            error = write.sentence(getattr(problem, "message", str(problem)))
            field = getattr(problem, "field", "")
            if field in values:
                field_errors[field] = error
        else:
            return redirect("characters:create-step", pk=character.pk, step=creation.STEP_KEYS[0])
    status = 400 if error else 200
    steps = [label for _, label in creation.STEPS if _ != "review"]
    context = {"campaign": campaign, "values": values, "error": error, "field_errors": field_errors, "steps": steps,
               "ask_concept": True}  # fmt: skip
    return render(request, "characters/create/start.html", context, status=status)


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


class RowProblems(SheetError):
    """What a step's form says that cannot be read (a row without a name, a die not chosen), each
    message by the field it is about (the form's own field names); the first is the error's."""

    def __init__(self, errors: dict[str, str]) -> None:
        field, message = next(iter(errors.items()))
        super().__init__(field, message)
        self.errors = errors


def _rows(data: QueryDict, prefix: str, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """The rows the player filled in (:data:`_FILLED`), or :class:`RowProblems` for each one that lacks
    its name (or, for a specialization, its skill), or whose name or description will not do."""
    rows = [row for row in _posted_rows(data, prefix, fields) if _FILLED[prefix](row)]
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
    if problems:
        raise RowProblems(problems)
    return rows


def _control(text: str, allowed: str = "") -> bool:
    """Whether ``text`` holds a control character (C0, DEL, C1) other than ``allowed``, as the sheet refuses."""
    return any((ord(c) < 32 or 127 <= ord(c) < 160) and c not in allowed for c in text)


def _unnamed(prefix: str, row: dict[str, Any]) -> str:
    """What a filled-in row without a name is told (an impairment's name is what the page shows of it)."""
    if prefix == "trait":
        return f"give this {row['kind'] if row['kind'] in dict(creation.TRAIT_KINDS) else 'entry'} a name"
    return f"give this {'specialization' if prefix == 'spec' else prefix} a name"


def _index(part: str) -> bool:
    """A form row's index: a few ASCII digits."""
    return part.isascii() and part.isdecimal() and len(part) < 5


def _die(value: str, what: str, field: str = "") -> StepDie:
    """A die a select offered (d4 … d12); ``field`` is where the form shows a problem with it."""
    try:
        return StepDie.parse(value)
    except DiceError:
        raise SheetError(field or what, f"choose a die for {what}") from None


def _dice(chosen: dict[str, tuple[str, str]]) -> dict[str, StepDie]:
    """Each of the form's die selects (field: (value, what it is for)) read, or :class:`RowProblems` for every
    one left unchosen."""
    dice, problems = {}, {}
    for field, (value, what) in chosen.items():
        try:
            dice[field] = _die(value, what, field)
        except SheetError as error:
            problems[field] = error.message
    if problems:
        raise RowProblems(problems)
    return dice


def _level(value: str, field: str) -> int:
    try:
        return lucky13.check_level(int(value) if _index(value) else None, "asset level")
    except SheetError:
        raise SheetError(field, "an asset level is from 1 (Inferior) to 5 (Perfect)") from None


def _skill(value: str) -> str | int:
    """A skill as a form names it: by its id (a name is taken too)."""
    return int(value) if value.isascii() and value.isdecimal() and len(value) < 17 else value


def _version(request: HttpRequest) -> int | None:
    """The draft's version the page was made from (a form without one is checked no further)."""
    return version_number(request.POST.get("version", ""))


def _save_abilities(request: HttpRequest, character: Character) -> None:
    if request.POST.get("action") == "roll":
        creation.roll_abilities(
            character_id=character.pk, rng=secrets.SystemRandom(), version=_version(request), by=request.user
        )
        return
    if character.document.creation.ability_method == "random":
        return  # rolled already: nothing to choose
    array = request.POST.get("method", "")
    dice = _dice({key: (request.POST.get(key, ""), name) for key, name in _ability_names(character)})
    creation.assign_abilities(
        character_id=character.pk, array=array, dice=dice, version=_version(request), by=request.user
    )


def _save_skills(request: HttpRequest, character: Character) -> None:
    method = character.campaign.settings["skill_method"]
    if method in ("ability", "random"):
        rng = secrets.SystemRandom() if request.POST.get("action") == "roll" else None
        creation.set_skills(character_id=character.pk, rng=rng, version=_version(request), by=request.user)
        return
    skills = creation.skills_for_step(character).skills
    fields = {f"skill-{skill.id}": (request.POST.get(f"skill-{skill.id}", ""), skill.name) for skill in skills}
    try:
        chosen = _dice(fields)
    except RowProblems as refused:
        # The dice chosen so far may break the method's rule already, whatever the rest will be: said
        # with the dice still to choose, in the same answer.
        picked = {}
        for field, (value, name) in fields.items():
            if field not in refused.errors:
                picked[name] = StepDie.parse(value)
        over = lucky13.skill_dice_over(method, character.campaign.settings, creation.abilities_of(character), picked)
        if over is None:
            raise
        raise RowProblems({**refused.errors, "skills": over}) from None
    dice: dict[str | int, StepDie] = {skill.id: chosen[f"skill-{skill.id}"] for skill in skills}
    creation.set_skills(character_id=character.pk, dice=dice, version=_version(request), by=request.user)


def _save_specializations(request: HttpRequest, character: Character) -> None:
    rows = _rows(request.POST, "spec", ("skill", "name"))
    choices = [SpecializationChoice(skill=_skill(row["skill"]), name=row["name"]) for row in rows]
    took = request.POST.get("took_impairment") == "on"
    creation.set_specializations(
        character_id=character.pk, choices=choices, took_impairment=took, version=_version(request), by=request.user
    )


#: The buttons that roll on the campaign's tables, and the kind each rolls.
TABLE_ROLLS: Final = {f"roll-{kind}": kind for kind, _ in creation.TRAIT_KINDS}


def _table_roll(request: HttpRequest) -> str | None:
    """The kind of trait a "Roll on the table" button asks for (None: another button)."""
    return TABLE_ROLLS.get(request.POST.get("action", "")) if request.method == "POST" else None


def _save_traits(request: HttpRequest, character: Character) -> None:
    rows = _rows(request.POST, "trait", ("kind", "name", "description"))
    traits = [TraitChoice(kind=r["kind"], name=r["name"], description=r["description"]) for r in rows]
    kind = _table_roll(request)
    if kind is not None:
        # The rows on the page go with the roll, so nothing typed is lost; a post without them (no
        # row at all) leaves the draft's traits as they are.
        posted = any(key.startswith("trait-") for key in request.POST)
        creation.roll_on_table(
            version=_version(request), character_id=character.pk, kind=kind, rng=secrets.SystemRandom(),
            traits=traits if posted else None, by=request.user,
        )  # fmt: skip
        return
    creation.set_traits(version=_version(request), character_id=character.pk, traits=traits, by=request.user)


def _save_equipment(request: HttpRequest, character: Character) -> None:
    rows = {}
    problems: dict[str, str] = {}
    for prefix, fields in EQUIPMENT_FIELDS.items():
        try:
            rows[prefix] = _rows(request.POST, prefix, fields)
        except RowProblems as refused:
            problems.update(refused.errors)
    if problems:
        raise RowProblems(problems)
    assets = [
        AssetChoice(name=r["name"], level=_level(r["level"], f"asset-{r['index']}-level"), kind=r["kind"] or "thing",
                    skills=tuple(_skill(s) for s in r["skills"]), description=r["description"])
        for r in rows["asset"]
    ]  # fmt: skip
    weapons = [
        WeaponChoice(name=r["name"], accuracy=_die(r["accuracy"], "accuracy", f"weapon-{r['index']}-accuracy"),
                     damage=_die(r["damage"], "damage", f"weapon-{r['index']}-damage"))
        for r in rows["weapon"]
    ]  # fmt: skip
    armor = [
        ArmorChoice(name=r["name"], defense=_die(r["defense"], "defense", f"armor-{r['index']}-defense"))
        for r in rows["armor"]
    ]
    creation.set_equipment(
        character_id=character.pk, assets=assets, weapons=weapons, armor=armor, version=_version(request),
        by=request.user,
    )  # fmt: skip


def _finish(request: HttpRequest, character: Character) -> None:
    creation.finish(character_id=character.pk, version=_version(request), by=request.user)


SAVE: dict[str, Callable[[HttpRequest, Character], None]] = {
    "abilities": _save_abilities,
    "skills": _save_skills,
    "specializations": _save_specializations,
    "traits": _save_traits,
    "equipment": _save_equipment,
    "review": _finish,
}


def _ability_names(character: Character) -> list[tuple[str, str]]:
    return list(zip(lucky13.ABILITY_KEYS, character.campaign.settings["ability_names"], strict=True))


def _step_context(character: Character, step: str) -> dict[str, Any]:
    options = character.campaign.settings
    doc = character.document
    context: dict[str, Any] = {
        "character": character,
        "doc": doc,
        "campaign": character.campaign,
        "options": options,
        "step": step,
        "steps": [
            {"key": key, "label": label, "reachable": creation.reached(character, key), "current": key == step}
            for key, label in creation.STEPS
        ],
        "dice": DIE_LABELS,
        "ability_names": _ability_names(character),
    }
    if step == "abilities":
        context["methods"] = creation.allowed_ability_methods(options)
        context["method"] = doc.creation.ability_method
        context["rolls"] = dict(zip(lucky13.ABILITY_KEYS, doc.creation.ability_rolls, strict=False))
        context["current"] = {key: getattr(doc.abilities, key) or "" for key in lucky13.ABILITY_KEYS}
        context["balanced"] = " ".join(d.label for d in lucky13.BALANCED_ARRAY)
        context["specialized"] = " ".join(d.label for d in lucky13.SPECIALIZED_ARRAY)
    elif step == "skills":
        try:
            skills = creation.skills_for_step(character).skills
        except SpecError:
            skills = doc.skills
        abilities = doc.abilities.dice()
        names = dict(_ability_names(character))
        context["skills"] = [
            {
                "index": s.id,
                "name": s.name,
                "ability": names.get(s.ability or "", ""),
                "current": s.die or "",
                "from_ability": abilities[s.ability].label if s.ability in abilities else "d4",
                "roll": s.rolled,
            }
            for s in skills
        ]
        context["to_roll"] = any(s.rolled is None for s in skills)
        context["method"] = options["skill_method"]
        if len(abilities) == len(lucky13.ABILITY_KEYS):
            context["method_help"] = lucky13.skill_dice_allowed(options["skill_method"], options, abilities)
    elif step == "specializations":
        current = [
            {"skill": str(skill.id), "name": spec.name} for skill in doc.skills for spec in skill.specializations
        ]
        allowance = lucky13.specialization_allowance(options, impairment=True)
        context["rows"] = current + [{"skill": "", "name": ""}] * max(allowance - len(current), 0)
        context["skill_choices"] = [(str(s.id), s.name) for s in doc.skills]
        context["allowance"] = lucky13.specialization_allowance(options, impairment=False)
        context["took_impairment"] = doc.creation.took_impairment
    elif step == "traits":
        current = [{"kind": t.kind, "name": t.name, "description": t.description} for t in doc.traits]
        context["rows"] = current + [{"kind": "background", "name": "", "description": ""}] * BLANK_ROWS
        context["kinds"] = creation.TRAIT_KINDS
        labels = dict(creation.TRAIT_KINDS)
        context["tables"] = [
            {"kind": kind, "label": labels[kind].lower(), "article": lucky13.indefinite(kind),
             "entries": options[key], "list": f"{kind}-table-entries"}
            for kind, key in lucky13.TABLE_OPTIONS.items() if options[key]
        ]  # fmt: skip
        context["table_lists"] = {table["kind"]: table["list"] for table in context["tables"]}
        context["table_rolls"] = [
            {"kind": labels[r.kind], "said": f"Rolled {r.roll} of {r.of}: {r.name}"} for r in doc.creation.table_rolls
        ]
    elif step == "equipment":
        context["assets"] = [
            {"name": a.name, "kind": a.kind, "level": a.level, "skills": [str(i) for i in a.skills],
             "description": a.description}
            for a in doc.assets
        ] + [BLANK_ASSET] * BLANK_ROWS  # fmt: skip
        weapons = [{"name": w.name, "accuracy": w.accuracy, "damage": w.damage} for w in doc.weapons]
        context["weapons"] = weapons + [BLANK_WEAPON] * BLANK_ROWS
        context["armor"] = [{"name": a.name, "defense": a.defense} for a in doc.armor] + [BLANK_ARMOR] * BLANK_ROWS
        context["skill_choices"] = [(str(s.id), s.name) for s in doc.skills]
        context["asset_levels"] = lucky13.ASSET_LEVELS
        context["asset_kinds"] = creation.ASSET_KINDS
    elif step == "review":
        context["sheet"] = sheets.sheet(character)
        pulse = doc.abilities.dice().get("pulse")
        if pulse is not None:  # what the character joins the party with
            context["pulse"] = pulse.label
            context["max_hit_points"] = lucky13.max_hit_points(pulse, options["hit_points_per_step"])
        context["asset_levels"] = lucky13.ASSET_LEVELS
    return context


def step(request: HttpRequest, character: Character, step: str) -> HttpResponse:
    """A step's page (the draft is loaded, and checked to be one, by ``drafting_views.step``)."""
    progress = character.document.creation.step or creation.STEP_KEYS[-1]
    if step not in creation.STEP_KEYS:
        return redirect("characters:create-step", pk=character.pk, step=progress)
    if not creation.reached(character, step):
        messages.info(request, "One step at a time: this is where your character is.")
        return redirect("characters:create-step", pk=character.pk, step=progress)
    error = None
    status = 200
    errors: dict[str, str] = {}
    rolling = _table_roll(request) if step == "traits" else None
    if request.method == "POST":
        try:
            SAVE[step](request, character)
        except creation.StaleDraft as problem:
            error, status = problem.message, 409
            if rolling:  # said by the button that rolled, in its part of the page
                errors = {f"{rolling}_roll": error}
        except (SpecError, ValueError) as problem:
            status = 400
            error = getattr(problem, "message", str(problem))
            errors = getattr(problem, "errors", None) or {getattr(problem, "field", ""): error}
            if rolling and not any(field in _PARTS or field.startswith("trait-") for field in errors):
                errors = {f"{rolling}_roll": error}
        else:
            if rolling and request.htmx and not request.htmx.history_restore_request:
                character.refresh_from_db()
                return _step_page(request, character, step, status=200, partial="traits-form")
            if step == "review":
                messages.success(request, f"{character.name} is ready to play.")
                return redirect("characters:sheet", pk=character.pk)
            if request.POST.get("action") == "later":
                messages.success(request, f"{character.name} is saved as a draft: finish it any time.")
                return redirect(reverse("campaigns:detail", args=[character.campaign_id]))
            if request.POST.get("action") == "roll" or rolling:
                return redirect("characters:create-step", pk=character.pk, step=step)
            following = creation.STEP_KEYS[creation.STEP_KEYS.index(step) + 1]
            return redirect("characters:create-step", pk=character.pk, step=following)
        character.refresh_from_db()
    # With htmx, a roll on a table swaps just the step's form: what the rest of the page shows stands.
    partial = "traits-form" if rolling and request.htmx and not request.htmx.history_restore_request else None
    return _step_page(request, character, step, status=status, error=error, errors=errors, partial=partial)


def _step_page(
    request: HttpRequest,
    character: Character,
    step: str,
    *,
    status: int,
    error: str | None = None,
    errors: dict[str, str] | None = None,
    partial: str | None = None,
) -> HttpResponse:
    """A step's page (or its ``partial``), after a refusal with what was posted and each message by its field."""
    errors = errors or {}
    context = _step_context(character, step)
    if status in (400, 409):
        _as_posted(request, step, context)  # show what was typed, not what was saved before
    _mark(step, context, {field: write.sentence(message) for field, message in errors.items()})
    for table in context.get("tables", ()):
        table["error"] = context["part_errors"].get(f"{table['kind']}_roll", "")
    if len(errors) > 1:
        error = f"nothing was saved: please check the {len(errors)} things marked below"
    context["error"] = write.sentence(error) if error else None
    if step == "skills":
        context["points"] = _points(character, context)
    template = f"systems/lucky13/create/{step}.html"
    return render(request, f"{template}#{partial}" if partial else template, context, status=status)


def _shown_rows(data: QueryDict, prefix: str, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """The rows of a refused form as the player filled them in (blank ones left out), each with its
    posted ``index``, for the page to show again."""
    return [row for row in _posted_rows(data, prefix, fields) if _FILLED[prefix](row)]


def _as_posted(request: HttpRequest, step: str, context: dict[str, Any]) -> None:
    """The choices of a refused step as the player entered them, plus blank rows to add more."""
    data = request.POST
    if step == "abilities" and data.get("action") != "roll":
        context["method"] = data.get("method", "")
        context["current"] = {key: data.get(key, "") for key in lucky13.ABILITY_KEYS}
    elif step == "skills":
        for skill in context["skills"]:
            if f"skill-{skill['index']}" in data:
                skill["current"] = data[f"skill-{skill['index']}"]
    elif step == "specializations":
        rows = _shown_rows(data, "spec", ("skill", "name"))
        context["rows"] = rows + [{"skill": "", "name": ""}] * BLANK_ROWS
        context["took_impairment"] = data.get("took_impairment") == "on"
    elif step == "traits":
        rows = _shown_rows(data, "trait", ("kind", "name", "description"))
        context["rows"] = rows + [{"kind": "background", "name": "", "description": ""}] * BLANK_ROWS
    elif step == "equipment":
        assets = [
            {**r, "level": int(r["level"]) if _index(r["level"]) else r["level"]}
            for r in _shown_rows(data, "asset", EQUIPMENT_FIELDS["asset"])
        ]
        context["assets"] = assets + [BLANK_ASSET] * BLANK_ROWS
        context["weapons"] = _shown_rows(data, "weapon", EQUIPMENT_FIELDS["weapon"]) + [BLANK_WEAPON] * BLANK_ROWS
        context["armor"] = _shown_rows(data, "armor", EQUIPMENT_FIELDS["armor"]) + [BLANK_ARMOR] * BLANK_ROWS


#: Where a problem the rules report about a whole part of a step is shown: by that part of the form.
_PARTS: Final = {
    "abilities": "abilities", "array": "abilities", "method": "abilities", "ability_method": "abilities",
    "skills": "skills", "skill_method": "skills", "specializations": "specializations", "traits": "traits",
    "assets": "assets", "asset level": "assets", "weapons": "weapons", "accuracy": "weapons", "damage": "weapons",
    "armor": "armor", "defensive": "armor", "kind": "traits",
    "background_roll": "background_roll", "impairment_roll": "impairment_roll",
}  # fmt: skip
#: The lists of each step's page, by the prefix of their rows' fields.
_LISTS: Final = {"specializations": {"spec": "rows"}, "traits": {"trait": "rows"},
                 "equipment": {"asset": "assets", "weapon": "weapons", "armor": "armor"}}  # fmt: skip


def _mark(step: str, context: dict[str, Any], errors: dict[str, str]) -> None:
    """Each message by what it is about: a die's select, a row's field (``trait-2-name``, by the index
    the row was posted at), or a part of the step (:data:`_PARTS`)."""
    context["part_errors"] = {_PARTS[field]: message for field, message in reversed(errors.items()) if field in _PARTS}
    if step == "abilities":
        context["ability_fields"] = [
            {"key": key, "name": name, "current": context["current"].get(key, ""), "error": errors.get(key, "")}
            for key, name in context["ability_names"]
        ]
    elif step == "skills":
        for skill in context["skills"]:
            skill["error"] = errors.get(f"skill-{skill['index']}", "")
    for prefix, name in _LISTS.get(step, {}).items():
        context[name] = [
            {**row, "errors": {
                key.rsplit("-", 1)[1]: message for key, message in errors.items()
                if "index" in row and key.startswith(f"{prefix}-{row['index']}-")
            }}
            for row in context[name]
        ]  # fmt: skip


def _points(character: Character, context: dict[str, Any]) -> dict[str, Any] | None:
    """With point-bought skills, the points the dice on the page cost and the campaign's budget, said
    as the page says them (``static/js/dicehall.js`` says the same as the player changes a die)."""
    options = character.campaign.settings
    if options["skill_method"] != "point_buy":
        return None
    costs = {label: lucky13.skill_point_cost(StepDie.parse(label)) for label in DIE_LABELS}
    spent = sum(costs.get(skill["current"], 0) for skill in context["skills"])
    budget = options["skill_points"]
    left = f"{budget - spent} left" if spent <= budget else f"{spent - budget} over the budget"
    said = f"Points spent: {spent} of {budget}; {left}."
    return {"budget": budget, "costs_json": json.dumps(costs), "said": said}


class Pages:
    """Lucky 13's own creation pages, for ``drafting``."""

    start = staticmethod(start)
    step = staticmethod(step)
