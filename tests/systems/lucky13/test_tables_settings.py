"""The GM keeps the campaign's tables of backgrounds and impairments in its settings: rows to edit,
blank rows to add (more on request, with htmx just that table), each refusal by its table with
everything typed kept."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from rules.systems import lucky13
from tests.campaigns.helpers import html, options_post, saved_rows, text

pytestmark = pytest.mark.django_db


def url(campaign: Campaign) -> str:
    return reverse("campaigns:settings", args=[campaign.pk])


def settings_post(campaign: Campaign, **changes) -> dict:
    options = campaign.settings
    changes.setdefault("skills", saved_rows(options))
    changes.setdefault("name", campaign.name)
    changes.setdefault("description", campaign.description)
    return options_post(system=None, **{**options, **changes})


def test_the_gm_saves_both_tables_and_sees_them_again(client, gm, campaign) -> None:
    client.force_login(gm)
    data = settings_post(
        campaign,
        background_table=[{"name": " Ex-soldier ", "description": "Served a lord."}, {"name": "Smuggler"}],
        impairment_table=[{"name": "Bad knee"}, {"name": "Phobia: heights", "description": "Never climbs."}],
    )
    response = client.post(url(campaign), data)
    assert response.status_code == 302

    campaign.refresh_from_db()
    assert campaign.options["background_table"] == [
        {"name": "Ex-soldier", "description": "Served a lord."},
        {"name": "Smuggler", "description": ""},
    ]
    assert [e["name"] for e in campaign.options["impairment_table"]] == ["Bad knee", "Phobia: heights"]

    page = html(client.get(url(campaign)))
    assert 'name="background_table-0-name" value="Ex-soldier"' in page
    assert 'name="background_table-0-description" value="Served a lord."' in page
    assert 'name="impairment_table-1-name" value="Phobia: heights"' in page
    assert 'name="background_table-2-name"' in page  # blank rows to add
    assert 'name="background_table-TOTAL_FORMS" value="4"' in page  # two entries, two blank rows
    assert "Background table" in text(client.get(reverse("campaigns:detail", args=[campaign.pk])))


def test_saving_the_form_unchanged_keeps_the_tables(client, gm, campaign) -> None:
    campaign.options = lucky13.validate_options({"impairment_table": [{"name": "Bad knee", "description": "Old"}]})
    campaign.save()
    client.force_login(gm)
    assert client.post(url(campaign), settings_post(campaign)).status_code == 302
    campaign.refresh_from_db()
    assert campaign.options["impairment_table"] == [{"name": "Bad knee", "description": "Old"}]


def test_a_row_is_removed_by_its_box_or_by_emptying_it(client, gm, campaign) -> None:
    campaign.options = lucky13.validate_options({"background_table": [{"name": "A"}, {"name": "B"}, {"name": "C"}]})
    campaign.save()
    client.force_login(gm)
    rows = [{"name": "A", "DELETE": True}, {"name": "", "description": ""}, {"name": "C"}]
    assert client.post(url(campaign), settings_post(campaign, background_table=rows)).status_code == 302
    campaign.refresh_from_db()
    assert campaign.options["background_table"] == [{"name": "C", "description": ""}]


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([{"name": "Smuggler"}, {"name": "smuggler"}], "Background table: the table lists smuggler twice"),
        ([{"name": "x" * 61}], "at most 60 characters"),
        ([{"name": "", "description": "A description without its name"}], "Needs a name"),
    ],
)
def test_a_bad_table_is_said_by_its_table_and_everything_typed_stays(client, gm, campaign, rows, message) -> None:
    client.force_login(gm)
    before = campaign.options
    data = settings_post(campaign, background_table=rows, impairment_table=[{"name": "Kept", "description": "Typed"}])

    response = client.post(url(campaign), data)

    page = html(response)
    assert response.status_code == 400
    assert message in text(response)
    table = re.search(r'<fieldset id="rows-background_table".*?</fieldset>', page, re.S).group(0)
    assert 'class="field-error"' in table
    assert f'name="background_table-0-name" value="{rows[0]["name"]}"' in page or rows[0]["name"] == ""
    assert 'name="impairment_table-0-description" value="Typed"' in page
    campaign.refresh_from_db()
    assert campaign.options == before


def test_more_than_100_entries_are_refused(client, gm, campaign) -> None:
    client.force_login(gm)
    rows = [{"name": f"Past {i}"} for i in range(101)]
    response = client.post(url(campaign), settings_post(campaign, background_table=rows))
    assert response.status_code == 400
    assert "Background table: must have at most 100 entries" in text(response)


def test_more_rows_with_htmx_swaps_just_the_options_and_keeps_what_was_typed(client, gm, campaign) -> None:
    client.force_login(gm)
    data = settings_post(campaign, impairment_table=[{"name": "Bad knee"}, {"name": "Limp", "description": "Typed"}])
    data.pop("save")
    data["more_impairment_table"] = "1"

    response = client.post(url(campaign), data, headers={"HX-Request": "true"})

    page = html(response)
    assert response.status_code == 200
    assert page.lstrip().startswith('<div id="system-options">')
    assert 'name="impairment_table-1-description" value="Typed"' in page
    assert 'name="impairment_table-TOTAL_FORMS" value="7"' in page  # two typed, two blank, three more
    campaign.refresh_from_db()
    assert campaign.settings["impairment_table"] == []  # nothing saved


def test_more_rows_without_javascript_redraws_the_whole_form(client, gm, campaign) -> None:
    client.force_login(gm)
    data = settings_post(campaign, background_table=[{"name": "Smuggler"}], name="Renamed, not saved")
    data.pop("save")
    data["more_background_table"] = "1"

    response = client.post(url(campaign), data)

    page = html(response)
    assert response.status_code == 200
    assert 'value="Renamed, not saved"' in page
    assert 'name="background_table-TOTAL_FORMS" value="6"' in page  # one typed, two blank, three more
    assert 'name="impairment_table-TOTAL_FORMS" value="2"' in page  # the other table: its blank rows


def test_a_new_campaign_may_start_with_its_tables(client, gm) -> None:
    client.force_login(gm)
    data = options_post(background_table=[{"name": "Scholar"}])
    response = client.post(reverse("campaigns:create"), data)
    assert response.status_code == 302
    assert Campaign.objects.get().options["background_table"] == [{"name": "Scholar", "description": ""}]


def test_saving_the_settings_keeps_the_gear_option(client, campaign, gm) -> None:
    """Every option is on the form, so saving it changes only what was changed (gear included)."""

    campaign.options = {**campaign.settings, "gear": "free"}
    campaign.save(update_fields=["options"])
    client.force_login(gm)
    page = client.get(reverse("campaigns:settings", args=[campaign.pk])).text
    assert 'name="gear" value="free"' in page.replace("\n", " ") or 'value="free"' in page
    response = client.post(reverse("campaigns:settings", args=[campaign.pk]), options_post(system=None, gear="free"))
    assert response.status_code == 302, response.text
    campaign.refresh_from_db()
    assert campaign.settings["gear"] == "free"
