"""D6's round planner (``/characters/<id>/round/``): the round a character is in, kept on its sheet.

Between rounds the page declares the next: the actions (``action-<i>-item``, ``-difficulty``), running,
and the +1d a round of nothing prepared; "Show the chances" shows each use's code and exact chance as
declared, and "Declare the round" keeps it. A declared round shows every use at the code it was rolled
at, or would be now, with its exact chance; a Roll button for each declared action still to attempt (its
difficulty named then if the declaration had none), a reaction used mid-round, a luck point spent, the
GM's wound and stun, and the round's end (a round of nothing prepares one stat or skill). Each step is a
move (:mod:`rules.systems.d6.round_moves`), rolled and kept on the server by the one pipeline
(:func:`play.moves.make`), from the version of the round the page showed: an older one is refused (409)
with the round as it is now; a bad choice comes back by its field (400), everything typed kept. Plain
forms: the page works without JavaScript."""

from __future__ import annotations

from typing import Any, Final

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from campaigns.errors import NotAllowed, Refused
from characters import access
from characters.models import Character
from characters.operations import sentence
from play import moves, sheet_rolls
from play.models import Roll
from play.roll_views import roll_entry
from rules.systems import d6
from rules.systems.base import SpecError
from rules.systems.d6 import round_moves, round_state
from rules.systems.d6.rounds import MAX_ACTIONS, RoundPlan
from rules.systems.d6.sheet import RoundStep, Sheet
from web.fields import version_number, whole_key

#: Blank rows offered below the declared actions.
BLANK_ROWS: Final = 2
MAX_DIFFICULTY: Final = 1000
CONFLICT = "The round changed since you opened this page, so nothing was done. Here it is as it is now."
NO_VERSION = "This form did not say which version of the round it was made from, so nothing was done."


class RoundProblem(ValueError):
    """What is wrong with a box of the round, by field."""

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


def _item(sheet: Sheet, text: str, field: str) -> int | None:
    if not text.strip():
        return None
    key = whole_key(text.strip())
    thing = (sheet.stat(key) or sheet.skill(key)) if key is not None else None
    if thing is None or key is None or sheet.code_of(key) is None:
        raise RoundProblem(field, f"{text.strip()[:20]} is not one of this character's stats or skills.")
    return key


class Declaration:
    """The round as the declaration form gives it, read against the sheet: its rows (as typed), its flags,
    and the plan it would make now (None while a box is wrong)."""

    def __init__(self, data: QueryDict, sheet: Sheet, given: Any) -> None:
        self.problems: dict[str, str] = {}
        self.rows: list[dict[str, Any]] = []
        self.actions: list[tuple[int, int | None]] = []
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
            self.actions.append((found, level))
        last = max((row["index"] for row in self.rows), default=-1)
        self.rows += [{"index": i, "item": "", "difficulty": ""} for i in range(last + 1, MAX_ACTIONS)][:BLANK_ROWS]
        self.running = data.get("running") == "on"
        self.use_preparation = sheet.prepared is not None and data.get("prepared", "on" if not data else "") == "on"
        self.plan: RoundPlan | None = None
        if not self.problems:
            try:
                self.plan = round_state.preview(sheet, self.actions, running=self.running,
                                                use_preparation=self.use_preparation, given=given)  # fmt: skip
            except SpecError as error:
                self.problems[_field(error.field)] = sentence(error.message)
        for row in self.rows:
            row["item_error"] = self.problems.get(f"action-{row['index']}-item", "")
            row["difficulty_error"] = self.problems.get(f"action-{row['index']}-difficulty", "")


def _field(field: str) -> str:
    """The form's box for an engine's field: ``actions[2]`` is ``action-2-item``."""
    if field.startswith("actions[") and field.endswith("]"):
        return f"action-{field[8:-1]}-item"
    return field if field in ("prepared", "running") else "round"


def _where(field: str, data: QueryDict) -> str:
    """The page's box for an engine's field in a step: a declared row, a use's difficulty, or the field."""
    if field.startswith("actions"):
        return _field(field)
    if field == "difficulty" and data.get("roll", "").startswith("a"):
        return f"difficulty-{data['roll'][1:]}"
    return field


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


