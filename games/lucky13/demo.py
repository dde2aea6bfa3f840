"""Lucky 13's demo campaign, *The Sunken Crown*: a GM, two players, their duelists and an adventure
already played (awards, reputation, a purchase), so that the ledger and *What should I buy?* have
something to show; a roll log (checks from the sheets, a reaction check, the GM's free rolls) and an
ended encounter (initiative, attacks and their damage) to look at. Each character is made through the
creation steps a player takes, so its sheet document is built by the system and saved through the
one write path, with its history; every roll is made by the operations a page calls, with the
server's dice."""

from __future__ import annotations

import secrets
from typing import Any

from campaigns.models import Campaign, Membership
from characters import drafting, ledger, operations
from characters.models import Character, LedgerEntry
from games import demo
from play import encounters, requests, rolls, sheet_rolls
from play.models import Encounter, Roll
from rules.systems import lucky13

CAMPAIGN = "The Sunken Crown"
ENCOUNTER = "Ambush at the Drowned Bell"
#: The drowned sailors of the demo's encounter: a quick stat block as the GM's form sends it.
SAILOR: dict[str, str] = {"reflex": "d6", "combat": "d4", "accuracy": "d6", "damage": "d6", "armor": "", "pulse": "d4",
                          "hit_points": ""}  # fmt: skip

#: Brunella and Casimir, the duelists of the rule text's combat example ("Combat"): what their players
#: give at each creation step.
CHARACTERS: dict[str, dict[str, Any]] = {
    "alice": {
        "name": "Brunella",
        "concept": "Sellsword with a broadsword",
        "abilities": ["d6", "d4", "d10", "d6", "d8"],
        "specializations": [{"skill": "Fighting", "name": "Broadsword"}, {"skill": "Sneaking", "name": "Disguise"}],
        "traits": [{"kind": "background", "name": "Mercenary", "description": "Ten years in the free companies."}],
        "assets": [{"name": "Old harbour map", "level": 2, "kind": "thing", "skills": ["Sneaking"]}],
        "weapons": [{"name": "Broadsword", "accuracy": "d8", "damage": "d10"}],
        "armor": [],
    },
    "bob": {
        "name": "Casimir",
        "concept": "Hedge knight in chainmail",
        "abilities": ["d10", "d4", "d8", "d6", "d6"],
        "specializations": [{"skill": "Fighting", "name": "Shield wall"}, {"skill": "Healing", "name": "Bind wounds"}],
        "traits": [{"kind": "background", "name": "Knightly training", "description": "Squire to a drowned lord."}],
        "assets": [{"name": "Brother Aldo", "level": 3, "kind": "person", "skills": ["Healing"],
                    "description": "A monk who owes him a favour."}],
        "weapons": [{"name": "Longsword", "accuracy": "d6", "damage": "d8"}],
        "armor": [{"name": "Chainmail", "defense": "d6"}],
    },
}  # fmt: skip


#: The demo campaign's own tables of backgrounds and impairments, to choose from or roll on at
#: creation ("Backgrounds", "Impairments": the engine text gives no table).
BACKGROUND_TABLE: list[dict[str, str]] = [
    {"name": "Ex-soldier", "description": "Served a lord who lost a war."},
    {"name": "Smuggler", "description": "Knows the drowned city's back canals."},
    {"name": "Scholar", "description": "Read everything about the crown, once."},
    {"name": "Temple orphan", "description": "Raised by the sisters of the tide."},
]
IMPAIRMENT_TABLE: list[dict[str, str]] = [
    {"name": "Bad knee", "description": "Stairs are a battle."},
    {"name": "Phobia: heights", "description": ""},
    {"name": "Hunted", "description": "Someone wants an old debt paid."},
]


def load() -> str:
    """The campaign, created once and left alone after; what it made, in a line."""
    users = {username: demo.user(username) for username in ("gm", *CHARACTERS)}
    campaign = demo.campaign(
        CAMPAIGN, users["gm"], system=lucky13.SYSTEM.key,
        options={**lucky13.default_options(), "background_table": BACKGROUND_TABLE,
                 "impairment_table": IMPAIRMENT_TABLE},
        description="A demo Lucky 13 campaign: a drowned city, a lost crown, two rivals.",
    )  # fmt: skip
    for username, sheet in CHARACTERS.items():
        demo.join(campaign, users[username])
        if not Character.objects.filter(campaign=campaign, owner=users[username], name=sheet["name"]).exists():
            _create(campaign, users[username], sheet)
    if not LedgerEntry.objects.filter(character__campaign=campaign).exists():
        _first_adventure(campaign, users["gm"])
    if not Roll.objects.filter(campaign=campaign).exists():
        _table_rolls(campaign, users["gm"])
    if not Encounter.objects.filter(campaign=campaign).exists():
        _ambush(campaign, users["gm"])
    return f"Demo campaign '{CAMPAIGN}' with the users gm (the GM), alice and bob"


def _create(campaign: Campaign, owner: Any, sheet: dict[str, Any]) -> None:
    """Through the same creation steps a player takes, so the demo obeys every rule."""
    character = drafting.start(campaign=campaign, owner=owner, name=sheet["name"], given={"concept": sheet["concept"]})
    abilities = dict(zip(lucky13.ABILITY_KEYS, sheet["abilities"], strict=True))
    values = {
        "abilities": {"ability_method": "balanced", "abilities": abilities},
        "skills": {},
        "specializations": {"specializations": sheet["specializations"], "took_impairment": False},
        "traits": {"traits": sheet["traits"]},
        "equipment": {"assets": sheet["assets"], "weapons": sheet["weapons"], "armor": sheet["armor"]},
    }
    for step, value in values.items():
        character = drafting.fill(character_id=character.pk, version=character.version, step=step, value=value,
                                  by=owner)  # fmt: skip
    drafting.finish(character_id=character.pk, version=character.version, by=owner)
    # The player's gear waited for the GM, who approved it when the character joined the party.
    gm = campaign.memberships.get(role=Membership.Role.GM).user
    finished = Character.objects.get(pk=character.pk)
    for entry in finished.rules.awaiting(finished.document):
        operations.decide_awaiting(character_id=character.pk, item=entry.item, approve=True, by=gm)


