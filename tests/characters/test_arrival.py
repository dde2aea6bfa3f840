"""A character from elsewhere is this campaign's GM's call.

An export is signed for the campaign it came from: imported there it joins as it stands; imported
into any other campaign (or brought by the GM in any form) it arrives as a draft that waits for the
GM, who approves it as it stands or has it checked as a fresh creation under the campaign's rules,
in one click from the campaign page; the player sees which on the sheet and in its history.
"""

from __future__ import annotations

import copy
import json
from html import unescape

import pytest
from django.core import signing
from django.urls import reverse

from campaigns.models import Campaign
from characters import drafting, exchange
from characters.models import Character, SheetChange
from tests.campaigns.helpers import text
from tests.characters.test_exchange import build, export, make_campaign, played, unsigned

pytestmark = pytest.mark.django_db


@pytest.fixture
def elsewhere(gm, player, other_player):
    """Another campaign of the same system and options, run by the same GM."""
    return make_campaign(gm, player, other_player, name="The Drowned Road")


def decide(client, character: Character, decision: str):
    return client.post(
        reverse("characters:decide-awaiting", args=[character.pk]),
        {"item": "arrival", "decision": decision, "back": "campaign"},
    )


def test_an_export_names_the_campaign_it_was_signed_for(campaign, player) -> None:
    document = export(build(campaign, player))
    assert document["campaign"] == campaign.pk
    assert exchange.signed(document)
    assert not exchange.signed({**document, "campaign": campaign.pk + 1})


def test_imported_into_the_campaign_it_came_from_it_joins_as_it_stands(campaign, player) -> None:
    original = played(build(campaign, player))
    imported = exchange.import_character(campaign=campaign, owner=player, document=export(original))
    assert (imported.status, imported.arrival, imported.awaiting) == ("active", None, 0)
    assert imported.document == original.document


def test_imported_into_another_campaign_it_waits_for_the_gm(campaign, elsewhere, player) -> None:
    original = played(build(campaign, player))
    imported = exchange.import_character(campaign=elsewhere, owner=player, document=export(original))
    imported.refresh_from_db()
    assert imported.status == "draft"
    assert imported.arrival == {
        "status": "active",
        "from": "an export of The Sunken Crown",
        "rolls_verified": True,
        "left": [],
        "differs": [],
        "origin": exchange.carried(campaign.rules, campaign.settings),
    }
    assert imported.awaiting == 1
    assert imported.document == original.document  # held as it stands, nothing started afresh yet


def test_the_gm_approves_it_as_it_stands_in_one_click_from_the_campaign_page(
    client, campaign, elsewhere, gm, player
) -> None:
    original = played(build(campaign, player))
    imported = exchange.import_character(campaign=elsewhere, owner=player, document=export(original))
    client.force_login(gm)
    page = text(client.get(reverse("campaigns:detail", args=[elsewhere.pk])))
    assert "Brunella played by player · a draft" in page
    assert "Imported from an export of The Sunken Crown as an active character" in page
    assert "Approve as it stands for Brunella" in page
    assert "Check as a fresh creation for Brunella" in page

    response = decide(client, imported, "approve")

    assert response.status_code == 302
    assert response["Location"] == reverse("campaigns:detail", args=[elsewhere.pk]) + "#awaiting-gm"
    imported.refresh_from_db()
    assert (imported.status, imported.arrival, imported.awaiting) == ("active", None, 0)
    assert imported.document == original.document
    last = SheetChange.objects.filter(character=imported).latest("version")
    assert (last.what, last.by) == ("Approved as it stands by the GM (an export of The Sunken Crown)", gm)