def _declared(sheet: Sheet) -> QueryDict:
    """The declaration form of the round as declared (empty between rounds)."""
    query = QueryDict(mutable=True)
    record = sheet.round
    if record is None or not record.declared:
        return query
    for i, declared in enumerate(record.actions):
        query[f"action-{i}-item"] = str(declared.item)
        query[f"action-{i}-difficulty"] = "" if declared.difficulty is None else str(declared.difficulty)
    query["running"] = "on" if record.running else ""
    query["prepared"] = "on" if record.prepared else ""
    return query


def _page(request: HttpRequest, character: Character, *, data: QueryDict | None = None, status: int = 200,
          error: str = "", fields: dict[str, str] | None = None) -> HttpResponse:  # fmt: skip
    sheet: Sheet = character.document
    given = character.campaign.settings
    try:
        plan = round_state.plan_of(sheet, given)
    except SpecError as broken:  # every write checks the round; a sheet from before that still shows, and ends
        plan, error = None, error or f"This round no longer holds together ({broken.message}): end it."
    begun = round_state.begun(sheet)
    declaration = None if begun else Declaration(data if data is not None else _declared(sheet), sheet, given)
    typed = request.POST if request.method == "POST" else QueryDict()
    uses = []
    if plan is not None:
        for use in plan.uses:
            key = f"difficulty-{use.action}"
            mine = typed.get("roll") == f"a{use.action}"
            uses.append({"use": use, "key": key, "error": (fields or {}).get(key, "") if mine else "",
                         "typed": typed.get("difficulty", "") if mine else ""})  # fmt: skip
    seq = whole_key(request.GET.get("rolled", "")) if request.method != "POST" else None
    rolled = None
    if seq is not None:
        found = (Roll.objects.filter(campaign_id=character.campaign_id, seq=seq, character=character)
                 .select_related("by", "character", "reveal").first())  # fmt: skip
        rolled = roll_entry(found, gm=character.viewer_is_gm) if found is not None else None
    record = sheet.round
    context = {
        "character": character,
        "sheet": sheet,
        "plan": plan,
        "declaration": declaration,
        "uses": uses,
        "warnings": plan.warnings if plan is not None else (),
        "doubled": round_state.doubled_now(sheet),
        "record": record,
        "begun": begun,
        "prepared": round_state.prepared_name(sheet),
        "did_nothing": plan is None or plan.did_nothing,
        "choices": _choices(sheet),
        "reactions": [(s.id, f"{s.name} {sheet.code_of(s.id)}") for s in sheet.skills if s.reaction],
        "typed_reaction": typed.get("reaction", ""),
        "typed_reaction_difficulty": typed.get("reaction_difficulty", "10") if typed.get("roll") == "r" else "10",
        "version": moves.made_from(character, round_moves.DECLARE),
        "needs_call": sheet_rolls.needs_call(character, asked=None),
        "round_url": reverse("d6:round", args=[character.pk]),
        "live_url": f"/ws/characters/{character.pk}/" if hasattr(request, "scope") else "",
        "error": error,
        "fields": fields or {},
        "rolled": rolled,
    }  # fmt: skip
    return render(request, "systems/d6/round.html", context, status=status)


def _fresh(character: Character) -> Character:
    fresh = Character.objects.select_related("campaign", "owner").get(pk=character.pk)
    fresh.can_edit, fresh.viewer_is_gm = character.can_edit, character.viewer_is_gm
    return fresh


def _step(data: QueryDict, sheet: Sheet) -> RoundStep:
    """The use the form asks to roll: ``roll=a<i>`` (with ``difficulty``), or ``roll=r`` with ``reaction``
    and ``reaction_difficulty``."""
    asked = data.get("roll", "")
    if asked.startswith("a"):
        index = whole_key(asked[1:]) if asked[1:] != "0" else 0
        if index is None or not 0 <= index < MAX_ACTIONS:
            raise RoundProblem("round", "That action is not one of this round's.")
        level = _difficulty(data.get("difficulty", ""), f"difficulty-{index}")
        return RoundStep(what="attempt", action=index, difficulty=level)
    if asked == "r":
        item = _item(sheet, data.get("reaction", ""), "reaction")
        if item is None:
            raise RoundProblem("reaction", "Choose the reaction skill to use.")
        level = _difficulty(data.get("reaction_difficulty", ""), "reaction_difficulty")
        if level is None:
            raise RoundProblem("reaction_difficulty", "Name the difficulty the reaction is rolled against.")
        return RoundStep(what="reaction", item=item, difficulty=level)
    raise RoundProblem("round", "Choose a use of the round to roll.")


