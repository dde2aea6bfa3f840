"""D6's round planner: the actions a character declares for a combat round, each with its code and its
exact chance as the round's penalties change, a reaction used mid-round, and a Roll for each use, which
the log records with its penalties (rules text, "game time", "using more than one skill", "reaction
skills"; the planner's rules are :mod:`rules.systems.d6.rounds`).

The round lives in the page's address: the declared actions (``action-<i>-item``, ``-difficulty``), the
round's flags (running, a luck point spent, the skill prepared last round) and what has happened
(``events``: ``a<i>`` an action attempted, ``r<item>-<difficulty>`` a reaction used). A GET shows the
round; a POST rolls one use on the server and comes back to the round with it done. Wounded and
stunned are the sheet's (the GM sets them). Plain forms: the page works without JavaScript."""

from __future__ import annotations

import secrets
from typing import Any, Final
from urllib.parse import urlencode

from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from campaigns.errors import Refused
from characters import access
from characters.models import Character
from play import sheet_rolls
from play.models import Roll
from play.roll_views import roll_entry
from rules.systems import d6
from rules.systems.base import SheetRoll, SpecError
from rules.systems.d6.rounds import MAX_ACTIONS, Action, RoundPlan
from rules.systems.d6.sheet import Sheet
from web.fields import whole_key

#: Blank rows offered below the declared actions.
BLANK_ROWS: Final = 2
#: The most events (attempts and reactions) a round's address may hold.
MAX_EVENTS: Final = 2 * MAX_ACTIONS
MAX_DIFFICULTY: Final = 1000