def test_the_gm_has_it_checked_as_a_fresh_creation_and_the_player_sees_which(
    client, campaign, elsewhere, gm, player
) -> None:
    imported = exchange.import_character(
        campaign=elsewhere, owner=player, document=export(played(build(campaign, player)))
    )
    client.force_login(player)
    waiting = text(client.get(reverse("characters:sheet", args=[imported.pk])))
    assert "Waiting for the GM: imported from an export of The Sunken Crown." in waiting
    client.force_login(gm)

    response = decide(client, imported, "fresh")

    assert response.status_code == 302
    imported.refresh_from_db()
    assert (imported.status, imported.arrival) == ("active", None)
    sheet = imported.document
    assert (sheet.hit_points, sheet.reputation, sheet.skills[0].specializations[0].level) == (40, 0, 1)
    client.force_login(player)
    history = text(client.get(reverse("characters:history", args=[imported.pk])))
    assert "Checked as a fresh creation of The Drowned Road by the GM: Teleport (Spellcasting) from level 3" in history
    assert "Waiting for the GM" not in text(client.get(reverse("characters:sheet", args=[imported.pk])))


def test_a_made_up_sheet_cannot_be_laundered_through_a_campaign_of_ones_own(client, campaign, gm, player) -> None:
    """The player runs a campaign of their own, brings a made-up sheet in there as its GM, approves it,
    exports it (now signed) and imports it into the GM's campaign: it waits for that GM, and checked as
    a fresh creation it is refused, with nothing changed."""
    own = make_campaign(player, name="My own table")
    made_up = copy.deepcopy(export(build(campaign, player)))
    made_up["sheet"]["abilities"] = dict.fromkeys(made_up["sheet"]["abilities"], "d12")
    for skill in made_up["sheet"]["skills"]:
        skill["die"] = "d12"
        for spec in skill["specializations"]:
            spec["level"] = 5
    made_up["sheet"]["hit_points"] = 50
    held = exchange.import_character(campaign=own, owner=player, document=unsigned(made_up))
    assert (held.status, held.arrival["from"]) == ("draft", "a document this Dicehall did not sign")
    laundered = export(exchange.decide_arrival(character_id=held.pk, approve=True, by=player)[0])

    imported = exchange.import_character(campaign=campaign, owner=player, document=laundered)

    assert (imported.status, imported.arrival["from"]) == ("draft", "an export of My own table")
    with pytest.raises(exchange.ArrivalRefused) as refused:
        exchange.decide_arrival(character_id=imported.pk, approve=False, by=gm)
    assert refused.value.status == 400
    assert any("balanced" in message or "array" in message for message in refused.value.messages)
    imported.refresh_from_db()
    assert (imported.status, imported.arrival["status"]) == ("draft", "active")
    client.force_login(gm)
    response = decide(client, imported, "fresh")
    assert response.status_code == 400
    assert "Nothing was changed." in text(response)


def test_the_gms_own_import_waits_unless_signed_for_this_campaign(campaign, elsewhere, gm, player) -> None:
    document = export(played(build(campaign, player)))
    at_home = exchange.import_character(campaign=campaign, owner=gm, document=document)
    assert (at_home.status, at_home.arrival) == ("active", None)
    for brought in (document, unsigned(document)):
        held = exchange.import_character(campaign=elsewhere, owner=gm, document=brought)
        assert (held.status, held.arrival["status"]) == ("draft", "active")


def test_only_the_gm_decides_and_only_once(client, campaign, elsewhere, gm, player) -> None:
    imported = exchange.import_character(campaign=elsewhere, owner=player, document=export(build(campaign, player)))
    version = imported.version
    client.force_login(player)
    assert decide(client, imported, "approve").status_code == 403
    client.force_login(gm)
    assert decide(client, imported, "keep").status_code == 400
    imported.refresh_from_db()
    assert (imported.status, imported.version) == ("draft", version)
    assert decide(client, imported, "approve").status_code == 302
    assert decide(client, imported, "fresh").status_code == 409
    imported.refresh_from_db()
    assert imported.status == "active"


def test_a_waiting_import_cannot_be_finished_by_its_player(campaign, elsewhere, player) -> None:
    imported = exchange.import_character(campaign=elsewhere, owner=player, document=export(build(campaign, player)))
    with pytest.raises(drafting.Conflict, match="waits for the GM's decision"):
        drafting.finish(character_id=imported.pk, version=imported.version, by=player)
    imported.refresh_from_db()
    assert imported.status == "draft"


