"""The GM changes the campaign's options; nobody's character loses anything by it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from characters.models import Character
from rules.systems import lucky13
from tests.campaigns.helpers import (
    assert_login_redirect,
    choice_words,
    form_data,
    html,
    make_character,
    options_post,
    saved_rows,
    text,
)

pytestmark = pytest.mark.django_db


def url(campaign: Campaign) -> str:
    return reverse("campaigns:settings", args=[campaign.pk])


def settings_post(campaign: Campaign, **changes) -> dict:
    """The settings form as the GM would send it unchanged, then with ``changes``."""
    options = campaign.settings
    changes.setdefault("skills", saved_rows(options))
    changes.setdefault("name", campaign.name)
    changes.setdefault("description", campaign.description)
    return options_post(system=None, **{**options, **changes})


def with_skills(character: Character, *names: str) -> Character:
    """The character with exactly these skills on their sheet, in this order (ids 1, 2, …)."""
    die = None if character.status == Character.Status.DRAFT else "d6"
    skills = [{"id": i, "name": name, "die": die} for i, name in enumerate(names, 1)]
    character.sheet = {**character.sheet, "skills": skills, "next_id": len(names) + 1}
    character.save(update_fields=["sheet"])
    return character


def skills_of(character: Character) -> list[str]:
    """The names of the character's skills as saved, in sheet order."""
    return [skill.name for skill in Character.objects.get(pk=character.pk).document.skills]


def test_the_gm_sees_the_current_settings(client, gm, campaign) -> None:
    campaign.options = lucky13.validate_options({"explosion": "gritty", "skill_preset": "sci_fi"})
    campaign.save()
    client.force_login(gm)

    response = client.get(url(campaign))

    page = html(response)
    assert response.status_code == 200
    assert 'value="gritty" id="id_explosion_1" required checked' in page
    assert 'name="skills-0-original" value="Technology"' in page
    assert 'name="skills-0-name" value="Technology"' in page
    assert 'name="system"' not in page  # a campaign keeps its system
    assert "A skill that characters have can be renamed, not removed." in page


def test_the_linked_ability_is_offered_in_the_campaigns_own_ability_names_and_saves(client, gm, campaign) -> None:
    names = ["Will", "Charm", "Pulse", "Intellect", "Agility"]
    campaign.options = lucky13.validate_options({"ability_names": names})
    campaign.save()
    client.force_login(gm)
    renamed = {"": "None", **dict(zip(lucky13.ABILITY_KEYS, names, strict=True))}

    page = client.get(url(campaign))

    skills = campaign.settings["skills"]
    for row in range(len(skills) + 2):  # the saved skills and the blank rows
        assert choice_words(page, f"skills-{row}-ability") == renamed
    assert skills[0] == {"name": "Spellcasting", "ability": "intellect", "combat": False}

    response = client.post(url(campaign), form_data(page, **{"skills-0-ability": "reflex"}))

    assert response.status_code == 302
    campaign.refresh_from_db()
    assert campaign.options["skills"][0] == {"name": "Spellcasting", "ability": "reflex", "combat": False}
    assert campaign.options["ability_names"] == names
    assert '<option value="reflex" selected>Agility</option>' in html(client.get(url(campaign)))


def test_players_outsiders_and_visitors_cannot_change_settings(client, player, outsider, campaign) -> None:
    before = campaign.options
    data = settings_post(campaign, explosion="gritty")

    assert_login_redirect(client.get(url(campaign)))
    assert_login_redirect(client.post(url(campaign), data))
    client.force_login(outsider)
    assert client.get(url(campaign)).status_code == 404
    assert client.post(url(campaign), data).status_code == 404
    client.force_login(player)
    assert client.get(url(campaign)).status_code == 403
    response = client.post(url(campaign), data)
    assert response.status_code == 403
    assert "Only the campaign&#x27;s GM can do that." in html(response)

    campaign.refresh_from_db()
    assert campaign.options == before


def test_the_gm_saves_new_settings(client, gm, player, campaign) -> None:
    brunella = with_skills(make_character(campaign, player, "Brunella", pulse=4), "Healing")
    client.force_login(gm)
    before = campaign.last_activity_at

    response = client.post(
        url(campaign),
        settings_post(campaign, name="The Drowned Crown", explosion="gritty",
                      ability_names=["Will", "Charm", "Vigor", "Intellect", "Reflex"]),
        follow=True,
    )  # fmt: skip

    campaign.refresh_from_db()
    assert response.redirect_chain == [(reverse("campaigns:detail", args=[campaign.pk]), 302)]
    assert "The campaign&#x27;s settings are saved." in html(response)
    assert campaign.name == "The Drowned Crown"
    assert campaign.options["explosion"] == "gritty"
    assert campaign.options["ability_names"][2] == "Vigor"
    assert campaign.last_activity_at > before
    # Abilities are stored by key: renaming one changes no sheet.
    brunella.refresh_from_db()
    assert (brunella.document.abilities.pulse, brunella.version, skills_of(brunella)) == ("d10", 1, ["Healing"])


def test_a_skill_characters_have_follows_its_new_name(client, gm, player, campaign) -> None:
    brunella = with_skills(make_character(campaign, player, "Brunella"), "Healing", "Sneaking")
    version = brunella.version
    rows = saved_rows(campaign.settings)
    rows[2]["name"] = "Medicine"  # Healing
    client.force_login(gm)

    response = client.post(url(campaign), settings_post(campaign, skills=rows))

    assert response.status_code == 302
    campaign.refresh_from_db()
    assert [s["name"] for s in campaign.options["skills"]][2] == "Medicine"
    assert skills_of(brunella) == ["Medicine", "Sneaking"]
    brunella.refresh_from_db()
    assert brunella.version == version + 1  # a sheet open from before the rename can't overwrite it


