"""Every character's sheet becomes one document (``Character.sheet``), and back.

Forward, each Lucky 13 character's columns and rows (abilities, skills with their
specializations, traits, assets, weapons, armor, hit points, reputation, notes, and a draft's
creation state with the d100s the server rolled) are written as a version-1 sheet document.
Every item keeps its old row id as its item id, so what pointed at a row points at the same
item; ``next_id`` starts past the largest. Ledger entries, balances and the roll log are not
touched. Backward, the rows are written again from the document with the same ids.

The document is built here as plain data, frozen with this migration, not through today's
engine: a later change of the sheet model must not change what this migration wrote.
The columns and tables themselves go in the next migration, so that in reverse they exist
again before this one refills them, and the completeness check comes back after the rows.
"""

from __future__ import annotations

from typing import Any

from django.core.management.color import no_style
from django.db import migrations, models

ABILITY_KEYS = ("will", "charm", "pulse", "intellect", "reflex")
DICE = {1: "d4", 2: "d6", 3: "d8", 4: "d10", 5: "d12"}
RUNGS = {label: rung for rung, label in DICE.items()}
STEPS = ("abilities", "skills", "specializations", "traits", "equipment", "review")


def _die(rung: int | None) -> str | None:
    return None if rung is None else DICE[rung]


def document_of(apps: Any, character: Any) -> dict[str, Any]:
    """The version-1 sheet of one character, from its columns and rows."""
    Skill, Trait, Asset, Weapon, Armor = (
        apps.get_model("characters", name) for name in ("Skill", "Trait", "Asset", "Weapon", "Armor")
    )
    Specialization = apps.get_model("characters", "Specialization")
    rolls = character.creation_rolls or {}
    skill_rows = list(Skill.objects.filter(character_id=character.pk).order_by("position", "pk"))
    rolled = dict(zip(rolls.get("skill_names", [s.name for s in skill_rows]), rolls.get("skills", []), strict=False))
    specs: dict[int, list[dict[str, Any]]] = {}
    for spec in Specialization.objects.filter(skill__character_id=character.pk).order_by("name", "pk"):
        specs.setdefault(spec.skill_id, []).append({"id": spec.pk, "name": spec.name, "level": spec.level})
    skills = [
        {
            "id": skill.pk,
            "name": skill.name,
            "ability": skill.ability or None,
            "die": _die(skill.die),
            "rolled": rolled.get(skill.name),
            "specializations": specs.get(skill.pk, []),
        }
        for skill in skill_rows
    ]
    traits = [
        {"id": t.pk, "kind": t.kind, "name": t.name, "description": t.description}
        for t in Trait.objects.filter(character_id=character.pk).order_by("kind", "name", "pk")
    ]
    assets = [
        {
            "id": a.pk,
            "name": a.name,
            "kind": a.kind,
            "level": a.level,
            "skills": sorted(a.skills.values_list("pk", flat=True)),
            "description": a.description,
        }
        for a in Asset.objects.filter(character_id=character.pk).order_by("name", "pk")
    ]
    weapons = [
        {"id": w.pk, "name": w.name, "accuracy": _die(w.accuracy), "damage": _die(w.damage)}
        for w in Weapon.objects.filter(character_id=character.pk).order_by("name", "pk")
    ]
    armor = [
        {"id": a.pk, "name": a.name, "defense": _die(a.defense)}
        for a in Armor.objects.filter(character_id=character.pk).order_by("name", "pk")
    ]
    ids = [item["id"] for group in (skills, traits, assets, weapons, armor) for item in group]
    ids += [spec["id"] for skill in skills for spec in skill["specializations"]]
    return {
        "schema_version": 1,
        "concept": character.concept,
        "abilities": {key: _die(getattr(character, key)) for key in ABILITY_KEYS},
        "skills": skills,
        "traits": traits,
        "assets": assets,
        "weapons": weapons,
        "armor": armor,
        "hit_points": character.hit_points,
        "reputation": character.reputation,
        "notes": character.notes,
        "creation": {
            "step": character.creation_step,  # "" once finished; an archived draft keeps its step
            "ability_method": character.ability_method,
            "ability_rolls": list(rolls.get("abilities", [])),
            "took_impairment": character.took_impairment,
        },
        "next_id": max(ids, default=0) + 1,
    }


def to_documents(apps: Any, schema_editor: Any) -> None:
    Character = apps.get_model("characters", "Character")
    for character in Character.objects.select_related("campaign").order_by("pk").iterator(chunk_size=200):
        Character.objects.filter(pk=character.pk).update(
            sheet=document_of(apps, character), system=character.campaign.system
        )


class _Ids:
    """Row ids for items going back into tables. An item keeps its id as its row id, as the
    migrated rows do; a sheet made since the migration numbers its items from 1, so where
    another character's row has that id already, the item takes the next free one (the item
    ids were the sheet's own; the rows' ids are the table's)."""

    def __init__(self, taken: dict[str, set[int]]) -> None:
        self.taken = taken

    def claim(self, table: str, wanted: int) -> int:
        used = self.taken.setdefault(table, set())
        row = wanted if wanted not in used else max(used) + 1
        used.add(row)
        return row