def test_the_import_page_tells_the_player_it_waits_for_the_gm(client, campaign, elsewhere, player) -> None:
    document = export(build(campaign, player))
    client.force_login(player)
    response = client.post(reverse("characters:import", args=[elsewhere.pk]), {"document": json.dumps(document)})
    assert response.status_code == 302
    [message] = [str(m) for m in response.wsgi_request._messages]
    assert message.startswith("Brunella joined The Drowned Road as a draft that waits for the GM")


def test_another_players_copy_waits_for_the_gm_even_in_the_same_campaign(campaign, gm, player, other_player) -> None:
    document = export(played(build(campaign, player)))
    assert document["player"] == player.pk
    assert not exchange.signed({**document, "player": other_player.pk})

    copied = exchange.import_character(campaign=campaign, owner=other_player, document=document)

    assert (copied.status, copied.arrival["from"]) == (
        "draft",
        "an export of another player's character of The Sunken Crown",
    )
    by_gm = exchange.import_character(campaign=campaign, owner=gm, document=document)
    assert (by_gm.status, by_gm.arrival) == ("active", None)


def test_an_import_into_a_campaign_with_other_options_says_what_plays_differently(client, campaign, gm, player) -> None:
    """Skills are matched by name: the GM and the player see what differs before it is accepted."""
    from tests.characters.test_exchange import SCI_FI

    starfall = make_campaign(gm, player, name="Starfall", skill_preset="sci_fi", skills=SCI_FI)
    document = export(build(campaign, player))
    imported = exchange.import_character(campaign=starfall, owner=player, document=document)
    differs = imported.arrival["differs"]
    assert "Spellcasting is not a skill here" in differs
    assert "the sheet has no Astrogation, a skill here" in differs
    assert "no skill of the sheet fights here: Combat is the skill that does" in differs
    client.force_login(gm)
    page = text(client.get(reverse("campaigns:detail", args=[starfall.pk])))
    assert "what plays differently here: Spellcasting is not a skill here;" in page
    client.force_login(player)
    sheet = text(client.get(reverse("characters:sheet", args=[imported.pk])))
    assert "What plays differently here: Spellcasting is not a skill here;" in sheet


def test_the_same_options_make_no_differences(campaign, elsewhere, player) -> None:
    imported = exchange.import_character(campaign=elsewhere, owner=player, document=export(build(campaign, player)))
    assert imported.arrival["differs"] == []


def test_the_import_page_says_which_exports_wait_for_the_gm(client, elsewhere, player) -> None:
    client.force_login(player)
    page = text(client.get(reverse("characters:import", args=[elsewhere.pk])))
    assert "an export of The Drowned Road imported by its own player joins at once" in page
    assert "joins as a draft that waits for the GM of The Drowned Road" in page


#: A campaign that counts 8 hit points a Pulse step, spells two skills its own way, links Spellcasting to
#: Will, has Lore where the Fantasy list has Scholarship, and fights with Fighting.
OTHER_SKILLS = [
    {"name": "Spell casting", "ability": "will"},
    {"name": "Lore", "ability": "intellect"},
    {"name": "Healing", "ability": "will"},
    {"name": "sneaking", "ability": "reflex"},
    {"name": "Fighting", "ability": "reflex", "combat": True},
]
#: What an export of Brunella (Pulse d10, 17 of 40 hit points after play) says in that campaign.
SAID = [
    "hit points are counted at 8 a Pulse step here and at 10 where the character comes from: 17 of 40 become 9 of 32 "
    "(the 23 taken stay taken)",
    "Spellcasting takes this campaign's spelling, Spell casting, and is linked to Will here (Intellect on the sheet)",
    "Scholarship is not a skill here",
    "Sneaking takes this campaign's spelling, sneaking",
    "the sheet has no Lore, a skill here",
]


