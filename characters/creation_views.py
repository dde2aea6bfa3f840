"""The guided creation of a Lucky 13 character: name and concept, then one page per step.

Plain forms throughout (the flow works without JavaScript; with htmx the
pages are boosted). Every step saves the draft; "Save and finish later" leaves
it on the campaign page.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from campaigns.access import campaign_for
from characters import access, creation, sheets
from characters.creation import ArmorChoice, AssetChoice, SpecializationChoice, TraitChoice, WeaponChoice
from characters.models import Asset, Character, Trait
from rules.dice import DiceError, StepDie
from rules.systems import lucky13
from rules.systems.base import SpecError

DIE_LABELS = [StepDie(rung).label for rung in range(1, 6)]
BLANK_ROWS = 2


@require_http_methods(["GET", "HEAD", "POST"])
def start(request: HttpRequest, campaign_pk: int) -> HttpResponse:
    campaign = campaign_for(request.user, campaign_pk)
    values = {"name": request.POST.get("name", ""), "concept": request.POST.get("concept", "")}
    error = None
    if request.method == "POST":
        try:
            character = creation.start_character(
                campaign=campaign, owner=request.user, name=values["name"], concept=values["concept"]
            )
        except (SpecError, ValueError) as problem:
            error = getattr(problem, "message", str(problem))
        else:
            return redirect("characters:create-step", pk=character.pk, step=creation.STEP_KEYS[0])
    status = 400 if error else 200
    return render(
        request, "characters/create/start.html", {"campaign": campaign, "values": values, "error": error},
        status=status,
    )  # fmt: skip


def _rows(data: QueryDict, prefix: str, fields: tuple[str, ...]) -> list[dict[str, str]]:
    """Indexed form rows (``spec-0-name``…); a row without a name is an unused blank row."""
    indexes = sorted(
        {int(key.split("-")[1]) for key in data if key.startswith(f"{prefix}-") and key.split("-")[1].isdigit()}
    )
    rows = []
    for i in indexes[: creation.MAX_ROWS + BLANK_ROWS]:
        row = {field: data.get(f"{prefix}-{i}-{field}", "").strip() for field in fields}
        row["list:skills"] = data.getlist(f"{prefix}-{i}-skills")  # type: ignore[assignment]
        if row["name"]:
            rows.append(row)
    return rows


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


def _version(request: HttpRequest) -> int | None:
    """The draft's version the page was made from (a form without one is checked no further)."""
    value = request.POST.get("version", "")
    return int(value) if value.isdigit() else None


def _save_abilities(request: HttpRequest, character: Character) -> None:
    if request.POST.get("action") == "roll":
        creation.roll_abilities(character_id=character.pk, rng=secrets.SystemRandom(), version=_version(request))
        return
    if character.ability_method == Character.AbilityMethod.RANDOM:
        return  # rolled already: nothing to choose
    array = request.POST.get("method", "")
    dice = {key: _die(request.POST.get(key, ""), key.title()) for key in lucky13.ABILITY_KEYS}
    creation.assign_abilities(character_id=character.pk, array=array, dice=dice, version=_version(request))


def _save_skills(request: HttpRequest, character: Character) -> None:
    options = character.campaign.settings
    method = options["skill_method"]
    if method in ("ability", "random"):
        rng = secrets.SystemRandom() if request.POST.get("action") == "roll" else None
        creation.set_skills(character_id=character.pk, rng=rng, version=_version(request))
        return
    dice = {
        skill["name"]: _die(request.POST.get(f"skill-{i}", ""), skill["name"])
        for i, skill in enumerate(options["skills"])
    }
    creation.set_skills(character_id=character.pk, dice=dice, version=_version(request))


def _save_specializations(request: HttpRequest, character: Character) -> None:
    rows = _rows(request.POST, "spec", ("skill", "name"))
    choices = [SpecializationChoice(skill=row["skill"], name=row["name"]) for row in rows]
    took = request.POST.get("took_impairment") == "on"
    creation.set_specializations(
        character_id=character.pk, choices=choices, took_impairment=took, version=_version(request)
    )


