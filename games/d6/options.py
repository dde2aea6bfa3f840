"""D6's options form: the stats and their skills (a row per stat: its name and its skills, a reaction
skill marked "(reaction)", a skill that attacks "(attack: melee)", "(attack: ranged)" or "(attack: brawling)",
one that defends "(reaction: dodge)" or "(reaction: parry)"), the creation budgets and limits, the starting
luck points and what a pip costs. It only collects what was typed; the rules are the system's own
(``validate_options``)."""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any, Final

from django import forms
from django.forms import formset_factory

from rules.systems.base import OptionsError
from rules.systems.d6 import options as d6_options
from web.fields import ChoiceField, TextField, WholeNumberField

#: Blank rows offered below the stats; at most as many rows as a campaign may have stats.
BLANK_ROWS: Final = 2
MAX_ROWS: Final = d6_options.MAX_STATS
#: How a reaction skill is marked in a stat's list of skills.
REACTION: Final = "(reaction)"
#: A skill's mark at the end of its name: "(reaction)", "(attack: ranged)", "(reaction: dodge)".
MARK: Final = re.compile(r"\((reaction|attack)(?:\s*:\s*([a-z]+))?\)$", re.IGNORECASE)
OPTIONS: Final = {option.key: option for option in d6_options.OPTIONS}


def _marked(skill: dict[str, Any]) -> str:
    role = skill.get("combat", "")
    if role in d6_options.ATTACKS:
        return f"{skill['name']} (attack: {role})"
    if role in d6_options.DEFENCES:
        return f"{skill['name']} (reaction: {role})"
    return f"{skill['name']} {REACTION}" if skill["reaction"] else skill["name"]


def skills_text(skills: list[dict[str, Any]]) -> str:
    """A stat's skills as its row shows them: "Dodge (reaction: dodge), Firearms (attack: ranged), Search"."""
    return ", ".join(_marked(s) for s in skills)


def read_skills(text: str) -> list[dict[str, Any]]:
    """A row's skills from what was typed, each with its mark (a mark the system does not know is kept as the
    role, for the system to refuse by name); names are checked by the system."""
    out = []
    for part in text.split(","):
        name = " ".join(part.split())
        if not name:
            continue
        mark = MARK.search(name)
        if mark is None:
            out.append({"name": name, "reaction": False, "combat": ""})
            continue
        kind, role = mark.group(1).casefold(), (mark.group(2) or "").casefold()
        combat = role or ("attack" if kind == "attack" else "")  # "(attack)" alone: the system asks which
        out.append({"name": name[: mark.start()].strip(), "reaction": kind == "reaction", "combat": combat})
    return out


def stat_rows(stats: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"name": stat["name"], "skills": skills_text(stat["skills"])} for stat in stats]


class StatRow(forms.Form):
    name = TextField(label="Stat", required=False, max_length=60)
    skills = TextField(label="Its skills", required=False, max_length=2000)
    DELETE = forms.BooleanField(label="Remove", required=False)


StatRowFormSet = formset_factory(StatRow, extra=0, max_num=MAX_ROWS + BLANK_ROWS, absolute_max=MAX_ROWS + BLANK_ROWS)


def _code_field(key: str) -> TextField:
    option = OPTIONS[key]
    return TextField(label=option.label, help_text=option.help, max_length=12)


def _number_field(key: str) -> WholeNumberField:
    option = OPTIONS[key]
    return WholeNumberField(label=option.label, help_text=option.help, min_value=0, max_value=1000)


