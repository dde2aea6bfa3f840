"""The one pipeline that performs any move of any system (:mod:`rules.systems.moves`): a rest, a
recovery, and every stateful mechanic a system declares, through the same steps.

Lock the character, check who is making the move (its owner, the GM) and that the campaign offers it,
check that none of the parts it is made from changed since the version the maker read (one conflict
for every move: :class:`StaleMove`, a 409 with what is current, nothing written), read the input
through the move's own model, ask the system why the move may not be made now, apply it, and save the
new sheet through the one write path (:func:`characters.write.write`: validated, in the sheet's
history, announced to open pages). The page (:mod:`play.move_views`) and the API route both call
:func:`make`, and list what the caller may do with :func:`offered`.

A move may leave a decision (:class:`rules.systems.moves.Prompt`: keep or reroll?). It is kept open
(:class:`play.models.SheetPrompt`, at most one a character) until one of its choices is made, through
this same pipeline, with the choice's input: by the user it waits for, or by the GM, who may always
decide (anyone else: :class:`NotAllowed`, a 403). While it is open:

- a move one of its choices names is its answer, made with that choice's input exactly (another input:
  :class:`Refused`, a 400); a move that only answers (:attr:`Move.answers`) is refused when no open
  decision offers it;
- a move that shares a part with the move that left it waits (:class:`Refused`, "Waiting for … to
  decide"): it would change what the decision is about, or roll again before the last roll is settled;
  a move on other parts of the sheet is made as ever, and the decision stays open;
- a move may not leave a second decision beside it (refused, nothing written).

Opening and answering a decision marks the parts it was made from changed, so an answer sent from a
page read before (a second answer, or one to an older decision) is a :class:`StaleMove` (409). The
answer's rolls follow the roll the decision came after (:attr:`Rolled.follows`), so the chain of rolls
stays append-only. Only the one it waits for and the GM see the question and each choice's exact
chance (:func:`waiting`); everyone else who may read the sheet sees whom it waits for.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from random import Random
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet, Subquery
from django.utils import timezone
from pydantic import BaseModel, ValidationError

from campaigns.errors import Conflict, NotAllowed, NotFound, Refused
from campaigns.models import Membership
from characters import access, write
from characters.generated import refusal_words
from characters.models import Character, CharacterQuerySet
from characters.operations import sections_for
from play import rolls, sheet_rolls, table_rows
from play.announced import read_as_announced
from play.models import Roll, SheetPrompt, Table
from rules.document import problems_of
from rules.systems.base import Role, SheetInvalid, SpecError
from rules.systems.moves import Made, Move, Prompt, Scope, Situation, Viewer, find

__all__ = [
    "Choosing",
    "Done",
    "Offered",
    "StaleMove",
    "Waiting",
    "allowed",
    "forbidden",
    "made_from",
    "make",
    "move_of",
    "offered",
    "perform",
    "read_input",
    "record",
    "sheet_shows",
    "situation_for",
    "viewer_is_gm",
    "viewer_role",
    "waiting",
]


class StaleMove(Conflict):
    """A part the move is made from changed since the version the maker read: nothing was done.
    ``character`` is the character as it is now, for the 409 to show."""

    code = "stale_version"

    def __init__(self, character: Character, move: Move) -> None:
        section = sections_for(character).get(move.parts[0]) if move.parts else None
        #: What changed, in words that start a sentence ("The hit points").
        self.what = f"The {section.label}" if section is not None else f"{character.name}'s sheet"
        super().__init__(
            f"{self.what} changed since the version this {move.label.lower()} was made from, so nothing was done. "
            "This is how it stands now."
        )
        self.character = character
        self.move = move


def _sheet_moves(character: Character) -> tuple[Move, ...]:
    """The sheet moves the character's campaign offers, in the system's order."""
    options = character.campaign.settings
    return tuple(m for m in character.rules.moves if m.scope is Scope.SHEET and m.offered(options))


def move_of(character: Character, key: str) -> Move:
    """The sheet move ``key`` the character's campaign offers, or :class:`NotFound`."""
    move = find(_sheet_moves(character), key)
    if move is None:
        raise NotFound("There is no such move for this character in this campaign.")
    return move


