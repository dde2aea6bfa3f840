"""Lucky 13's own edit forms, one per section of its ``edit_sections`` (registered with ``characters.editing``).

A form only reads what was typed (a die label, a whole number, rows to keep,
change, add or remove); the rules are checked by ``games.lucky13.sections``,
and its messages are put back next to the fields they are about.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import AbstractBaseUser

from characters.editing import NEW_ROWS, RemovableRowForm, SectionEdit, formset, kept
from characters.models import Character
from games.lucky13 import sections
from games.lucky13.sections import ArmorRow, AssetRow, Details, Equipment, SpecializationRow, TraitRow, WeaponRow
from rules.dice import DiceError, StepDie
from rules.document import MAX_SHORT_TEXT
from rules.systems import lucky13
from web.fields import ChoiceField, MultipleChoiceField, TextField, TypedChoiceField, WholeNumberField

DIE_CHOICES = [(StepDie(rung).label, StepDie(rung).label) for rung in range(1, 6)]
LEVEL_CHOICES = [(level, str(level)) for level in range(1, lucky13.MAX_SPECIALIZATION_LEVEL + 1)]
ASSET_LEVEL_CHOICES = [(level, f"{level} {label}") for level, label in lucky13.ASSET_LEVELS]
#: An asset's level in words ("Standard"), for the sheet.
ASSET_LEVEL_NAMES = dict(lucky13.ASSET_LEVELS)
#: The most rows of one list a form takes: every row a sheet may hold, and the new ones.
MAX_ROWS = lucky13.MAX_ITEMS + NEW_ROWS


class DieField(forms.Field):
    """A die chosen from d4 … d12. Whatever else arrives is read as no die at all,
    which every rule refuses with its own message."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", forms.Select(choices=DIE_CHOICES))
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> StepDie:
        if isinstance(value, StepDie):
            return value
        try:
            return StepDie.parse(value) if isinstance(value, str) and value.strip() else StepDie.none()
        except DiceError:
            return StepDie.none()

    def prepare_value(self, value: Any) -> Any:
        return value.label if isinstance(value, StepDie) else value

    def has_changed(self, initial: Any, data: Any) -> bool:
        return self.prepare_value(self.to_python(initial)) != self.prepare_value(self.to_python(data))


def _number(label: str, **attrs: Any) -> WholeNumberField:
    """A whole number; its range is a rule, checked by the operation."""
    return WholeNumberField(
        label=label, error_messages={"required": "Enter a whole number.", "invalid": "Enter a whole number."},
        widget=forms.NumberInput(attrs={"inputmode": "numeric", **attrs}),
    )  # fmt: skip


def _level(label: str, choices: list[tuple[int, str]]) -> WholeNumberField:
    field = _number(label)
    field.widget = forms.Select(choices=choices)
    return field


def _name(label: str = "Name") -> forms.CharField:
    return TextField(label=label, required=False, widget=forms.TextInput(attrs={"maxlength": lucky13.MAX_NAME}))


def _description() -> forms.CharField:
    return TextField(
        label="Description", required=False, widget=forms.Textarea(attrs={"rows": 2}), strip=False, lines=True
    )


class Lucky13Edit(SectionEdit):
    """A Lucky 13 section's own form: what it reads is saved by ``sections.save_section``, which
    turns its rows into the document's values and puts each of the system's refusals by its field."""

    def save(self, *, version: int, by: AbstractBaseUser) -> Character:
        return sections.save_section(
            character_id=self.character.pk, section=self.key, version=version, data=self.values(), by=by
        )


# --- The sections ----------------------------------------------------------------------------


class DetailsForm(forms.Form):
    name = _name()
    concept = TextField(label="Concept", required=False, widget=forms.TextInput(attrs={"maxlength": MAX_SHORT_TEXT}))


class DetailsEdit(Lucky13Edit):
    key = "details"
    label = "name and concept"  # type: ignore[assignment]

    def build(self) -> list[dict[str, Any]]:
        initial = {"name": self.character.name, "concept": self.character.document.concept}
        return [{"form": DetailsForm(self.data, initial=initial)}]

    def values(self) -> Details:
        data = self.groups[0]["form"].cleaned_data
        return Details(name=data["name"], concept=data["concept"])


class AbilitiesEdit(Lucky13Edit):
    key = "abilities"
    hint = "Each ability's die, d4 to d12. The hit points must still fit a new Pulse die."

    def build(self) -> list[dict[str, Any]]:
        abilities = self.character.document.abilities
        form = forms.Form(self.data, initial={k: getattr(abilities, k) or "d4" for k in lucky13.ABILITY_KEYS})
        names = self.character.campaign.settings["ability_names"]
        for key, name in zip(lucky13.ABILITY_KEYS, names, strict=True):
            form.fields[key] = DieField(label=name)
        return [{"form": form, "class": "dice-grid"}]

    def values(self) -> dict[str, StepDie]:
        return dict(self.groups[0]["form"].cleaned_data)


class SkillsEdit(Lucky13Edit):
    key = "skills"
    hint = "Each skill's die, d4 to d12. Specializations step up from it."

    def build(self) -> list[dict[str, Any]]:
        skills = self.character.document.skills
        #: Each skill's field, by the skill's id.
        self.fields = {s.id: f"skill_{s.id}" for s in skills}
        form = forms.Form(self.data, initial={f"skill_{s.id}": s.die or "d4" for s in skills})
        for s in skills:
            form.fields[f"skill_{s.id}"] = DieField(label=s.name)
        return [{"form": form, "class": "dice-grid"}]

    def values(self) -> dict[int, StepDie]:
        data = self.groups[0]["form"].cleaned_data
        return {skill_id: data[field] for skill_id, field in self.fields.items()}

    def places(self) -> dict[str, tuple[forms.Form, str | None]]:
        form = self.groups[0]["form"]
        return {**super().places(), **{str(skill_id): (form, field) for skill_id, field in self.fields.items()}}


