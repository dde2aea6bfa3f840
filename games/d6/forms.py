"""D6's own forms: the stats' codes and the skills' codes, in creation and in the GM's corrections.

A code is typed as the sheet writes it (``3d``, ``3d+1``, ``3d+2``); each box is named by its document
path (``stats.7.code``), and the engine checks every box and the step's rules in one pass, so that each
refusal lands beside its box and all of them come at once.
The form shows the running total of the dice spent (the page's script keeps it current as the player
types; the server counts again on every save)."""

from __future__ import annotations

from typing import Any, ClassVar

from django import forms

from characters.editing import SectionEdit
from rules.systems.d6.codes import DieCode
from rules.systems.d6.creation import Budget, skill_budget, stat_budget
from rules.systems.d6.sheet import Sheet


class CodeField(forms.CharField):
    """A die code as typed (``3d``, ``3d+1``, ``3d+2``), empty for none. The engine reads it, with every
    other code and the step's rules in the same pass, so that each box's refusal comes at once."""

    def __init__(self, *, base: DieCode | None = None, **kwargs: Any) -> None:
        attrs = {"class": "die-code", "inputmode": "text", "autocomplete": "off", "spellcheck": "false", "size": "6"}
        if base is not None:
            attrs["data-base"] = str(base.steps)
        # No length of its own: a code too long to be one is refused by the engine, beside its box and
        # with every other box's refusal, rather than alone in a round before them.
        super().__init__(widget=forms.TextInput(attrs=attrs), required=False, **kwargs)


def _total(key: str, budget: Budget, words: str) -> dict[str, Any]:
    """A running total for the page: what the budget is and what is left, in pips and in words."""
    return {"key": key, "total": budget.total, "left": budget.words, "words": words}


class Codes(SectionEdit):
    """The stats' codes (``stats``), the skills' codes (``skills``), or both (the GM's ``codes``)."""

    key: ClassVar[str] = "codes"
    parts: ClassVar[tuple[str, ...]] = ("stats", "skills")

    def build(self) -> list[dict[str, Any]]:
        sheet: Sheet = self.character.document
        options = self.character.campaign.settings
        creating = bool(sheet.creation.step)
        groups: list[dict[str, Any]] = []
        if "stats" in self.parts:
            initial = {f"stats.{s.id}.code": s.code or "" for s in sheet.stats}
            form = forms.Form(self.data, initial=initial)
            for stat in sheet.stats:
                form.fields[f"stats.{stat.id}.code"] = CodeField(label=stat.name)
                form.fields[f"stats.{stat.id}.code"].widget.attrs["data-counts"] = "stats"
            group: dict[str, Any] = {"form": form, "heading": "Stats" if len(self.parts) > 1 else ""}
            if creating:
                group["hint"] = (f"Spend {options['stat_dice']}d among the stats, each {options['stat_minimum']} to "
                                 f"{options['stat_maximum']}; a die splits into three pips (3d+1, 2d+2).")  # fmt: skip
                group["total"] = _total("stats", stat_budget(sheet, options), "of the stat dice")
            groups.append(group)
        if "skills" in self.parts:
            for stat in sheet.stats:
                skills = sheet.skills_of(stat.id)
                if not skills:
                    continue
                base = DieCode.parse(stat.code) if stat.code else None
                initial = {f"skills.{s.id}.code": s.code or (stat.code or "") for s in skills}
                form = forms.Form(self.data, initial=initial)
                for skill in skills:
                    name = f"skills.{skill.id}.code"
                    label = f"{skill.name} (reaction)" if skill.reaction else skill.name
                    form.fields[name] = CodeField(label=label, base=base)
                    form.fields[name].widget.attrs["data-counts"] = "skills"
                groups.append({"form": form, "heading": f"{stat.name} {stat.code or ''}".strip()})
            if creating and groups:
                first = next(i for i, g in enumerate(groups) if g["heading"] != "Stats" or len(self.parts) == 1)
                groups[first]["hint"] = (
                    f"Spend up to {options['skill_dice']}d raising skills above their stats, at most "
                    f"+{options['skill_cap']}d each; a skill left at its stat's code rolls the stat."
                )
                groups[first]["total"] = _total("skills", skill_budget(sheet, options), "of the skill dice")
        return groups

    def values(self) -> dict[str, Any]:
        value: dict[str, dict[str, str]] = {part: {} for part in self.parts}
        for group in self.groups:
            for name, typed in group["form"].cleaned_data.items():
                part, item, _ = name.split(".")
                value[part][item] = typed
        return value


class StatCodes(Codes):
    key = "stats"
    parts = ("stats",)


class SkillCodes(Codes):
    key = "skills"
    parts = ("skills",)


#: The sections and creation steps with forms of their own, by key.
EDITS: dict[str, type[SectionEdit]] = {"codes": Codes, "stats": StatCodes, "skills": SkillCodes}