#: Where a character read for a request keeps the user id of its campaign's GM, once asked (:func:`_gm_of`).
GM_OF: Final = "campaign_gm_id"


def _gm_of(character: Character) -> int | None:
    """The user id of the GM of the character's campaign: one query, the first time it is asked of this
    character as read for the request (a page checks, then shows, what the move would be made on)."""
    if GM_OF not in character.__dict__:
        gms = Membership.objects.filter(campaign_id=character.campaign_id, role=Membership.Role.GM)
        character.__dict__[GM_OF] = gms.values_list("user_id", flat=True).first()
    return character.__dict__[GM_OF]


def viewer_is_gm(character: Character, user: AbstractBaseUser) -> None:
    """What the access check found out (``characters.access.character_for`` read ``character`` for ``user``
    and found them its campaign's GM): the one GM a campaign has is ``user``, and is not asked again."""
    character.__dict__[GM_OF] = user.pk


def _as_locked(characters: CharacterQuerySet) -> CharacterQuerySet:
    """What :func:`make` reads with the character it locks: ``locked_gm``, the user id of the GM of its
    campaign, and ``locked_prompt``, the id of the decision open on it (or None), which the move is checked
    by; and all its sheet and its announcement show (its owner, balances and encounter:
    :func:`play.announced.read_as_announced`), so that the page draws the saved sheet, and the live pages hear
    of it, from the character as the move saved it, without reading it again (a move changes no balance and
    no encounter's party)."""
    gm = Membership.objects.filter(campaign_id=OuterRef("campaign_id"), role=Membership.Role.GM)
    prompt = SheetPrompt.objects.open().filter(character_id=OuterRef("pk"))
    gm_and_prompt = characters.annotate(
        locked_gm=Subquery(gm.values("user_id")[:1]), locked_prompt=Subquery(prompt.values("pk")[:1])
    )
    return read_as_announced(gm_and_prompt)


def _gm_and_prompt(character: Character) -> tuple[int | None, SheetPrompt | None]:
    """The GM of the locked character's campaign and the decision open on it, as read with the character
    (:func:`_as_locked`; one query more when a decision is open). Read after the campaign's lock:
    whoever changes the GM or a decision holds it first, so what this reads is what stands until the move
    is saved."""
    gm_id, prompt_id = character.locked_gm, character.locked_prompt  # type: ignore[attr-defined]
    character.__dict__[GM_OF] = gm_id
    return gm_id, open_prompt(character) if prompt_id is not None else None


def _role(character: Character, user: AbstractBaseUser, gm: int | None) -> Role | None:
    if gm is not None and gm == user.pk:
        return Role.GM
    return Role.OWNER if character.owner_id == user.pk else None


def viewer_role(character: Character, user: AbstractBaseUser) -> Role | None:
    """The user's role for the character's sheet: the GM, its owner, or None."""
    return _role(character, user, _gm_of(character))


def _situation(
    character: Character, role: Role, rng: Random | None = None, *, by: AbstractBaseUser | None = None,
    gm: int | None = None, table: BaseModel | None = None, called: bool = False,
) -> Situation:  # fmt: skip
    who = Viewer(role, by.pk) if by is not None else None
    return Situation(character.document, character.campaign.settings, role, who, rng, character.owner_id, gm,
                     table=table, character=character.pk, name=character.name, called=called)  # fmt: skip


def _gms_call(call: Mapping[str, Any] | None) -> bool:
    """Whether the roll a move makes was the GM's call (``call`` as :func:`play.sheet_rolls.roll` says who
    called it): the GM's own roll or the GM's request it answers, not a player's own roll."""
    return call is not None and not call.get("self")


def _table(character: Character, move: Move, *, lock: bool) -> tuple[Table | None, BaseModel | None]:
    """The campaign's table row and its state, for a sheet move that reads it (``table_parts``); locked
    for the move that changes it."""
    if not move.table_parts or character.rules.table is None:
        return None, None
    row = table_rows.row(character.campaign, lock=lock)
    return row, table_rows.read(character.campaign, row)


