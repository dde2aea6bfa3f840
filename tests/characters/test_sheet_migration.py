"""The sheet document migration (characters.0005/0006): every Lucky 13 character of the old
schema — the demo's, and generated ones at every stage — reads back with the same content,
keeping its row ids as item ids; balances, the ledger and the roll log's chain are untouched;
and migrating back gives the very same rows."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction

from campaigns.models import Campaign
from characters import ledger
from characters.models import Character
from games.lucky13 import demo as lucky13_demo  # its data: these migrations knew Lucky 13 only
from play import rolls
from play.models import Roll
from tests.migrations import latest, migrate

BEFORE = [("characters", "0004_ledger_append_only_trigger")]
DICE = ("d4", "d6", "d8", "d10", "d12")
ABILITIES = ("will", "charm", "pulse", "intellect", "reflex")
OLD_TABLES = ("character", "skill", "specialization", "trait", "asset", "asset_skills", "weapon", "armor")
#: Columns that later migrations add to the kept tables (characters.0007: each entry's currency; play.0010: a
#: reroll's roll it follows; play.0013: the key a roll was signed with, found again on the way back).
LATER_COLUMNS = ("currency", "follows", "key_id")
KEPT_TABLES = ("characters_ledgerentry", "characters_reputationchange", "play_roll")


def table(name: str) -> list[tuple[Any, ...]]:
    """Every row of a table, its columns in name order (so that SQLite's rebuilt tables compare)."""
    with connection.cursor() as cursor:
        described = connection.introspection.get_table_description(cursor, name)
        columns = sorted(c.name for c in described if c.name not in LATER_COLUMNS)
        quoted = ", ".join(connection.ops.quote_name(c) for c in columns)
        cursor.execute(f"SELECT {quoted} FROM {name}")
        return sorted(cursor.fetchall(), key=repr)


def snapshot(tables: tuple[str, ...]) -> dict[str, list[tuple[Any, ...]]]:
    return {name: table(name) for name in tables}


def skill_row(skill: Any, rolled: dict[str, int]) -> tuple[Any, ...]:
    specializations = sorted((p.pk, p.name, p.level) for p in skill.specializations.all())
    return (skill.pk, skill.name, skill.ability or None, DICE[skill.die - 1], rolled.get(skill.name), specializations)


def old_content(apps: Any) -> dict[int, dict[str, Any]]:
    """What each old-schema character says, read straight from its rows (independently of the migration)."""
    model = apps.get_model
    out = {}
    for c in model("characters", "Character").objects.order_by("pk"):
        skills = list(model("characters", "Skill").objects.filter(character_id=c.pk).order_by("position", "pk"))
        rolled = dict(zip(c.creation_rolls.get("skill_names", []), c.creation_rolls.get("skills", []), strict=False))
        names = {s.pk: s.name for s in skills}
        out[c.pk] = {
            "name": c.name,
            "status": c.status,
            "ap": c.ap_balance,
            "concept": c.concept,
            "abilities": {k: DICE[getattr(c, k) - 1] if getattr(c, k) else None for k in ABILITIES},
            "skills": [skill_row(s, rolled) for s in skills],
            "traits": sorted(
                (t.pk, t.kind, t.name, t.description)
                for t in model("characters", "Trait").objects.filter(character_id=c.pk)
            ),
            "assets": sorted(
                (a.pk, a.name, a.kind, a.level, sorted(names[s.pk] for s in a.skills.all()), a.description)
                for a in model("characters", "Asset").objects.filter(character_id=c.pk)
            ),
            "weapons": sorted(
                (w.pk, w.name, DICE[w.accuracy - 1], DICE[w.damage - 1])
                for w in model("characters", "Weapon").objects.filter(character_id=c.pk)
            ),
            "armor": sorted(
                (a.pk, a.name, DICE[a.defense - 1])
                for a in model("characters", "Armor").objects.filter(character_id=c.pk)
            ),
            "hit_points": c.hit_points,
            "reputation": c.reputation,
            "notes": c.notes,
            "step": c.creation_step,
            "method": c.ability_method,
            "ability_rolls": list(c.creation_rolls.get("abilities", [])),
            "took_impairment": c.took_impairment,
        }
    return out


def new_content() -> dict[int, dict[str, Any]]:
    """The same, from each character's sheet document as its system reads it."""
    out = {}
    for c in Character.objects.order_by("pk"):
        doc = c.document  # read (and so validated) by the system's sheet model
        names = {s.id: s.name for s in doc.skills}
        out[c.pk] = {
            "name": c.name,
            "status": c.status,
            "ap": ledger.balance(c),
            "concept": doc.concept,
            "abilities": {k: getattr(doc.abilities, k) for k in ABILITIES},
            "skills": [
                (s.id, s.name, s.ability, s.die, s.rolled, sorted((p.id, p.name, p.level) for p in s.specializations))
                for s in doc.skills
            ],
            "traits": sorted((t.id, t.kind, t.name, t.description) for t in doc.traits),
            "assets": sorted(
                (a.id, a.name, a.kind, a.level, sorted(names[i] for i in a.skills), a.description) for a in doc.assets
            ),
            "weapons": sorted((w.id, w.name, w.accuracy, w.damage) for w in doc.weapons),
            "armor": sorted((a.id, a.name, a.defense) for a in doc.armor),
            "hit_points": doc.hit_points,
            "reputation": doc.reputation,
            "notes": doc.notes,
            "step": doc.creation.step,
            "method": doc.creation.ability_method,
            "ability_rolls": list(doc.creation.ability_rolls),
            "took_impairment": doc.creation.took_impairment,
        }
        assert c.system == c.campaign.system
        assert doc.next_id > max(
            [s.id for s in doc.skills] + [p.id for s in doc.skills for p in s.specializations]
            + [i.id for group in (doc.traits, doc.assets, doc.weapons, doc.armor) for i in group],
            default=0,
        )  # fmt: skip
    return out


def generate(apps: Any, campaign: Campaign, owner: Any, count: int, seed: int) -> None:
    """``count`` old-schema characters at every stage: drafts at each step (some with the server's
    d100s on record), active ones with advanced values, archived ones."""
    rng = random.Random(seed)
    model = apps.get_model
    steps = ("abilities", "skills", "specializations", "traits", "equipment", "review")
    for n in range(count):
        status = ("draft", "active", "archived")[n % 3]
        # Archived drafts (a removed player's) keep their step.
        step = steps[n % len(steps)] if status == "draft" or (status == "archived" and n % 5 == 0) else ""
        has_skills = not step or steps.index(step) >= 2
        rung = {k: rng.randint(1, 5) for k in ABILITIES}
        pulse = rung["pulse"] if has_skills else None
        method = rng.choice(["random", "balanced", "specialized"])
        skill_names = [f"Skill {i}" for i in range(rng.randint(1, 6))]
        rolls: dict[str, Any] = {}
        if method == "random":
            rolls["abilities"] = [rng.randint(1, 100) for _ in ABILITIES]
        if has_skills and rng.random() < 0.5:
            rolls["skills"] = [rng.randint(1, 100) for _ in skill_names]
            rolls["skill_names"] = skill_names
        character = model("characters", "Character").objects.create(
            campaign_id=campaign.pk, owner_id=owner.pk, name=f"Generated {n} “Ünïcode”", status=status,
            concept=rng.choice(["", "A wandering scholar", "Smuggler, née Kessel"]), creation_step=step,
            ability_method=method if step != "abilities" else "", creation_rolls=rolls,
            took_impairment=rng.random() < 0.3, reputation=rng.randint(-5, 5), notes="line one\nline two" * (n % 2),
            ap_balance=rng.randint(0, 40), hit_points=(rng.randint(-2, 10) if pulse else None),
            **({k: rung[k] for k in ABILITIES} if has_skills else {}),
        )  # fmt: skip
        if not has_skills:
            continue
        skills = [
            model("characters", "Skill").objects.create(
                character=character, name=name, position=i, ability=rng.choice([*ABILITIES, ""]), die=rng.randint(1, 5)
            )
            for i, name in enumerate(skill_names)
        ]
        for skill in skills:
            for j in range(rng.randint(0, 2)):
                model("characters", "Specialization").objects.create(
                    skill=skill, name=f"Trick {j}", level=rng.randint(1, 5)
                )
        for kind in ("background", "impairment"):
            for j in range(rng.randint(0, 2)):
                model("characters", "Trait").objects.create(
                    character=character, kind=kind, name=f"{kind} {j}", description="Why" * j
                )
        for j in range(rng.randint(0, 2)):
            asset = model("characters", "Asset").objects.create(
                character=character, name=f"Asset {j}", kind=rng.choice(["thing", "person"]), level=rng.randint(1, 5)
            )
            asset.skills.set(rng.sample(skills, rng.randint(0, len(skills))))
        for j in range(rng.randint(0, 2)):
            model("characters", "Weapon").objects.create(
                character=character, name=f"Blade {j}", accuracy=rng.randint(1, 5), damage=rng.randint(1, 5)
            )
        if rng.random() < 0.5:
            model("characters", "Armor").objects.create(character=character, name="Coat", defense=rng.randint(1, 5))


@pytest.mark.django_db(transaction=True)
def test_every_character_becomes_a_document_and_back(gm, player) -> None:
    lucky13_demo.load()
    demo = Campaign.objects.get(system="lucky13")
    try:
        old_apps = migrate(BEFORE)  # the demo's characters, as rows again
        other = Campaign.objects.create(name="Generated", system="lucky13", options={})
        generate(old_apps, other, player, count=30, seed=13)
        # Rows ids of different tables overlap: an item id is unique within its kind only.
        before_rows = snapshot(tuple(f"characters_{t}" for t in OLD_TABLES))
        kept = snapshot(KEPT_TABLES)
        content = old_content(old_apps)
        assert len(content) >= 30
        assert any(c["skills"] for c in content.values() if c["status"] == "draft")

        migrate(latest())
        assert new_content() == content
        assert snapshot(KEPT_TABLES) == kept
        for campaign in (demo, other):
            assert rolls.check_chain(campaign).broken is None
        assert Roll.objects.filter(campaign=demo).count() == len(kept["play_roll"])

        migrate(BEFORE)
        assert snapshot(tuple(f"characters_{t}" for t in OLD_TABLES)) == before_rows
        assert snapshot(KEPT_TABLES) == kept
    finally:
        migrate(latest())
    assert new_content() == content


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_sheet_history_is_append_only_in_the_database(campaign, player) -> None:
    from characters import write

    character = Character.objects.create(campaign=campaign, owner=player, name="Ada", status="active", sheet={})
    with transaction.atomic():
        locked = write.lock(character.pk)
        write.write(locked, locked.document, by=player, what="Nothing at all", status="draft")
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE characters_sheetchange SET what = 'forged'")
    Character.objects.filter(pk=character.pk).update(status="active")
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM characters_sheetchange")
    Character.objects.filter(pk=character.pk).update(status="archived")  # a removed player's unfinished draft
    from characters.models import SheetChange

    SheetChange.objects.discard_draft(character)
    assert not SheetChange.objects.filter(character=character).exists()
