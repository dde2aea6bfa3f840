"""Lucky 13's contest page: an opposed roll outside a fight ("Opposed rolls": "a battle of wills, a
test of strength"), the character's Ability + Skill against another character in play or against the
dice the GM names, with the exact chance of each side before anyone rolls.

The form reads the contest; :mod:`games.lucky13.contests` (which the JSON API's contest goes through
too) builds both sides from the sheets (``Lucky13.sheet_roll`` with an ``opponent``), and the server
rolls both and records one roll in the log. A GET shows the chances; Roll is a POST that redirects
back to show the roll as the log does. Like every sheet roll, a player's own contest needs
the campaign's "players set their own difficulty"; otherwise the page shows the odds for the GM's call.
"""

from __future__ import annotations

import secrets
from typing import Any, Final
from urllib.parse import urlencode

from django import forms
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from campaigns.errors import Refused
from characters import access
from characters.models import Character
from games.lucky13 import contests
from play import sheet_rolls
from play.models import Roll
from play.roll_views import roll_entry
from rules.systems import lucky13
from rules.systems.base import SheetRoll, SpecError
from web import limits
from web.fields import ChoiceField, TextField, TypedChoiceField, steps_field, whole_key

HELP_WITH: Final = [("skill", "the skill"), ("ability", "the ability")]
NPC_DICE: Final = [("", "—"), *((die, die) for die in ("d4", "d6", "d8", "d10", "d12"))]
RESISTS: Final = [
    ("them", "The other side (the status quo)"),
    ("us", "This side (the status quo)"),
    ("neither", "Neither: a race, a draw is a draw"),
]
#: The GM's parts of a contest: extra steps and an NPC's help, for either side.
GM_FIELDS: Final = ("npc_helper", "npc_helper_die", "ability_steps", "skill_steps", "opponent_npc_helper",
                    "opponent_npc_helper_die", "opponent_ability_steps", "opponent_skill_steps")  # fmt: skip


class ContestForm(forms.Form):
    """The character's side and the other side, each with what a check takes (README, "Contests outside
    combat"): a background or an impairment, a specialization, an asset, a helper (a character, or an NPC
    the GM names) and the GM's steps; and who resists, so who a draw goes to. ``opening``: the page as the
    sheet's link opens it, before any other side is named; nothing is refused."""

    skill = TypedChoiceField(label="Skill", coerce=int)
    specialization = TypedChoiceField(label="Specialization", coerce=int, required=False, empty_value=None)
    ability = ChoiceField(label="Ability", required=False)
    ability_roll = ChoiceField(
        label="Background or impairment", choices=lucky13.ABILITY_ROLL_CHOICES, initial="normal", required=False
    )
    asset = TypedChoiceField(label="Asset", coerce=int, required=False, empty_value=None)
    helper = TypedChoiceField(label="Assisted by", coerce=int, required=False, empty_value=None)
    help_with = ChoiceField(label="They help with", choices=HELP_WITH, required=False)
    npc_helper = TextField(label="Or an NPC (GM only)", required=False, max_length=lucky13.MAX_NAME)
    npc_helper_die = ChoiceField(label="The NPC's die", required=False, choices=NPC_DICE)
    ability_steps = steps_field("GM: extra Ability steps")
    skill_steps = steps_field("GM: extra Skill steps")
    opponent = TypedChoiceField(label="Against a character", coerce=int, required=False, empty_value=None)
    opponent_skill = ChoiceField(label="Their skill", required=False)
    opponent_specialization = TypedChoiceField(
        label="Their specialization", coerce=int, required=False, empty_value=None
    )
    opponent_ability_roll = ChoiceField(
        label="Their background or impairment", choices=lucky13.ABILITY_ROLL_CHOICES, initial="normal", required=False
    )
    opponent_asset = TypedChoiceField(label="Their asset", coerce=int, required=False, empty_value=None)
    opponent_helper = TypedChoiceField(label="Assisted by", coerce=int, required=False, empty_value=None)
    opponent_help_with = ChoiceField(label="Their helper helps with", choices=HELP_WITH, required=False)
    opponent_npc_helper = TextField(label="Or an NPC helps them (GM only)", required=False, max_length=lucky13.MAX_NAME)
    opponent_npc_helper_die = ChoiceField(label="That NPC's die", required=False, choices=NPC_DICE)
    opponent_ability_steps = steps_field("GM: extra Ability steps for them")
    opponent_skill_steps = steps_field("GM: extra Skill steps for them")
    resists = ChoiceField(label="Who resists (a draw holds for them)", choices=RESISTS, initial="them", required=False)
    opponent_dice = TextField(
        label="Or against dice the GM names",
        required=False,
        max_length=60,
        help_text="The Ability die first: d10 + d10",
    )
    opponent_name = TextField(label="Who rolls those dice", required=False, max_length=60)
    opponent_npc = ChoiceField(label="Or against an NPC of the encounter", required=False)
    secret = forms.BooleanField(label="Roll in secret (the players see it when you reveal it)", required=False)

    def __init__(
        self,
        data: QueryDict,
        *,
        character: Character,
        opponents: list[Character],
        npcs: list[contests.NpcSide] | None = None,
        opening: bool = False,
    ) -> None:
        merged = {key: data.get(key) for key in data if key in self.base_fields}
        sheet = character.document
        if "skill" not in merged and sheet.skills:
            merged["skill"] = sheet.skills[0].id
        super().__init__(merged)
        self.character = character
        names = dict(zip(lucky13.ABILITY_KEYS, character.campaign.settings["ability_names"], strict=True))
        self.fields["skill"].choices = [(s.id, s.name) for s in sheet.skills]
        self.fields["specialization"].choices = [("", "none"), *_specializations(sheet)]
        self.fields["ability"].choices = [("", "the skill's own"), *names.items()]
        self.fields["asset"].choices = [("", "none"), *((a.id, a.name) for a in sheet.assets)]
        everyone = [("", "nobody"), *((o.pk, o.name) for o in opponents)]
        self.fields["opponent"].choices = everyone
        self.fields["helper"].choices = everyone
        self.fields["opponent_helper"].choices = everyone
        # The other side's own items: those of the character named as the other side.
        chosen = next((o for o in opponents if str(o.pk) == str(merged.get("opponent"))), None)
        theirs = chosen.document if chosen is not None else None
        self.fields["opponent_specialization"].choices = [("", "none"), *(_specializations(theirs) if theirs else ())]
        self.fields["opponent_asset"].choices = [
            ("", "none"),
            *((a.id, a.name) for a in (theirs.assets if theirs else ())),
        ]
        skills = [entry["name"] for entry in character.campaign.settings["skills"]]
        self.fields["opponent_skill"].choices = [("", "the same skill"), *((n, n) for n in skills)]
        self.opponents = opponents
        self.opening = opening
        self.made: SheetRoll | None = None
        self.npcs = list(npcs or ())
        if npcs:
            self.fields["opponent_npc"].choices = [("", "none"), *((side.key, side.words) for side in npcs)]
        else:
            del self.fields["opponent_npc"]
        self.refused_steps = not character.viewer_is_gm and any(
            merged.get(name) not in (None, "", "0") for name in GM_FIELDS
        )
        if not character.viewer_is_gm:
            for name in ("secret", *GM_FIELDS):
                del self.fields[name]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.refused_steps:
            self.add_error(None, sheet_rolls.GM_ONLY_STEPS)
        if self.errors:
            return cleaned
        dice = cleaned.get("opponent_dice") or ""
        given = {
            **cleaned,
            "opponent_dice": [part.strip() for part in dice.replace(",", "+").split("+") if part.strip()],
        }
        try:
            self.made = contests.make(self.character, given, others=self.opponents, npcs=self.npcs)
        except contests.NoOtherSide as missing:
            if not self.opening:
                self.add_error(missing.field, missing.message)
        except SpecError as error:
            field = {"opponent_dice": "opponent_dice"}.get(error.field.split("[")[0], error.field)
            self.add_error(field if field in self.fields else None, sentence(error.message))
        except Refused as refused:
            self.add_error(None, refused.message)
        return cleaned

    def query(self) -> dict[str, str]:
        """The form's choices, as the roll's POST and the redirect after it repeat them."""
        return {name: str(value) for name, value in self.cleaned_data.items() if value not in (None, "", False)}


