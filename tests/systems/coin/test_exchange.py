"""Export and import with a system that is not Lucky 13: the tests' Coin game (``tests.systems.coin.system``).

Nothing in ``characters/exchange.py`` names a system: the envelope, its signature and the sheet's
version are the platform's, and what a document nobody vouches for must fit (a fresh creation) and
what starts afresh are the system's (``fresh_problems``, ``afresh``). A Coin character goes through
the export and import pages at every stage and comes back identical; an unsigned one is created
again by Coin's rules; a bad field is a 400 that names it and creates nothing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters import exchange, ledger
from characters.exchange import DocumentError
from characters.models import Character, SheetChange
from tests.characters.test_exchange import build, comparable, export, unsigned, v1_export
from tests.characters.test_exchange import make_campaign as make_lucky13_campaign
from tests.systems.coin import system as coin

pytestmark = pytest.mark.django_db

#: A Coin character at each stage: (status, sheet fields). A draft before its flip has no Nerve; one
#: at the tricks step has flipped; an active one bought Nerve past what creation flips, lost Luck
#: and learned tricks (ids 1 and 2, the next id 3); an archived one likewise.
STAGES: dict[str, tuple[str, dict[str, Any]]] = {
    "draft-at-nerve": ("draft", {"step": "nerve"}),
    "draft-at-tricks": ("draft", {"step": "tricks", "nerve": 2}),
    "active": (
        "active",
        {
            "step": "",
            "nerve": 5,
            "luck": 2,
            "tricks": [{"id": 1, "name": "Double heads"}, {"id": 2, "name": "Sleight of hand"}],
            "notes": "Owes the ferryman a coin.\nTwo, maybe.",
            "next_id": 3,
        },
    ),
    "archived": (
        "archived",
        {"step": "", "nerve": 4, "luck": 0, "tricks": [{"id": 7, "name": "Édith's toss"}], "next_id": 9},
    ),
}


def coin_sheet(**fields: Any) -> dict[str, Any]:
    return coin.Sheet(**fields).model_dump(mode="json")


def make_coin_character(campaign: Campaign, owner: Any, stage: str, *, name: str = "Flip") -> Character:
    status, fields = STAGES[stage]
    return Character.objects.create(
        campaign=campaign, owner=owner, name=name, status=status, sheet=coin_sheet(**fields)
    )


@pytest.fixture
def tails(coin_campaign, gm, player, other_player) -> Campaign:
    """Another Coin campaign, of the same GM and players, whose characters start with 3 Luck."""
    campaign = Campaign.objects.create(name="Tails", system="coin", options={"luck": 3})
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    for member in (player, other_player):
        Membership.objects.create(campaign=campaign, user=member, role=Membership.Role.PLAYER)
    return campaign


def import_url(campaign: Campaign) -> str:
    return reverse("characters:import", args=[campaign.pk])


def errors_of(excinfo: pytest.ExceptionInfo[DocumentError]) -> dict[str, str]:
    return dict(excinfo.value.errors)


def sheet_of(character: Character) -> dict[str, Any]:
    return Character.objects.get(pk=character.pk).document.model_dump(mode="json")


# --- Through the pages: every stage comes back as it was --------------------------------------


@pytest.mark.parametrize("stage", list(STAGES))
def test_a_coin_character_round_trips_through_the_pages(client, coin_campaign, tails, player, stage) -> None:
    original = make_coin_character(coin_campaign, player, stage)
    client.force_login(player)

    downloaded = client.get(reverse("characters:export", args=[original.pk]))
    assert downloaded.status_code == 200
    assert downloaded["Content-Disposition"] == 'attachment; filename="flip.json"'
    document = json.loads(downloaded.content)
    assert (document["system"], document["sheet_version"]) == ("coin", 2)
    assert document["sheet"] == original.sheet
    assert exchange.signed(document)

    response = client.post(import_url(coin_campaign), {"document": downloaded.content.decode()})

    imported = coin_campaign.characters.exclude(pk=original.pk).get()
    assert response.status_code == 302
    assert response["Location"] == reverse("characters:sheet", args=[imported.pk])
    assert (imported.owner, imported.name, imported.status) == (player, "Flip", STAGES[stage][0])
    assert sheet_of(imported) == original.sheet  # Luck too: a signed export is not started afresh
    assert comparable(export(imported)) == comparable(document)
    [message] = [str(m) for m in response.wsgi_request._messages]
    assert message.endswith("Started afresh: Tokens start at 0 (points earned stay with the original character).")


def test_the_imported_character_has_its_own_history_and_no_tokens(coin_campaign, tails, player, gm) -> None:
    original = make_coin_character(coin_campaign, player, "active")
    ledger.award(campaign_id=coin_campaign.pk, awards=[ledger.Award(original.pk, 10)], reason="Luck", by=gm)

    imported = exchange.import_character(campaign=coin_campaign, owner=player, document=export(original))

    assert ledger.balances(imported) == {"tokens": 0}
    [change] = SheetChange.objects.filter(character=imported)
    assert (change.what, change.by, change.after) == ("Imported", player, original.sheet)


def test_the_import_page_of_a_coin_campaign_says_coins_words(client, coin_campaign, player) -> None:
    client.force_login(player)
    response = client.get(import_url(coin_campaign))
    assert response.status_code == 200
    assert "from another Coin campaign" in response.content.decode()
    assert response.context["fresh_rules"] == (
        "Nerve is flipped on the server: a changed document cannot bring it, so leave it out and flip in the campaign.",
        "Such a character starts its play afresh: Luck 5, no Tokens.",
    )


# --- A document nobody vouches for: a fresh creation by Coin's rules ---------------------------


@pytest.mark.parametrize("stage", ["draft-at-tricks", "active", "archived"])
def test_an_unsigned_coin_document_cannot_bring_its_nerve(client, coin_campaign, tails, player, stage) -> None:
    """Nerve is flipped on the server: a player's own document cannot say what the coins showed."""
    document = unsigned(export(make_coin_character(coin_campaign, player, stage)))
    client.force_login(player)

    response = client.post(import_url(tails), {"document": json.dumps(document)})

    assert response.status_code == 400
    assert "signature: this Nerve was not flipped by this Dicehall" in response.content.decode()
    assert not tails.characters.exists()


