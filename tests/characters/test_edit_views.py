"""Editing the sheet in place: every section's form for the whole cast, saves, refusals,
bad input, the stale-version conflict, and the htmx fragment against the full page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.shortcuts import resolve_url
from django.urls import reverse

from characters.models import Character, ReputationChange, SheetChange
from rules.dice import StepDie
from rules.systems import lucky13
from tests.characters.conftest import FIGHTING, HEALING, SNEAKING
from tests.characters.helpers import new_row, posted, row

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
D = StepDie.parse
SECTIONS = [section.key for section in lucky13.SYSTEM.edit_sections]
PLAYER_SECTIONS = {"details", "specializations", "traits", "equipment", "notes"}


def edit_url(character: Character, section: str) -> str:
    return reverse("characters:edit-section", args=[character.pk, section])


def spec_names(c: Character) -> list[str]:
    return sorted(spec.name for skill in c.document.skills for spec in skill.specializations)


def spec_levels(c: Character) -> set[tuple[str, int]]:
    return {(spec.name, spec.level) for skill in c.document.skills for spec in skill.specializations}


#: For each section: a change as the form posts it, and what the character then says.
CHANGES: dict[str, tuple[Callable[[Character, dict], dict], Callable[[Character], Any], Any]] = {
    "details": (lambda c, d: {"name": "Brunella the Bold"}, lambda c: c.name, "Brunella the Bold"),
    "abilities": (lambda c, d: {"will": "d12"}, lambda c: c.document.abilities.will, "d12"),
    "skills": (lambda c, d: {f"skill_{FIGHTING}": "d12"}, lambda c: c.document.skill(FIGHTING).die, "d12"),
    "specializations": (lambda c, d: {f"{row(d, 'spec', 'Teleport')}-name": "Blink"}, spec_names,
                        ["Blink", "Fireball", "Longsword"]),
    "traits": (lambda c, d: {f"{row(d, 'trait', 'Soldier')}-name": "Veteran"},
               lambda c: sorted(t.name for t in c.document.traits), ["Bad knee", "Veteran"]),
    "equipment": (lambda c, d: {f"{row(d, 'weapon', 'Longsword')}-accuracy": "d10"},
                  lambda c: c.document.weapons[0].accuracy, "d10"),
    "hit-points": (lambda c, d: {"hit_points": "12"}, lambda c: c.document.hit_points, 12),
    "reputation": (lambda c, d: {"reputation": "-2"}, lambda c: c.document.reputation, -2),
    "notes": (lambda c, d: {"notes": "Paid the ferryman."}, lambda c: c.document.notes, "Paid the ferryman."),
}  # fmt: skip


def post_change(client, character: Character, section: str, *, gm: bool = True, **headers) -> Any:
    make, _, _ = CHANGES[section]
    data = posted(character, section, gm=gm)
    data.update(make(character, data))
    return client.post(edit_url(character, section), data, **headers)


def now(character: Character, section: str) -> Any:
    return CHANGES[section][1](Character.objects.get(pk=character.pk))


# --- The cast --------------------------------------------------------------------------------


@pytest.mark.parametrize("section", SECTIONS)
def test_who_opens_each_form(client, brunella, gm, player, other_player, outsider, section) -> None:
    url = edit_url(brunella, section)
    expected = [(gm, 200), (player, 200 if section in PLAYER_SECTIONS else 403), (other_player, 403), (outsider, 404)]
    for user, status in expected:
        client.force_login(user)
        assert client.get(url).status_code == status, user
    client.logout()
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(resolve_url(settings.LOGIN_URL))


@pytest.mark.parametrize("section", SECTIONS)
def test_the_gm_saves_every_section(client, brunella, gm, section) -> None:
    client.force_login(gm)
    before = now(brunella, section)
    response = post_change(client, brunella, section)
    assert response.status_code == 302
    region = {"reputation": "standing", "specializations": "skills"}.get(section, section)
    assert response["Location"] == f"{reverse('characters:sheet', args=[brunella.pk])}#{region}"
    assert now(brunella, section) == CHANGES[section][2] != before
    saved = Character.objects.get(pk=brunella.pk)
    assert saved.section_versions == {section: brunella.version + 1}
    change = SheetChange.objects.get(character=brunella)  # through the one write path
    assert (change.version, change.sections, change.by) == (saved.version, [section], gm)
    assert ReputationChange.objects.filter(character=brunella).count() == (section == "reputation")


@pytest.mark.parametrize("section", sorted(PLAYER_SECTIONS))
def test_the_owner_saves_the_story_sections(client, brunella, player, section) -> None:
    client.force_login(player)
    response = post_change(client, brunella, section, gm=False, **HTMX)
    assert response.status_code == 200
    assert now(brunella, section) == CHANGES[section][2]


@pytest.mark.parametrize("section", SECTIONS)
def test_a_refused_save_changes_nothing(client, brunella, player, other_player, outsider, section) -> None:
    before = now(brunella, section)
    refused = [(other_player, 403), (outsider, 404)]
    if section not in PLAYER_SECTIONS:
        refused.append((player, 403))
    for user, status in refused:
        client.force_login(user)
        response = post_change(client, brunella, section)
        assert response.status_code == status
        if status == 403:
            assert b"Nothing was changed." in response.content
    client.logout()
    assert post_change(client, brunella, section).status_code == 302
    assert now(brunella, section) == before
    assert Character.objects.get(pk=brunella.pk).version == brunella.version


def test_the_refusal_says_why(client, brunella, player, other_player) -> None:
    client.force_login(player)
    assert "Only the GM can correct the ability dice" in client.get(edit_url(brunella, "abilities")).text
    client.force_login(other_player)
    assert "Only the character&#x27;s player and the GM" in client.get(edit_url(brunella, "notes")).text


def test_archived_characters_are_edited_by_nobody(client, brunella, gm, player) -> None:
    Character.objects.filter(pk=brunella.pk).update(status=Character.Status.ARCHIVED)
    for user in (gm, player):
        client.force_login(user)
        response = client.get(edit_url(brunella, "notes"))
        assert response.status_code == 403
        assert "archived" in response.text
        assert post_change(client, brunella, "notes").status_code == 403
    assert now(brunella, "notes") == brunella.document.notes


def test_a_draft_is_finished_in_the_creation_steps(client, bare_draft, player) -> None:
    client.force_login(player)
    response = client.get(edit_url(bare_draft, "notes"))
    assert response.status_code == 403
    assert "still a draft" in response.text


def test_an_unknown_section_is_not_found(client, brunella, gm) -> None:
    client.force_login(gm)
    assert client.get(edit_url(brunella, "ap-balance")).status_code == 404


# --- The owner's specializations: names only -------------------------------------------------


def test_the_owner_sees_only_names_in_the_specializations_form(client, brunella, player) -> None:
    client.force_login(player)
    response = client.get(edit_url(brunella, "specializations"), **HTMX)
    form = response.text
    assert 'name="spec-0-name"' in form
    assert "-level" not in form
    assert "-remove" not in form
    assert "New specialization" not in form


def test_the_owner_cannot_slip_in_a_level_or_a_new_specialization(client, brunella, player) -> None:
    client.force_login(player)
    data = posted(brunella, "specializations", gm=True)  # the GM's form, posted by the player
    data[f"{row(data, 'spec', 'Teleport')}-level"] = "5"
    response = client.post(edit_url(brunella, "specializations"), data)
    # The player's form has no level field: the level they sent is not read, and nothing changes.
    assert response.status_code == 302
    assert ("Teleport", 2) in spec_levels(Character.objects.get(pk=brunella.pk))
    data = posted(brunella, "specializations", gm=True)
    new = new_row(data, "spec")
    data.update({f"{new}-skill": str(HEALING), f"{new}-name": "Herbalism", f"{new}-level": "1"})
    response = client.post(edit_url(brunella, "specializations"), data)
    assert response.status_code == 403
    assert "Only the GM can add or remove specializations" in response.text
    assert "Herbalism" not in spec_names(Character.objects.get(pk=brunella.pk))


def test_the_gm_adds_levels_and_removes_specializations(client, brunella, gm) -> None:
    client.force_login(gm)
    data = posted(brunella, "specializations")
    new = new_row(data, "spec")
    data.update({
        f"{new}-skill": str(HEALING), f"{new}-name": "Herbalism", f"{new}-level": "2",
        f"{row(data, 'spec', 'Teleport')}-level": "3", f"{row(data, 'spec', 'Fireball')}-remove": "on",
    })  # fmt: skip
    response = client.post(edit_url(brunella, "specializations"), data, **HTMX)
    assert response.status_code == 200
    saved = Character.objects.get(pk=brunella.pk)
    assert spec_levels(saved) == {("Herbalism", 2), ("Teleport", 3), ("Longsword", 1)}
    assert [s.name for s in saved.document.skill(HEALING).specializations] == ["Herbalism"]
    # The skills region comes back, showing the effective stepped dice: Spellcasting d8, Teleport 3 → d12+d4.
    assert 'id="skills"' in response.text
    assert 'Teleport <span class="level" title="level">3</span> → <span class="die-label">d12+d4</span>' in (
        response.text
    )


# --- Bad input: 400, messages next to the fields, nothing saved -------------------------------


def _bad(character: Character, section: str, make: Callable[[dict], dict]) -> dict:
    data = posted(character, section)
    data.update(make(data))
    return data


BAD_INPUT = [
    ("abilities", lambda d: {"will": "d20"}, "will", "A character&#x27;s ability die is d4 … d12."),
    ("abilities", lambda d: {"pulse": "d12+d4"}, "pulse", "A character&#x27;s ability die is d4 … d12."),
    ("specializations", lambda d: {f"{row(d, 'spec', 'Teleport')}-level": "6"}, "spec-1-level",
     "A specialization level is from 1 to 5."),
    ("specializations", lambda d: {f"{row(d, 'spec', 'Teleport')}-name": "Fireball"}, "spec-1-name",
     "Spellcasting already has a specialization called Fireball."),
    ("specializations", lambda d: {f"{row(d, 'spec', 'Teleport')}-name": " "}, "spec-1-name",
     "Each specialization needs a name."),
    ("reputation", lambda d: {"reputation": "7"}, "reputation", "Reputation runs from -5 to +5."),
    ("reputation", lambda d: {"reputation": "lots"}, "reputation", "Enter a whole number."),
    ("hit-points", lambda d: {"hit_points": "31"}, "hit_points", "Hit points run from -8 (dead) to 30 (full)."),
    ("hit-points", lambda d: {"hit_points": "-99999"}, "hit_points", "Hit points run from -8 (dead) to 30 (full)."),
    ("abilities", lambda d: {"pulse": "d6"}, "pulse",
     "Hit points run from -6 to 20 with a d6 Pulse, and Brunella has 30: change the hit points first."),
    ("details", lambda d: {"name": ""}, "name", "A character needs a name."),
    ("traits", lambda d: {f"{row(d, 'trait', 'Soldier')}-name": ""}, "trait-0-name",
     "Each background and impairment needs a name."),
    ("traits", lambda d: {f"{row(d, 'trait', 'Soldier')}-kind": "curse"}, "trait-0-kind",
     "curse is not on the list: choose Background or Impairment."),
    ("equipment", lambda d: {f"{row(d, 'asset', 'Old map')}-skills": ["2", "99"]}, "asset-0-skills",
     "Choose among Brunella&#x27;s skills."),
    ("equipment", lambda d: {f"{row(d, 'asset', 'Old map')}-skills": ["Flying"]}, "asset-0-skills",
     "Choose among the character&#x27;s skills."),
    ("equipment", lambda d: {f"{new_row(d, 'weapon')}-name": "longsword", f"{new_row(d, 'weapon')}-accuracy": "d6"},
     "weapon-1-name", "There is already a weapon called longsword."),
    ("equipment", lambda d: {f"{row(d, 'asset', 'Old map')}-level": "6"}, "asset-0-level", "A level is from 1 to 5."),
    ("equipment", lambda d: {f"{row(d, 'weapon', 'Longsword')}-damage": "d2"}, "weapon-0-damage",
     "A weapon&#x27;s damage die is d4 … d12."),
    ("equipment", lambda d: {f"{row(d, 'armor', 'Leather')}-defense": "d100"}, "armor-0-defense",
     "A defensive die is d4 … d12."),
    ("equipment", lambda d: {f"{new_row(d, 'asset')}-name": "", f"{new_row(d, 'asset')}-level": "5"},
     "asset-2-name", "Each asset needs a name."),
    ("skills", lambda d: {next(k for k in d if k.startswith("skill_")): "d14"}, "skill_", "A skill die is d4 … d12."),
]  # fmt: skip


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_a_die_that_cannot_be_read_and_a_rule_elsewhere_come_together(client, brunella, gm, htmx) -> None:
    client.force_login(gm)
    sheet_before = _everything(brunella)
    data = _bad(brunella, "abilities", lambda d: {"will": "d20", "pulse": "d6"})
    response = client.post(edit_url(brunella, "abilities"), data, **(HTMX if htmx else {}))
    assert response.status_code == 400
    page = response.text
    assert "A character&#x27;s ability die is d4 … d12." in page  # the Will, by its box
    assert "Hit points run from -6 to 20 with a d6 Pulse, and Brunella has 30: change the hit points first." in page
    assert _everything(brunella) == sheet_before


@pytest.mark.parametrize(("section", "make", "field", "message"), BAD_INPUT)
@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "plain"])
def test_bad_input_is_refused_next_to_its_field(client, brunella, gm, section, make, field, message, htmx) -> None:
    client.force_login(gm)
    sheet_before = _everything(brunella)
    response = client.post(edit_url(brunella, section), _bad(brunella, section, make), **(HTMX if htmx else {}))
    assert response.status_code == 400
    page = response.text
    assert message in page
    assert f'id="id_{field}' in page
    assert page.count(message) == 2  # in the summary at the top, and next to the field
    next_to_field = page[: page.rindex(message)]
    assert 'class="field has-error' in next_to_field[next_to_field.rindex('<div class="field') :]
    assert "Nothing was saved." in page
    assert ("<html" in page) is not htmx
    assert _everything(brunella) == sheet_before


def _everything(character: Character) -> tuple:
    c = Character.objects.get(pk=character.pk)
    return c.name, c.sheet, c.version, dict(c.section_versions), SheetChange.objects.filter(character=c).count()


def test_a_bad_save_keeps_what_was_typed_and_the_version_it_was_made_from(client, brunella, gm) -> None:
    client.force_login(gm)
    data = posted(brunella, "notes", {"notes": "x" * 20_001})
    response = client.post(edit_url(brunella, "notes"), data, **HTMX)
    assert response.status_code == 400
    assert "Keep the notes under 20,000 characters." in response.text
    assert f'name="version" value="{data["version"]}"' in response.text
    assert "x" * 20_001 in response.text
    assert now(brunella, "notes") == brunella.document.notes


def test_a_list_without_its_management_form_saves_nothing(client, brunella, gm) -> None:
    client.force_login(gm)
    data = {k: v for k, v in posted(brunella, "equipment").items() if not k.startswith("weapon-")}
    data["armor-0-name"] = "Plate"
    response = client.post(edit_url(brunella, "equipment"), data, **HTMX)
    assert response.status_code == 400
    assert "This form is missing some of its parts: reload the page and try again." in response.text
    assert "ManagementForm" not in response.text
    assert [a.name for a in Character.objects.get(pk=brunella.pk).document.armor] == ["Leather"]


def test_a_form_without_its_version_saves_nothing(client, brunella, gm) -> None:
    client.force_login(gm)
    data = posted(brunella, "notes", {"notes": "Sneaky."})
    del data["version"]
    response = client.post(edit_url(brunella, "notes"), data, **HTMX)
    assert response.status_code == 400
    assert "did not say which version" in response.text
    assert now(brunella, "notes") == brunella.document.notes


# --- No lost work ----------------------------------------------------------------------------


def test_two_saves_from_one_version_the_second_gets_the_current_values(client, brunella, gm, player) -> None:
    opened = posted(brunella, "notes")  # the player and the GM both opened the notes
    client.force_login(gm)
    first = client.post(edit_url(brunella, "notes"), {**opened, "notes": "The GM's notes."}, **HTMX)
    assert first.status_code == 200
    client.force_login(player)
    second = client.post(edit_url(brunella, "notes"), {**opened, "notes": "The player's notes."}, **HTMX)
    assert second.status_code == 409
    page = second.text
    assert "Someone else changed this section since you opened it. Here is what it says now; " in page
    assert "your changes were not saved" in page
    assert ">\nThe GM&#x27;s notes.</textarea>" in page  # the form holds the current values …
    assert "<li>Notes: The player&#x27;s notes.</li>" in page  # … and shows what the player had typed
    saved = Character.objects.get(pk=brunella.pk)
    assert saved.document.notes == "The GM's notes."
    assert f'name="version" value="{saved.section_versions["notes"]}"' in page
    # Redone from the current version, the player's save goes through.
    again = client.post(edit_url(brunella, "notes"), {**posted(brunella, "notes"), "notes": "Both."}, **HTMX)
    assert again.status_code == 200
    assert now(brunella, "notes") == "Both."


def test_a_stale_plain_form_gets_the_page_with_the_message(client, brunella, gm) -> None:
    client.force_login(gm)
    opened = posted(brunella, "specializations")
    teleport = row(opened, "spec", "Teleport")
    assert client.post(edit_url(brunella, "specializations"), {**opened, f"{teleport}-level": "3"}).status_code == 302
    response = client.post(edit_url(brunella, "specializations"), {**opened, f"{teleport}-name": "Blink"})
    assert response.status_code == 409
    assert "<html" in response.text
    assert "Someone else changed this section" in response.text
    assert "Name: Blink" in response.text
    assert spec_levels(Character.objects.get(pk=brunella.pk)) == {("Teleport", 3), ("Fireball", 1), ("Longsword", 1)}


def test_a_stale_save_is_refused_even_with_bad_input(client, brunella, gm) -> None:
    client.force_login(gm)
    opened = posted(brunella, "reputation")
    client.post(edit_url(brunella, "reputation"), {**opened, "reputation": "2"})
    response = client.post(edit_url(brunella, "reputation"), {**opened, "reputation": "9"}, **HTMX)
    assert response.status_code == 409
    assert now(brunella, "reputation") == 2


def test_a_save_to_another_section_from_an_older_page_succeeds(client, brunella, gm, player) -> None:
    notes, details = posted(brunella, "notes"), posted(brunella, "details", gm=False)
    client.force_login(gm)
    assert client.post(edit_url(brunella, "notes"), {**notes, "notes": "GM was here."}, **HTMX).status_code == 200
    client.force_login(player)
    response = client.post(edit_url(brunella, "details"), {**details, "concept": "Knight errant"}, **HTMX)
    assert response.status_code == 200
    saved = Character.objects.get(pk=brunella.pk)
    assert (saved.document.notes, saved.document.concept) == ("GM was here.", "Knight errant")


# --- htmx fragments and full pages -----------------------------------------------------------


def test_edit_opens_as_a_fragment_with_htmx_and_as_a_page_without(client, brunella, player) -> None:
    client.force_login(player)
    url = edit_url(brunella, "details")
    fragment = client.get(url, **HTMX)
    assert fragment.status_code == 200
    assert fragment.text.lstrip().startswith('<section class="sheet-section editing" id="details"')
    assert "<html" not in fragment.text
    assert "HX-Request" in fragment["Vary"]
    page = client.get(url)
    assert "<html" in page.text
    assert '<section class="sheet-section editing" id="details"' in page.text
    assert f'hx-post="{url}"' in fragment.text
    assert "hx-" not in page.text.split("<main")[1]  # on its own page the form posts and returns to the sheet
    for response in (fragment, page):
        text = response.text
        assert f'action="{url}"' in text
        assert 'name="version" value="0"' in text
        assert 'name="name" value="Brunella"' in text
        assert "autofocus" in text
        assert f'href="{reverse("characters:sheet", args=[brunella.pk])}#details"' in text  # Cancel


def test_a_saved_section_comes_back_read_only_with_the_focus_on_its_edit_button(client, brunella, gm) -> None:
    client.force_login(gm)
    response = post_change(client, brunella, "reputation", **HTMX)
    assert response.status_code == 200
    text = response.text
    assert text.lstrip().startswith('<section class="sheet-section" id="standing"')
    assert "<html" not in text
    assert "<form" not in text
    assert "<dd>-2" in text
    assert 'id="edit-reputation" href=' in text
    assert "autofocus" in text


def test_cancel_returns_the_section(client, brunella, player) -> None:
    client.force_login(player)
    url = reverse("characters:sheet-section", args=[brunella.pk, "traits"])
    fragment = client.get(url, **HTMX)
    assert fragment.status_code == 200
    assert fragment.text.lstrip().startswith('<section class="sheet-section" id="traits"')
    assert 'id="edit-traits"' in fragment.text
    assert "autofocus" in fragment.text
    plain = client.get(url)
    assert plain.status_code == 302
    assert plain["Location"] == f"{reverse('characters:sheet', args=[brunella.pk])}#traits"


def test_cancel_is_for_members_only(client, brunella, outsider) -> None:
    client.force_login(outsider)
    assert client.get(reverse("characters:sheet-section", args=[brunella.pk, "traits"]), **HTMX).status_code == 404


# --- Edit buttons on the sheet ---------------------------------------------------------------


def _buttons(client, character: Character) -> set[str]:
    page = client.get(reverse("characters:sheet", args=[character.pk])).text
    return {section for section in SECTIONS if f'id="edit-{section}"' in page}


def test_the_sheet_shows_each_viewer_the_edit_buttons_they_may_use(client, brunella, gm, player, other_player) -> None:
    client.force_login(gm)
    assert _buttons(client, brunella) == set(SECTIONS)
    client.force_login(player)
    assert _buttons(client, brunella) == PLAYER_SECTIONS
    client.force_login(other_player)
    assert _buttons(client, brunella) == set()
    Character.objects.filter(pk=brunella.pk).update(status=Character.Status.ARCHIVED)
    client.force_login(gm)
    assert _buttons(client, brunella) == set()


def test_edit_buttons_are_real_links_that_htmx_swaps_in_place(client, brunella, gm) -> None:
    client.force_login(gm)
    page = client.get(reverse("characters:sheet", args=[brunella.pk])).text
    url = edit_url(brunella, "hit-points")
    assert f'<a class="edit-link" id="edit-hit-points" href="{url}" hx-get="{url}" hx-target="#hit-points"' in page
    for region in ("details", "abilities", "skills", "traits", "equipment", "hit-points", "standing", "notes"):
        assert f'id="{region}"' in page
    assert "autofocus" not in page


def test_an_asset_row_keeps_the_skills_it_helps(client, brunella, player) -> None:
    client.force_login(player)
    data = posted(brunella, "equipment", gm=False)
    otto = row(data, "asset", "Uncle Otto")
    assert sorted(data[f"{otto}-skills"]) == sorted([str(HEALING), str(FIGHTING)])
    data[f"{otto}-skills"] = [str(SNEAKING)]
    data[f"{row(data, 'asset', 'Old map')}-remove"] = "on"
    assert client.post(edit_url(brunella, "equipment"), data).status_code == 302
    assert [(a.name, a.skills) for a in Character.objects.get(pk=brunella.pk).document.assets] == [
        ("Uncle Otto", (SNEAKING,))
    ]


def test_the_asset_form_lists_the_skills_by_name(client, brunella, player) -> None:
    client.force_login(player)
    page = client.get(edit_url(brunella, "equipment"), **HTMX).text
    assert f'value="{HEALING}"' in page
    assert "Healing</label>" in page


def test_the_sheet_shows_the_document(client, brunella, player) -> None:
    client.force_login(player)
    page = client.get(reverse("characters:sheet", args=[brunella.pk])).text
    for text in (
        "Sellsword · played by player", "<strong>Uncle Otto</strong> (person, Standard 3): helps Healing, Fighting",
        "<strong>Longsword</strong>: accuracy d8, damage d8", "<strong>Leather</strong>: defensive die d4",
        "<dd>+1", "Owes the ferryman two silver.",
        f"?skill={FIGHTING}&amp;specialization=",
    ):  # fmt: skip
        assert text in page, text


def test_a_conflict_shows_what_was_typed_by_name(client, brunella, gm, player) -> None:
    opened = posted(brunella, "equipment", gm=False)
    client.force_login(gm)
    assert client.post(edit_url(brunella, "equipment"), {**opened, "weapon-0-name": "Greatsword"}).status_code == 302
    client.force_login(player)
    otto = row(opened, "asset", "Uncle Otto")
    response = client.post(edit_url(brunella, "equipment"), {**opened, f"{otto}-skills": [str(SNEAKING)]}, **HTMX)
    assert response.status_code == 409
    assert "Helps: Sneaking" in response.text
    assert "Level: 3 Standard" in response.text
    assert Character.objects.get(pk=brunella.pk).document.assets[1].skills == (HEALING, FIGHTING)


def test_the_hit_points_form_says_their_range(client, brunella, gm) -> None:
    client.force_login(gm)
    page = client.get(edit_url(brunella, "hit-points"), **HTMX).text
    assert "From 30 (full) down to 1; at 0 or below the character is dying, and dies at -8." in page
    assert 'name="hit_points" value="30"' in page
