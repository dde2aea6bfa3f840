"""D6 characters made as a player makes them, for the tests of D6 and for the generic tests that need a
D6 character: ``made`` through the creation pages (Talia: 3d in each stat, Dodge 4d, Firearms 4d+1),
``jericho_of`` through the creation operations; and the addresses of the luck point moves."""

from __future__ import annotations

from django.urls import reverse

from campaigns.models import Campaign
from characters import drafting
from characters.models import Character


def step_url(character: Character, step: str) -> str:
    return reverse("characters:create-step", args=[character.pk, step])


def started(client, campaign, player, name: str = "Talia") -> Character:
    client.force_login(player)
    response = client.post(reverse("characters:create", args=[campaign.pk]), {"name": name})
    character = Character.objects.get(campaign=campaign, name=name)
    assert response.status_code == 302
    assert response.url == step_url(character, "stats")
    return character


def stats_post(character: Character, codes: list[str]) -> dict[str, str]:
    data = {"version": str(character.version)}
    data |= {f"stats.{stat.id}.code": code for stat, code in zip(character.document.stats, codes, strict=True)}
    return data


def made(client, campaign, player, name: str = "Talia") -> Character:
    """Talia (or ``name``), finished: 3d in each stat, Dodge 4d, Firearms 4d+1."""
    character = started(client, campaign, player, name)
    assert client.post(step_url(character, "stats"), stats_post(character, ["3d"] * 6)).status_code == 302
    character.refresh_from_db()
    skills = {s.name: s.id for s in character.document.skills}
    data = {"version": str(character.version), f"skills.{skills['Dodge']}.code": "4d",
            f"skills.{skills['Firearms']}.code": "4d+1"}  # fmt: skip
    assert client.post(step_url(character, "skills"), data).status_code == 302
    character.refresh_from_db()
    data = {"version": str(character.version), "concept": "Scavenger", "notes": "", "gear-TOTAL_FORMS": "0",
            "gear-INITIAL_FORMS": "0"}  # fmt: skip
    response = client.post(step_url(character, "review"), data)
    assert response.status_code == 302, response.text
    character.refresh_from_db()
    return character


def spend_url(character: Character) -> str:
    return reverse("play:move", args=[character.pk, "spend-luck"])


def judge_url(character: Character) -> str:
    return reverse("play:move", args=[character.pk, "judge-luck"])


def grant_url(character: Character) -> str:
    return reverse("play:move", args=[character.pk, "grant-luck"])


def jericho_of(campaign: Campaign, owner) -> Character:
    """Jericho, made through the creation operations: 3d in every stat, Dodge 4d."""
    character = drafting.start(campaign=campaign, owner=owner, name="Jericho")
    stats = {str(s.id): "3d" for s in character.document.stats}
    character = drafting.fill(character_id=character.pk, version=character.version, step="stats",
                              value={"stats": stats}, by=owner)  # fmt: skip
    dodge = next(s.id for s in character.document.skills if s.name == "Dodge")
    character = drafting.fill(character_id=character.pk, version=character.version, step="skills",
                              value={"skills": {str(dodge): "4d"}}, by=owner)  # fmt: skip
    character = drafting.fill(character_id=character.pk, version=character.version, step="review", value={},
                              by=owner)  # fmt: skip
    return drafting.finish(character_id=character.pk, version=character.version, by=owner)
