"""A roll from the sheet, built and made on the server, for every system.

The sheet roll page (``play.sheet_roll_views``) and the JSON API both come here, so a roll is
rebuilt from the sheet as it is now, the same way, whoever asks: the caller gives only the
situation (the system's words: Lucky 13's skill, specialization and asset by their ids on the
sheet, a helper by the character's id, the difficulty…); the dice come from the sheet document,
through the system's ``sheet_roll``. :func:`build` refuses with a
:class:`~rules.systems.base.SpecError` naming the field when a choice is not on the sheet (and
with :class:`~campaigns.errors.NotAllowed` the GM's part of a situation from anyone else);
:func:`roll` computes the exact chance, rolls the dice with the caller's random source and
records the roll, with the words that say what was rolled, in the campaign's log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from random import Random
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from pydantic import ValidationError

from campaigns.errors import NotAllowed, Refused
from campaigns.models import Membership
from characters import access, write
from characters.models import Character
from play import requests, table_rows
from play.models import Roll, RollAsked, RollProposal
from play.rolls import record_roll
from rules.systems.base import Other, SheetInvalid, SheetRoll, SpecError

GM_ONLY_STEPS: Final = "Only the GM can add extra steps or an NPC's help."
STALE_ROLL: Final = (
    "{name}'s sheet changed since this roll was shown (another use of the round, a correction), so nothing was "
    "rolled. Look at the roll again as it stands now."
)
GM_CALLS: Final = (
    "In this campaign the GM calls for rolls: answer one of the GM's roll requests, or ask the GM to call this one."
)


@dataclass(frozen=True, slots=True)
class Rolled:
    roll: Roll
    result: Any  # the roll kind's result
    chance: Fraction | None
    view: Any  # every die as rolled, as the log keeps it


#: The other characters in play a sheet roll page offers as helpers, by name (a named one is added).
HELPERS: Final = 30


def load(
    user: AbstractBaseUser | AnonymousUser, pk: int, *, write: bool, helper: Any = None, limit: int = HELPERS
) -> tuple[Character, list[Character]]:
    """The character with its sheet, and the party members who could take part: the first ``limit``
    other active characters by (name, id), and the one ``helper`` names (a character's id) if it is
    one of them; never the whole party. 404 or 403 as :func:`characters.access.character_for` decides."""
    character = access.character_for(user, pk, write=write)
    return character, helpers_for(character, helper=helper, limit=limit)


def _id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def named_in(character: Character, situation: Mapping[str, Any]) -> list[int]:
    """The other characters a situation names by id, in the fields its system says name one
    (``situation_characters``: Lucky 13's helper and opponent, D6's opponent)."""
    found: list[int] = []
    for key in sorted(character.rules.situation_characters):
        value = situation.get(key)
        if _id(value) and value not in found:
            found.append(value)
    return found


def helpers_for(character: Character, *, helper: Any = None, limit: int = HELPERS) -> list[Character]:
    """The other active characters of the campaign who could take part: the first ``limit`` by (name,
    id), and those ``helper`` names by id (one id, or the ids :func:`named_in` finds) wherever they are
    (one query more, by their keys)."""
    others = Character.objects.filter(campaign_id=character.campaign_id).active().exclude(pk=character.pk)
    helpers = list(others.order_by("name", "pk")[:limit]) if limit else []
    wanted = [helper] if _id(helper) else [pk for pk in (helper if isinstance(helper, list) else []) if _id(pk)]
    missing = [pk for pk in wanted if all(h.pk != pk for h in helpers)]
    if missing:
        helpers.extend(others.filter(pk__in=missing)[: len(missing)])
    return helpers


def _set(value: Any) -> bool:
    return value not in (None, "", 0, False)


def build(
    character: Character,
    helpers: Sequence[Character],
    situation: Mapping[str, Any],
    *,
    gm: bool,
    asked: RollAsked | None = None,
) -> SheetRoll:
    """The roll ``situation`` makes from ``character``'s sheet (loaded by :func:`load`), built by its
    system, which may draw on the other characters in play (``helpers``) by their ids. Answering a
    roll request (``asked``), the parts the GM called (the system's ``called_situation``) are the
    call's, whatever the situation says of them."""
    system = character.rules
    if not gm and any(_set(situation.get(key)) for key in system.gm_situation):
        raise NotAllowed(GM_ONLY_STEPS)
    if asked is not None:
        situation = {
            **{key: value for key, value in situation.items() if key not in system.called_situation},
            **called(character, asked),
        }
    others = {helper.pk: Other(helper.name, helper.document) for helper in helpers}
    table = None
    if system.table is not None:  # what the table holds for the character (D13's boosts)
        campaign = character.campaign
        table = system.table.for_sheet(table_rows.read(campaign, table_rows.row(campaign, lock=False)), character.pk)
    return system.sheet_roll(character.document, situation, character.campaign.settings, others.get, table=table)


def called(character: Character, asked: RollAsked) -> dict[str, Any]:
    """The situation's parts a roll request fixes for ``character``'s sheet, as resolved on it when the
    GM called (its items by id: a rename since changes nothing); a request made before requests kept
    that is read by its call's names."""
    if asked.situation is None:
        return call_parts(character, asked.request.call)
    fixed = character.rules.called_situation
    return {key: value for key, value in asked.situation.items() if key in fixed}


def added_of(character: Character, asked: RollAsked) -> dict[str, Any]:
    """What an answer to ``asked`` starts from of the sheet's own parts: what its player proposed to add
    (a specialization, an asset, a helper), where the GM called a proposal; else nothing."""
    fixed = character.rules.called_situation
    return {key: value for key, value in (asked.situation or {}).items() if key not in fixed}


def as_asked(character: Character, asked: RollAsked, *, gm: bool = False) -> SheetRoll:
    """The roll that answers ``asked`` with nothing chosen on the sheet's page: the call, and what a
    called proposal added (its helper loaded by id). The dashboard's Roll, and what the list shows."""
    situation = added_of(character, asked)
    helpers = helpers_for(character, helper=named_in(character, situation), limit=0) if situation else []
    return build(character, helpers, situation, gm=gm, asked=asked)


def call_parts(character: Character, call: Mapping[str, Any]) -> dict[str, Any]:
    """The situation's parts a call (a document of the system's ``call_model``) fixes for ``character``'s sheet."""
    system = character.rules
    parsed = system.call_model.model_validate(call)
    return system.call_situation(character.document, parsed, character.campaign.settings)


def build_proposed(character: Character, call: Mapping[str, Any], added: Mapping[str, Any]) -> SheetRoll:
    """The roll a proposal makes from ``character``'s sheet: the call, with what its player added from
    the sheet (``added``: a specialization, an asset, a helper by id), built as every roll is."""
    fixed = character.rules.called_situation
    situation = {**{k: v for k, v in added.items() if k not in fixed}, **call_parts(character, call)}
    helpers = helpers_for(character, helper=named_in(character, situation), limit=0)
    return build(character, helpers, situation, gm=True)


def as_proposed(proposal: RollProposal) -> tuple[Fraction | None, str, tuple[str, ...]]:
    """A proposal's exact chance of success for its character, its roll in words and what stepped the
    dice (its specialization, asset, helper…): what the GM calls it with. No chance, and why in words,
    when the sheet cannot make it now."""
    try:
        made = build_proposed(proposal.character, proposal.call, proposal.added)
    except SpecError as error:
        return None, f"cannot be rolled as the sheet stands: {error.message}", ()
    except ValidationError:
        return None, "cannot be rolled: the call no longer fits this system", ()
    return chance_of(proposal.character, made), made.label, made.steps


def chance_of(character: Character, made: SheetRoll) -> Fraction | None:
    """The exact chance of success of a built roll, before anyone rolls."""
    kind = character.rules.roll_kinds[made.kind]
    return kind.success(kind.chance(kind.parse(made.spec)))


def needs_call(character: Character, *, asked: RollAsked | None) -> bool:
    """Whether the viewer of ``character``'s roll page may only look at the odds: a player, with no
    request of the GM's to answer, in a campaign where the GM calls the rolls."""
    return not character.viewer_is_gm and asked is None and not character.campaign.players_call_rolls


@transaction.atomic
def roll(
    character: Character,
    made: SheetRoll,
    *,
    by: AbstractBaseUser,
    rng: Random,
    asked: RollAsked | None = None,
    secret: bool = False,
    is_gm: bool | None = None,
) -> Rolled:
    """Roll a built roll with ``rng`` (``secrets.SystemRandom()`` outside tests) and record it, with
    its exact chance of success computed before the dice are rolled and the sheet as it was
    (``spec["sheet"]``), and who called it (``spec["call"]``): the GM's request it answers
    (``asked``, built with it by :func:`build`), or, for a player's own roll, "self" — refused
    unless the campaign lets players call their own rolls. The GM's own roll is the GM's call and
    may be ``secret``. Refused (:class:`~campaigns.errors.Refused`) as
    :func:`play.rolls.record_roll` refuses, and for a request already answered or closed. A roll that keeps
    something on the sheet (``made.kept``: D6's use of the declared round) locks the character, is refused
    (:class:`~characters.write.StaleSheet`, 409) when the sheet changed since the roll was built from it, and
    saves the sheet it keeps through the write path, with the roll's number. A roll a sheet move makes
    (``made.move``: its dice leave a decision) is that move, made through the moves' one pipeline.
    ``is_gm``: whether ``by`` is the campaign's GM, when the caller knows (the access check that read
    ``character`` for them found out); asked otherwise. Who may roll is checked again under the
    campaign's lock (:func:`play.rolls.record_roll`)."""
    locked = None
    if made.kept is not None:  # what the roll keeps on the sheet is the sheet's as it was built from
        locked = write.lock(character.pk)
        if locked.version != character.version:
            raise write.StaleSheet(locked, STALE_ROLL.format(name=locked.name))
    call: dict[str, Any]
    if asked is not None:  # the GM's call, whoever answers it
        asked = requests.lock_open(asked.pk, character)
        call = {"request": asked.request_id, "by": asked.request.by.get_username(), "words": asked.request.label}
        secret = asked.request.secret
    elif _is_gm(character, by) if is_gm is None else is_gm:
        call = {"gm": True}
    elif character.campaign.players_call_rolls:
        call = {"self": True}
    else:
        raise NotAllowed(GM_CALLS)
    if made.move is not None:
        return _by_move(character, made, by=by, call=call, asked=asked, secret=secret)
    kind = character.rules.roll_kinds[made.kind]
    try:
        dice = kind.parse(made.spec)
        chance = kind.success(kind.chance(dice))
        result = kind.roll(dice, rng)
    except SpecError as error:  # a roll whose odds can be shown but that cannot be made yet
        raise Refused(write.sentence(error.message)) from None
    recorded = kind.record(result)
    spec = {**made.spec, "label": made.label, "sheet": {"character": character.pk, **made.details}, "call": call}
    logged = record_roll(
        campaign_id=character.campaign_id,
        by=by,
        character_id=character.pk,
        kind=made.log_kind,
        spec=spec,
        dice=recorded.dice,
        total=recorded.total,
        outcome=dict(recorded.outcome),
        chance=chance,
        chance_of="success",
        secret=secret,
        called_secret=asked is not None,
        label=made.label,
        locked=locked,
    )
    if asked is not None:
        requests.answered(asked, logged)
    if made.kept is not None and locked is not None:
        kept = made.kept
        try:
            write.write(locked, kept.sheet(logged.seq), by=by, what=f"{kept.words} (roll #{logged.seq})",
                        sections=kept.sections, campaign_moved=True)  # fmt: skip
        except SheetInvalid as error:
            raise write.refusal(error) from None
    return Rolled(logged, result, chance, recorded.dice)


def _is_gm(character: Character, user: AbstractBaseUser) -> bool:
    return Membership.objects.filter(campaign_id=character.campaign_id, user=user, role=Membership.Role.GM).exists()


def _by_move(
    character: Character, made: SheetRoll, *, by: AbstractBaseUser, call: Mapping[str, Any],
    asked: RollAsked | None, secret: bool,
) -> Rolled:  # fmt: skip
    """A roll that a sheet move makes (:attr:`SheetRoll.move`), made by that move from the sheet as the roll
    was built from it (a 409 when it changed since), the call kept in its rolls and the request answered by
    its first."""
    from play import moves  # the moves' pipeline makes the rolls of the roll page's path (it imports this one)

    if secret:
        message = requests.DECIDED_IN_SIGHT.format(name=character.name)
        raise Refused(message, errors={"secret": message})
    key, given = made.move or ("", {})
    done = moves.make(character_id=character.pk, key=key, version=character.version, given=given, by=by,
                      call=call, secret=secret)  # fmt: skip
    if not done.rolls:
        raise Refused("Nothing was rolled.")
    first = done.rolls[0]
    if asked is not None:
        requests.answered(asked, first)
    return Rolled(first, done, chance_of(character, made), first.dice)
