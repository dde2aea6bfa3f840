"""D6's demo campaign, *Ruins of the Ancients*: a GM, two players, Jericho and Talia of the rule text's
examples, an adventure already played (character points awarded, a pip bought), a few rolls (a check
against a range band, the text's arm wrestling as an opposed roll, a called roll), and one call still
waiting. Each character is made through the creation steps a player takes (``characters.drafting``),
and every roll by the operations a page calls, with the server's dice."""

from __future__ import annotations

import secrets
from typing import Any

from campaigns.models import Campaign
from characters import drafting, ledger
from characters.models import Character, LedgerEntry
from games import demo
from play import moves, requests, sheet_rolls
from play.models import Roll
from rules.systems import d6
from rules.systems.d6 import round_moves

CAMPAIGN = "Ruins of the Ancients"
ADVENTURE = "The Mutant Alley"

#: Jericho and Talia of the rule text ("player guidance"): 18d among the six stats, and the skills each
#: raised above its stat with the 7d of skill dice (at most +2d each).
CHARACTERS: dict[str, dict[str, Any]] = {
    "carol": {
        "name": "Jericho",
        "concept": "Relic hunter with a blaster",
        "stats": {"Dexterity": "3d+2", "Knowledge": "2d+1", "Mechanical": "3d", "Perception": "3d",
                  "Strength": "3d", "Technical": "3d"},
        "skills": {"Firearms": "5d+2", "Dodge": "4d", "Streetwise": "3d+1", "Search": "4d", "Repair": "4d"},
        "gear": [{"name": "Relic blaster", "description": "Found in a vault of the Ancients."}],
    },
    "dave": {
        "name": "Talia",
        "concept": "Climber and scout",
        "stats": {"Dexterity": "3d+1", "Knowledge": "3d", "Mechanical": "2d+2", "Perception": "3d",
                  "Strength": "3d+1", "Technical": "2d+2"},
        "skills": {"Climbing": "5d+1", "Sneak": "5d", "Hide": "4d+2", "Dodge": "4d"},
        "gear": [{"name": "Rope and grapnel", "description": ""}],
    },
}  # fmt: skip


def load() -> str:
    """The campaign, created once and left alone after; what it made, in a line."""
    users = {username: demo.user(username) for username in ("gm", *CHARACTERS)}
    campaign = demo.campaign(
        CAMPAIGN, users["gm"], system=d6.SYSTEM.key, options=d6.SYSTEM.default_options(),
        description="A demo D6 campaign: the ruins of an Ancients city, mutants, and relics worth the risk.",
    )  # fmt: skip
    for username, sheet in CHARACTERS.items():
        demo.join(campaign, users[username])
        if not Character.objects.filter(campaign=campaign, owner=users[username], name=sheet["name"]).exists():
            _create(campaign, users[username], sheet)
    if not LedgerEntry.objects.filter(character__campaign=campaign).exists():
        _first_adventure(campaign, users["gm"])
    if not Roll.objects.filter(campaign=campaign).exists():
        _table_rolls(campaign, users["gm"])
        _a_round(campaign, users["gm"])
    return f"Demo campaign '{CAMPAIGN}' (D6) with the users gm (the GM), carol and dave"


def _create(campaign: Campaign, owner: Any, sheet: dict[str, Any]) -> None:
    """Through the same creation steps a player takes, so the demo obeys every rule."""
    character = drafting.start(campaign=campaign, owner=owner, name=sheet["name"])
    document = character.document
    stats = {str(s.id): sheet["stats"][s.name] for s in document.stats}
    character = drafting.fill(character_id=character.pk, version=character.version, step="stats",
                              value={"stats": stats}, by=owner)  # fmt: skip
    skills = {str(s.id): sheet["skills"][s.name] for s in character.document.skills if s.name in sheet["skills"]}
    character = drafting.fill(character_id=character.pk, version=character.version, step="skills",
                              value={"skills": skills}, by=owner)  # fmt: skip
    review = {"concept": sheet["concept"], "gear": sheet["gear"], "notes": ""}
    character = drafting.fill(character_id=character.pk, version=character.version, step="review", value=review,
                              by=owner)  # fmt: skip
    drafting.finish(character_id=character.pk, version=character.version, by=owner)


