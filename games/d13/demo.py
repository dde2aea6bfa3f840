"""D13's demo campaign, *The Hollow Parish*: a host, two players (Maud and Elias), a scene already under way —
rolls of every difficulty, a card drawn on doubles, a face card boosting a skill, a turn order — and a call
still waiting. Each character is made through the creation steps a player takes (``characters.drafting``),
and every roll and card by the operations the pages call, with the server's dice."""

from __future__ import annotations

import secrets
from typing import Any

from campaigns.models import Campaign
from characters import drafting, ledger
from characters.models import Character, LedgerEntry
from games import demo
from play import moves, requests, sheet_rolls, table
from play.models import Roll
from rules.systems import d13

CAMPAIGN = "The Hollow Parish"

#: Each character: the four abilities (12 points, 1 to 5) and the skills raised (10 points, at most 4).
CHARACTERS: dict[str, dict[str, Any]] = {
    "erin": {
        "name": "Maud Greaves",
        "abilities": {"brawn": 2, "grace": 3, "wits": 4, "will": 3},
        "skills": {"Occult": 4, "Investigation": 3, "Perception": 2, "Stealth": 1},
        "notes": "The parish archivist. Reads Latin, and what is written between its lines.",
    },
    "frank": {
        "name": "Elias Thorne",
        "abilities": {"brawn": 4, "grace": 3, "wits": 2, "will": 3},
        "skills": {"Brawling": 3, "Athletics": 3, "Firearms": 2, "Driving": 2},
        "notes": "Drives the hearse. Owes the undertaker more than money.",
    },
}


def load() -> str:
    """The campaign, created once and left alone after; what it made, in a line."""
    users = {username: demo.user(username) for username in ("gm", *CHARACTERS)}
    options = {**d13.SYSTEM.default_options(), "experience": True}
    campaign = demo.campaign(
        CAMPAIGN, users["gm"], system=d13.SYSTEM.key, options=options,
        description="A demo D13 campaign: a drowned village, a church bell that rings by itself, and a deck of "
                    "cards that knows more than it should.",
    )  # fmt: skip
    for username, sheet in CHARACTERS.items():
        demo.join(campaign, users[username])
        if not Character.objects.filter(campaign=campaign, owner=users[username], name=sheet["name"]).exists():
            _create(campaign, users[username], sheet)
    if not LedgerEntry.objects.filter(character__campaign=campaign).exists():
        party = _party(campaign)
        awards = [ledger.Award(c.pk, 6) for c in party.values()]
        ledger.award(
            campaign_id=campaign.pk, awards=awards, reason="A session played", adventure="The Bell", by=users["gm"]
        )
    if not Roll.objects.filter(campaign=campaign).exists():
        _a_scene(campaign, users["gm"])
    return f"Demo campaign '{CAMPAIGN}' (D13) with the users gm (the GM), erin and frank"


def _create(campaign: Campaign, owner: Any, sheet: dict[str, Any]) -> None:
    """Through the same creation steps a player takes, so the demo obeys every rule."""
    character = drafting.start(campaign=campaign, owner=owner, name=sheet["name"])
    character = drafting.fill(character_id=character.pk, version=character.version, step="abilities",
                              value=sheet["abilities"], by=owner)  # fmt: skip
    skills = [{"id": s.id, "rating": sheet["skills"].get(s.name, 0)} for s in character.document.skills]
    character = drafting.fill(character_id=character.pk, version=character.version, step="skills",
                              value={"skills": skills, "notes": sheet["notes"]}, by=owner)  # fmt: skip
    drafting.finish(character_id=character.pk, version=character.version, by=owner)


def _party(campaign: Campaign) -> dict[str, Character]:
    return {c.name: c for c in Character.objects.active().filter(campaign=campaign).select_related("campaign")}


def _skill(character: Character, name: str) -> int:
    return next(skill.id for skill in character.document.skills if skill.name == name)


def _roll(character: Character, situation: dict[str, Any], by: Any, asked: Any = None) -> None:
    """A task rolled as the roll page rolls it (the move ``d13-roll``), and any decision it leaves made the
    way its player (or the host) would: keep the roll, let it stand, reveal."""
    fresh = Character.objects.select_related("campaign").get(pk=character.pk)
    made = sheet_rolls.build(fresh, [], situation, gm=by != fresh.owner, asked=asked)
    sheet_rolls.roll(fresh, made, by=by, rng=secrets.SystemRandom(), asked=asked)
    for _ in range(3):
        fresh = Character.objects.select_related("campaign").get(pk=character.pk)
        waiting = moves.open_prompt(fresh)
        if waiting is None:
            return
        choice = waiting.choices[0]
        move = moves.move_of(fresh, choice["move"])
        moves.make(character_id=fresh.pk, key=move.key, version=moves.made_from(fresh, move),
                   given=choice["input"], by=waiting.to)  # fmt: skip


def _a_scene(campaign: Campaign, host: Any) -> None:
    """The scene at the bell tower: the host shuffles the deck; Maud reads the inscription (an Average Wits +
    Occult task the host calls) and Elias forces the door (Difficult Brawn + Athletics); an Easy climb; Maud
    plays a card from her hand if the dice gave her one; both take their turn numbers; one call waits."""
    party = _party(campaign)
    table.make(campaign_id=campaign.pk, key="shuffle", version=0, given={}, by=host)
    maud, elias = party.get("Maud Greaves"), party.get("Elias Thorne")
    if maud is not None:
        asked = requests.call_for_roll(
            campaign_id=campaign.pk, by=host, call={"level": "average", "ability": "wits", "skill": "Occult"},
            characters=[maud.pk], secret=False,
        ).asked.get()  # fmt: skip
        _roll(maud, {}, maud.owner, asked=asked)
        _roll(maud, {"level": "easy", "ability": "grace", "skill": _skill(maud, "Stealth")}, host)
    if elias is not None:
        _roll(elias, {"level": "difficult", "ability": "brawn", "skill": _skill(elias, "Athletics")}, host)
        _roll(elias, {"level": "monstrous", "ability": "brawn", "skill": _skill(elias, "Brawling")}, host)
    for character in (maud, elias):
        if character is None:
            continue
        fresh = Character.objects.select_related("campaign").get(pk=character.pk)
        turn = moves.move_of(fresh, "d13-turn")
        if moves.allowed(fresh, turn, fresh.owner) is None:
            moves.make(character_id=fresh.pk, key=turn.key, version=moves.made_from(fresh, turn), given={},
                       by=fresh.owner)  # fmt: skip
    table.make(campaign_id=campaign.pk, key="add-turn", version=table.view_for(campaign, host).version,
               given={"name": "The bell-ringer", "number": 7}, by=host)  # fmt: skip
    if maud is not None and elias is not None:
        requests.call_for_roll(
            campaign_id=campaign.pk, by=host, call={"level": "average", "ability": "will", "skill": None},
            characters=[maud.pk, elias.pk], secret=False,
        )  # fmt: skip
