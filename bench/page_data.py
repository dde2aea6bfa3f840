"""The data :mod:`bench.pages` measures: each page's history at a small and a large size, built fast.

The first rows of each history go through the app's own operations (``ledger.award``,
``characters.write.change``, ``play.rolls.roll_free``, ``play.sheet_rolls.roll``,
``play.encounters``), so they are exactly what the app writes; the thousands after them are
appended with ``bulk_create``, each the way the model keeps it: a ledger entry carries the running
balance (and the character's ``Balance`` is set to the last), a sheet change its version (and the
character's ``version`` follows), and a roll its ``seq`` and signed hash chain (checked whole with
:func:`play.rolls.verify_chain`). Append-only rows are only ever appended.

The characters are Lucky 13's, asked of the registry (``rules.systems.get``), never imported by name.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.urls import reverse

from bench.rows import Award, append_awards, chained_rolls
from campaigns.models import Campaign, Membership
from characters import ledger, write
from characters.models import Balance, Character, LedgerEntry, ReputationChange, SheetChange
from play import encounters, rolls, sheet_rolls
from play.models import Roll
from rules import systems
from rules.systems.base import RulesSystem

SYSTEM: Final = "lucky13"
#: Rows per INSERT: well within SQLite's limit on bound parameters for every model here.
BATCH: Final = 500

#: The campaign's skills (the Fantasy preset, the default options) as a finished fighter has them: ids 1 … 5.
SKILLS: Final = (
    ("Spellcasting", "intellect", "d8"),
    ("Scholarship", "intellect", "d6"),
    ("Healing", "will", "d6"),
    ("Sneaking", "reflex", "d8"),
    ("Fighting", "reflex", "d10"),
)
FIGHTING: Final = 5
LONGSWORD_SPEC: Final = 8
#: A Lucky 13 NPC as the GM's form sends it (play.encounters.add_npcs): a goblin.
GOBLIN: Final = {
    "reflex": "d6",
    "combat": "d4",
    "accuracy": "d4",
    "damage": "d4",
    "armor": "",
    "pulse": "d4",
    "hit_points": "",
}


def lucky13() -> RulesSystem:
    return systems.get(SYSTEM)


# --- Sheets -----------------------------------------------------------------------------------------


def fighter_sheet(notes: str = "Owes the ferryman two silver.") -> dict[str, Any]:
    """A finished fighter of the default campaign: five skills, three specializations, a background,
    an impairment, two assets, a weapon and a piece of armor (the tests' Brunella)."""
    specializations = {
        1: [{"id": 6, "name": "Teleport", "level": 2}, {"id": 7, "name": "Fireball", "level": 1}],
        FIGHTING: [{"id": LONGSWORD_SPEC, "name": "Longsword", "level": 1}],
    }
    document = {
        "concept": "Sellsword",
        "abilities": {"will": "d6", "charm": "d4", "pulse": "d8", "intellect": "d6", "reflex": "d10"},
        "skills": [
            {"id": i, "name": name, "ability": ability, "die": die, "specializations": specializations.get(i, [])}
            for i, (name, ability, die) in enumerate(SKILLS, 1)
        ],
        "traits": [
            {"id": 9, "kind": "background", "name": "Soldier", "description": "Ten years."},
            {"id": 10, "kind": "impairment", "name": "Bad knee"},
        ],
        "assets": [
            {"id": 11, "name": "Old map", "level": 2, "skills": [2]},
            {"id": 12, "name": "Uncle Otto", "kind": "person", "level": 3, "skills": [3, FIGHTING]},
        ],
        "weapons": [{"id": 13, "name": "Longsword", "accuracy": "d8", "damage": "d8"}],
        "armor": [{"id": 14, "name": "Leather", "defense": "d4"}],
        "hit_points": 30,
        "reputation": 1,
        "notes": notes,
        "creation": {"step": "", "ability_method": "balanced"},
        "next_id": 15,
    }
    return lucky13().read_sheet(document).model_dump(mode="json")


def most_items(system: RulesSystem) -> dict[str, int]:
    """The most items of each list the sheet's own schema allows (Lucky 13: ``MAX_ITEMS``), read from
    its JSON Schema: the sheet's lists, the specializations of a skill and the skills an asset helps."""
    schema = system.sheet_model.model_json_schema()
    limits = {name: field["maxItems"] for name, field in schema["properties"].items() if "maxItems" in field}
    limits["specializations"] = schema["$defs"]["Skill"]["properties"]["specializations"]["maxItems"]
    limits["helped"] = schema["$defs"]["Asset"]["properties"]["skills"]["maxItems"]
    return limits


def fullest_sheet(scale: float = 1.0) -> tuple[dict[str, Any], int]:
    """The fighter with every list of the sheet as long as the sheet allows (``scale`` < 1: that
    share of it, for a quick run): skills, each with its most specializations, backgrounds and
    impairments, assets each helping the most skills, weapons, armor. With its count of items."""
    limits = {key: max(1, int(value * scale)) for key, value in most_items(lucky13()).items()}
    sheet = fighter_sheet()
    next_id = sheet["next_id"]

    def fresh() -> int:
        nonlocal next_id
        next_id += 1
        return next_id - 1

    skills = sheet["skills"][: limits["skills"]]
    skills += [
        {"id": fresh(), "name": f"Lore {i:02}", "ability": "intellect", "die": "d4", "specializations": []}
        for i in range(limits["skills"] - len(skills))
    ]
    for skill in skills:
        known = skill["specializations"]
        added = [{"id": fresh(), "name": f"Trick {j:02}", "level": 1 + j % 5} for j in range(limits["specializations"])]
        skill["specializations"] = (known + added)[: limits["specializations"]]
    helped = [skill["id"] for skill in skills][: limits["helped"]]
    half = limits["traits"] // 2
    sheet.update(
        skills=skills,
        traits=[
            {"id": fresh(), "kind": "background" if i < half else "impairment", "name": f"Past {i:02}"}
            for i in range(limits["traits"])
        ],
        assets=[
            {"id": fresh(), "name": f"Asset {i:02}", "level": 1, "skills": helped} for i in range(limits["assets"])
        ],
        weapons=[
            {"id": fresh(), "name": f"Knife {i:02}", "accuracy": "d4", "damage": "d4"} for i in range(limits["weapons"])
        ],
        armor=[{"id": fresh(), "name": f"Shield {i:02}", "defense": "d4"} for i in range(limits["armor"])],
        next_id=next_id,
    )
    document = lucky13().read_sheet(sheet)
    items = sum(len(items) for items in document.item_lists())
    return document.model_dump(mode="json"), items


# --- The cast -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Cast:
    """The GM of every campaign, the player who owns the characters measured, and the other players."""

    gm: AbstractBaseUser
    player: AbstractBaseUser
    others: tuple[AbstractBaseUser, ...]

    @property
    def players(self) -> tuple[AbstractBaseUser, ...]:
        return (self.player, *self.others)


def cast(prefix: str = "bench") -> Cast:
    users = get_user_model().objects
    gm = users.create_user(f"{prefix}-gm")
    player = users.create_user(f"{prefix}-player")
    others = tuple(users.create_user(f"{prefix}-player-{i}") for i in range(2, 5))
    return Cast(gm, player, others)


def campaign(people: Cast, name: str) -> Campaign:
    made = Campaign.objects.create(name=name, system=SYSTEM, players_call_rolls=True)
    Membership.objects.bulk_create(
        [Membership(campaign=made, user=people.gm, role=Membership.Role.GM)]
        + [Membership(campaign=made, user=user, role=Membership.Role.PLAYER) for user in people.players]
    )
    return made


def character(where: Campaign, owner: AbstractBaseUser, name: str, sheet: dict[str, Any] | None = None) -> Character:
    return Character.objects.create(
        campaign=where, owner=owner, name=name, status=Character.Status.ACTIVE, sheet=sheet or fighter_sheet()
    )


def party(where: Campaign, owners: Sequence[AbstractBaseUser], n: int) -> list[Character]:
    """``n`` active fighters in one INSERT a batch (``bulk_create`` skips ``save()``, which sets the
    system), each holding some Adventure Points, as a party in play does."""
    sheet = fighter_sheet()
    made = Character.objects.bulk_create(
        (
            Character(
                campaign=where,
                owner=owners[i % len(owners)],
                name=f"Hero {i:03}",
                status=Character.Status.ACTIVE,
                system=where.system,
                sheet=sheet,
            )
            for i in range(n)
        ),
        batch_size=BATCH,
    )
    currency = where.rules.currencies[0].key
    Balance.objects.bulk_create(
        (Balance(character=c, currency=currency, amount=i % 13) for i, c in enumerate(made)), batch_size=BATCH
    )
    return made


# --- Histories ----------------------------------------------------------------------------------------


def ledger_entries(hero: Character, gm: AbstractBaseUser, n: int) -> None:
    """``n`` entries: the first an award through ``characters.ledger``, the rest appended after it
    with their running balance, 100 to an adventure; then the balance the last one left."""
    ledger.award(
        campaign_id=hero.campaign_id,
        awards=[ledger.Award(hero.pk, 12)],
        reason="Completing the mission",
        adventure="Chapter 0",
        by=gm,
    )
    currency = LedgerEntry.objects.get(character=hero).currency
    awards = [Award(1 + i % 5, f"Bounty {i}", f"Chapter {i // 100}") for i in range(1, n)]
    append_awards(
        hero.pk, gm.pk, currency, awards, lambda rows: LedgerEntry.objects.bulk_create(rows, batch_size=BATCH)
    )
    ReputationChange.objects.bulk_create(
        # From the fighter's reputation of 1: up one, down one, …
        ReputationChange(
            character=hero, change=-1 if i % 2 else 1, reputation=1 if i % 2 else 2, reason=f"Deed {i}", by=gm
        )
        for i in range(4)
    )


def sheet_changes(hero: Character, by: AbstractBaseUser, n: int) -> None:
    """``n`` changes of the notes: the first through the write path (``characters.write.change``), the
    rest appended after it as it records them (the whole sheet before and after, the next version);
    the character's version and sheet follow the last."""
    sheets = [fighter_sheet(notes=f"Note {v}") for v in range(2)]
    first = write.change(
        hero.pk,
        version=None,
        by=by,
        what="Notes changed on the sheet",
        edit=lambda c: c.document.model_copy(update={"notes": "Note 0"}),
        sections=["notes"],
    )
    versions = range(first.version + 1, first.version + n)
    SheetChange.objects.bulk_create(
        (
            SheetChange(
                character=hero,
                version=version,
                what="Notes changed on the sheet",
                sections=["notes"],
                before=sheets[(version + 1) % 2],
                after=sheets[version % 2],
                by=by,
            )
            for version in versions
        ),
        batch_size=BATCH,
    )
    if versions:
        Character.objects.filter(pk=hero.pk).update(version=versions[-1], sheet=sheets[versions[-1] % 2])


def roll_log(where: Campaign, people: Cast, heroes: Sequence[Character], n: int) -> None:
    """``n`` rolls: a free roll, three checks from a sheet and a secret roll of the GM recorded the
    app's way, then copies of them appended in turn, each chained to the one before (seq, previous
    hash, its own hash), as :func:`play.rolls.record_roll` chains them. The chain is verified."""
    rng = random.Random(13)
    made: list[Roll] = []
    free = {"campaign_id": where.pk, "explode": False, "rng": rng}
    made.append(rolls.roll_free(**free, by=people.player, text="2d6+1", secret=False))
    for hero, situation in zip(
        heroes,
        (
            {"skill": FIGHTING, "difficulty": "moderate"},
            {"specialization": LONGSWORD_SPEC, "difficulty": "difficult"},
            {"skill": 4, "difficulty": "easy"},
        ),
        strict=False,
    ):
        built = sheet_rolls.build(hero, [], situation, gm=False)
        made.append(sheet_rolls.roll(hero, built, by=hero.owner, rng=rng).roll)
    made.append(rolls.roll_free(**free, by=people.gm, text="d20", secret=True))
    made.append(rolls.roll_free(**free, by=people.gm, text="4d6", secret=False))
    last = Roll.objects.filter(campaign=where).order_by("-seq").first()  # the chain's end, as stored
    if last is not None and n > last.seq:
        seqs = range(last.seq + 1, n + 1)
        appended = chained_rolls(where.pk, made, seqs, prev_hash=last.hash, start=last.created_at)
        Roll.objects.bulk_create(appended, batch_size=BATCH)
    if Roll.objects.filter(campaign=where).count() != n or rolls.verify_chain(where) is not None:
        raise RuntimeError(f"the roll log of {where} was not built whole: {n} rolls in an unbroken chain")


def encounter(where: Campaign, gm: AbstractBaseUser, heroes: Sequence[Character], n: int) -> None:
    """A running encounter of ``n`` combatants, through ``play.encounters``: up to eight of the
    party's characters, then goblins in groups as large as the GM's form allows; initiative rolled."""
    ids = {"campaign_id": where.pk, "by": gm}
    fight = encounters.start_encounter(**ids, name="Ambush at the ford")
    ids["encounter_id"] = fight.pk
    joining = [hero.pk for hero in heroes[: min(8, max(1, n // 2))]]
    encounters.add_characters(**ids, character_ids=joining)
    left = n - len(joining)
    while left > 0:
        count = min(left, encounters.MAX_GROUP)
        encounters.add_npcs(**ids, name="Goblin", stats=GOBLIN, count=count)
        left -= count
    encounters.roll_initiative(**ids, rng=random.Random(7))


# --- The pages, each at a small and a large size --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Built:
    """One page at its two sizes: the URLs, and what the size counts (for the table)."""

    key: str
    small: int
    large: int
    urls: tuple[str, str]


def urls(name: str, pair: Sequence[Character | Campaign]) -> tuple[str, str]:
    small, large = pair
    return reverse(name, args=[small.pk]), reverse(name, args=[large.pk])


def build_ledger(people: Cast, where: Campaign, sizes: tuple[int, int]) -> Built:
    heroes = [character(where, people.player, f"Ledger {n}") for n in sizes]
    for hero, n in zip(heroes, sizes, strict=True):
        ledger_entries(hero, people.gm, n)
    return Built("ledger", *sizes, urls("characters:ledger", heroes))


def build_history(people: Cast, where: Campaign, sizes: tuple[int, int]) -> Built:
    heroes = [character(where, people.player, f"History {n}") for n in sizes]
    for hero, n in zip(heroes, sizes, strict=True):
        sheet_changes(hero, people.player, n)
    return Built("history", *sizes, urls("characters:history", heroes))


def build_sheet(people: Cast, where: Campaign, scale: float) -> Built:
    """A fighter and a character with every list as long as the sheet allows, each with the same
    few ledger entries (the sheet shows the latest); sized by the items on the sheet."""
    few = fighter_sheet()
    most, most_count = fullest_sheet(scale)
    heroes = [character(where, people.player, "Few items", few), character(where, people.player, "Most items", most)]
    for hero in heroes:
        ledger_entries(hero, people.gm, 3)
    few_count = sum(len(items) for items in lucky13().read_sheet(few).item_lists())
    return Built("sheet", few_count, most_count, urls("characters:sheet", heroes))


def build_party(people: Cast, sizes: tuple[int, int], feed: int) -> tuple[Built, Built, Built]:
    """Two campaigns whose parties are the two sizes, each with the same short roll log (the
    dashboard's feed): the live dashboard, the campaign page and the GM's award form of each."""
    made = []
    for n in sizes:
        where = campaign(people, f"Party of {n}")
        roll_log(where, people, party(where, people.players, n), feed)
        made.append(where)
    dashboard = Built("dashboard", *sizes, urls("play:dashboard", made))
    award = Built("award", *sizes, urls("characters:award", made))
    return dashboard, Built("campaign", *sizes, urls("campaigns:detail", made)), award


def build_rolls(people: Cast, sizes: tuple[int, int], members: int) -> Built:
    """Two campaigns of the same party whose roll logs are the two sizes."""
    made = []
    for n in sizes:
        where = campaign(people, f"Log of {n}")
        roll_log(where, people, party(where, people.players, members), n)
        made.append(where)
    return Built("rolls", *sizes, urls("play:rolls", made))


def build_encounter(people: Cast, sizes: tuple[int, int], members: int) -> Built:
    """Two campaigns of the same party whose running encounters hold the two numbers of combatants."""
    made = []
    for n in sizes:
        where = campaign(people, f"Fight of {n}")
        encounter(where, people.gm, party(where, people.players, members), n)
        made.append(where)
    return Built("encounter", *sizes, urls("play:encounter", made))