def _save_traits(request: HttpRequest, character: Character) -> None:
    rows = _rows(request.POST, "trait", ("kind", "name", "description"))
    creation.set_traits(
        version=_version(request),
        character_id=character.pk,
        traits=[TraitChoice(kind=r["kind"], name=r["name"], description=r["description"]) for r in rows],
    )


def _save_equipment(request: HttpRequest, character: Character) -> None:
    assets = [
        AssetChoice(name=r["name"], level=_level(r["level"]), kind=r["kind"] or "thing",
                    skills=tuple(r["list:skills"]), description=r["description"])  # type: ignore[arg-type]
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
        character_id=character.pk, assets=assets, weapons=weapons, armor=armor, version=_version(request)
    )


def _finish(request: HttpRequest, character: Character) -> None:
    creation.finish(character_id=character.pk, version=_version(request))


SAVE: dict[str, Callable[[HttpRequest, Character], None]] = {
    "abilities": _save_abilities,
    "skills": _save_skills,
    "specializations": _save_specializations,
    "traits": _save_traits,
    "equipment": _save_equipment,
    "review": _finish,
}


def _step_context(character: Character, step: str) -> dict[str, Any]:
    options = character.campaign.settings
    context: dict[str, Any] = {
        "character": character,
        "campaign": character.campaign,
        "options": options,
        "step": step,
        "steps": [
            {"key": key, "label": label, "reachable": creation.reached(character, key), "current": key == step}
            for key, label in creation.STEPS
        ],
        "dice": DIE_LABELS,
        "ability_names": list(zip(lucky13.ABILITY_KEYS, options["ability_names"], strict=True)),
    }
    if step == "abilities":
        context["methods"] = creation.allowed_ability_methods(options)
        context["rolls"] = list(
            zip(options["ability_names"], character.creation_rolls.get("abilities", []), strict=False)
        )
        context["current"] = {key: (character.ability(key) or "") for key in lucky13.ABILITY_KEYS}
        context["balanced"] = " ".join(d.label for d in lucky13.BALANCED_ARRAY)
        context["specialized"] = " ".join(d.label for d in lucky13.SPECIALIZED_ARRAY)
    elif step == "skills":
        existing = {s.name: StepDie(s.die).label for s in character.skills.all()}
        abilities = {key: character.ability(key) for key in lucky13.ABILITY_KEYS}
        names = dict(zip(lucky13.ABILITY_KEYS, options["ability_names"], strict=True))
        rolls = character.creation_rolls.get("skills", [])
        context["skills"] = [
            {
                "index": i,
                "name": s["name"],
                "ability": names.get(s["ability"] or "", ""),
                "current": existing.get(s["name"], ""),
                "from_ability": (abilities.get(s["ability"]) or StepDie.of(4)).label if s["ability"] else "d4",
                "roll": rolls[i] if i < len(rolls) else None,
            }
            for i, s in enumerate(options["skills"])
        ]
        context["method"] = options["skill_method"]
        if all(abilities.values()):
            context["method_help"] = lucky13.skill_dice_allowed(options["skill_method"], options, abilities)  # type: ignore[arg-type]
    elif step == "specializations":
        current = [
            {"skill": sp.skill.name, "name": sp.name}
            for sp in character.skills.all()
            for sp in sp.specializations.all()
        ]
        allowance = lucky13.specialization_allowance(options, impairment=True)
        context["rows"] = current + [{"skill": "", "name": ""}] * max(allowance - len(current), 0)
        context["skill_names"] = [s.name for s in character.skills.all()]
        context["allowance"] = lucky13.specialization_allowance(options, impairment=False)
    elif step == "traits":
        current = [{"kind": t.kind, "name": t.name, "description": t.description} for t in character.traits.all()]
        context["rows"] = current + [{"kind": "background", "name": "", "description": ""}] * BLANK_ROWS
        context["kinds"] = Trait.Kind.choices
    elif step == "equipment":
        context["assets"] = [
            {"name": a.name, "kind": a.kind, "level": a.level, "skills": [s.name for s in a.skills.all()],
             "description": a.description}
            for a in character.assets.all()
        ] + [{"name": "", "kind": "thing", "level": 2, "skills": [], "description": ""}] * BLANK_ROWS  # fmt: skip
        context["weapons"] = [
            {"name": w.name, "accuracy": StepDie(w.accuracy).label, "damage": StepDie(w.damage).label}
            for w in character.weapons.all()
        ] + [{"name": "", "accuracy": "d6", "damage": "d6"}] * BLANK_ROWS
        context["armor"] = [{"name": a.name, "defense": StepDie(a.defense).label} for a in character.armor.all()] + [
            {"name": "", "defense": "d4"}
        ] * BLANK_ROWS
        context["skill_names"] = [s.name for s in character.skills.all()]
        context["asset_levels"] = lucky13.ASSET_LEVELS
        context["asset_kinds"] = Asset.Kind.choices
    elif step == "review":
        full = sheets.with_sheet(Character.objects.filter(pk=character.pk)).get()
        context["sheet"] = sheets.sheet(full)
    return context


