"""Export and import are each other's inverse, for every Lucky 13 character at every stage.

Sheets are generated: drafts at each creation step, active characters with advanced values
(raised dice, specialization levels, damage, reputation), archived ones. Each goes through
export → import into another campaign and comes back with the same document, name and status.
A character's old-format (version 1) export imports to exactly its new export.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from characters import exchange
from characters.models import Character
from rules.dice import StepDie
from rules.systems import lucky13
from tests.characters.test_exchange import approved, comparable, export, make_campaign, v1_export
from tests.strategies import free_text, names, unique_names

pytestmark = pytest.mark.django_db

DICE = ("d4", "d6", "d8", "d10", "d12")
STEPS = ("abilities", "skills", "specializations", "traits", "equipment", "review")
EXAMPLES = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


def up(label: str, steps: int) -> str:
    return DICE[min(DICE.index(label) + steps, len(DICE) - 1)]


@st.composite
def sheets(draw: st.DrawFn, options: dict[str, Any], status: str, *, legacy: bool = False) -> dict[str, Any]:
    """A sheet of ``status``; a draft at a drawn step, with what the steps before it chose.

    ``legacy``: only what the version-1 format can carry (it did not say a draft's step, so a
    draft shows its step by what it holds; every skill was rolled, or none; ids in its order).
    """
    finished = status != "draft"
    step = "" if finished else draw(st.sampled_from(STEPS))

    def done(key: str) -> bool:
        return finished or STEPS.index(step) > STEPS.index(key)

    advanced = finished and draw(st.booleans())
    sheet = lucky13.SYSTEM.new_draft(options).model_dump(mode="json")
    sheet["concept"] = draw(st.one_of(st.just(""), names))
    creation = sheet["creation"]
    creation["step"] = step
    if done("abilities"):
        method = draw(st.sampled_from(("random", "balanced", "specialized")))
        creation["ability_method"] = method
        raise_by = st.integers(0, 2) if advanced else st.just(0)
        if method == "random":
            rolls = draw(st.lists(st.integers(1, 100), min_size=5, max_size=5))
            creation["ability_rolls"] = rolls
            dice = [lucky13.ability_from_percentile(roll).label for roll in rolls]
        else:
            dice = draw(st.lists(st.sampled_from(DICE), min_size=5, max_size=5))
        sheet["abilities"] = {k: up(d, draw(raise_by)) for k, d in zip(lucky13.ABILITY_KEYS, dice, strict=True)}
    next_id = len(sheet["skills"]) + 1
    if done("skills"):
        rolled = draw(st.booleans())
        for skill in sheet["skills"]:
            if rolled:
                skill["rolled"] = draw(st.integers(1, 100))
                skill["die"] = up(lucky13.ability_from_percentile(skill["rolled"]).label, draw(st.integers(0, 1)))
            else:
                skill["die"] = draw(st.sampled_from(DICE))
    if done("specializations"):
        for number, skill in enumerate(sheet["skills"]):
            least = 1 if legacy and step == "traits" and number == 0 else 0
            for spec in draw(unique_names(least, 2)):
                level = draw(st.integers(1, 5)) if advanced else 1
                skill["specializations"].append({"id": next_id, "name": spec, "level": level})
                next_id += 1
    if done("traits"):
        backgrounds = draw(unique_names(1 if legacy and step == "equipment" else 0, 2))
        impairments = draw(unique_names(0, 2))
        for kind, listed in (("background", backgrounds), ("impairment", impairments)):
            for name in listed:
                sheet["traits"].append({"id": next_id, "kind": kind, "name": name, "description": draw(free_text)})
                next_id += 1
        creation["took_impairment"] = bool(impairments) and draw(st.booleans())
    if done("equipment"):
        skill_ids = [skill["id"] for skill in sheet["skills"]]
        for name in draw(unique_names(0, 2)):
            helped = draw(st.lists(st.sampled_from(skill_ids), unique=True, max_size=3))
            sheet["assets"].append(
                {"id": next_id, "name": name, "kind": draw(st.sampled_from(("thing", "person"))),
                 "level": draw(st.integers(1, 5)), "skills": helped, "description": draw(free_text)}
            )  # fmt: skip
            next_id += 1
        for name in draw(unique_names(1 if legacy and step == "review" else 0, 2)):
            sheet["weapons"].append(
                {"id": next_id, "name": name, "accuracy": draw(st.sampled_from(DICE)),
                 "damage": draw(st.sampled_from(DICE))}
            )  # fmt: skip
            next_id += 1
        for name in draw(unique_names(0, 2)):
            sheet["armor"].append({"id": next_id, "name": name, "defense": draw(st.sampled_from(DICE))})
            next_id += 1
    if finished:
        pulse = StepDie.parse(sheet["abilities"]["pulse"])
        top = lucky13.max_hit_points(pulse, options["hit_points_per_step"])
        sheet["hit_points"] = draw(st.integers(lucky13.death_threshold(pulse), top)) if advanced else top
        sheet["reputation"] = draw(st.integers(-5, 5)) if advanced else 0
    sheet["notes"] = draw(free_text)
    sheet["next_id"] = next_id if legacy else next_id + draw(st.integers(0, 3))
    return lucky13.SYSTEM.read_sheet(sheet).model_dump(mode="json")


@st.composite
def characters(draw: st.DrawFn, options: dict[str, Any], *, legacy: bool = False) -> tuple[str, str, dict]:
    stage = draw(st.sampled_from(("draft", "active") if legacy else ("draft", "active", "archived", "archived draft")))
    status, _, draft = stage.partition(" ")  # a draft archived when its player left stays a draft
    return draw(names), status, draw(sheets(options, draft or status, legacy=legacy))


@pytest.fixture
def second(gm, player):
    return make_campaign(gm, player, name="The Drowned Road")


@EXAMPLES
@given(data=st.data())
def test_every_character_comes_back_as_it_was_exported(campaign, second, player, data) -> None:
    name, status, sheet = data.draw(characters(campaign.settings))
    original = Character.objects.create(campaign=campaign, owner=player, name=name, status=status, sheet=sheet)
    document = export(original)

    imported = approved(exchange.import_character(campaign=second, owner=player, document=document))

    imported.refresh_from_db()
    assert (imported.name, imported.status) == (name, status)
    assert imported.document.model_dump(mode="json") == sheet
    assert comparable(export(imported)) == comparable(document)


@EXAMPLES
@given(data=st.data())
def test_an_old_format_export_migrates_to_exactly_the_new_export(campaign, second, gm, player, data) -> None:
    name, status, sheet = data.draw(characters(campaign.settings, legacy=True))
    original = Character.objects.create(campaign=campaign, owner=player, name=name, status=status, sheet=sheet)

    imported = approved(exchange.import_character(campaign=second, owner=gm, document=v1_export(original)))

    assert comparable(export(imported)) == comparable(export(original))
