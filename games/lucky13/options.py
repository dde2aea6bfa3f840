"""Lucky 13's options form: the explosions, the ability names and methods, the hit points per step,
healing by resting and recovery from dying, the campaign's skill list (a formset: add, rename,
remove, reorder, mark the skill that fights, or take a preset), and its tables of backgrounds and
impairments (a formset each: add, edit, remove). It only collects what was typed; the rules are the
system's own (``validate_options``)."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from django import forms
from django.forms import formset_factory

from campaigns.forms import sentence
from rules.document import MAX_SHORT_TEXT
from rules.systems import lucky13
from rules.systems.base import Option
from web.fields import ChoiceField, TextField, WholeNumberField

OPTIONS: dict[str, Option] = {option.key: option for option in lucky13.OPTIONS}
#: Blank skill rows offered at the end of the list, and how many more "More rows" adds.
BLANK_ROWS = 3
#: A request never makes the server build more skill rows than this.
MAX_ROWS = lucky13.MAX_SKILLS + 3 * BLANK_ROWS


class SkillRowForm(forms.Form):
    """One skill of the list. ``original`` is the name the row had when the page was shown,
    so that the settings page can tell a renamed skill from a removed one."""

    original = forms.CharField(required=False, widget=forms.HiddenInput)
    name = TextField(
        label="Skill", required=False, strip=True, widget=forms.TextInput(attrs={"maxlength": lucky13.MAX_NAME})
    )
    ability = ChoiceField(label="Linked ability", required=False)
    #: "The Combat skill is a role" (rules README): the row that fights; at most one row is ticked.
    combat = forms.BooleanField(label="Fights", required=False)

    def __init__(self, *args: Any, ability_names: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["ability"].choices = [("", "None"), *zip(lucky13.ABILITY_KEYS, ability_names, strict=True)]


SkillRowFormSet = formset_factory(
    SkillRowForm, extra=0, can_order=True, can_delete=True, max_num=MAX_ROWS, absolute_max=MAX_ROWS, validate_max=True
)

#: A request never makes the server build more rows of a table than this.
MAX_TABLE_ROWS = lucky13.MAX_TABLE_ENTRIES + 3 * BLANK_ROWS
#: The campaign's tables: each option, the prefix of its rows, the partial (and DOM id) that holds
#: it and the button that adds blank rows to it.
TABLES: dict[str, dict[str, str]] = {
    key: {"kind": kind, "prefix": f"{kind}s", "partial": f"{kind}-table", "more": f"more_{kind}s"}
    for kind, key in lucky13.TABLE_OPTIONS.items()
}


class TableRowForm(forms.Form):
    """One entry of a table of backgrounds or of impairments: a name and a short description."""

    name = TextField(
        label="Name", required=False, strip=True, widget=forms.TextInput(attrs={"maxlength": lucky13.MAX_NAME})
    )
    description = TextField(
        label="Description",
        required=False,
        strip=True,
        max_length=MAX_SHORT_TEXT,
        widget=forms.TextInput(attrs={"maxlength": MAX_SHORT_TEXT}),
    )


TableRowFormSet = formset_factory(
    TableRowForm, extra=0, can_delete=True, max_num=MAX_TABLE_ROWS, absolute_max=MAX_TABLE_ROWS, validate_max=True
)


def table_rows(entries: list[dict[str, Any]], *, blanks: int = BLANK_ROWS) -> list[dict[str, Any]]:
    """Initial rows for a table, then blank rows."""
    return [*({"name": e["name"], "description": e["description"]} for e in entries), *({} for _ in range(blanks))]


def skill_rows(
    skills: list[dict[str, Any]], *, known: Collection[str], blanks: int = BLANK_ROWS
) -> list[dict[str, Any]]:
    """Initial rows for a skill list, then blank rows; a row keeps its identity if its skill is ``known``."""
    rows = [
        {
            "original": s["name"] if s["name"] in known else "",
            "name": s["name"],
            "ability": s["ability"] or "",
            "combat": bool(s.get("combat")),
        }
        for s in skills
    ]
    return [*rows, *({} for _ in range(blanks))]


class Lucky13OptionsForm(forms.Form):
    """The Lucky 13 options with their skill list (a formset: add, rename, remove, reorder)."""

    template = "systems/lucky13/options_form.html"

    explosion = ChoiceField(
        label=OPTIONS["explosion"].label, choices=OPTIONS["explosion"].choices, widget=forms.RadioSelect
    )
    preset = ChoiceField(
        label="Start from a preset",
        required=False,
        choices=[(key, label) for key, (label, _) in lucky13.SKILL_PRESETS.items()],
    )
    hit_points_per_step = WholeNumberField(
        label=OPTIONS["hit_points_per_step"].label, help_text=OPTIONS["hit_points_per_step"].help
    )
    ability_methods = ChoiceField(
        label=OPTIONS["ability_methods"].label, choices=OPTIONS["ability_methods"].choices, widget=forms.RadioSelect
    )
    skill_method = ChoiceField(
        label=OPTIONS["skill_method"].label, choices=OPTIONS["skill_method"].choices, widget=forms.RadioSelect
    )
    skill_array = TextField(
        label=OPTIONS["skill_array"].label,
        required=False,
        max_length=200,
        help_text=OPTIONS["skill_array"].help + " Separate them with spaces.",
    )
    skill_points = WholeNumberField(label=OPTIONS["skill_points"].label, help_text=OPTIONS["skill_points"].help)
    starting_specializations = WholeNumberField(label=OPTIONS["starting_specializations"].label,
                                                  help_text=OPTIONS["starting_specializations"].help)  # fmt: skip
    gear = ChoiceField(label=OPTIONS["gear"].label, choices=OPTIONS["gear"].choices,
                       help_text=OPTIONS["gear"].help, widget=forms.RadioSelect)  # fmt: skip
    resting = ChoiceField(label=OPTIONS["resting"].label, choices=OPTIONS["resting"].choices,
                          help_text=OPTIONS["resting"].help, widget=forms.RadioSelect)  # fmt: skip
    recovery = ChoiceField(label=OPTIONS["recovery"].label, choices=OPTIONS["recovery"].choices,
                           help_text=OPTIONS["recovery"].help, widget=forms.RadioSelect)  # fmt: skip

    #: The options whose message belongs to a group of fields rather than to one field.
    GROUPS = ("ability_names", "skills", *TABLES)
    #: The buttons that redraw the form without saving it, and the partial each redraws with htmx.
    REFRESH: dict[str, str] = {
        "load_preset": "skill-list",
        "more_rows": "skill-list",
        **{table["more"]: table["partial"] for table in TABLES.values()},
    }

    def __init__(
        self,
        data: Any = None,
        *,
        options: dict[str, Any],
        known_skills: Collection[str] = (),
        rows: list[dict[str, Any]] | None = None,
        tables: dict[str, list[dict[str, Any]]] | None = None,
    ) -> None:
        """An unbound form shows ``options`` and the skill ``rows`` (default: the options' own list).

        ``known_skills`` are the saved skills, which characters may have: their rows
        keep their original name so that a rename is told from a removal."""
        initial = {key: options[key] for key in self.base_fields if key in options}
        initial["skill_array"] = " ".join(options["skill_array"])
        initial["preset"] = options["skill_preset"] if options["skill_preset"] in lucky13.SKILL_PRESETS else ""
        super().__init__(data, initial=initial)
        self.known_skills = set(known_skills)
        names = list(options["ability_names"])
        for key, name, default in zip(lucky13.ABILITY_KEYS, names, lucky13.ABILITIES, strict=True):
            self.fields[f"ability_{key}"] = TextField(
                label=f"{default} is called", initial=name, required=False,
                widget=forms.TextInput(attrs={"maxlength": lucky13.MAX_NAME}),
            )  # fmt: skip
        if data is None and rows is None:
            rows = skill_rows(options["skills"], known=self.known_skills)
        self.skills = SkillRowFormSet(
            data, initial=None if data is not None else rows, prefix="skills", form_kwargs={"ability_names": names}
        )
        #: Each table of the campaign (background_table, impairment_table) as its rows.
        self.tables = {
            key: TableRowFormSet(
                data,
                initial=None if data is not None else (tables or {}).get(key, table_rows(options[key])),
                prefix=table["prefix"],
            )
            for key, table in TABLES.items()
        }
        #: Messages for a group of fields (the ability names, the skill list), shown by the group.
        self.group_errors: dict[str, str] = {}
        #: After validation: the options as the rules system cleaned them, and old name → new name.
        self.options: dict[str, Any] = {}
        self.renames: dict[str, str] = {}

    @staticmethod
    def known(options: dict[str, Any]) -> frozenset[str]:
        """The saved skills, which characters may have: a rename is told from a removal by them."""
        return frozenset(s["name"] for s in options["skills"])

    @classmethod
    def refreshed(
        cls, data: Any, *, options: dict[str, Any], known_skills: Collection[str] = (), preset: str | None = None
    ) -> Lucky13OptionsForm:
        """The form as the person left it, not yet saved: with the skill list replaced by
        ``preset`` ("Use this list"), or with more blank rows in the list whose button was pressed
        ("More rows" for the skills, "More background rows", "More impairment rows")."""
        bound = cls(data, options=options, known_skills=known_skills)
        typed = [
            {name: form[name].value() for name in ("original", "name", "ability", "combat", "ORDER", "DELETE")}
            for form in bound.skills.forms
        ]
        if preset in lucky13.SKILL_PRESETS:
            rows = skill_rows(lucky13.preset_skills(preset), known=known_skills)
        elif "more_rows" in data:
            room = max(MAX_ROWS - len(typed), 0)
            rows = [*typed, *({} for _ in range(min(BLANK_ROWS, room)))]
        else:
            rows = typed
        tables = {}
        for key, table in TABLES.items():
            kept = [{name: form[name].value() for name in ("name", "description", "DELETE")}
                    for form in bound.tables[key].forms]  # fmt: skip
            room = max(MAX_TABLE_ROWS - len(kept), 0) if table["more"] in data else 0
            tables[key] = [*kept, *({} for _ in range(min(BLANK_ROWS, room)))]
        form = cls(options=options, known_skills=known_skills, rows=rows, tables=tables)
        form.initial.update({name: data[name] for name in form.fields if name in data})
        return form

    def ability_fields(self) -> list[forms.BoundField]:
        return [self[f"ability_{key}"] for key in lucky13.ABILITY_KEYS]

    def rows(self) -> list[dict[str, str]]:
        """The skill rows in the order asked for, without the removed and the blank ones."""
        rows = []
        for form in self.skills.ordered_forms:
            data = form.cleaned_data
            if not data.get("name"):
                if data.get("original"):
                    form.add_error("name", "Give this skill a name, or tick Remove.")
                continue
            rows.append(
                {
                    "original": data.get("original", ""),
                    "name": data["name"],
                    "ability": data["ability"],
                    "combat": bool(data.get("combat")),
                }
            )
        return rows

    def table_by_kind(self) -> dict[str, dict[str, Any]]:
        """The tables as the template shows them, by kind: each with its option, rows and message."""
        return {
            table["kind"]: {**table, "key": key, "label": OPTIONS[key].label, "help": OPTIONS[key].help,
                            "rows": self.tables[key], "error": self.group_errors.get(key, "")}
            for key, table in TABLES.items()
        }  # fmt: skip

    def table_entries(self, key: str) -> list[dict[str, str]] | None:
        """A table's entries as typed, without the removed and the blank rows (None: a row is refused)."""
        formset = self.tables[key]
        if not formset.is_valid():
            message = " ".join(formset.non_form_errors()) or "check the rows marked below"
            self.add_option_errors({key: message})
            return None
        rows = []
        for form in formset.forms:
            data = form.cleaned_data
            if data.get("DELETE"):
                continue
            if not data.get("name"):
                if data.get("description"):  # typed, so not dropped unsaid
                    form.add_error("name", "Give this entry a name, or clear its description.")
                continue
            rows.append({"name": data["name"], "description": data.get("description", "")})
        if any(form.errors for form in formset.forms):
            self.add_option_errors({key: "check the rows marked below"})
            return None
        return rows

    def clean(self) -> dict[str, Any]:
        """Every message at once: the fields', the rows', and the rules system's on every option the
        form could read. An option the form refused goes to the system as None, which it refuses too
        (that message is not repeated) and which keeps the rules that read it quiet."""
        cleaned = super().clean() or {}
        refused = set(self.errors)
        entries = {key: self.table_entries(key) for key in TABLES}
        refused |= {key for key, rows in entries.items() if rows is None}
        rows = None
        if not self.skills.is_valid():
            self.add_option_errors({"skills": " ".join(self.skills.non_form_errors()) or "check the rows marked below"})
        else:
            rows = self.rows()
            if any(form.errors for form in self.skills.forms):
                self.add_option_errors({"skills": "check the rows marked below"})
                rows = None
            elif sum(row["combat"] for row in rows) > 1:
                self.add_option_errors({"skills": "tick Fights on one skill at most: the one an encounter rolls"})
                rows = None
        skills = None
        if rows is None:
            refused.add("skills")
        else:
            skills = [{"name": r["name"], "ability": r["ability"] or None, "combat": r["combat"]} for r in rows]
        if any(f"ability_{key}" in refused for key in lucky13.ABILITY_KEYS):
            refused.add("ability_names")

        def read(key: str, value: Any) -> Any:
            return None if key in refused else value

        array = cleaned.get("skill_array") or ""
        options = {
            "explosion": read("explosion", cleaned.get("explosion")),
            "ability_names": read("ability_names", [cleaned.get(f"ability_{k}", "") for k in lucky13.ABILITY_KEYS]),
            "skill_preset": preset_of(skills) if skills is not None else "custom",
            "skills": skills,
            "hit_points_per_step": read("hit_points_per_step", cleaned.get("hit_points_per_step")),
            "ability_methods": read("ability_methods", cleaned.get("ability_methods")),
            "skill_method": read("skill_method", cleaned.get("skill_method")),
            "skill_array": read("skill_array", re.split(r"[\s,]+", array.strip()) if array else []),
            "skill_points": read("skill_points", cleaned.get("skill_points")),
            "starting_specializations": read("starting_specializations", cleaned.get("starting_specializations")),
            **entries,
            "gear": read("gear", cleaned.get("gear")),
            "resting": read("resting", cleaned.get("resting")),
            "recovery": read("recovery", cleaned.get("recovery")),
        }
        try:
            self.options = lucky13.validate_options(options)
        except lucky13.OptionsError as error:
            self.add_option_errors({key: message for key, message in error.errors.items() if key not in refused})
            return cleaned
        if refused:
            self.options = {}
            return cleaned
        originals: set[str] = set()
        for row, skill in zip(rows or [], self.options["skills"], strict=True):
            if row["original"] and row["original"] not in originals:  # two rows can't both be one old skill
                originals.add(row["original"])
                self.renames[row["original"]] = skill["name"]
        return cleaned

    def add_option_errors(self, errors: dict[str, str]) -> None:
        """The rules system's messages, each by its field or group; anything else at the top."""
        for key, message in errors.items():
            if key in self.GROUPS:
                self.group_errors[key] = sentence(message)
                self.add_error(None, f"{OPTIONS[key].label}: {message}")
            elif key in self.fields:
                self.add_error(key, sentence(message))
            else:
                self.add_error(None, sentence(message))


def preset_of(skills: list[dict[str, Any]]) -> str:
    """The preset whose list this is, exactly (the skill that fights included), or "custom"."""
    for key in lucky13.SKILL_PRESETS:
        if skills == lucky13.preset_skills(key):
            return key
    return "custom"
