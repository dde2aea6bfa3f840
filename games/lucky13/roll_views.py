"""Lucky 13's roll page: rolling from the sheet, a skill check (or a reaction check) built from the character's
sheet, its exact chance shown live, and the roll made on the server and written to the
campaign's roll log.

The client sends only ids and choices; the dice always come from the sheet as it is
now, re-read on every request, so a roll can never be made with dice the sheet does
not give. Members of the campaign may look at the odds; the owner and the GM roll
(``access.character_for(write=True)``). Like the calculator, the page works without
JavaScript: the form is a GET that shows the chance, Roll is a POST that redirects
back with the result kept in the session for one page view.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlencode

from django import forms
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse

from campaigns.errors import Refused
from characters.models import Character
from play import proposal_views, sheet_roll_views, sheet_rolls
from play.models import RollAsked
from play.sheet_rolls import GM_ONLY_STEPS
from rules.systems import lucky13
from rules.systems.base import SheetRoll, SpecError
from rules.systems.lucky13 import AbilityRoll, Difficulty
from web import presenters
from web.fields import ChoiceField, TextField, TypedChoiceField, steps_field

ROLL_SESSION_KEY: Final = "sheet-roll"
DIFFICULTY_CHOICES: Final = [(d.value, f"{d.value.title()} ({d.die.label})") for d in Difficulty]
ASSET_LEVELS: Final = dict(lucky13.ASSET_LEVELS)
NPC_DICE: Final = [("", "—"), *((die, die) for die in ("d4", "d6", "d8", "d10", "d12"))]
HELP_WITH_CHOICES: Final = [
    ("skill", "The skill (their die in it steps the Skill)"),
    ("ability", "The ability (their die in it steps the Ability)"),
]


class SheetRollForm(forms.Form):
    """The choices of a sheet roll; ``clean`` builds the :class:`Check` from the sheet."""

    reaction = forms.BooleanField(required=False, widget=forms.HiddenInput)
    skill = TypedChoiceField(label="Skill", coerce=int)
    specialization = TypedChoiceField(label="Specialization", coerce=int, required=False, empty_value=None)
    ability = ChoiceField(label="Ability")
    difficulty = ChoiceField(label="Difficulty", choices=DIFFICULTY_CHOICES, initial=Difficulty.MODERATE.value)
    ability_roll = ChoiceField(
        label="Background or impairment",
        choices=lucky13.ABILITY_ROLL_CHOICES,
        initial=AbilityRoll.NORMAL.value,
        widget=forms.RadioSelect,
    )
    asset = TypedChoiceField(label="Asset", coerce=int, required=False, empty_value=None)
    helper = TypedChoiceField(label="Assisted by", coerce=int, required=False, empty_value=None)
    help_with = ChoiceField(
        label="They help with", choices=HELP_WITH_CHOICES, initial="skill", widget=forms.RadioSelect
    )
    npc_helper = TextField(label="Or an NPC (GM only)", required=False, max_length=lucky13.MAX_NAME)
    npc_helper_die = ChoiceField(label="The NPC's die", required=False, choices=NPC_DICE)
    ability_steps = steps_field("GM: extra Ability steps")
    skill_steps = steps_field("GM: extra Skill steps")
    secret = forms.BooleanField(label="Roll in secret (the players see it when you reveal it)", required=False)

    def __init__(
        self,
        data: QueryDict,
        *,
        character: Character,
        helpers: list[Character],
        gm: bool,
        asked: RollAsked | None = None,
        **kwargs: Any,
    ) -> None:
        self.character, self.gm, self.asked = character, gm, asked
        self.cannot_act = False  # set by clean when the sheet says the character does not act
        self.situation: dict[str, Any] = {}  # set by clean: what the sheet rolls, for a proposal
        self.names = dict(zip(lucky13.ABILITY_KEYS, character.campaign.settings["ability_names"], strict=True))
        self.explosion = lucky13.Explosion(character.campaign.settings["explosion"])
        sheet = character.document
        self.skills = {s.id: s for s in sheet.skills}
        self.assets = list(sheet.assets)
        self.helpers = {h.pk: h for h in helpers}
        first_skill = next(iter(self.skills), None)
        # Fields left out of a query take their defaults, so a plain link from the sheet is enough.
        merged: dict[str, Any] = {name: field.initial for name, field in self.base_fields.items()}
        merged["skill"] = first_skill
        if asked is not None:  # a called proposal's additions are where the answer starts
            merged.update(sheet_rolls.added_of(character, asked))
        merged.update({key: data.get(key) for key in data if key in self.base_fields})
        self.refused_steps = not gm and any(merged.get(f) not in (None, "", "0", 0) for f in self.gm_fields())
        fixed = self._called(merged)
        if not merged.get("ability"):
            chosen = self.skills.get(_int(merged.get("skill")))
            merged["ability"] = (chosen.ability if chosen else "") or lucky13.ABILITY_KEYS[0]
        super().__init__(merged, **kwargs)
        self.fields["skill"].choices = [(pk, s.name) for pk, s in self.skills.items()]
        self.fields["ability"].choices = list(self.names.items())
        skill = self.skills.get(_int(merged.get("skill")))
        self.fields["specialization"].choices = [("", "none")] + [
            (s.id, f"{s.name} ({s.level})") for s in (skill.specializations if skill else ())
        ]
        self.fields["asset"].choices = [("", "none")] + [
            (a.id, f"{a.name} ({ASSET_LEVELS[a.level]} {a.level})")
            for a in self.assets
            if skill and skill.id in a.skills
        ]
        self.fields["helper"].choices = [("", "nobody")] + [(pk, h.name) for pk, h in self.helpers.items()]
        if not gm:
            for name in (*self.gm_fields(), "secret"):
                del self.fields[name]
        for name in fixed:  # what the GM called is shown, not chosen
            if name in self.fields:
                self.fields[name].disabled = True
                self.initial[name] = merged[name]

    def rolls_in_secret(self) -> bool:
        return bool(self.gm and self.cleaned_data.get("secret"))

    def _called(self, merged: dict[str, Any]) -> tuple[str, ...]:
        """Put the GM's call into ``merged``: the fields it fixes (none without a call)."""
        if self.asked is None:
            return ()
        try:
            called = sheet_rolls.called(self.character, self.asked)
        except SpecError:
            return ()  # the sheet cannot make it now: building the roll says why
        merged.update(
            reaction="1" if called["reaction"] else "",
            difficulty=called["difficulty"],
            ability_roll=called["ability_roll"],
            ability_steps=called["ability_steps"],
            skill_steps=called["skill_steps"],
        )
        if called["skill"] is not None:
            merged["skill"] = called["skill"]
        merged["ability"] = called.get("ability") or ""  # the call's, else the skill's own
        self.refused_steps = False
        return ("reaction", "skill", "ability", "difficulty", "ability_roll", "ability_steps", "skill_steps")

    @staticmethod
    def gm_fields() -> tuple[str, ...]:
        return ("ability_steps", "skill_steps", "npc_helper", "npc_helper_die")

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.refused_steps:
            self.add_error(None, GM_ONLY_STEPS)
        if not self.errors:
            try:
                self.made = self._build(cleaned)
                self.built = shown(self.made)
            except SpecError as error:
                # A dying or dead character makes no roll: what the page says, not a bad request.
                self.cannot_act = error.field == "hit_points"
                self.add_error(error.field if error.field in self.fields else None, error.message)
        return cleaned

    def _build(self, data: dict[str, Any]) -> SheetRoll:
        self.situation = self._situation(data)
        return sheet_rolls.build(
            self.character, list(self.helpers.values()), self.situation, gm=self.gm, asked=self.asked
        )

    def _situation(self, data: dict[str, Any]) -> dict[str, Any]:
        reaction = bool(data.get("reaction"))
        situation = {
            "skill": data["skill"],
            "reaction": reaction,
            "difficulty": Difficulty(data["difficulty"]).value,
            "ability_roll": AbilityRoll(data["ability_roll"]).value,
            "help_with": data["help_with"],
            "ability_steps": data.get("ability_steps") or 0,
            "skill_steps": data.get("skill_steps") or 0,
        }
        if not reaction:
            situation["ability"] = data["ability"]
        for key in ("specialization", "asset", "helper", "npc_helper", "npc_helper_die"):
            if data.get(key) not in (None, ""):
                situation[key] = data[key]
        return situation

    def query(self) -> dict[str, Any]:
        """The cleaned choices, for links and the hidden fields of the Roll form."""
        out = {}
        for name in self.fields:
            value = self.cleaned_data.get(name)
            if name == "reaction":
                value = "1" if value else ""
            if value in (None, "") or (name in self.gm_fields() and not value):
                continue
            out[name] = value
        if self.asked is not None:
            out["asked"] = self.asked.pk
        return out


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _helpers(request: HttpRequest, character: Character, asked: RollAsked | None) -> list[Character]:
    """The helpers the form offers: the first of the party by name, and the one the request names
    (``helper``; else the one a called proposal added) wherever it is in the order."""
    data = request.POST if request.method == "POST" else request.GET
    named = _int(data.get("helper"))
    if named is None and asked is not None:
        named = sheet_rolls.added_of(character, asked).get("helper")
    return sheet_rolls.helpers_for(character, helper=named)