class RoundProblem(ValueError):
    """What is wrong with the round as the address gives it, by field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


def _difficulty(text: str, field: str) -> int | None:
    if not text.strip():
        return None
    value = whole_key(text.strip())
    if value is None or not 1 <= value <= MAX_DIFFICULTY:
        raise RoundProblem(field, f"A difficulty is a whole number from 1 to {MAX_DIFFICULTY}.")
    return value


def _item(sheet: Sheet, text: str, field: str) -> tuple[str, Any] | None:
    if not text.strip():
        return None
    key = whole_key(text.strip())
    thing = (sheet.stat(key) or sheet.skill(key)) if key is not None else None
    code = sheet.code_of(key) if thing is not None and key is not None else None
    if thing is None or code is None:
        raise RoundProblem(field, f"{text.strip()[:20]} is not one of this character's stats or skills.")
    return thing.name, code


class Round:
    """The round the address describes, read against the sheet: its rows (as typed), flags and plan."""

    def __init__(self, data: QueryDict, sheet: Sheet) -> None:
        self.sheet = sheet
        self.problems: dict[str, str] = {}
        self.rows: list[dict[str, str]] = []
        actions: list[Action] = []
        self.items: list[int] = []
        for i in range(MAX_ACTIONS):
            item, difficulty = data.get(f"action-{i}-item", ""), data.get(f"action-{i}-difficulty", "")
            if not item and not difficulty:
                continue
            self.rows.append({"index": i, "item": item, "difficulty": difficulty})
            try:
                found = _item(sheet, item, f"action-{i}-item")
                level = _difficulty(difficulty, f"action-{i}-difficulty")
            except RoundProblem as problem:
                self.problems[problem.field] = problem.message
                continue
            if found is None:
                self.problems[f"action-{i}-item"] = "Choose what this action rolls."
                continue
            name, code = found
            actions.append(Action(label=f"{len(actions) + 1}. {name}", skill=name, code=code, difficulty=level))
            self.items.append(int(item))
        last = max((row["index"] for row in self.rows), default=-1)
        free = [i for i in range(last + 1, MAX_ACTIONS)][:BLANK_ROWS]
        self.rows += [{"index": i, "item": "", "difficulty": ""} for i in free]
        for row in self.rows:
            row["item_error"] = self.problems.get(f"action-{row['index']}-item", "")
            row["difficulty_error"] = self.problems.get(f"action-{row['index']}-difficulty", "")
        self.running = data.get("running") == "on"
        self.doubled = data.get("doubled") == "on"
        self.prepared = data.get("prepared", "")
        self.events_text = data.get("events", "")
        self.plan: RoundPlan | None = None
        if self.problems:
            return
        try:
            prepared = _item(sheet, self.prepared, "prepared")
            self.plan = RoundPlan(
                actions=tuple(actions),
                wounded=sheet.wounded,
                stunned=sheet.stunned,
                running=self.running,
                doubled=self.doubled,
                prepared=prepared[0] if prepared else None,
                reaction_skills=frozenset(s.name for s in sheet.skills if s.reaction),
            )
            for event in self._events(self.events_text):
                self.plan = self._apply(self.plan, event)
        except RoundProblem as problem:
            self.problems[problem.field] = problem.message
            self.plan = None
        except SpecError as error:
            self.problems[error.field if error.field in ("prepared",) else "round"] = error.message
            self.plan = None

    def _events(self, text: str) -> list[str]:
        events = [part for part in text.split(",") if part]
        if len(events) > MAX_EVENTS:
            raise RoundProblem("events", f"A round holds at most {MAX_EVENTS} rolls.")
        return events

    def _apply(self, plan: RoundPlan, event: str) -> RoundPlan:
        if event.startswith("a") and (index := whole_key(event[1:]) if event[1:] != "0" else 0) is not None:
            if not 0 <= index < len(plan.actions) or index not in plan.pending:
                raise RoundProblem("events", "That action is not one still to roll this round.")
            return plan.attempt(index)
        item, _, difficulty = event[1:].partition("-")
        if event.startswith("r"):
            found = _item(self.sheet, item, "events")
            skill = self.sheet.skill(int(item)) if found else None
            if found is None or skill is None or not skill.reaction:
                raise RoundProblem("events", "Only a reaction skill is used mid-round.")
            name, code = found
            level = _difficulty(difficulty, "events")
            return plan.react(name, code, label=name, difficulty=level)
        raise RoundProblem("events", "This round's record is not one the page wrote.")

    def query(self, extra_event: str | None = None) -> dict[str, str]:
        """The round as its address, with one more event."""
        out: dict[str, str] = {}
        for row in self.rows:
            if row["item"] or row["difficulty"]:
                i = row["index"]
                out[f"action-{i}-item"], out[f"action-{i}-difficulty"] = row["item"], row["difficulty"]
        for flag in ("running", "doubled"):
            if getattr(self, flag):
                out[flag] = "on"
        if self.prepared:
            out["prepared"] = self.prepared
        events = [e for e in self.events_text.split(",") if e] + ([extra_event] if extra_event else [])
        if events:
            out["events"] = ",".join(events)
        return out


def _character(request: HttpRequest, pk: int, *, write: bool) -> Character:
    character = access.character_for(request.user, pk, write=write)
    if character.system != d6.KEY or character.status != Character.Status.ACTIVE:
        raise Http404("No round to plan here")
    return character


def _choices(sheet: Sheet) -> list[tuple[str, list[tuple[int, str]]]]:
    groups = []
    for stat in sheet.stats:
        group = [(stat.id, f"{stat.name} {stat.code or '—'}")]
        group += [(s.id, f"{s.name} {sheet.code_of(s.id) or '—'}") for s in sheet.skills_of(stat.id) if not s.reaction]
        groups.append((stat.name, group))
    return groups


def _page(
    request: HttpRequest, character: Character, round_: Round, *, status: int = 200, error: str = ""
) -> HttpResponse:
    sheet: Sheet = character.document
    plan = round_.plan
    uses = []
    if plan is not None:
        pending = set(plan.pending)
        for use in plan.uses:
            waiting = use.action is not None and use.action in pending
            uses.append({"use": use, "waiting": waiting, "event": f"a{use.action}" if waiting else ""})
    seq = whole_key(request.GET.get("rolled", "")) if request.method != "POST" else None
    rolled = None
    if seq is not None:
        found = Roll.objects.filter(campaign_id=character.campaign_id, seq=seq, character=character).first()
        rolled = roll_entry(found, gm=character.viewer_is_gm) if found is not None else None
    context = {
        "character": character,
        "round": round_,
        "plan": plan,
        "uses": uses,
        "choices": _choices(sheet),
        "reactions": [(s.id, f"{s.name} {sheet.code_of(s.id)}") for s in sheet.skills if s.reaction],
        "query": round_.query(),
        "needs_call": sheet_rolls.needs_call(character, asked=None),
        "round_url": reverse("d6:round", args=[character.pk]),
        "error": error,
        "rolled": rolled,
    }
    return render(request, "systems/d6/round.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
def plan_round(request: HttpRequest, pk: int) -> HttpResponse:
    """The round (GET), and one use of it rolled (POST ``roll``: ``a<i>`` or ``r<item>``)."""
    character = _character(request, pk, write=request.method == "POST")
    data = request.POST if request.method == "POST" else request.GET
    round_ = Round(data, character.document)
    if request.method != "POST":
        return _page(request, character, round_, status=400 if round_.problems else 200)
    if round_.plan is None:
        return _page(request, character, round_, status=400, error="Nothing was rolled: check the round below.")
    event = data.get("roll", "")
    if event.startswith("r"):
        event = f"{event}-{data.get('reaction_difficulty', '').strip()}"
    try:
        plan = round_._apply(round_.plan, event)
    except RoundProblem as problem:
        return _page(request, character, round_, status=400, error=f"Nothing was rolled. {problem.message}")
    use = plan.uses[[u.attempted for u in plan.uses].count(True) - 1]
    if use.difficulty is None:
        return _page(request, character, round_, status=400,
                     error=f"Nothing was rolled: name the difficulty of {use.label} to roll it.")  # fmt: skip
    spec = {"system": d6.KEY, "roll": "check", "code": str(use.code), "difficulty": use.difficulty}
    steps = tuple(str(m) for m in use.modifiers)
    if steps:
        spec["steps"] = list(steps)
    made = SheetRoll("check", spec, f"{use.label.split('. ', 1)[-1]} {use.code} against {use.difficulty} (a round)",
                     details={"round": True}, steps=steps)  # fmt: skip
    try:
        rolled = sheet_rolls.roll(character, made, by=request.user, rng=secrets.SystemRandom())
    except Refused as refused:
        return _page(request, character, round_, status=refused.status, error=f"Nothing was rolled. {refused.message}")
    query = round_.query(event)
    return redirect(f"{reverse('d6:round', args=[character.pk])}?{urlencode({**query, 'rolled': rolled.roll.seq})}")