# --- The open decision ------------------------------------------------------------------------------


def open_prompt(character: Character) -> SheetPrompt | None:
    """The decision that waits on the character, if any, with the user it waits for: no query when the
    character was read knowing that none waits (:func:`with_prompt_open`)."""
    if character.__dict__.get("prompt_open") is False:
        return None
    return SheetPrompt.objects.open().filter(character_id=character.pk).select_related("to").first()


def with_prompt_open(characters: QuerySet[Character], viewer: int) -> QuerySet[Character]:
    """Adds ``prompt_open``: whether a decision waits on each character (read with a sheet's character; the
    same for every ``viewer``)."""
    return characters.annotate(prompt_open=Exists(SheetPrompt.objects.open().filter(character=OuterRef("pk"))))


def _offers(prompt: SheetPrompt | None, move: Move) -> bool:
    return prompt is not None and any(choice["move"] == move.key for choice in prompt.choices)


def _decider(prompt: SheetPrompt, user: AbstractBaseUser, role: Role | None) -> bool:
    """Whether ``user`` may make the decision: it waits for them, or they are the GM."""
    return prompt.to_id == user.pk or role is Role.GM


def _not_theirs(prompt: SheetPrompt | None, move: Move, user: AbstractBaseUser, role: Role | None) -> str | None:
    """Why ``user`` may not make ``move`` as the answer to the open decision (a 403), or None."""
    if prompt is None or not _offers(prompt, move) or _decider(prompt, user, role):
        return None
    return f"This decision waits for {prompt.to.get_username()}: only they or the GM may make it."


def _waits(prompt: SheetPrompt | None, move: Move, user: AbstractBaseUser) -> str | None:
    """Why ``move`` waits for the open decision (a 400), or None: an answer with no decision that offers
    it, or a move on a part the decision was made from (unless it is one of its choices)."""
    if _offers(prompt, move):
        return None
    if move.answers:
        return "No decision waits for this."
    if prompt is None or not set(move.parts) & set(prompt.parts):
        return None
    if prompt.to_id == user.pk:
        return "Waiting for your decision first."
    return f"Waiting for {prompt.to.get_username()} to decide first."


def _chance(text: str | None) -> Fraction | None:
    return None if text is None else Fraction(text)


@dataclass(frozen=True, slots=True)
class Choosing:
    """A choice of the open decision as the one who may make it sees it: the move that makes it, its
    label, the exact chance it leaves (None when nothing is left to chance), its input, and the version to
    make it from."""

    move: str
    label: str
    chance: Fraction | None
    input: Mapping[str, Any]
    version: int


@dataclass(frozen=True, slots=True)
class Waiting:
    """The decision open on a character as one viewer sees it: whom it waits for (``who``, a name;
    ``yours``: the viewer), and, for those who may make it (``decides``: the one it waits for, and the
    GM), the question, each choice with its exact chance, and the roll it follows (its number). Anyone
    else sees whom it waits for and nothing more."""

    who: str
    yours: bool
    decides: bool
    question: str = ""
    choices: tuple[Choosing, ...] = ()
    follows: int | None = None


def waiting(character: Character, user: AbstractBaseUser, *, is_gm: bool | None = None) -> Waiting | None:
    """The decision open on the character as ``user`` sees it, or None when none waits. ``is_gm``: whether
    the user is the campaign's GM, when the caller knows (``access`` found it out); asked otherwise."""
    prompt = open_prompt(character)
    if prompt is None:
        return None
    if is_gm is None:
        is_gm = _gm_of(character) == user.pk
    who, yours = prompt.to.get_username(), prompt.to_id == user.pk
    if not (yours or is_gm):
        return Waiting(who, yours=False, decides=False)
    sheet_moves = _sheet_moves(character)
    choices = []
    for choice in prompt.choices:
        move = find(sheet_moves, choice["move"])
        version = made_from(character, move) if move is not None else character.version
        choices.append(
            Choosing(choice["move"], choice["label"], _chance(choice["chance"]), dict(choice["input"]), version)
        )
    return Waiting(who, yours, True, prompt.question, tuple(choices), prompt.follows)