@dataclass(frozen=True, slots=True)
class SkillShown:
    name: str


@dataclass(frozen=True, slots=True)
class Shown:
    """A built check as the page shows it: its words, its dice, where they come from and the steps."""

    label: str
    reaction: bool
    ability_name: str
    skill: SkillShown
    check: lucky13.Check
    spec: dict[str, Any]
    steps: tuple[str, ...]


def shown(made: SheetRoll) -> Shown:
    sheet = dict(made.details)
    return Shown(
        label=made.label,
        reaction=made.log_kind == "reaction",
        ability_name=sheet["ability_name"],
        skill=SkillShown(sheet["skill_name"]),
        check=lucky13.parse_check(made.spec),
        spec={**made.spec, "sheet": sheet},
        steps=made.steps,
    )


def _chance_context(built: Shown) -> dict[str, Any]:
    """What the page shows of a built check, with its exact chance and the chart of its totals."""
    check = built.check
    return {
        "built": built,
        "chance": lucky13.check_chance(check),
        "chart": _totals_chart(lucky13.check_distribution(check)),
        "dice_label": f"{check.ability} + {check.skill} + {check.difficulty}",
    }


def _title(form: SheetRollForm) -> str:
    if not form.is_valid():
        return "Roll"
    built = form.built
    if built.reaction:
        return f"Reaction check: {form.names['charm']} + {built.skill.name}"
    special = built.spec["sheet"]["specialization"]
    return f"Roll {built.skill.name}" + (f" ({special['name']} {special['level']})" if special else "")