def test_a_changed_coin_export_is_not_taken_as_it_stands(coin_campaign, tails, player) -> None:
    document = export(make_coin_character(coin_campaign, player, "active"))
    document["sheet"]["nerve"] = 6  # changed under its signature
    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=tails, owner=player, document=document)
    assert "coins are flipped on the server only" in errors_of(excinfo)["signature"]
    assert not tails.characters.exists()


def test_an_unsigned_draft_before_its_flip_joins_as_a_fresh_creation(client, coin_campaign, tails, player) -> None:
    """Its Luck starts afresh at the target's starting Luck, and the page says so."""
    original = make_coin_character(coin_campaign, player, "draft-at-nerve")
    document = unsigned(export(original))
    document["sheet"].update(luck=9, notes="Lucky, once.")
    assert exchange.resets(campaign=tails, document=document, importer=player) == [
        "Luck from 9 to 3",
        "Tokens start at 0 (points earned stay with the original character)",
    ]
    client.force_login(player)

    response = client.post(import_url(tails), {"document": json.dumps(document)})

    assert response.status_code == 302
    imported = tails.characters.get()
    assert imported.status == "draft"
    assert sheet_of(imported) == {**original.sheet, "luck": 3, "notes": "Lucky, once."}
    [message] = [str(m) for m in response.wsgi_request._messages]
    assert message == (
        "Flip joined Tails as a draft. Started afresh: Luck from 9 to 3; Tokens start at 0 (points earned stay with "
        "the original character)."
    )


def test_an_unsigned_active_character_must_be_finished(coin_campaign, tails, player) -> None:
    document = unsigned(export(make_coin_character(coin_campaign, player, "draft-at-nerve")))
    document["status"] = "active"
    document["sheet"]["step"] = ""
    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=tails, owner=player, document=document)
    assert errors_of(excinfo) == {"sheet.nerve": "flip for Nerve first"}
    assert not tails.characters.exists()


def test_the_gm_brings_an_unsigned_document_in_as_it_stands(coin_campaign, tails, gm, player) -> None:
    original = make_coin_character(coin_campaign, player, "active")
    imported = exchange.import_character(campaign=tails, owner=gm, document=unsigned(export(original)))
    assert sheet_of(imported) == original.sheet
    assert exchange.resets(campaign=tails, document=unsigned(export(original)), importer=gm) == [
        "Tokens start at 0 (points earned stay with the original character)"
    ]