def _specializations(sheet: Any) -> list[tuple[int, str]]:
    return [(spec.id, f"{spec.name} ({skill.name})") for skill in sheet.skills for spec in skill.specializations]


def sentence(message: str) -> str:
    message = message.strip()
    return (message[:1].upper() + message[1:]).rstrip(".") + "."


@require_http_methods(["GET", "HEAD", "POST"])
@limits.limited(limits.ROLLS, methods=("POST",))
def contest(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.character_for(request.user, pk, write=request.method == "POST", at_table=True)
    if not contests.offered(character):
        return render(request, "characters/edit_refused.html", {"message": "No contests here.", "character": character},
                      status=404)  # fmt: skip
    data = request.POST if request.method == "POST" else request.GET
    named = [whole_key(data.get(key, "")) for key in ("opponent", "helper", "opponent_helper")]
    opponents = sheet_rolls.helpers_for(character, helper=[pk for pk in named if pk is not None])
    # The sheet's Contest link names only the skill: the page opens on the form, with nothing to refuse yet.
    opening = request.method != "POST" and not {"opponent", "opponent_dice", "opponent_npc"} & data.keys()
    form = ContestForm(data, character=character, opponents=opponents, npcs=contests.npc_sides(character),
                       opening=opening)  # fmt: skip
    valid = form.is_valid() and form.made is not None
    url = reverse("lucky13:contest", args=[character.pk])
    context: dict[str, Any] = {
        "character": character,
        "form": form,
        "contest_url": url,
        "needs_call": sheet_rolls.needs_call(character, asked=None),
    }
    status = 200 if valid or (opening and form.is_valid()) else 400
    if valid and request.method == "POST":
        try:
            secret = bool(form.cleaned_data.get("secret"))
            rolled = contests.roll(character, form.made, by=request.user, rng=secrets.SystemRandom(), secret=secret)
        except Refused as refused:
            context["error"], status = refused.message, refused.status
        else:
            return redirect(f"{url}?{urlencode({**form.query(), 'rolled': rolled.roll.seq})}#contest-result")
    if valid:
        context.update(made=form.made, chance=contests.chance(form.made), query=form.query())
    seq = whole_key(request.GET.get("rolled", "")) if request.method != "POST" else None
    if seq is not None:
        found = Roll.objects.filter(campaign_id=character.campaign_id, seq=seq, character=character).first()
        context["rolled"] = roll_entry(found, gm=character.viewer_is_gm) if found is not None else None
    return render(request, "systems/lucky13/contest.html", context, status=status)