def _page(request: HttpRequest, character: Character, form: SheetRollForm, **extra: Any) -> dict[str, Any]:
    url = reverse("play:sheet-roll", args=[character.pk])
    context: dict[str, Any] = {
        "character": character,
        "form": form,
        "roll_url": url,
        "title": _title(form),
        "asked": form.asked,
        "needs_call": sheet_rolls.needs_call(character, asked=form.asked),
        "propose_form": proposal_views.ProposeForm(),
        **extra,
    }
    if form.is_valid():
        context.update(_chance_context(form.built))
        context["query"] = form.query()
    return context


def roll(request: HttpRequest, character: Character) -> HttpResponse:
    """GET: the dice and the exact chance of a sheet roll. POST: roll them and record the roll (the
    character is loaded, for rolling when posted, by ``play.sheet_roll_views.roll``). With
    ``asked``, the roll answers the GM's request: what the GM called is fixed."""
    try:
        asked = sheet_roll_views.asked_in(request, character)
    except Refused as refusal:
        context = {"message": refusal.message, "character": character}
        return render(request, "characters/edit_refused.html", context, status=refusal.status)
    if request.method == "POST":
        return _roll(request, character, asked)
    helpers = _helpers(request, character, asked)
    form = SheetRollForm(request.GET, character=character, helpers=helpers, gm=character.viewer_is_gm, asked=asked)
    status = 200 if form.is_valid() or form.cannot_act else 400
    context = _page(request, character, form)
    if not request.htmx:
        context["roll"] = request.session.pop(ROLL_SESSION_KEY, None)
        if isinstance(context["roll"], dict) and context["roll"].get("in_secret"):
            context["roll"], context["in_secret"] = None, True
    partial = request.htmx and not request.htmx.history_restore_request
    template = "systems/lucky13/roll.html" + ("#roll-chance" if partial else "")
    return render(request, template, context, status=status)