def test_a_vouched_for_fresh_coin_creation_flipped_at_most_three() -> None:
    """The rule behind the refusal, for a document whose own signature vouches for its flips."""
    fresh = coin.SYSTEM.read_sheet(coin_sheet(nerve=3, step=""))
    bought = coin.SYSTEM.read_sheet(coin_sheet(nerve=4, step=""))
    options = coin.SYSTEM.default_options()
    assert coin.SYSTEM.fresh_problems(fresh, options, campaign="Tails", rolls_verified=True) == ()
    [problem] = coin.SYSTEM.fresh_problems(bought, options, campaign="Tails", rolls_verified=True)
    assert (problem.field, problem.message) == ("nerve", "a fresh character flips 1 to 3 coins, not 4")


# --- Older sheets, other systems, bad fields ---------------------------------------------------


def test_an_older_coin_sheet_is_migrated_by_coin(coin_campaign, gm) -> None:
    """Coin's sheet version 1 called Nerve ``courage``: the import migrates it."""
    document = unsigned(export(make_coin_character(coin_campaign, gm, "active")))
    sheet = document["sheet"]
    sheet["courage"] = sheet.pop("nerve")
    document.update(sheet_version=1, sheet={**sheet, "schema_version": 1})

    imported = exchange.import_character(campaign=coin_campaign, owner=gm, document=document)

    assert imported.document.nerve == 5
    assert imported.document.schema_version == 2


def test_a_character_moves_only_between_campaigns_of_its_system(gm, coin_campaign, player) -> None:
    lucky13 = make_lucky13_campaign(gm, player, name="The Sunken Crown")
    brunella = build(lucky13, player)
    flip = make_coin_character(coin_campaign, player, "active")
    before = Character.objects.count()
    for document in (export(brunella), v1_export(brunella)):
        with pytest.raises(DocumentError) as excinfo:
            exchange.import_character(campaign=coin_campaign, owner=player, document=document)
        assert errors_of(excinfo) == {
            "system": "Heads plays Coin and this is a Lucky 13 character: a character moves only between "
            "campaigns of the same rules system"
        }
    with pytest.raises(DocumentError, match="system: The Sunken Crown plays Lucky 13 and this is a Coin character"):
        exchange.import_character(campaign=lucky13, owner=player, document=export(flip))
    assert Character.objects.count() == before


def test_a_coin_campaign_reads_no_old_format(coin_campaign, player) -> None:
    """The format before the envelope is Lucky 13's (``legacy_formats``): another schema is no document."""
    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(
            campaign=coin_campaign, owner=player, document={"schema": "coin.character", "schema_version": 1}
        )
    assert errors_of(excinfo) == {
        "format": 'this is not a Dicehall character document ("format" must be "dicehall-character")'
    }
    assert coin.SYSTEM.legacy_formats == ()


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda d: d["sheet"].update(nerve=9), "sheet.nerve", "must be at most 6"),
        (lambda d: d["sheet"].update(luck="lots"), "sheet.luck", "must be a whole number"),
        (lambda d: d["sheet"].update(courage=2), "sheet.courage", "is not expected here"),
        (lambda d: d["sheet"].update(step="flipping"), "sheet.step", "must be empty, nerve or tricks"),
        (lambda d: d["sheet"]["tricks"].append({"id": 1, "name": "Line\nbreak"}), "sheet.tricks.2.name", "one line"),
        (lambda d: d["sheet"]["tricks"][0].update(id=0), "sheet.tricks.0.id", "must be at least 1"),
        (lambda d: d.update(sheet_version=3), "sheet_version", "reads Coin sheets up to version 2"),
        (lambda d: d.update(status="retired"), "status", 'must be one of "draft", "active", "archived"'),
        (lambda d: d.update(system="dice"), "system", 'Heads plays Coin and this is a "dice" character'),
    ],
)
def test_a_bad_coin_document_is_a_400_naming_the_field(client, coin_campaign, player, change, field, message):
    document = export(make_coin_character(coin_campaign, player, "active"))
    change(document)
    before = Character.objects.count()
    client.force_login(player)

    response = client.post(import_url(coin_campaign), {"document": json.dumps(document)})

    assert response.status_code == 400
    errors = response.context["errors"]
    assert any(line.startswith(f"{field}: ") and message in line for line in errors), errors
    assert Character.objects.count() == before