class SpecializationForm(RemovableRowForm):
    skill = TypedChoiceField(label="Skill", required=False, coerce=int, empty_value=None)
    name = _name()
    level = _level("Level", LEVEL_CHOICES)

    def __init__(self, *args: Any, gm: bool, skills: list[tuple[int, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.is_new:
            self.title, self.group = "New specialization", "Add a specialization"
            self.fields["skill"].choices = [("", "Choose a skill"), *skills]
            self.fields["level"].initial = 1
            self.fields["level"].required = False
        else:
            self.title, self.group = self.initial["name"], self.initial["skill"]
            del self.fields["skill"]
        if not gm:  # the player renames; the GM also adds, removes and sets levels
            for name in ("skill", "level", "remove"):
                self.fields.pop(name, None)


class SpecializationsEdit(Lucky13Edit):
    key = "specializations"

    @property
    def hint(self) -> str:
        if self.gm:
            return "Each level steps the skill die up once (Spellcasting d8 with Teleport 2 is d12)."
        return "You can rename your specializations; the GM adds them, removes them and sets their levels."

    def build(self) -> list[dict[str, Any]]:
        skills = self.character.document.skills
        initial = [
            {"id": spec.id, "name": spec.name, "level": spec.level, "skill": skill.name}
            for skill in skills
            for spec in skill.specializations
        ]
        rows = formset(
            SpecializationForm, "spec", self.data, initial, extra=NEW_ROWS if self.gm else 0, max_rows=MAX_ROWS,
            gm=self.gm, skills=[(s.id, s.name) for s in skills],
        )  # fmt: skip
        return [{"formset": rows, "empty": "No specializations yet."}]

    def values(self) -> list[SpecializationRow]:
        rows = []
        for form in kept(self.groups[0]["formset"]):
            data = form.cleaned_data
            rows.append(
                SpecializationRow(
                    at=form.prefix, id=data.get("id"), name=data.get("name", ""), skill=data.get("skill"),
                    level=data.get("level"), remove=bool(data.get("remove")),
                )
            )  # fmt: skip
        return rows


class TraitForm(RemovableRowForm):
    kind = ChoiceField(
        label="Kind", choices=[("background", "Background"), ("impairment", "Impairment")], initial="background"
    )
    name = _name()
    description = _description()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.title = "New background or impairment" if self.is_new else self.initial["name"]


class TraitsEdit(Lucky13Edit):
    key = "traits"
    hint = "A background rolls its ability die twice and keeps the higher; an impairment keeps the lower."

    def build(self) -> list[dict[str, Any]]:
        initial = [
            {"id": t.id, "kind": t.kind, "name": t.name, "description": t.description}
            for t in self.character.document.traits
        ]
        return [{"formset": formset(TraitForm, "trait", self.data, initial, extra=NEW_ROWS, max_rows=MAX_ROWS)}]

    def values(self) -> list[TraitRow]:
        return [
            TraitRow(
                at=form.prefix, id=form.cleaned_data.get("id"), kind=form.cleaned_data.get("kind", ""),
                name=form.cleaned_data.get("name", ""), description=form.cleaned_data.get("description", ""),
                remove=bool(form.cleaned_data.get("remove")),
            )
            for form in kept(self.groups[0]["formset"])
        ]  # fmt: skip


class ItemsField(MultipleChoiceField):
    """Items of the sheet by id (the skills an asset helps); whether each is on the sheet is
    checked by the operation, which says so next to the field."""

    default_error_messages = {"invalid_id": "Choose among the character's skills."}

    def to_python(self, value: Any) -> list[int]:
        ids = []
        for item in super().to_python(value):
            if not item.strip():
                continue
            if not (item.isascii() and item.isdecimal()):
                raise forms.ValidationError(self.error_messages["invalid_id"], code="invalid_id")
            ids.append(int(item))
        return ids

    def valid_value(self, value: Any) -> bool:
        return True


class AssetForm(RemovableRowForm):
    name = _name()
    kind = ChoiceField(label="Kind", choices=[("thing", "Thing"), ("person", "Person")], initial="thing")
    level = _level("Level", ASSET_LEVEL_CHOICES)
    skills = ItemsField(label="Helps", required=False, widget=forms.CheckboxSelectMultiple)
    description = _description()

    def __init__(self, *args: Any, skills: list[tuple[int, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["skills"].choices = skills
        self.title = "New asset" if self.is_new else self.initial["name"]
        if self.is_new:
            self.fields["level"].initial = 3


class WeaponForm(RemovableRowForm):
    name = _name()
    accuracy = DieField(label="Accuracy die", initial="d6")
    damage = DieField(label="Damage die", initial="d6")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.title = "New weapon" if self.is_new else self.initial["name"]


class ArmorForm(RemovableRowForm):
    name = _name()
    defense = DieField(label="Defensive die", initial="d4")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.title = "New armor" if self.is_new else self.initial["name"]


ASSET_HINT = "A thing or a person that helps: its level (1 Inferior … 5 Perfect) steps up the skills it helps."


class EquipmentEdit(Lucky13Edit):
    key = "equipment"

    def build(self) -> list[dict[str, Any]]:
        doc = self.character.document
        skills = [(s.id, s.name) for s in doc.skills]
        assets = [
            {"id": a.id, "name": a.name, "kind": a.kind, "level": a.level, "description": a.description,
             "skills": list(a.skills)}
            for a in doc.assets
        ]  # fmt: skip
        weapons = [{"id": w.id, "name": w.name, "accuracy": w.accuracy, "damage": w.damage} for w in doc.weapons]
        armor = [{"id": a.id, "name": a.name, "defense": a.defense} for a in doc.armor]
        rows = {"extra": 1, "max_rows": MAX_ROWS}
        return [
            {"heading": "Assets", "formset": formset(AssetForm, "asset", self.data, assets, **rows, skills=skills),
             "hint": ASSET_HINT},
            {"heading": "Weapons", "formset": formset(WeaponForm, "weapon", self.data, weapons, **rows)},
            {"heading": "Armor", "formset": formset(ArmorForm, "armor", self.data, armor, **rows)},
        ]  # fmt: skip

    def values(self) -> Equipment:
        assets, weapons, armor = (g["formset"] for g in self.groups)
        return Equipment(
            assets=[
                AssetRow(
                    at=f.prefix, id=f.cleaned_data.get("id"), name=f.cleaned_data.get("name", ""),
                    level=f.cleaned_data.get("level"), kind=f.cleaned_data.get("kind", ""),
                    skills=tuple(f.cleaned_data.get("skills", ())),
                    description=f.cleaned_data.get("description", ""), remove=bool(f.cleaned_data.get("remove")),
                )
                for f in kept(assets)
            ],
            weapons=[
                WeaponRow(
                    at=f.prefix, id=f.cleaned_data.get("id"), name=f.cleaned_data.get("name", ""),
                    accuracy=f.cleaned_data.get("accuracy", StepDie.none()),
                    damage=f.cleaned_data.get("damage", StepDie.none()), remove=bool(f.cleaned_data.get("remove")),
                )
                for f in kept(weapons)
            ],
            armor=[
                ArmorRow(
                    at=f.prefix, id=f.cleaned_data.get("id"), name=f.cleaned_data.get("name", ""),
                    defense=f.cleaned_data.get("defense", StepDie.none()), remove=bool(f.cleaned_data.get("remove")),
                )
                for f in kept(armor)
            ],
        )  # fmt: skip


class HitPointsEdit(Lucky13Edit):
    key = "hit-points"

    @property
    def hint(self) -> str:
        vitals = self.character.rules.vitals(self.character.document, self.character.campaign.settings)
        track = next((t for t in vitals.tracks if t.key == "hit_points"), None)
        if track is None:
            return ""
        return (
            f"From {track.maximum} (full) down to 1; at 0 or below the character is dying, and dies at {track.minimum}."
        )

    def build(self) -> list[dict[str, Any]]:
        form = forms.Form(self.data, initial={"hit_points": self.character.document.hit_points})
        form.fields["hit_points"] = _number("Current hit points")
        return [{"form": form}]

    def values(self) -> int:
        return self.groups[0]["form"].cleaned_data["hit_points"]


class ReputationEdit(Lucky13Edit):
    key = "reputation"
    hint = "From −5 to +5. In reaction checks the Charm die steps by the reputation."

    def build(self) -> list[dict[str, Any]]:
        form = forms.Form(self.data, initial={"reputation": self.character.document.reputation})
        form.fields["reputation"] = _number("Reputation")
        return [{"form": form}]

    def values(self) -> int:
        return self.groups[0]["form"].cleaned_data["reputation"]


class NotesEdit(Lucky13Edit):
    key = "notes"

    def build(self) -> list[dict[str, Any]]:
        form = forms.Form(self.data, initial={"notes": self.character.document.notes})
        form.fields["notes"] = TextField(
            label="Notes", required=False, strip=False, lines=True, widget=forms.Textarea(attrs={"rows": 8})
        )
        return [{"form": form}]

    def values(self) -> str:
        return self.groups[0]["form"].cleaned_data["notes"]


EDITS: dict[str, type[SectionEdit]] = {
    edit.key: edit
    for edit in (DetailsEdit, AbilitiesEdit, SkillsEdit, SpecializationsEdit, TraitsEdit, EquipmentEdit,
                 HitPointsEdit, ReputationEdit, NotesEdit)
}  # fmt: skip
assert EDITS.keys() == {section.key for section in lucky13.SYSTEM.edit_sections}
