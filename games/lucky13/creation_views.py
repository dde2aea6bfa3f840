"""The guided creation of a Lucky 13 character: name and concept, then one page per step.

Plain forms throughout (the flow works without JavaScript; with htmx the
pages are boosted). Every step saves the draft; "Save and finish later" leaves
it on the campaign page.
"""

from __future__ import annotations

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
from web.fields import version_number

DIE_LABELS = [StepDie(rung).label for rung in range(1, 6)]
BLANK_ROWS = 2
BLANK_ASSET: Final = {"name": "", "kind": "thing", "level": 2, "skills": [], "description": ""}
BLANK_WEAPON: Final = {"name": "", "accuracy": "d6", "damage": "d6"}
BLANK_ARMOR: Final = {"name": "", "defense": "d4"}


def start(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    """Name and concept (the campaign is loaded by ``drafting_views.start``)."""
    values = {"name": request.POST.get("name", ""), "concept": request.POST.get("concept", "")}
    error = None
    if request.method == "POST":
        try:
            character = creation.start_character(
                campaign=campaign, owner=request.user, name=values["name"], concept=values["concept"]
            )
        except (SpecError, ValueError) as problem:
            error = write.sentence(getattr(problem, "message", str(problem)))
        else:
            return redirect("characters:create-step", pk=character.pk, step=creation.STEP_KEYS[0])
    status = 400 if error else 200
    steps = [label for _, label in creation.STEPS if _ != "review"]
    context = {"campaign": campaign, "values": values, "error": error, "steps": steps, "ask_concept": True}
    return render(request, "characters/create/start.html", context, status=status)


def _rows(data: QueryDict, prefix: str, fields: tuple[str, ...]) -> list[dict[str, str]]:
    """Indexed form rows (``spec-0-name``…); a row without a name is an unused blank row."""
    indexes = sorted(
        {int(part) for part in (key.split("-")[1] for key in data if key.startswith(f"{prefix}-")) if _index(part)}
    )
    rows = []
    for i in indexes[: creation.MAX_ROWS + BLANK_ROWS]:
        row = {field: data.get(f"{prefix}-{i}-{field}", "").strip() for field in fields}
        row["list:skills"] = data.getlist(f"{prefix}-{i}-skills")  # type: ignore[assignment]
        if row["name"]:
            rows.append(row)
    return rows


def _index(part: str) -> bool:
    """A form row's index: a few ASCII digits."""
    return part.isascii() and part.isdecimal() and len(part) < 5


def _die(value: str, what: str) -> StepDie:
    try:
        return StepDie.parse(value)
    except DiceError:
        raise SpecError(what, f"choose a die for {what}") from None


def _level(value: str) -> int:
    try:
        return lucky13.check_level(int(value), "asset level")
    except ValueError:
        raise SpecError("asset level", "an asset level is from 1 (Inferior) to 5 (Perfect)") from None


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
    dice = {key: _die(request.POST.get(key, ""), name) for key, name in _ability_names(character)}
    creation.assign_abilities(
        character_id=character.pk, array=array, dice=dice, version=_version(request), by=request.user
    )


def _save_skills(request: HttpRequest, character: Character) -> None:
    method = character.campaign.settings["skill_method"]
    if method in ("ability", "random"):
        rng = secrets.SystemRandom() if request.POST.get("action") == "roll" else None
        creation.set_skills(character_id=character.pk, rng=rng, version=_version(request), by=request.user)
        return
    dice: dict[str | int, StepDie] = {
        skill.id: _die(request.POST.get(f"skill-{skill.id}", ""), skill.name)
        for skill in creation.skills_for_step(character).skills
    }
    creation.set_skills(character_id=character.pk, dice=dice, version=_version(request), by=request.user)


def _save_specializations(request: HttpRequest, character: Character) -> None:
    rows = _rows(request.POST, "spec", ("skill", "name"))
    choices = [SpecializationChoice(skill=_skill(row["skill"]), name=row["name"]) for row in rows]
    took = request.POST.get("took_impairment") == "on"
    creation.set_specializations(
        character_id=character.pk, choices=choices, took_impairment=took, version=_version(request), by=request.user
    )


def _save_traits(request: HttpRequest, character: Character) -> None:
    rows = _rows(request.POST, "trait", ("kind", "name", "description"))
    creation.set_traits(
        version=_version(request),
        character_id=character.pk,
        traits=[TraitChoice(kind=r["kind"], name=r["name"], description=r["description"]) for r in rows],
        by=request.user,
    )


def _save_equipment(request: HttpRequest, character: Character) -> None:
    assets = [
        AssetChoice(name=r["name"], level=_level(r["level"]), kind=r["kind"] or "thing",
                    skills=tuple(_skill(s) for s in r["list:skills"]), description=r["description"])
        for r in _rows(request.POST, "asset", ("name", "kind", "level", "description"))
    ]  # fmt: skip
    weapons = [
        WeaponChoice(name=r["name"], accuracy=_die(r["accuracy"], "accuracy"), damage=_die(r["damage"], "damage"))
        for r in _rows(request.POST, "weapon", ("name", "accuracy", "damage"))
    ]
    armor = [
        ArmorChoice(name=r["name"], defense=_die(r["defense"], "defense"))
        for r in _rows(request.POST, "armor", ("name", "defense"))
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
    if request.method == "POST":
        try:
            SAVE[step](request, character)
        except creation.StaleDraft as problem:
            error, status = problem.message, 409
        except (SpecError, ValueError) as problem:
            error, status = getattr(problem, "message", str(problem)), 400
        else:
            if step == "review":
                messages.success(request, f"{character.name} is ready to play.")
                return redirect("characters:sheet", pk=character.pk)
            if request.POST.get("action") == "later":
                messages.success(request, f"{character.name} is saved as a draft: finish it any time.")
                return redirect(reverse("campaigns:detail", args=[character.campaign_id]))
            if request.POST.get("action") == "roll":
                return redirect("characters:create-step", pk=character.pk, step=step)
            following = creation.STEP_KEYS[creation.STEP_KEYS.index(step) + 1]
            return redirect("characters:create-step", pk=character.pk, step=following)
        character.refresh_from_db()
    context = _step_context(character, step)
    if status == 400:
        _as_posted(request, step, context)  # show what was typed, not what was saved before
    context["error"] = write.sentence(error) if error else None
    return render(request, f"systems/lucky13/create/{step}.html", context, status=status)


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
        rows = [{"skill": r["skill"], "name": r["name"]} for r in _rows(data, "spec", ("skill", "name"))]
        context["rows"] = rows + [{"skill": "", "name": ""}] * BLANK_ROWS
        context["took_impairment"] = data.get("took_impairment") == "on"
    elif step == "traits":
        rows = _rows(data, "trait", ("kind", "name", "description"))
        context["rows"] = rows + [{"kind": "background", "name": "", "description": ""}] * BLANK_ROWS
    elif step == "equipment":
        assets = [
            {**r, "level": int(r["level"]) if _index(r["level"]) else r["level"], "skills": r["list:skills"]}
            for r in _rows(data, "asset", ("name", "kind", "level", "description"))
        ]
        context["assets"] = assets + [BLANK_ASSET] * BLANK_ROWS
        context["weapons"] = _rows(data, "weapon", ("name", "accuracy", "damage")) + [BLANK_WEAPON] * BLANK_ROWS
        context["armor"] = _rows(data, "armor", ("name", "defense")) + [BLANK_ARMOR] * BLANK_ROWS


class Pages:
    """Lucky 13's own creation pages, for ``drafting``."""

    start = staticmethod(start)
    step = staticmethod(step)
