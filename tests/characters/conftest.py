"""Finished characters for the sheet tests, built with the ORM (the creation steps have their own tests).

``brunella`` belongs to ``player`` in ``campaign`` (whose GM is ``gm``): the rule text's
fighter, with skills, specializations, backgrounds, an impairment and equipment.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

import pytest
from django.db import connection
from django.urls import reverse

from characters.models import Character
from rules.systems.lucky13.sheet import Sheet

# The browser tests share the calculator tests' browser fixtures (the system Chromium, a page
# with and one without JavaScript, the log of console problems).

#: The campaign's skills (the Fantasy preset, the default) with their dice; ids 1 … 5.
SKILLS = (("Spellcasting", "intellect", "d8"), ("Scholarship", "intellect", "d6"), ("Healing", "will", "d6"),
          ("Sneaking", "reflex", "d8"), ("Fighting", "reflex", "d10"))  # fmt: skip
#: Item ids of Brunella's sheet, for tests that name an item.
SPELLCASTING, SCHOLARSHIP, HEALING, SNEAKING, FIGHTING = 1, 2, 3, 4, 5
TELEPORT, FIREBALL, LONGSWORD_SPEC = 6, 7, 8
SOLDIER, BAD_KNEE, OLD_MAP, UNCLE_OTTO, LONGSWORD, LEATHER = 9, 10, 11, 12, 13, 14


def brunella_sheet(**changes) -> dict:
    """The rule text's fighter as a sheet document (``changes`` replace top-level fields)."""
    specs = {1: [{"id": TELEPORT, "name": "Teleport", "level": 2}, {"id": FIREBALL, "name": "Fireball", "level": 1}],
             5: [{"id": LONGSWORD_SPEC, "name": "Longsword", "level": 1}]}  # fmt: skip
    document = {
        "concept": "Sellsword",
        "abilities": {"will": "d6", "charm": "d4", "pulse": "d8", "intellect": "d6", "reflex": "d10"},
        "skills": [
            {"id": i, "name": name, "ability": ability, "die": die, "specializations": specs.get(i, [])}
            for i, (name, ability, die) in enumerate(SKILLS, 1)
        ],
        "traits": [
            {"id": SOLDIER, "kind": "background", "name": "Soldier", "description": "Ten years."},
            {"id": BAD_KNEE, "kind": "impairment", "name": "Bad knee"},
        ],
        "assets": [
            {"id": OLD_MAP, "name": "Old map", "level": 2, "skills": [SCHOLARSHIP]},
            {"id": UNCLE_OTTO, "name": "Uncle Otto", "kind": "person", "level": 3, "skills": [HEALING, FIGHTING]},
        ],
        "weapons": [{"id": LONGSWORD, "name": "Longsword", "accuracy": "d8", "damage": "d8"}],
        "armor": [{"id": LEATHER, "name": "Leather", "defense": "d4"}],
        "hit_points": 30,
        "reputation": 1,
        "notes": "Owes the ferryman two silver.",
        "creation": {"step": "", "ability_method": "balanced"},
        "next_id": 15,
        **changes,
    }
    return Sheet.model_validate(document).model_dump(mode="json")


def make_character(campaign, owner, *, name: str = "Brunella", status: str = "active", **changes) -> Character:
    """A complete, active character (d8 Pulse: 30 hit points); ``changes`` replace sheet fields."""
    return Character.objects.create(
        campaign=campaign, owner=owner, name=name, status=status, sheet=brunella_sheet(**changes)
    )


@pytest.fixture
def brunella(campaign, player) -> Character:
    return make_character(campaign, player)


@pytest.fixture
def grow() -> Callable[[Character, int], Character]:
    """Adds ``n`` more of everything a sheet lists: skills, each with ``n`` specializations,
    assets (each helping every new skill), backgrounds, weapons and armor."""

    def grow(character: Character, n: int) -> Character:
        doc = character.document
        sheet = doc.model_dump(mode="json")
        next_id = doc.next_id
        skill_ids = []
        for i in range(n):
            specs = [{"id": next_id + 1 + j, "name": f"Trick {j}", "level": 1} for j in range(n)]
            sheet["skills"].append({"id": next_id, "name": f"Extra skill {i}", "die": "d4", "specializations": specs})
            skill_ids.append(next_id)
            next_id += n + 1
        for i in range(n):
            sheet["assets"].append({"id": next_id, "name": f"Asset {i}", "level": 1, "skills": skill_ids})
            sheet["traits"].append({"id": next_id + 1, "kind": "background", "name": f"Past {i}"})
            sheet["weapons"].append({"id": next_id + 2, "name": f"Knife {i}", "accuracy": "d4", "damage": "d4"})
            sheet["armor"].append({"id": next_id + 3, "name": f"Shield {i}", "defense": "d4"})
            next_id += 4
        sheet["next_id"] = next_id
        character.sheet = Sheet.model_validate(sheet).model_dump(mode="json")
        character.save(update_fields=["sheet"])
        return character

    return grow


#: The masked CSRF token differs on every response, whatever the sheet.
CSRF_TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"|"X-CSRFToken": "[^"]+"')


@pytest.fixture
def sheet_page(client) -> Callable[[Character], str]:
    """The sheet page of a character as ``client`` sees it (it answers 200), its CSRF token masked: so the
    same sheet shown to the same viewer is the same text, however often it is drawn."""

    def page(character: Character) -> str:
        response = client.get(reverse("characters:sheet", args=[character.pk]))
        assert response.status_code == 200
        return CSRF_TOKEN.sub("TOKEN", response.text)

    return page


def on_own_connection(job: Callable[[], object], errors: list[BaseException]) -> threading.Thread:
    """``job`` started on a thread of its own (its own connection, closed at the end); what it raises is
    appended to ``errors``, for the test to report."""

    def run() -> None:
        try:
            job()
        except BaseException as error:  # reported by the test
            errors.append(error)
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread
