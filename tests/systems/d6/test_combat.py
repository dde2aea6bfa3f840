"""D6's fights use the skills the campaign's list marks by their role: a character attacks with an attack skill
(melee, ranged, brawling), its best by default, and defends with its best dodge or parry; the attack form
offers only the attack skills (issue: "Talia attacks Mutant 1: Climbing 5d+1")."""

from __future__ import annotations

import pytest

from rules.systems import get
from rules.systems.base import Fighter, SpecError

D6 = get("d6")
OPTIONS = D6.validate_options({})
COMBAT = D6.combat


def climber(options=OPTIONS):
    """3d in every stat; Climbing 5d (her best skill), Firearms 4d+1, Dodge 4d."""
    draft = D6.new_draft(options)
    draft = D6.fill_step(draft, "stats", {"stats": {str(s.id): "3d" for s in draft.stats}}, options)
    ids = {s.name: s.id for s in draft.skills}
    raised = {"Firearms": "4d+1", "Dodge": "4d", "Climbing": "5d"}
    draft = D6.fill_step(draft, "skills", {"skills": {str(ids[k]): v for k, v in raised.items() if k in ids}}, options)
    return D6.finish(D6.fill_step(draft, "review", {}, options), options)


def skill_id(sheet, name: str) -> int:
    return next(s.id for s in sheet.skills if s.name == name)


def test_a_character_attacks_with_its_best_attack_skill_and_defends_with_its_dodge() -> None:
    sheet = climber()
    block = COMBAT.joins(sheet, OPTIONS)
    assert (block.weapon, block.attack, block.defence) == ("Firearms", "4d+1", "4d")  # not Climbing 5d


def test_the_attack_form_offers_only_the_attack_skills_and_refuses_any_other() -> None:
    sheet = climber()
    hero = Fighter(1, "Talia", COMBAT.joins(sheet, OPTIONS), sheet, {}, 7)
    npc = Fighter(2, "Mutant", COMBAT.npc({"attack": "3d", "initiative": "2d"}, OPTIONS))
    offered = [label for _, label in COMBAT.attack_choices([hero, npc], OPTIONS)["skills"]]
    assert offered == ["Talia: Firearms 4d+1", "Talia: Melee combat 3d", "Talia: Missile weapons 3d",
                       "Talia: Thrown weapons 3d", "Talia: Brawling 3d"]  # fmt: skip
    for other in ("Climbing", "Languages", "Computers", "Dodge"):
        with pytest.raises(SpecError, match="attack skills") as refused:
            COMBAT.plan_attack(hero, npc, {"skill": f"7:{skill_id(sheet, other)}"}, OPTIONS)
        assert refused.value.field == "skill"
    brawl = COMBAT.plan_attack(hero, npc, {"skill": f"7:{skill_id(sheet, 'Brawling')}"}, OPTIONS)
    assert "Brawling 3d" in brawl.label


def test_a_campaign_that_renames_its_attack_skills_keeps_their_role() -> None:
    options = D6.validate_options({"stat_preset": "custom", "stat_dice": 6, "initiative_stat": "", "stats": [
        {"name": "Agility", "skills": [{"name": "Blaster", "reaction": False, "combat": "ranged"},
                                       {"name": "Tumble", "reaction": True, "combat": "dodge"},
                                       {"name": "Acrobatics", "reaction": False, "combat": ""}]},
        {"name": "Mind", "skills": [{"name": "Lore", "reaction": False, "combat": ""}]},
    ]})  # fmt: skip
    draft = D6.new_draft(options)
    draft = D6.fill_step(draft, "stats", {"stats": {str(s.id): "3d" for s in draft.stats}}, options)
    ids = {s.name: s.id for s in draft.skills}
    draft = D6.fill_step(draft, "skills", {"skills": {str(ids["Acrobatics"]): "5d"}}, options)
    sheet = D6.finish(D6.fill_step(draft, "review", {}, options), options)
    block = COMBAT.joins(sheet, options)
    assert (block.weapon, block.attack, block.defence) == ("Blaster", "3d", "3d")