def test_an_import_says_each_change_and_the_gms_approval_takes_it_in_by_this_campaigns_rules(
    client, campaign, gm, player
) -> None:
    """Exported from a campaign of 10 hit points a step, imported into one of 8 with other skill spellings
    and links: the player and the GM read each change before it is accepted; approved, the sheet has this
    campaign's skills and its hit points counted again, and its history says so."""
    marsh = make_campaign(gm, player, name="The Marsh", hit_points_per_step=8, skills=OTHER_SKILLS)
    original = played(build(campaign, player))  # Pulse d10: 17 of 40 hit points
    document = export(original)
    assert document["options"] == {"hit_points_per_step": 10, "skills": campaign.settings["skills"]}
    client.force_login(player)

    response = client.post(reverse("characters:import", args=[marsh.pk]), {"document": json.dumps(document)})

    assert response.status_code == 302
    [message] = [str(m) for m in response.wsgi_request._messages]
    assert "what plays differently here: " + "; ".join(SAID) in message
    assert "The GM approves it, and it is taken in as said, or has it checked as a fresh creation" in message
    imported = Character.objects.get(campaign=marsh)
    assert imported.arrival["differs"] == SAID
    assert imported.document == original.document  # it waits as it came, counted as it was there
    sheet_page = unescape(text(client.get(reverse("characters:sheet", args=[imported.pk]))))
    assert "What plays differently here: " + "; ".join(SAID) + ". The GM approves it, and it is taken in as said," in (
        sheet_page
    )
    client.force_login(gm)
    campaign_page = unescape(text(client.get(reverse("campaigns:detail", args=[marsh.pk]))))
    assert "what plays differently here: " + "; ".join(SAID) in campaign_page
    assert "Approve for Brunella" in campaign_page

    response = decide(client, imported, "approve")

    assert response.status_code == 302
    [approved_message] = [str(m) for m in response.wsgi_request._messages]
    assert approved_message.startswith("Brunella: approved. Changed as it joined: hit points counted at 8 a Pulse step")
    imported.refresh_from_db()
    assert (imported.status, imported.arrival) == ("active", None)
    sheet = imported.document
    assert [(s.name, s.ability) for s in sheet.skills] == [
        ("Spell casting", "will"),
        ("Scholarship", "intellect"),  # not here: as it was
        ("Healing", "will"),
        ("sneaking", "reflex"),
        ("Fighting", "reflex"),
    ]
    assert [s.id for s in sheet.skills] == [s.id for s in original.document.skills]
    assert sheet.hit_points == 9
    assert marsh.rules.vitals(sheet, marsh.settings).tracks[0].maximum == 32
    last = SheetChange.objects.filter(character=imported).latest("version")
    assert last.what == (
        "Approved by the GM (an export of The Sunken Crown): hit points counted at 8 a Pulse step: 17 of 40 now 9 of "
        "32; Spellcasting now Spell casting, linked to Will; Sneaking now sneaking"
    )
    assert (last.before["hit_points"], last.after["hit_points"]) == (17, 9)
    client.force_login(player)
    history = text(client.get(reverse("characters:history", args=[imported.pk])))
    assert "hit points counted at 8 a Pulse step: 17 of 40 now 9 of 32" in history


def test_a_character_at_full_hit_points_from_a_higher_rate_waits_and_joins_at_full(
    client, campaign, gm, player
) -> None:
    """40 hit points do not fit a d10 Pulse at 5 a step: the export waits as it was counted where it came
    from, and the GM's approval counts it at 20 of 20."""
    small = make_campaign(gm, player, name="Small", hit_points_per_step=5)
    imported = exchange.import_character(campaign=small, owner=player, document=export(build(campaign, player)))
    assert imported.document.hit_points == 40
    assert imported.arrival["differs"] == [
        "hit points are counted at 5 a Pulse step here and at 10 where the character comes from: 40 of 40 become 20 "
        "of 20 (full stays full)"
    ]
    client.force_login(gm)  # the pages show the waiting draft as it came
    for page in (
        reverse("characters:sheet", args=[imported.pk]),
        reverse("campaigns:detail", args=[small.pk]),
        reverse("play:dashboard", args=[small.pk]),
    ):
        assert client.get(page).status_code == 200
    decided, changed = exchange.decide_arrival(character_id=imported.pk, approve=True, by=gm)
    assert (decided.status, decided.document.hit_points) == ("active", 20)
    assert changed == ["hit points counted at 5 a Pulse step: 40 of 40 now 20 of 20"]