def _party(campaign: Campaign) -> dict[str, Character]:
    return {c.name: c for c in Character.objects.active().filter(campaign=campaign).select_related("campaign")}


def _item(character: Character, name: str) -> int:
    sheet = character.document
    return next(thing.id for thing in (*sheet.stats, *sheet.skills) if thing.name == name)


def _first_adventure(campaign: Campaign, gm: Any) -> None:
    """An adventure already played: character points for both, and a pip of Firearms for Jericho."""
    party = _party(campaign)
    awards = [ledger.Award(c.pk, 5 if name == "Jericho" else 4) for name, c in party.items()]
    ledger.award(campaign_id=campaign.pk, awards=awards, reason="Finished the adventure", adventure=ADVENTURE, by=gm)
    if "Jericho" in party:
        jericho = Character.objects.get(pk=party["Jericho"].pk)
        firearms = _item(jericho, "Firearms")
        before = jericho.document.code_of(firearms)
        order = ledger.Order(f"skill:{firearms}", before=before.steps if before else 0)
        ledger.buy(character_id=jericho.pk, order=order, by=jericho.owner, adventure=ADVENTURE)


def _table_rolls(campaign: Campaign, gm: Any) -> None:
    """A session's rolls, made as the roll pages make them: the GM calls a Firearms shot at Short range
    and Talia's climb of the fence; the text's arm wrestling as an opposed roll; one call still waiting."""
    party = _party(campaign)
    rng = secrets.SystemRandom()
    calls = []
    if "Jericho" in party:
        calls.append((party["Jericho"], {"item": "Firearms", "band": "short", "difficulty": 8}))
    if "Talia" in party:
        calls.append((party["Talia"], {"item": "Climbing", "band": "moderate", "difficulty": 13}))
    for character, call in calls:
        asked = requests.call_for_roll(
            campaign_id=campaign.pk, by=gm, call=call, characters=[character.pk], secret=False
        ).asked.get()
        made = sheet_rolls.build(character, [], {"item": _item(character, call["item"])}, gm=False, asked=asked)
        sheet_rolls.roll(character, made, by=character.owner, rng=rng, asked=asked)
    if "Jericho" in party and "Talia" in party:
        jericho, talia = party["Jericho"], party["Talia"]
        situation = {"kind": "opposed", "item": _item(jericho, "Strength"), "opponent": talia.pk}
        made = sheet_rolls.build(jericho, [talia], situation, gm=True)
        sheet_rolls.roll(jericho, made, by=gm, rng=rng)
        requests.call_for_roll(
            campaign_id=campaign.pk, by=gm, call={"item": "Dodge", "band": "medium", "difficulty": 12},
            characters=[jericho.pk, talia.pk], secret=False,
        )  # fmt: skip


def _a_round(campaign: Campaign, gm: Any) -> None:
    """The text's Jericho, mid-round: three shots declared at Medium range, the first fired, a dodge after it;
    two shots still to fire, one die less each (the round planner shows them with their chances). The GM
    rolls them: in this campaign the GM calls the rolls."""
    party = _party(campaign)
    if "Jericho" not in party:
        return
    jericho = party["Jericho"]
    firearms, dodge = _item(jericho, "Firearms"), _item(jericho, "Dodge")
    shots = {"actions": [{"item": firearms, "difficulty": 12}] * 3}
    declared = moves.made_from(jericho, round_moves.DECLARE)
    moves.make(character_id=jericho.pk, key=round_moves.DECLARE.key, version=declared, given=shots, by=jericho.owner)
    for step in ({"action": 0}, {"reaction": dodge, "difficulty": 11}):
        jericho = Character.objects.select_related("campaign").get(pk=jericho.pk)
        now = moves.made_from(jericho, round_moves.ROLL)
        moves.make(character_id=jericho.pk, key=round_moves.ROLL.key, version=now, given=step, by=gm)