def test_a_campaign_that_marks_no_attack_skill_attacks_with_the_best_stat() -> None:
    options = D6.validate_options({"stat_preset": "custom", "stat_dice": 7, "initiative_stat": "", "stats": [
        {"name": "Might", "skills": [{"name": "Lift", "reaction": False, "combat": ""}]},
        {"name": "Wits", "skills": [{"name": "Notice", "reaction": False, "combat": ""}]},
    ]})  # fmt: skip
    draft = D6.new_draft(options)
    stats = {s.name: s.id for s in draft.stats}
    draft = D6.fill_step(draft, "stats", {"stats": {str(stats["Might"]): "4d", str(stats["Wits"]): "3d"}}, options)
    sheet = D6.finish(D6.fill_step(D6.fill_step(draft, "skills", {"skills": {}}, options), "review", {}, options),
                      options)  # fmt: skip
    block = COMBAT.joins(sheet, options)
    assert (block.weapon, block.attack, block.defence) == ("Might", "4d", None)
    assert COMBAT.attack_choices([Fighter(1, "Ana", block, sheet, {}, 3)], options)["skills"] == []


def test_a_luck_points_doubling_doubles_the_initiative_roll_of_its_round() -> None:
    from random import Random

    sheet = climber()
    doubled, _ = D6.spend_luck(sheet, "double", given=OPTIONS)
    plain = Fighter(1, "Talia", COMBAT.joins(sheet, OPTIONS), sheet, {}, 7)
    lucky = Fighter(2, "Jericho", COMBAT.joins(doubled, OPTIONS), doubled, {}, 8)
    rolled = COMBAT.initiative([[plain], [lucky]], OPTIONS, Random(4))
    assert [(log.spec["code"], log.label) for log in rolled.logged] == [
        ("3d", "Initiative for Talia (3d)"),
        ("6d", "Initiative for Jericho (6d, doubled by a luck point)"),
    ]


def test_a_parry_answers_no_ranged_attack() -> None:
    """Rules README: "A parry answers only melee or brawling; a dodge answers anything". The defender's choices
    are shown with the attack's exact chance each."""
    sheet = climber()
    parry = skill_id(sheet, "Melee parry")
    skills = tuple(s.model_copy(update={"code": "4d+2"}) if s.id == parry else s for s in sheet.skills)
    defender = sheet.model_copy(update={"skills": skills})
    hero = Fighter(1, "Talia", COMBAT.joins(sheet, OPTIONS), sheet, {}, 7)
    target = Fighter(2, "Jericho", COMBAT.joins(defender, OPTIONS), defender, {}, 8)
    shot = COMBAT.plan_attack(hero, target, {"skill": f"7:{skill_id(sheet, 'Firearms')}"}, OPTIONS)
    offered = [d["words"] for d in shot.details["defences"]]
    assert offered == ["No dodge or parry: the difficulty 10 stands", "Dodge 4d"]
    with pytest.raises(SpecError, match="cannot answer this attack so") as refused:
        COMBAT.plan_attack(hero, target, {"skill": f"7:{skill_id(sheet, 'Firearms')}", "against": f"8:{parry}"},
                           OPTIONS)  # fmt: skip
    assert refused.value.field == "against"
    blade = COMBAT.plan_attack(hero, target, {"skill": f"7:{skill_id(sheet, 'Melee combat')}"}, OPTIONS)
    assert [d["words"] for d in blade.details["defences"]] == [
        "No dodge or parry: the difficulty 10 stands",
        "Dodge 4d",
        "Melee parry 4d+2",
        "Brawling parry 3d",
    ]
    parried = COMBAT.plan_attack(hero, target, {"skill": f"7:{skill_id(sheet, 'Melee combat')}",
                                                "against": f"8:{parry}"}, OPTIONS)  # fmt: skip
    assert parried.details["defence"] == "4d+2"  # the parry, its target's only use this round
    assert parried.chance == next(d["chance"] for d in blade.details["defences"] if d["value"] == f"8:{parry}")