#: The one system whose characters were rows before this migration (data here: a migration names no
#: system through the registry).
DOCUMENTED_SYSTEM = "lucky13"


def from_documents(apps: Any, schema_editor: Any) -> None:
    """The rows again, with the item ids as their ids (see :class:`_Ids`)."""
    Character, Skill, Specialization, Trait, Asset, Weapon, Armor = (
        apps.get_model("characters", name)
        for name in ("Character", "Skill", "Specialization", "Trait", "Asset", "Weapon", "Armor")
    )
    others = Character.objects.exclude(system=DOCUMENTED_SYSTEM).values_list("system", flat=True).distinct()
    if others:
        raise RuntimeError(
            f"Characters of {', '.join(sorted(others))} have only a sheet document: the rows this migration "
            f"goes back to hold a {DOCUMENTED_SYSTEM} character only. Export and remove them first."
        )
    taken: dict[str, set[int]] = {}
    for character in Character.objects.order_by("pk").iterator(chunk_size=200):
        sheet = character.sheet
        creation = sheet.get("creation", {})
        skills = sheet.get("skills", [])
        rolled = [s for s in skills if s.get("rolled") is not None]
        rolls: dict[str, Any] = {}
        if creation.get("ability_rolls"):
            rolls["abilities"] = list(creation["ability_rolls"])
        if rolled:
            rolls["skills"] = [s["rolled"] for s in rolled]
            rolls["skill_names"] = [s["name"] for s in rolled]
        labels = sheet.get("abilities", {})
        # An update, not save(): the row's updated_at stays what it was.
        Character.objects.filter(pk=character.pk).update(
            **{key: RUNGS[labels[key]] if labels.get(key) else None for key in ABILITY_KEYS},
            concept=sheet.get("concept", ""),
            hit_points=sheet.get("hit_points"),
            reputation=sheet.get("reputation", 0),
            notes=sheet.get("notes", ""),
            creation_step=creation.get("step", ""),
            ability_method=creation.get("ability_method", ""),
            took_impairment=creation.get("took_impairment", False),
            creation_rolls=rolls,
        )
        ids = _Ids(taken)
        skill_rows: dict[int, int] = {}
        for position, skill in enumerate(skills):
            if skill.get("die") is None:  # a draft before its skills step: the old rows began there
                continue
            skill_rows[skill["id"]] = row = ids.claim("skill", skill["id"])
            Skill.objects.create(
                pk=row,
                character=character,
                name=skill["name"],
                position=position,
                ability=skill.get("ability") or "",
                die=RUNGS[skill["die"]],
            )
            for spec in skill.get("specializations", []):
                Specialization.objects.create(
                    pk=ids.claim("specialization", spec["id"]), skill_id=row, name=spec["name"], level=spec["level"]
                )
        for trait in sheet.get("traits", []):
            Trait.objects.create(
                pk=ids.claim("trait", trait["id"]), character=character, kind=trait["kind"], name=trait["name"],
                description=trait.get("description", ""),
            )  # fmt: skip
        for asset in sheet.get("assets", []):
            row = Asset.objects.create(
                pk=ids.claim("asset", asset["id"]), character=character, name=asset["name"],
                kind=asset.get("kind", "thing"), level=asset.get("level", 1), description=asset.get("description", ""),
            )  # fmt: skip
            row.skills.set([skill_rows[i] for i in asset.get("skills", []) if i in skill_rows])
        for weapon in sheet.get("weapons", []):
            Weapon.objects.create(
                pk=ids.claim("weapon", weapon["id"]), character=character, name=weapon["name"],
                accuracy=RUNGS[weapon["accuracy"]], damage=RUNGS[weapon["damage"]],
            )  # fmt: skip
        for piece in sheet.get("armor", []):
            Armor.objects.create(
                pk=ids.claim("armor", piece["id"]), character=character, name=piece["name"],
                defense=RUNGS[piece["defense"]],
            )  # fmt: skip
    _reset_sequences(schema_editor, (Skill, Specialization, Trait, Asset, Weapon, Armor))


def _reset_sequences(schema_editor: Any, models_: Any) -> None:
    """On PostgreSQL, rows inserted with their ids leave the sequences behind: move them on."""
    connection = schema_editor.connection
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), models_):
            cursor.execute(statement)


class Migration(migrations.Migration):
    dependencies = [("characters", "0004_ledger_append_only_trigger")]

    operations = [
        migrations.AddField(
            model_name="character",
            name="system",
            field=models.CharField(default="lucky13", editable=False, max_length=20),
            preserve_default=False,
        ),
        migrations.AddField(model_name="character", name="sheet", field=models.JSONField(default=dict)),
        migrations.RemoveConstraint(model_name="character", name="characters_character_active_is_complete"),
        migrations.RunPython(to_documents, from_documents, elidable=False),
    ]