def test_checked_as_a_fresh_creation_its_skills_are_matched_by_name_first(client, campaign, gm, player) -> None:
    """The campaign's creation rules read the campaign's spellings: a sheet matched by name passes them."""
    spelled = [{**row, "name": row["name"].upper()} for row in campaign.settings["skills"]]
    loud = make_campaign(gm, player, name="Loud", skills=spelled)
    imported = exchange.import_character(campaign=loud, owner=player, document=export(build(campaign, player)))
    client.force_login(gm)

    assert decide(client, imported, "fresh").status_code == 302

    imported.refresh_from_db()
    assert [s.name for s in imported.document.skills] == [row["name"] for row in spelled]
    last = SheetChange.objects.filter(character=imported).latest("version")
    assert last.what.startswith("Checked as a fresh creation of Loud by the GM: Spellcasting now SPELLCASTING; ")


def test_an_export_made_before_exports_carried_options_reads_its_campaigns(campaign, gm, player) -> None:
    """An older export without ``options`` still imports, signed as it was: with the options of the
    campaign it names, as they are now (what a sheet is counted by does not change once it has characters)."""
    marsh = make_campaign(gm, player, name="The Marsh", hit_points_per_step=8)
    original = played(build(campaign, player))
    older = {key: value for key, value in export(original).items() if key not in ("options", "signature")}
    canonical = json.dumps(older, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    older["signature"] = signing.Signer(salt="dicehall.characters.exchange.envelope").signature(canonical)
    assert exchange.signed(older)

    imported = exchange.import_character(campaign=marsh, owner=player, document=older)
    assert imported.arrival["origin"] == {"hit_points_per_step": 10, "skills": campaign.settings["skills"]}
    assert imported.arrival["differs"][0].startswith("hit points are counted at 8 a Pulse step here and at 10")

    roomy = make_campaign(gm, player, name="Roomy", hit_points_per_step=20)
    Campaign.objects.filter(pk=campaign.pk).update(options={"hit_points_per_step": 20})
    assert exchange.import_character(campaign=roomy, owner=player, document=older).arrival["differs"] == []


def test_an_options_field_that_is_not_an_object_is_refused(campaign, gm, player) -> None:
    document = {**export(build(campaign, player)), "options": [10]}
    with pytest.raises(exchange.DocumentError) as refused:
        exchange.import_character(campaign=campaign, owner=gm, document=document)
    assert refused.value.errors == [("options", "must be an object ({…})")]


def test_the_history_line_names_the_changes_it_has_room_for_and_counts_the_rest(campaign, gm, player) -> None:
    loud = make_campaign(
        gm,
        player,
        name="Loud",
        hit_points_per_step=8,
        skills=[{**row, "name": row["name"].upper()} for row in campaign.settings["skills"]],
    )
    imported = exchange.import_character(campaign=loud, owner=player, document=export(build(campaign, player)))
    assert len(imported.arrival["differs"]) == 6  # the hit points and five spellings, each said in full

    exchange.decide_arrival(character_id=imported.pk, approve=True, by=gm)

    what = SheetChange.objects.filter(character=imported).latest("version").what
    assert what == (
        "Approved by the GM (an export of The Sunken Crown): hit points counted at 8 a Pulse step: 40 of 40 now 32 of "
        "32; Spellcasting now SPELLCASTING; Scholarship now SCHOLARSHIP; and 3 more"
    )
    assert len(what) <= SheetChange._meta.get_field("what").max_length