def _given(step: RoundStep) -> dict[str, Any]:
    """A use to roll, as the round's move takes it."""
    if step.what == "attempt":
        return {"action": step.action, **({"difficulty": step.difficulty} if step.difficulty is not None else {})}
    return {"reaction": step.item, "difficulty": step.difficulty}


def _do(request: HttpRequest, character: Character, version: int) -> HttpResponse:
    data = request.POST
    action = data.get("action", "")
    sheet: Sheet = character.document
    url = reverse("d6:round", args=[character.pk])

    def make(key: str, given: dict[str, Any]) -> moves.Done:
        return moves.make(character_id=character.pk, key=key, version=version, given=given, by=request.user)

    if action == "preview":
        problems = Declaration(data, sheet, character.campaign.settings).problems
        return _page(request, character, data=data, status=400 if problems else 200)
    if action == "declare":
        declaration = Declaration(data, sheet, character.campaign.settings)
        if declaration.problems:
            problem = declaration.problems.get("round", "check it below")
            return _page(request, character, data=data, status=400, error=f"The round was not declared: {problem}")
        make(round_moves.DECLARE.key, {
            "actions": [{"item": item, "difficulty": level} for item, level in declaration.actions],
            "running": declaration.running, "use_preparation": declaration.use_preparation,
        })  # fmt: skip
        messages.success(request, "The round is declared: roll each action in its turn.")
        return redirect(url)
    if action == "roll":
        done = make(round_moves.ROLL.key, _given(_step(data, sheet)))
        return redirect(f"{url}?rolled={done.rolls[0].seq}")
    if action in ("wounded", "stunned"):
        make(round_moves.BEFALL.key, {"what": action})
        messages.success(request, f"{character.name} is {action}: every later use takes it.")
        return redirect(url)
    if action == "end":
        prepare = _item(sheet, data.get("prepare", ""), "prepare")
        done = make(round_moves.END.key, {"prepare": prepare} if prepare is not None else {})
        messages.success(request, f"{done.made.words}.")
        return redirect(url)
    return _page(request, character, status=400, error="Choose what to do with the round.")


@require_http_methods(["GET", "HEAD", "POST"])
def plan_round(request: HttpRequest, pk: int) -> HttpResponse:
    """The round (GET), and one step of it (POST ``action``: preview, declare, roll, wounded, stunned, end)."""
    character = _character(request, pk, write=request.method == "POST")
    if request.method != "POST":  # a declaration's address (``action-0-item=…``) shows its chances
        asked = any(key.startswith("action-") or key in ("running", "prepared") for key in request.GET)
        return _page(request, character, data=request.GET if asked else None)
    version = version_number(request.POST.get("version", ""))
    if version is None:
        return _page(request, _fresh(character), status=400, error=NO_VERSION)
    kept = request.POST if request.POST.get("action") in ("preview", "declare") else None
    try:
        return _do(request, character, version)
    except moves.StaleMove:
        return _page(request, _fresh(character), status=409, error=CONFLICT)
    except NotAllowed as refused:
        return _page(request, character, data=kept, status=403, error=refused.message)
    except RoundProblem as problem:
        return _page(request, character, data=kept, status=400, error=f"Nothing was done. {problem.message}",
                     fields={problem.field: problem.message})  # fmt: skip
    except Refused as refused:
        fields = {_where(field, request.POST): message for field, message in refused.errors.items()}
        return _page(request, character, data=kept, status=refused.status,
                     error=f"Nothing was done. {refused.message}", fields=fields)  # fmt: skip
