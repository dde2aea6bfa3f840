"""D6's code forms show every refusal in one response: each box's own (a code that cannot be read,
a stat out of the campaign's limits, a skill below its stat or above the cap) beside it, and the
step's rules (the dice spent) whenever the codes they count could be read; typed values kept, a
400, nothing saved, with and without htmx."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from characters.models import Character
from rules.systems.d6.sheet import MAX_LUCK
from tests.systems.d6.helpers import made, started, stats_post, step_url

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def text(response) -> str:
    return html.unescape(response.content.decode())


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_every_stat_refusal_comes_in_one_response(client, d6_campaign, player, headers) -> None:
    character = started(client, d6_campaign, player)
    before = (character.version, character.sheet)
    codes = ["3x", "3d+3", "6d", "", "3d", "3d"]
    response = client.post(step_url(character, "stats"), stats_post(character, codes), **headers)
    assert response.status_code == 400
    page = text(response)
    assert "'3x' is not a die code" in page
    assert "three pips make a die, so write 4d" in page
    assert "Mechanical is 6d: a stat is 1d to 5d" in page
    assert "Perception needs a die code" in page
    # The dice spent count codes two boxes could not read: that rule waits for them.
    assert "Spend every stat die" not in page
    for code in ("3x", "3d+3", "6d"):
        assert f'value="{code}"' in page
    character.refresh_from_db()
    assert (character.version, character.sheet) == before


def test_a_stat_out_of_limits_and_the_dice_spent_come_together(client, d6_campaign, player) -> None:
    character = started(client, d6_campaign, player)
    response = client.post(step_url(character, "stats"), stats_post(character, ["6d", "3d", "3d", "3d", "3d", "3d"]))
    assert response.status_code == 400
    page = text(response)
    assert "is 6d: a stat is 1d to 5d" in page
    assert "Spend every stat die: 3d too many" in page
    character.refresh_from_db()
    assert all(stat.code is None for stat in character.document.stats)


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_every_skill_refusal_comes_in_one_response(client, d6_campaign, player, headers) -> None:
    character = started(client, d6_campaign, player)
    assert client.post(step_url(character, "stats"), stats_post(character, ["3d"] * 6)).status_code == 302
    character.refresh_from_db()
    before = (character.version, character.sheet)
    skills = {s.name: s.id for s in character.document.skills}
    data = {
        "version": str(character.version),
        f"skills.{skills['Dodge']}.code": "5d+1",  # above the cap
        f"skills.{skills['Firearms']}.code": "2d",  # below its stat
        f"skills.{skills['Running']}.code": "2d+1",  # below its stat too
        f"skills.{skills['Search']}.code": "four",  # not a code
    }
    response = client.post(step_url(character, "skills"), data, **headers)
    assert response.status_code == 400
    page = text(response)
    assert "at most 2d above Dexterity at creation: 5d at most" in page
    assert "Firearms starts at Dexterity's 3d: a skill is never below its stat" in page
    assert "Running starts at Dexterity's 3d: a skill is never below its stat" in page
    assert "'four' is not a die code" in page
    for code in ("5d+1", "2d", "2d+1", "four"):
        assert f'value="{code}"' in page
    character.refresh_from_db()
    assert (character.version, character.sheet) == before


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_the_gms_correction_shows_every_refusal_at_once(client, d6_campaign, gm, player, headers) -> None:
    talia = made(client, d6_campaign, player)
    before = (talia.version, talia.sheet)
    stats = {s.name: s.id for s in talia.document.stats}
    skills = {s.name: s.id for s in talia.document.skills}
    client.force_login(gm)
    url = reverse("characters:edit-section", args=[talia.pk, "codes"])
    data = {f"stats.{s.id}.code": s.code for s in talia.document.stats}
    data |= {f"skills.{s.id}.code": talia.document.code_of(s.id) for s in talia.document.skills}
    data |= {
        "version": str(talia.section_versions.get("codes", 0)),
        f"stats.{stats['Strength']}.code": "3d+7",
        f"stats.{stats['Knowledge']}.code": "",
        f"skills.{skills['Firearms']}.code": "1d",
    }
    response = client.post(url, data, **headers)
    assert response.status_code == 400
    page = text(response)
    assert "'3d+7' has 7 pips" in page
    assert "Needs a die code." in page
    assert "Firearms starts at Dexterity's 3d: a skill is never below its stat" in page
    assert 'value="3d+7"' in page
    assert 'value="1d"' in page
    talia = Character.objects.get(pk=talia.pk)
    assert (talia.version, talia.sheet) == before


def spent_a_hundred(client, campaign, player) -> Character:
    """Talia, with three luck points left and the most spends an adventure holds already made."""
    talia = made(client, campaign, player)
    spends = [{"id": i, "kind": "double"} for i in range(1, MAX_LUCK + 1)]
    Character.objects.filter(pk=talia.pk).update(
        sheet={**talia.sheet, "luck_points": 3, "luck_spends": spends, "luck_spent": MAX_LUCK}
    )
    talia.refresh_from_db()
    return talia


@pytest.mark.parametrize("headers", [{}, HTMX], ids=["plain", "htmx"])
def test_a_luck_spend_shows_every_refusal_at_once(client, d6_campaign, player, headers) -> None:
    talia = spent_a_hundred(client, d6_campaign, player)
    before = (talia.version, talia.sheet)
    url = reverse("play:move", args=[talia.pk, "spend-luck"])
    version = str(talia.section_versions.get("luck", 0))
    escape = client.post(url, {"version": version, "kind": "escape", "explanation": ""}, **headers)
    assert escape.status_code == 400
    page = text(escape)
    assert f"{MAX_LUCK} luck points are spent this adventure already" in page
    assert "explain how the character got away" in page
    bad = client.post(url, {"version": version, "kind": "reroll", "explanation": "x" * 501}, **headers)
    assert bad.status_code == 400
    page = text(bad)
    assert "reroll is not on the list" in page
    assert "at most 500 characters (it has 501)" in page  # the explanation, by its box
    assert f"{MAX_LUCK} luck points are spent this adventure already" in page
    talia.refresh_from_db()
    assert (talia.version, talia.sheet) == before


def test_a_code_too_long_to_be_one_is_refused_with_the_other_boxes(client, d6_campaign, player) -> None:
    character = started(client, d6_campaign, player)
    long_code = "3d+1 and then some more"
    response = client.post(step_url(character, "stats"), stats_post(character, [long_code, "3x", "", "3d", "3d", "3d"]))
    assert response.status_code == 400
    page = text(response)
    assert f"'{long_code}' is not a die code" in page  # beside its box, in the same response as the others
    assert "'3x' is not a die code" in page
    assert "needs a die code" in page
    assert "at most 12 characters" not in page
    assert f'value="{long_code}"' in page
    character.refresh_from_db()
    assert all(stat.code is None for stat in character.document.stats)