def _forbidden(character: Character, move: Move, role: Role | None) -> str | None:
    """Why someone of ``role`` may not make ``move`` on the character at all (a 403), or None."""
    if character.campaign.archived_at is not None:
        return "This campaign is archived: its sheets can be read but not changed."
    if character.status == Character.Status.ARCHIVED:
        return "This character is archived and can no longer be changed."
    if character.status == Character.Status.DRAFT:
        return "This character is still a draft: finish it in the creation steps first."
    if role is None:
        return "Only the character's player and the GM can change this sheet."
    if role not in move.who:
        return write.sentence(move.note or f"only the GM can do this: {move.label.lower()}")
    return None


def situation_for(character: Character, move: Move, user: AbstractBaseUser) -> Situation | None:
    """What ``move`` would be made on by ``user`` now (the sheet, the table it reads, who they are), for a
    page that shows or checks it before it is made; None for someone with no role on the sheet."""
    gm = _gm_of(character)
    role = _role(character, user, gm)
    if role is None:
        return None
    return _situation(character, role, by=user, gm=gm, table=_table(character, move, lock=False)[1])


def sheet_shows(character: Character, user: AbstractBaseUser) -> dict[str, Any]:
    """What a sheet page shows beside the sheet: the decision that waits on the character, as ``user``
    sees it (``decision``: a :class:`Waiting`, or None), and the campaign's table as they may see it
    (``table``: the character's hand, say; None when its system keeps none) with its version
    (``table_version``: a sheet page that shows a part of the table is stale when it changes)."""
    # The sheet's own query read the viewer's role with the character (characters.access.sheet_character),
    # and what their view of the table is made of (table_rows.with_table_read).
    role = getattr(character, "viewer_role", table_rows.UNREAD)
    seen = table_rows.seen(character.campaign, user, role, known=table_rows.table_read_of(character))
    return {
        "decision": waiting(character, user, is_gm=getattr(character, "viewer_is_gm", None)),
        "table": seen[0] if seen else None,
        "table_version": seen[1] if seen else None,
    }


def _not_now(
    character: Character, move: Move, role: Role, user: AbstractBaseUser | None = None, *,
    table: BaseModel | None = None,
) -> str | None:  # fmt: skip
    """Why the rules refuse ``move`` on the character as it stands (a 400), or None; ``table``: the table the
    move is made on, locked (read here, unlocked, when not given)."""
    if table is None:
        table = _table(character, move, lock=False)[1]
    why = move.why_not(_situation(character, role, by=user, table=table))
    return write.sentence(why) if why else None


def forbidden(character: Character, move: Move, user: AbstractBaseUser) -> str | None:
    """Why ``user`` may not make ``move`` on the character at all, in their words; None if they may
    (though the rules may refuse it now: :func:`allowed`)."""
    role = viewer_role(character, user)
    if role is Role.GM:  # the GM may make any decision: no need to read whom the open one waits for
        return _forbidden(character, move, role)
    return _forbidden(character, move, role) or (_not_theirs(open_prompt(character), move, user, role))


#: Why a move that is a roll (:attr:`Move.rolled`) is not made as a move of its own.
ROLLED_ELSEWHERE: Final = (
    "This is a roll: make it from the sheet's roll page or as the answer to the GM's call (the API's "
    "POST /characters/{id}/rolls), where the campaign's rules for rolls hold."
)


def _allowed(
    character: Character, move: Move, user: AbstractBaseUser, role: Role | None, prompt: SheetPrompt | None
) -> str | None:
    if move.rolled:
        return ROLLED_ELSEWHERE
    forbidden = _forbidden(character, move, role) or _not_theirs(prompt, move, user, role)
    if forbidden is not None or role is None:
        return forbidden
    waits = _waits(prompt, move, user)
    return write.sentence(waits) if waits else _not_now(character, move, role, user)