@require_http_methods(["GET", "HEAD", "POST"])
def step(request: HttpRequest, pk: int, step: str) -> HttpResponse:
    character = access.character_for(request.user, pk, write=True)
    if character.status != Character.Status.DRAFT:
        return redirect("characters:sheet", pk=character.pk)
    if step not in creation.STEP_KEYS:
        return redirect("characters:create-step", pk=character.pk, step=character.creation_step or "abilities")
    if not creation.reached(character, step):
        messages.info(request, "One step at a time: this is where your character is.")
        return redirect("characters:create-step", pk=character.pk, step=character.creation_step)
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
        context.update(_as_posted(request, step))  # show what was typed, not what was saved before
    context["error"] = error
    return render(request, f"characters/create/{step}.html", context, status=status)


def _as_posted(request: HttpRequest, step: str) -> dict[str, Any]:
    """The rows of a refused step as the player entered them, plus blank rows to add more."""
    data = request.POST
    if step == "specializations":
        rows = [{"skill": r["skill"], "name": r["name"]} for r in _rows(data, "spec", ("skill", "name"))]
        return {"rows": rows + [{"skill": "", "name": ""}] * BLANK_ROWS}
    if step == "traits":
        rows = _rows(data, "trait", ("kind", "name", "description"))
        return {"rows": rows + [{"kind": "background", "name": "", "description": ""}] * BLANK_ROWS}
    if step == "equipment":
        assets = [
            {**r, "level": int(r["level"]) if r["level"].isdigit() else r["level"], "skills": r["list:skills"]}
            for r in _rows(data, "asset", ("name", "kind", "level", "description"))
        ]
        blank_asset = {"name": "", "kind": "thing", "level": 2, "skills": [], "description": ""}
        return {
            "assets": assets + [blank_asset] * BLANK_ROWS,
            "weapons": _rows(data, "weapon", ("name", "accuracy", "damage"))
            + [{"name": "", "accuracy": "d6", "damage": "d6"}] * BLANK_ROWS,
            "armor": _rows(data, "armor", ("name", "defense")) + [{"name": "", "defense": "d4"}] * BLANK_ROWS,
        }
    return {}


@require_http_methods(["GET", "HEAD", "POST"])
def delete_draft(request: HttpRequest, pk: int) -> HttpResponse:
    """The owner deletes a draft, after confirming: a finished character is archived, never deleted."""
    character = access.character_for(request.user, pk)
    if character.status != Character.Status.DRAFT:
        return redirect("characters:sheet", pk=character.pk)
    if character.owner_id != request.user.pk:
        context = {"character": character, "message": "Only the player who started a draft can delete it."}
        return render(request, "characters/edit_refused.html", context, status=403)
    if request.method == "POST":
        try:
            name = creation.delete_draft(character_id=character.pk, by=request.user)
        except SpecError as problem:
            context = {"character": character, "message": problem.message}
            return render(request, "characters/edit_refused.html", context, status=409)
        messages.success(request, f"The draft {name} is deleted.")
        return redirect("campaigns:detail", pk=character.campaign_id)
    return render(request, "characters/delete_draft.html", {"character": character})