def _roll(request: HttpRequest, character: Character, asked: RollAsked | None) -> HttpResponse:
    helpers = _helpers(request, character, asked)
    form = SheetRollForm(request.POST, character=character, helpers=helpers, gm=character.viewer_is_gm, asked=asked)
    if proposal_views.wants_proposal(request):
        return _propose(request, character, form)
    if not form.is_valid():
        if request.htmx:
            return render(request, "pages/_roll_result.html", {"form": form, "roll_errors": True}, status=400)
        return render(request, "systems/lucky13/roll.html", _page(request, character, form), status=400)
    try:
        rolled = sheet_rolls.roll(
            character,
            form.made,
            by=request.user,
            rng=secrets.SystemRandom(),
            asked=asked,
            secret=form.rolls_in_secret(),
            is_gm=character.viewer_is_gm,
        )
        view = None if rolled.roll.secret and not character.viewer_is_gm else rolled.view
    except Refused as refusal:
        if request.htmx:
            return render(request, "pages/_roll_result.html", {"refused": refusal.message}, status=refusal.status)
        context = {"message": refusal.message, "character": character}
        return render(request, "characters/edit_refused.html", context, status=refusal.status)
    if request.htmx:
        return render(request, "pages/_roll_result.html", {"roll": view, "in_secret": view is None})
    request.session[ROLL_SESSION_KEY] = view if view is not None else {"in_secret": True}
    query = {key: value for key, value in form.query().items() if key != "asked"}  # answered: the call is done
    return redirect(f"{reverse('play:sheet-roll', args=[character.pk])}?{urlencode(query)}#roll-result")


def _propose(request: HttpRequest, character: Character, form: SheetRollForm) -> HttpResponse:
    """Propose the roll to the GM rather than roll it (a player, where the GM calls the rolls)."""
    if form.asked is not None:
        return proposal_views.refused(request, character, proposal_views.ANSWERING, 409)
    if not form.is_valid():
        if request.htmx:
            message = " ".join(error for errors in form.errors.values() for error in errors)
            return proposal_views.refused(request, character, message)
        return render(request, "systems/lucky13/roll.html", _page(request, character, form), status=400)

    def page(extra: dict[str, Any], status: int) -> HttpResponse:
        return render(request, "systems/lucky13/roll.html", {**_page(request, character, form), **extra}, status=status)

    return proposal_views.propose(request, character, form.situation, query=form.query(), page=page)


def _totals_chart(distribution: lucky13.Distribution) -> dict[str, Any]:
    """A check's totals, the bars that reach 13 highlighted ("Skill checks")."""
    return presenters.totals_chart(distribution.totals, target=lucky13.TARGET, open_ended=distribution.open_ended)