def allowed(character: Character, move: Move, user: AbstractBaseUser) -> str | None:
    """Why ``user`` may not make ``move`` on the character now, in their words (a sentence); None if
    they may."""
    return _allowed(character, move, user, viewer_role(character, user), open_prompt(character))


def made_from(character: Character, move: Move) -> int:
    """The version a move made now is made from: the latest change of the parts it depends on."""
    return max((write.section_version(character, part) for part in move.parts), default=character.version)


@dataclass(frozen=True, slots=True)
class Offered:
    """A move as the caller sees it now: the move, why they may not make it (None: they may), and the
    version to make it from."""

    move: Move
    why_not: str | None
    version: int


def offered(character: Character, user: AbstractBaseUser) -> list[Offered]:
    """Every sheet move the character's campaign offers, each with why ``user`` may not make it now."""
    role, prompt = viewer_role(character, user), open_prompt(character)
    return [
        Offered(m, _allowed(character, m, user, role, prompt), made_from(character, m)) for m in _sheet_moves(character)
    ]


def read_input(move: Move, given: Mapping[str, Any]) -> Any:
    """``given`` read through the move's input model, or :class:`Refused` with every problem by its field."""
    try:
        return move.input.model_validate(dict(given))
    except ValidationError as error:
        own = refusal_words(move.input)
        errors: dict[str, str] = {}
        for problem in problems_of(error):
            # A problem at no path at all (a key with no name) is the input's as a whole.
            nowhere = problem.field == "sheet" and "sheet" not in given and "sheet" not in move.input.model_fields
            field = "input" if nowhere else problem.field
            said = own.get(field) or write.sentence(f"{field.replace('_', ' ')} {problem.message}")
            if said not in errors.get(field, ""):
                errors[field] = f"{errors[field]} {said}" if field in errors else said
        raise Refused(next(iter(errors.values())), errors=errors) from None


def perform(move: Move, situation: Situation, given: Mapping[str, Any]) -> Made:
    """The steps every move takes once its target is locked and its maker allowed: ``given`` read through
    the move's input model, every problem of it at once (:attr:`Move.check`), then the move applied.
    :class:`Refused` (400) with each problem by its field; nothing is changed by this function."""
    given_input = read_input(move, given)
    problems = move.check(situation, given_input.model_dump())
    if problems:
        errors: dict[str, str] = {}
        for problem in problems:
            said = write.sentence(problem.message)
            errors[problem.field] = f"{errors[problem.field]} {said}" if problem.field in errors else said
        raise Refused(next(iter(errors.values())), errors=errors)
    try:
        return move.apply(situation, given_input)
    except SpecError as error:
        message = write.sentence(error.message)
        raise Refused(message, errors={error.field: message}) from None


@transaction.atomic
def make(
    *, character_id: int, key: str, version: int, given: Mapping[str, Any], by: AbstractBaseUser,
    call: Mapping[str, Any] | None = None, secret: bool = False,
) -> Done:  # fmt: skip
    """Make the sheet move ``key`` on the character, as ``by``, from the sheet ``version`` they read,
    with ``given`` for the move's input: the character as saved, what the move made and the rolls it logged
    (a use of a round is rolled by the roll page's own path, :func:`play.sheet_rolls.roll`). Made as the
    answer to the GM's call for a roll (:func:`play.sheet_rolls.roll` of a roll a move makes), ``call`` says
    who called it, for the log, and ``secret`` keeps its rolls secret, as the call asked.

    Raises :class:`NotFound` (no such character, or no such move in its campaign), :class:`NotAllowed`
    (why, for them), :class:`StaleMove` (409), or :class:`Refused` (400: the input, or the rules, with
    the reason by its field); nothing is written then."""
    character = write.lock(character_id, _as_locked)
    return make_locked(character, key=key, version=version, given=given, by=by, call=call, secret=secret)