class D6OptionsForm(forms.Form):
    """A D6 campaign's options (see the module's docstring)."""

    template = "systems/d6/options_form.html"
    #: The buttons that redraw the form without saving it, and the partial each redraws with htmx.
    REFRESH: Final = {"load_preset": "stat-list", "more_rows": "stat-list"}

    preset = ChoiceField(
        label="Start from a preset",
        required=False,
        choices=[(key, label) for key, (label, _) in d6_options.STAT_PRESETS.items()],
    )
    stat_dice = _number_field("stat_dice")
    skill_dice = _number_field("skill_dice")
    skill_cap = _number_field("skill_cap")
    stat_minimum = _code_field("stat_minimum")
    stat_maximum = _code_field("stat_maximum")
    starting_luck = _number_field("starting_luck")
    pip_cost = _number_field("pip_cost")
    initiative_stat = TextField(label=OPTIONS["initiative_stat"].label, help_text=OPTIONS["initiative_stat"].help,
                                required=False, max_length=60)  # fmt: skip

    def __init__(
        self,
        data: Any = None,
        *,
        options: dict[str, Any],
        known_skills: Collection[str] = (),
        rows: list[dict[str, Any]] | None = None,
    ) -> None:
        initial = {key: options[key] for key in self.base_fields if key in options}
        initial["preset"] = options["stat_preset"] if options["stat_preset"] in d6_options.STAT_PRESETS else ""
        super().__init__(data, initial=initial)
        if data is None and rows is None:
            rows = stat_rows(options["stats"])
        self.stats = StatRowFormSet(data, initial=None if data is not None else rows, prefix="stats")
        #: Messages for the list of stats as a whole, shown by it.
        self.group_errors: dict[str, str] = {}
        #: After validation: the options as the rules system cleaned them (stats and skills are copied into
        #: a character at creation, so nothing is renamed on a sheet).
        self.options: dict[str, Any] = {}
        self.renames: dict[str, str] = {}

    @staticmethod
    def known(options: dict[str, Any]) -> frozenset[str]:
        """Nothing to tell apart: a character keeps the stats and skills it was made with."""
        return frozenset()

    @classmethod
    def refreshed(
        cls, data: Any, *, options: dict[str, Any], known_skills: Collection[str] = (), preset: str | None = None
    ) -> D6OptionsForm:
        """The form as the person left it, not yet saved: the stat list replaced by ``preset``, or with
        more blank rows ("More rows")."""
        bound = cls(data, options=options)
        typed = [{name: form[name].value() for name in ("name", "skills", "DELETE")} for form in bound.stats.forms]
        if preset in d6_options.STAT_PRESETS:
            rows = stat_rows(d6_options.preset_stats(preset))
        elif "more_rows" in data:
            rows = [*typed, *({} for _ in range(min(BLANK_ROWS, max(MAX_ROWS - len(typed), 0))))]
        else:
            rows = typed
        form = cls(options=options, rows=rows)
        form.initial.update({name: data[name] for name in form.fields if name in data})
        return form

    def is_valid(self) -> bool:
        return self.stats.is_valid() & super().is_valid()

    def clean(self) -> dict[str, Any]:
        """Every message at once: the fields', the rows', and the rules system's on every option the
        form could read. An option the form refused goes to the system as None, which it refuses too
        (that message is not repeated) and which keeps the rules that read it quiet."""
        cleaned = super().clean() or {}
        refused = set(self.errors)
        stats: list[dict[str, Any]] | None = None
        if not self.stats.is_valid():
            self.add_option_errors({"stats": " ".join(self.stats.non_form_errors()) or "check the rows marked below"})
        else:
            stats = []
            for form in self.stats.forms:
                row = form.cleaned_data
                if row.get("DELETE") or not (row.get("name") or row.get("skills")):
                    continue
                if not row.get("name"):
                    form.add_error("name", "Give this stat a name, or tick Remove.")
                    continue
                stats.append({"name": row["name"], "skills": read_skills(row.get("skills") or "")})
            if any(form.errors for form in self.stats.forms):
                self.add_option_errors({"stats": "check the rows marked below"})
                stats = None
        if stats is None:
            refused.add("stats")
        preset = next((key for key in d6_options.STAT_PRESETS if stats == d6_options.preset_stats(key)), "custom")
        given = {key: None if key in refused else cleaned.get(key) for key in OPTIONS if key in self.fields}
        given.update(stats=stats, stat_preset=preset)
        try:
            self.options = d6_options.validate_options(given)
        except OptionsError as error:
            self.add_option_errors({key: message for key, message in error.errors.items() if key not in refused})
            return cleaned
        if refused:
            self.options = {}
        return cleaned

    def add_option_errors(self, errors: dict[str, str]) -> None:
        """The rules system's messages, each by its field or by the list of stats; anything else at the top."""
        for key, message in errors.items():
            text = message[:1].upper() + message[1:].rstrip(".") + "."
            if key == "stats":
                self.group_errors["stats"] = text
                self.add_error(None, f"Stats and skills: {message}")
            elif key in self.fields:
                self.add_error(key, text)
            else:
                self.add_error(None, text)