def _first_adventure(campaign: Campaign, gm: Any) -> None:
    """An adventure already played, so the ledger and "What should I buy?" have something to show."""
    party = {c.name: c for c in Character.objects.active().filter(campaign=campaign)}
    awards = [
        ledger.Award(c.pk, 17, reputation=1, reason="Saving another character's life")
        if name == "Casimir"
        else ledger.Award(c.pk, 14)
        for name, c in party.items()
    ]
    ledger.award(
        campaign_id=campaign.pk, awards=awards, reason="Completing the mission", adventure="The Drowned Bell", by=gm
    )
    if "Brunella" in party:
        brunella = Character.objects.get(pk=party["Brunella"].pk)  # her sheet as the award left it
        spec = next(
            spec
            for skill in brunella.document.skills
            for spec in skill.specializations
            if (skill.name, spec.name) == ("Fighting", "Broadsword")
        )
        order = ledger.Order(f"level:{spec.id}", before=spec.level)
        ledger.buy(character_id=brunella.pk, order=order, by=brunella.owner, adventure="The Drowned Bell")


def _party(campaign: Campaign) -> dict[str, Character]:
    return {c.name: c for c in Character.objects.active().filter(campaign=campaign).select_related("campaign")}


def _skill(character: Character, name: str) -> Any:
    return next(skill for skill in character.document.skills if skill.name == name)


def _table_rolls(campaign: Campaign, gm: Any) -> None:
    """A session's rolls, made as the roll pages make them (the server's dice, the exact chance first):
    checks from the sheets with a specialization and an asset, a reaction check and the GM's free rolls,
    one of them secret."""
    party = _party(campaign)
    rng = secrets.SystemRandom()
    checks = []
    if "Brunella" in party:
        fighting = _skill(party["Brunella"], "Fighting")
        broadsword = next(spec for spec in fighting.specializations if spec.name == "Broadsword")
        checks.append((party["Brunella"], {"skill": fighting.id, "specialization": broadsword.id,
                                           "difficulty": "challenging"}))  # fmt: skip
        sneaking = _skill(party["Brunella"], "Sneaking")
        harbour_map = next(asset for asset in party["Brunella"].document.assets if sneaking.id in asset.skills)
        checks.append((party["Brunella"], {"skill": sneaking.id, "asset": harbour_map.id, "difficulty": "moderate"}))
    if "Casimir" in party:
        healing = _skill(party["Casimir"], "Healing")
        aldo = next(asset for asset in party["Casimir"].document.assets if healing.id in asset.skills)
        checks.append((party["Casimir"], {"skill": healing.id, "asset": aldo.id, "difficulty": "difficult"}))
        checks.append((party["Casimir"], {"reaction": True, "skill": healing.id, "difficulty": "moderate"}))
    for character, situation in checks:
        # The GM calls for each (the skill by name, the difficulty); the player adds what the sheet offers.
        skill = next(s for s in character.document.skills if s.id == situation["skill"])
        kind = "reaction" if situation.get("reaction") else "check"
        call = {"kind": kind, "skill": skill.name, "difficulty": situation["difficulty"]}
        asked = requests.call_for_roll(
            campaign_id=campaign.pk, by=gm, call=call, characters=[character.pk], secret=False
        ).asked.get()
        made = sheet_rolls.build(character, [], situation, gm=False, asked=asked)
        sheet_rolls.roll(character, made, by=character.owner, rng=rng, asked=asked)
    if "Brunella" in party and "Casimir" in party:  # one call still waiting, for a newcomer to answer
        call = {"kind": "check", "skill": "Sneaking", "difficulty": "difficult", "ability_roll": "background"}
        requests.call_for_roll(
            campaign_id=campaign.pk, by=gm, call=call, characters=[party["Brunella"].pk, party["Casimir"].pk],
            secret=False,
        )  # fmt: skip
    rolls.roll_free(campaign_id=campaign.pk, by=gm, text="2d6+1", explode=False, secret=False, rng=rng)
    rolls.roll_free(campaign_id=campaign.pk, by=gm, text="d100", explode=False, secret=True, rng=rng)


def _ambush(campaign: Campaign, gm: Any) -> None:
    """An encounter already fought and ended: the duelists and two drowned sailors, initiative, and an
    attack from each duelist (their hits harm only the sailors)."""
    party = _party(campaign)
    if not party:
        return
    ids = {"campaign_id": campaign.pk, "by": gm}
    encounter = encounters.start_encounter(**ids, name=ENCOUNTER)
    ids["encounter_id"] = encounter.pk
    duelists = encounters.add_characters(**ids, character_ids=[c.pk for c in party.values()])
    sailors = encounters.add_npcs(**ids, name="Drowned sailor", stats=SAILOR, count=len(duelists))
    rng = secrets.SystemRandom()
    encounters.roll_initiative(**ids, rng=rng)
    for duelist, sailor in zip(duelists, sailors, strict=True):
        encounters.attack(**ids, attacker_id=duelist.pk, target_id=sailor.pk, rng=rng)
    encounters.end_encounter(**ids)