def lock_for(user: AbstractBaseUser, pk: int) -> Character:
    """The character ``pk``, locked in the caller's transaction for a move ``user`` makes, read once for both
    the access check (``characters.access.locked_for``: its 404s and 403s) and the move
    (:func:`make_locked`): a page's checks and the move it makes read the character as the move finds it."""
    character = access.locked_for(user, pk, _as_locked)
    character.__dict__[GM_OF] = character.locked_gm  # type: ignore[attr-defined]
    character.__dict__["prompt_open"] = character.locked_prompt is not None  # type: ignore[attr-defined]
    return character


def make_locked(
    character: Character, *, key: str, version: int, given: Mapping[str, Any], by: AbstractBaseUser,
    call: Mapping[str, Any] | None = None, secret: bool = False,
) -> Done:  # fmt: skip
    """:func:`make`, on the character the caller locked in its transaction (:func:`lock_for`). It raises what
    :func:`make` raises, possibly after writing: the caller's transaction must then roll back, as
    :func:`make`'s own does, so that nothing is kept."""
    move = move_of(character, key)
    if move.rolled and call is None:
        raise Refused(ROLLED_ELSEWHERE)
    gm, prompt = _gm_and_prompt(character)
    role = _role(character, by, gm)
    forbidden = _forbidden(character, move, role) or _not_theirs(prompt, move, by, role)
    if forbidden is not None or role is None:
        raise NotAllowed(forbidden or "")
    if version > character.version or made_from(character, move) > version:
        raise StaleMove(character, move)
    waits = _waits(prompt, move, by)
    if waits is not None:
        raise Refused(write.sentence(waits))
    # The table the move reads is locked before the rules look at it: what they allow is what it is applied to.
    table, table_state = _table(character, move, lock=True)
    not_now = _not_now(character, move, role, by, table=table_state)
    if not_now is not None:
        raise Refused(not_now)
    answered = prompt if _offers(prompt, move) else None
    label = _choice(answered, move, given) if answered is not None else ""
    rng = secrets.SystemRandom()
    situation = _situation(character, role, rng, by=by, gm=gm, table=table_state, called=_gms_call(call))
    made = perform(move, situation, given)
    if made.table is not None and table is None:
        raise ValueError(f"the move {move.key!r} changed a table it does not read: name its table_parts")
    if prompt is not None and answered is None and made.prompt is not None:
        raise Refused(f"Waiting for {prompt.to.get_username()} to decide first: a sheet keeps one decision open.")
    if answered is not None and answered.follows is not None:
        # The answer's rolls replace the roll the decision came after: each follows it, unless it says.
        follows = answered.follows
        made = replace(
            made, rolls=tuple(r if r.follows is not None else replace(r, follows=follows) for r in made.rolls)
        )
    logged = [sheet_rolls.roll(character, rolled, by=by, rng=rng, is_gm=role is Role.GM).roll
              for rolled in made.sheet_rolls]  # fmt: skip
    logged += record(made, campaign_id=character.campaign_id, by=by, character_id=character.pk, call=call,
                     secret=secret, locked=character)  # fmt: skip
    for seq in made.reveals:
        rolls.reveal_roll(campaign_id=character.campaign_id, seq=seq, by=by)
    state = made.state if made.then is None else made.then(made.state, tuple(r.seq for r in logged))
    # A decision opened or made changes what every part it is about may be made from (a second answer is stale).
    sections = list(dict.fromkeys([*(made.changed or move.parts), *(answered.parts if answered else ()),
                                   *((*move.parts, *made.changed) if made.prompt else ())]))  # fmt: skip
    before = character.version
    try:
        # A roll logged moved the campaign's last activity already (rolls.record_roll), in this transaction.
        write.write(character, state, by=by, what=made.words, sections=sections, campaign_moved=bool(logged),
                    as_saved=True)  # fmt: skip
    except SheetInvalid as error:
        raise write.refusal(error) from None
    if (answered is not None or made.prompt is not None) and character.version == before:
        # The sheet is as it was, but its pages must show the decision.
        write.mark_changed(character, *sections, campaign_moved=bool(logged), as_saved=True)
    if made.table is not None and table is not None and made.table != table_state:
        # Only a table the move changed is saved (a version, a change in its history, open pages told).
        table_rows.save(character.campaign, table, made.table, parts=move.table_parts, move=move.key,
                        words=made.words, by=by)  # fmt: skip
    if answered is not None:
        answered.answered_at, answered.answered_by, answered.answer = timezone.now(), by, label
        answered.save(update_fields=["answered_at", "answered_by", "answer"])
    if made.prompt is not None:
        _keep(character, move, made, made.prompt, follows=logged[-1].seq if logged else None)
    if answered is not None or made.prompt is not None:
        character.__dict__.pop("prompt_open", None)  # what was known of its decision is so no more
    return Done(character, made, logged, decided=answered is not None or made.prompt is not None)