def test_two_skills_can_swap_names(client, gm, player, campaign) -> None:
    brunella = with_skills(make_character(campaign, player, "Brunella"), "Healing", "Sneaking")
    rows = saved_rows(campaign.settings)
    rows[2]["name"], rows[3]["name"] = "Sneaking", "Healing"
    client.force_login(gm)

    response = client.post(url(campaign), settings_post(campaign, skills=rows))

    assert response.status_code == 302
    brunella.refresh_from_db()
    # Each skill keeps its id (and so its die, its specializations, what points at it) under its new name.
    assert [(skill.id, skill.name) for skill in brunella.document.skills] == [(1, "Sneaking"), (2, "Healing")]


def test_a_skill_characters_have_cannot_be_removed(client, gm, player, other_player, campaign) -> None:
    with_skills(make_character(campaign, player, "Brunella"), "Healing")
    with_skills(make_character(campaign, other_player, "Casimir", status="draft"), "Healing")
    before = campaign.options
    rows = saved_rows(campaign.settings)
    rows[2]["DELETE"] = True  # Healing
    client.force_login(gm)

    response = client.post(url(campaign), settings_post(campaign, skills=rows, explosion="gritty"))

    assert response.status_code == 409
    assert "Healing can&#x27;t be removed: Brunella and Casimir have it. Rename it instead, or keep it." in html(
        response
    )
    assert "Nothing was changed" in text(response)
    campaign.refresh_from_db()
    assert campaign.options == before
    assert [skills_of(c) for c in Character.objects.order_by("name")] == [["Healing"], ["Healing"]]


def test_replacing_the_list_with_a_preset_keeps_skills_in_use(client, gm, player, campaign) -> None:
    """A preset that drops a skill in use is a removal too; one that lists it again keeps it."""
    with_skills(make_character(campaign, player, "Brunella"), "Fighting")
    sci_fi = lucky13.preset_skills("sci_fi")
    client.force_login(gm)

    refused = client.post(url(campaign), settings_post(campaign, skills=sci_fi))
    kept = client.post(url(campaign), settings_post(campaign, skills=[*sci_fi, {"name": "Fighting"}]))

    assert refused.status_code == 409
    assert "Fighting can&#x27;t be removed: Brunella has it." in html(refused)
    assert kept.status_code == 302
    campaign.refresh_from_db()
    # The Sci-fi list's own Combat skill fights; Fighting, kept for Brunella, no longer does.
    assert campaign.options["skills"][-1] == {"name": "Fighting", "ability": None, "combat": False}
    assert lucky13.combat_skill_name(campaign.settings) == "Combat"


def test_a_skill_nobody_has_can_be_removed_and_new_ones_added(client, gm, player, campaign) -> None:
    with_skills(make_character(campaign, player, "Brunella"), "Healing")
    rows = saved_rows(campaign.settings)
    rows[0]["DELETE"] = True  # Spellcasting
    rows.append({"name": "Sailing", "ability": "reflex"})
    client.force_login(gm)

    response = client.post(url(campaign), settings_post(campaign, skills=rows))

    assert response.status_code == 302
    campaign.refresh_from_db()
    assert [s["name"] for s in campaign.options["skills"]] == [
        "Scholarship", "Healing", "Sneaking", "Fighting", "Sailing",
    ]  # fmt: skip


def test_a_row_emptied_by_mistake_is_not_a_removal(client, gm, campaign) -> None:
    before = campaign.options
    rows = saved_rows(campaign.settings)
    rows[1]["name"] = ""
    client.force_login(gm)

    response = client.post(url(campaign), settings_post(campaign, skills=rows))

    assert response.status_code == 400
    assert '<p class="field-error" id="id_skills-1-name_error">Needs a name</p>' in html(response)
    campaign.refresh_from_db()
    assert campaign.options == before


def test_hit_points_per_step_are_fixed_once_characters_have_hit_points(client, gm, player, campaign) -> None:
    client.force_login(gm)
    assert client.post(url(campaign), settings_post(campaign, hit_points_per_step=5)).status_code == 302
    make_character(campaign, player, "Brunella", hit_points=12)

    response = client.post(url(campaign), settings_post(campaign, hit_points_per_step=10))

    assert response.status_code == 409
    assert "Characters already have hit points counted at 5 a Pulse step" in html(response)
    campaign.refresh_from_db()
    assert campaign.options["hit_points_per_step"] == 5


def test_an_archived_campaigns_settings_are_read_only(client, gm, campaign) -> None:
    from django.utils import timezone

    campaign.archived_at = timezone.now()
    campaign.save()
    before = campaign.options
    client.force_login(gm)

    page = client.get(url(campaign))
    response = client.post(url(campaign), settings_post(campaign, explosion="gritty"))

    assert page.status_code == 200
    assert "this campaign is read-only" in html(page)
    assert 'name="explosion"' not in html(page)
    assert response.status_code == 409
    assert "This campaign is archived" in html(response)
    campaign.refresh_from_db()
    assert campaign.options == before


def test_with_htmx_a_preset_in_the_settings_keeps_the_identity_of_known_skills(client, gm, campaign) -> None:
    client.force_login(gm)
    data = settings_post(campaign)
    data.pop("save")
    data.update({"fill_skill_preset": "1", "skill_preset": "sci_fi"})

    response = client.post(url(campaign), data, headers={"HX-Request": "true"})

    page = html(response)
    assert response.status_code == 200
    assert page.lstrip().startswith('<div id="system-options">')
    assert 'name="skills-0-original" id="id_skills-0-original"' in page  # Technology is new here
    assert 'name="skills-0-name" value="Technology"' in page