def _choice(prompt: SheetPrompt, move: Move, given: Mapping[str, Any]) -> str:
    """The label of the choice of ``prompt`` that ``move`` with ``given`` makes, or :class:`Refused` when
    it makes none of them (a choice's input is the whole answer: no other value may be slipped in)."""
    said = read_input(move, given).model_dump(mode="json")
    for choice in prompt.choices:
        if choice["move"] == move.key and read_input(move, choice["input"]).model_dump(mode="json") == said:
            return str(choice["label"])
    labels = "; ".join(c["label"] for c in prompt.choices)
    raise Refused(f"That is not one of the choices of this decision: {labels}.", errors={"input": labels})


def _keep(character: Character, move: Move, made: Made, prompt: Prompt, *, follows: int | None) -> SheetPrompt:
    """The decision a move left, kept open for the one it waits for (and the GM)."""
    choices = [
        {"move": c.move, "label": c.label, "input": dict(c.input),
         "chance": None if c.chance is None else f"{c.chance.numerator}/{c.chance.denominator}"}
        for c in prompt.choices
    ]  # fmt: skip
    return SheetPrompt.objects.create(
        character=character, to_id=prompt.to, move=move.key, parts=list(dict.fromkeys((*move.parts, *made.changed))),
        question=prompt.question[:500], choices=choices, follows=follows, version=character.version,
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Done:
    """A move made on a sheet: the character as saved, what the move made, and the rolls it put in the log."""

    #: As saved, with its campaign, its owner and its balances: all its sheet shows.
    character: Character
    made: Made
    rolls: list[Roll]
    #: Whether a decision opened or was made: the sheet's pages show it.
    decided: bool = False


def record(
    made: Made, *, campaign_id: int, by: AbstractBaseUser, character_id: int | None = None,
    call: Mapping[str, Any] | None = None, secret: bool = False, locked: Character | None = None,
) -> list[Roll]:  # fmt: skip
    """The dice a move rolled, in the campaign's log, in order; a reroll as a new roll that follows the one it
    replaces (by the number the move's state kept). ``call``: who called the roll the move makes (kept in
    each roll's spec); a roll is secret when the move says (:attr:`Rolled.secret`) or the call asked
    (``secret``: the GM's own roll, or the GM's secret request a player answers; from a player's own call,
    :class:`NotAllowed`). ``locked``: the character, locked by the caller (its status is not read again)."""
    return [
        rolls.record_roll(
            campaign_id=campaign_id,
            by=by,
            character_id=character_id,
            kind=rolled.kind,
            spec={**rolled.spec, "call": dict(call)} if call is not None else rolled.spec,
            dice=rolled.dice,
            total=rolled.total,
            outcome=rolled.outcome,
            chance=rolled.chance,
            chance_of=rolled.chance_of,
            label=rolled.label,
            follows=rolled.follows,
            secret=rolled.secret or secret,
            # The engine's move may keep its roll secret (its rules say who may make it); otherwise only the
            # GM rolls in secret, or a player answering the GM's secret request (``call`` names it).
            called_secret=rolled.secret or (secret and _gms_call(call)),
            locked=locked,
        )
        for rolled in made.rolls
    ]


def told(name: str, made: Made) -> str:
    """What the one who made a move is told: the character's name, then what the move says it did."""
    notice = made.notice
    return f"{name}{notice if notice.startswith((':', ',')) else ' ' + notice}."
