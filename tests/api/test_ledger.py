"""The Adventure-Point endpoints: the ledger as members see it, the GM's awards and corrections,
purchases by the owner or the GM, and bad input refused with nothing changed."""

from __future__ import annotations

import pytest
from django.test import override_settings

from campaigns.models import Campaign
from characters import ledger
from characters.ledger import Award
from characters.models import Character, LedgerEntry
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.base import Currency
from tests.characters.conftest import FIGHTING, HEALING, LONGSWORD_SPEC, SNEAKING, make_character

pytestmark = pytest.mark.django_db

D = StepDie.parse


@pytest.fixture
def brunella(campaign, player) -> Character:
    return make_character(campaign, player)


def user(request: pytest.FixtureRequest, name: str | None):
    return request.getfixturevalue(name) if name else None


def fund(character: Character, gm, amount: int) -> LedgerEntry:
    (entry,) = ledger.award(
        campaign_id=character.campaign_id, awards=[Award(character.pk, amount)], reason="Completing the mission", by=gm
    ).entries
    character.refresh_from_db()
    return entry


def state(character: Character) -> tuple[int, int, int, dict]:
    """What a refused request must leave as it was: the balance, the entries, the sheet and its version."""
    character.refresh_from_db()
    return ledger.balance(character), LedgerEntry.objects.count(), character.version, character.sheet


def specializations(character: Character) -> dict[str, int]:
    character.refresh_from_db()
    return {p.name: p.level for s in character.document.skills for p in s.specializations}


# --- Who may read, award, correct and buy ---------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "read", "award", "buy"),
    [
        ("gm", 200, 201, 201),
        ("player", 200, 403, 201),
        ("other_player", 200, 403, 403),
        ("outsider", 404, 404, 404),
        (None, 401, 401, 401),
    ],
)
def test_the_cast(api, request, brunella, gm, who, read, award, buy) -> None:
    earned = fund(brunella, gm, 20)
    client = api(user(request, who))
    response = client.get(f"/characters/{brunella.pk}/ledger")
    assert response.status_code == read
    if read == 200:
        assert response.json()["balance"] == 20
        assert [e["id"] for e in response.json()["entries"]] == [earned.pk]

    response = client.post(f"/characters/{brunella.pk}/ledger", {"amount": 5, "reason": "A heroic act"})
    assert response.status_code == award
    assert response.json()["code" if award != 201 else "balance"]
    brunella.refresh_from_db()
    assert ledger.balance(brunella) == (25 if award == 201 else 20)
    response = client.post(f"/characters/{brunella.pk}/ledger", {"reverses": earned.pk, "reason": "By mistake"})
    assert response.status_code == award
    brunella.refresh_from_db()
    assert ledger.balance(brunella) == (5 if award == 201 else 20)

    before = ledger.balance(brunella)
    response = client.post(
        f"/characters/{brunella.pk}/purchases", {"offer": f"specialization:{HEALING}", "name": "Herbs"}
    )
    assert response.status_code == buy
    brunella.refresh_from_db()
    assert ledger.balance(brunella) == (before - 4 if buy == 201 else before)
    assert ("Herbs" in specializations(brunella)) is (buy == 201)


def test_a_draft_is_hidden_from_other_players(api, campaign, player, other_player) -> None:
    draft = make_character(campaign, player, name="Draft", status=Character.Status.DRAFT)
    assert api(other_player).get(f"/characters/{draft.pk}/ledger").status_code == 404
    assert api(player).get(f"/characters/{draft.pk}/ledger").status_code == 200


@pytest.mark.parametrize("bad_id", [0, -3, 2**63, "x"])
def test_an_id_that_cannot_be_a_row_is_a_422(api, gm, bad_id) -> None:
    client = api(gm)
    assert client.get(f"/characters/{bad_id}/ledger").status_code == 422
    assert client.post(f"/characters/{bad_id}/ledger", {"amount": 5, "reason": "x"}).status_code == 422
    assert client.post(f"/characters/{bad_id}/purchases", {"offer": "ability:will"}).status_code == 422


# --- The ledger -----------------------------------------------------------------------------------


def test_the_ledger_lists_every_entry_newest_first_with_the_running_balance(api, brunella, gm, player) -> None:
    earned = fund(brunella, gm, 30)
    spent = ledger.buy(character_id=brunella.pk, order=ledger.Order(f"level:{LONGSWORD_SPEC}"), by=player)
    undone = ledger.correct(character_id=brunella.pk, entry_id=spent.pk, reason="Wrong sword", by=gm)
    data = api(player).get(f"/characters/{brunella.pk}/ledger").json()
    assert data["balance"] == 30
    assert [(e["id"], e["kind"], e["amount"], e["balance"]) for e in data["entries"]] == [
        (undone.pk, "correction", 4, 30),
        (spent.pk, "spend", -4, 26),
        (earned.pk, "award", 30, 30),
    ]
    correction, spend, award = data["entries"]
    assert (correction["reverses"], spend["reversed_by"], award["reversed_by"]) == (spent.pk, undone.pk, None)
    assert spend["purchase"] == {
        "offer": f"level:{LONGSWORD_SPEC}", "kind": "level", "cost": 4, "before": 1, "after": 2,
        "skill_id": FIGHTING, "skill": "Fighting", "specialization_id": LONGSWORD_SPEC, "name": "Longsword",
    }  # fmt: skip
    assert (spend["by"], award["by"], award["reason"]) == ("player", "gm", "Completing the mission")
    assert award["created_at"]


# --- Awards and corrections -----------------------------------------------------------------------


def test_the_gm_awards_points(api, brunella, gm) -> None:
    body = {"amount": 12, "reason": "Completing the mission", "adventure": "The Drowned Abbey"}
    response = api(gm).post(f"/characters/{brunella.pk}/ledger", body)
    assert response.status_code == 201
    entry = LedgerEntry.objects.get()
    assert response.json() == {
        "entry": {
            "id": entry.pk,
            "kind": "award",
            "currency": "ap",
            "amount": 12,
            "balance": 12,
            "reason": "Completing the mission",
            "adventure": "The Drowned Abbey",
            "by": "gm",
            "created_at": response.json()["entry"]["created_at"],
            "reverses": None,
            "reversed_by": None,
            "purchase": {},
        },
        "balance": 12,
        "currency": "ap",
    }
    brunella.refresh_from_db()
    assert ledger.balance(brunella) == 12


def test_the_gm_corrects_an_entry_and_a_spend_gives_back_what_it_bought(api, brunella, gm, player) -> None:
    fund(brunella, gm, 10)
    bought = api(player).post(f"/characters/{brunella.pk}/purchases", {"offer": f"level:{LONGSWORD_SPEC}", "before": 1})
    assert bought.status_code == 201
    assert bought.json()["balance"] == 6
    assert specializations(brunella)["Longsword"] == 2
    response = api(gm).post(
        f"/characters/{brunella.pk}/ledger", {"reverses": bought.json()["entry"]["id"], "reason": "Bought by mistake"}
    )
    assert response.status_code == 201
    assert response.json()["entry"]["kind"] == "correction"
    assert response.json()["entry"]["reverses"] == bought.json()["entry"]["id"]
    assert response.json()["balance"] == 10
    assert specializations(brunella)["Longsword"] == 1
    again = api(gm).post(
        f"/characters/{brunella.pk}/ledger", {"reverses": bought.json()["entry"]["id"], "reason": "Twice"}
    )
    assert (again.status_code, again.json()["code"]) == (409, "conflict")


def test_correcting_an_entry_of_another_character_is_a_404(api, campaign, brunella, gm, other_player) -> None:
    otto = make_character(campaign, other_player, name="Otto")
    theirs = fund(otto, gm, 10)
    response = api(gm).post(f"/characters/{brunella.pk}/ledger", {"reverses": theirs.pk, "reason": "x"})
    assert response.status_code == 404
    assert LedgerEntry.objects.count() == 1


def test_an_archived_campaign_takes_no_awards(api, brunella, gm) -> None:
    Campaign.objects.filter(pk=brunella.campaign_id).update(archived_at="2026-01-01T00:00:00Z")
    response = api(gm).post(f"/characters/{brunella.pk}/ledger", {"amount": 5, "reason": "x"})
    assert response.status_code == 409
    assert not LedgerEntry.objects.exists()


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"amount": 1001, "reason": "x"}, 422),
        ({"amount": -1001, "reason": "x"}, 422),
        ({"amount": 10**30, "reason": "x"}, 422),
        ({"amount": 12.5, "reason": "x"}, 422),
        ({"amount": "12", "reason": "x"}, 422),
        ({"amount": True, "reason": "x"}, 422),
        ({"amount": None, "reason": "x"}, 422),
        ({"amount": 12}, 422),
        ({"amount": 12, "reason": "x" * 201}, 422),
        ({"amount": 12, "reason": "x\x00"}, 422),  # NUL: the pages' forms refuse it, and PostgreSQL cannot store it
        ({"amount": 12, "reason": "x", "adventure": "\x00"}, 422),
        ({"amount": 12, "reason": "x", "points": 3}, 422),  # an unknown field
        ({"amount": 12, "reason": "x", "reverses": 1}, 422),  # an award or a correction, not both
        ({"reverses": "1", "reason": "x"}, 422),
        ({"reverses": 0, "reason": "x"}, 422),
        ({"reverses": 1}, 422),
        ({}, 422),
        ([12], 422),
        ("12", 422),
        ({"amount": -5, "reason": "x"}, 422),  # an award adds points (1 … 1000)
        ({"amount": 0, "reason": "x"}, 422),
        ({"amount": 12, "reason": "   "}, 400),
        ({"reverses": 999999, "reason": "x"}, 404),
        ({"reverses": "EARNED", "reason": "  "}, 400),  # a correction needs a reason
    ],
)
def test_a_bad_award_or_correction_changes_nothing(api, brunella, gm, body, status) -> None:
    earned = fund(brunella, gm, 10)
    if isinstance(body, dict) and body.get("reverses") == "EARNED":
        body = {**body, "reverses": earned.pk}
    before = state(brunella)
    response = api(gm).post(f"/characters/{brunella.pk}/ledger", body)
    assert response.status_code == status
    assert response.json()["code"]
    assert response.json()["message"]
    assert state(brunella) == before


# --- Purchases ------------------------------------------------------------------------------------


def test_buying_an_ability_and_a_new_specialization(api, brunella, gm, player) -> None:
    fund(brunella, gm, 40)
    response = api(player).post(
        f"/characters/{brunella.pk}/purchases", {"offer": "ability:will", "before": D("d6").rung}
    )
    assert response.status_code == 201
    assert (response.json()["entry"]["amount"], response.json()["balance"]) == (-24, 16)  # d6 × 4
    assert response.json()["entry"]["reason"] == "Will d6 → d8"
    brunella.refresh_from_db()
    assert brunella.document.abilities.will == "d8"
    response = api(gm).post(
        f"/characters/{brunella.pk}/purchases",
        {"offer": f"specialization:{SNEAKING}", "name": "Rooftops", "adventure": "Night"},
    )
    assert response.status_code == 201
    assert (response.json()["balance"], response.json()["entry"]["adventure"]) == (12, "Night")
    assert response.json()["entry"]["purchase"]["specialization_id"] == 15
    assert specializations(brunella)["Rooftops"] == 1


def test_too_few_points_is_a_409_and_nothing_is_bought(api, brunella, gm, player) -> None:
    fund(brunella, gm, 3)
    before = state(brunella)
    response = api(player).post(f"/characters/{brunella.pk}/purchases", {"offer": f"level:{LONGSWORD_SPEC}"})
    assert response.status_code == 409
    assert response.json()["code"] == "not_enough_points"
    assert "has 3 Adventure Points; this needs 4" in response.json()["message"]
    assert state(brunella) == before


def test_a_dead_character_buying_pulse_is_a_409_and_nothing_is_spent(api, campaign, gm, player) -> None:
    casimir = make_character(campaign, player, name="Casimir", hit_points=-8)  # d8 Pulse: dead at −8
    fund(casimir, gm, 40)
    before = state(casimir)
    response = api(player).post(f"/characters/{casimir.pk}/purchases", {"offer": "ability:pulse", "before": 3})
    assert response.status_code == 409
    assert "The character is dead: Adventure Points buy training, not healing" in response.json()["message"]
    assert state(casimir) == before


def test_a_purchase_from_a_stale_sheet_is_a_409(api, brunella, gm, player) -> None:
    fund(brunella, gm, 20)
    before = state(brunella)
    response = api(player).post(
        f"/characters/{brunella.pk}/purchases", {"offer": f"level:{LONGSWORD_SPEC}", "before": 2}
    )
    assert response.status_code == 409
    assert response.json()["code"] == "stale_version"
    assert response.json()["now"]["id"] == brunella.pk  # the character as it is now, as every stale version says
    assert state(brunella) == before


def test_an_archived_character_buys_nothing(api, brunella, gm, player) -> None:
    fund(brunella, gm, 20)
    Character.objects.filter(pk=brunella.pk).update(status=Character.Status.ARCHIVED)
    before = state(brunella)
    response = api(player).post(f"/characters/{brunella.pk}/purchases", {"offer": "ability:will"})
    assert response.status_code == 403
    assert state(brunella) == before


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"kind": "level", "skill": "Fighting", "name": "Longsword"}, 422),  # things are named by id, in an offer
        ({"name": "Axe"}, 422),
        ({"offer": "ability:will", "skill": "Fighting"}, 422),  # not a field of a purchase
        ({"offer": "ability:will", "before": "2"}, 422),
        ({"offer": "ability:will", "before": 10_001}, 422),
        ({"offer": "ability:will", "before": -1}, 422),
        ({"offer": 5}, 422),
        ({"offer": "level 8"}, 422),
        ({"offer": "Level:8"}, 422),
        ({"offer": "level:" + "9" * 80}, 422),
        ({"offer": "level:8\x00"}, 422),
        ({"offer": f"specialization:{FIGHTING}", "name": "x" * 61}, 422),
        ({"offer": f"specialization:{FIGHTING}", "name": "A\x00xe"}, 422),
        ({"offer": f"specialization:{FIGHTING}", "name": "Axe", "adventure": "x" * 121}, 422),
        ([{"offer": "ability:will"}], 422),
        ({"offer": "ability:luck"}, 400),
        ({"offer": "skill:5"}, 400),
        ({"offer": "level:999"}, 400),
        ({"offer": f"level:{FIGHTING}"}, 400),  # a skill's id is no specialization's
        ({"offer": "specialization:999", "name": "Axe"}, 400),
        ({"offer": f"level:{LONGSWORD_SPEC}", "name": "Axe"}, 400),  # only a new specialization takes a name
        ({"offer": f"specialization:{FIGHTING}", "name": "Longsword"}, 400),  # already there
        ({"offer": f"specialization:{FIGHTING}", "name": "   "}, 400),
        ({"offer": f"specialization:{FIGHTING}"}, 400),
        ({"offer": "ability:reflex", "before": 4}, 409),  # d10 → d12 costs 40
    ],
)
def test_a_bad_purchase_changes_nothing(api, brunella, gm, player, body, status) -> None:
    fund(brunella, gm, 10)
    before = state(brunella)
    response = api(player).post(f"/characters/{brunella.pk}/purchases", body)
    assert response.status_code == status
    assert response.json()["code"]
    assert state(brunella) == before


# --- The schema -----------------------------------------------------------------------------------


def test_the_schema_documents_every_status_of_the_adventure_point_endpoints(client) -> None:
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    common = {"401", "422", "429"}
    assert set(paths["/api/v1/characters/{id}/ledger"]["get"]["responses"]) == {"200", "404", *common}
    for path in ("/api/v1/characters/{id}/ledger", "/api/v1/characters/{id}/purchases"):
        assert set(paths[path]["post"]["responses"]) == {"201", "400", "403", "404", "409", "413", *common}


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_an_oversized_award_is_a_413_and_changes_nothing(api, brunella, gm) -> None:
    response = api(gm).post(f"/characters/{brunella.pk}/ledger", {"amount": 5, "reason": "x" * 2000})
    assert response.status_code == 413
    assert not LedgerEntry.objects.exists()


# --- Currencies -----------------------------------------------------------------------------------


@pytest.fixture
def gold(monkeypatch) -> Currency:
    """Lucky 13 with a second currency after Adventure Points (see tests/characters/test_currencies.py)."""
    currency = Currency("gold", "Gold", "gp")
    monkeypatch.setattr(lucky13.SYSTEM, "currencies", (*lucky13.SYSTEM.currencies, currency))
    return currency


def test_the_api_says_each_entrys_currency_and_every_balance(api, gold, brunella, gm) -> None:
    response = api(gm).post(f"/characters/{brunella.pk}/ledger", {"amount": 30, "reason": "Hoard", "currency": "gold"})
    assert response.status_code == 201
    assert (response.json()["currency"], response.json()["balance"]) == ("gold", 30)
    assert response.json()["entry"]["currency"] == "gold"
    api(gm).post(f"/characters/{brunella.pk}/ledger", {"amount": 5, "reason": "Mission"})
    data = api(gm).get(f"/characters/{brunella.pk}/ledger").json()
    assert [(e["currency"], e["amount"], e["balance"]) for e in data["entries"]] == [("ap", 5, 5), ("gold", 30, 30)]
    assert (data["balance"], data["currency"]) == (5, "ap")
    assert data["balances"] == [
        {"currency": "ap", "name": "Adventure Points", "abbreviation": "AP", "amount": 5},
        {"currency": "gold", "name": "Gold", "abbreviation": "gp", "amount": 30},
    ]


@pytest.mark.parametrize(("currency", "status"), [("silver", 400), ("Gold", 400), ("x" * 21, 422), ("", 422)])
def test_the_api_refuses_a_currency_the_system_does_not_declare(api, brunella, gm, currency, status) -> None:
    response = api(gm).post(f"/characters/{brunella.pk}/ledger", {"amount": 5, "reason": "x", "currency": currency})
    assert response.status_code == status
    if status == 400:
        assert f"no currency {currency!r}" in response.json()["message"]
    assert not LedgerEntry.objects.exists()


def test_the_ledger_is_read_a_page_at_a_time_newest_first(api, brunella, gm, player) -> None:
    LedgerEntry.objects.bulk_create(
        LedgerEntry(character=brunella, kind="award", amount=1, balance=n, reason=f"Award {n}", by=gm, currency="ap")
        for n in range(1, 251)
    )
    client = api(player)
    first = client.get(f"/characters/{brunella.pk}/ledger").json()
    assert [e["reason"] for e in first["entries"][:2]] == ["Award 250", "Award 249"]
    assert len(first["entries"]) == 100
    second = client.get(f"/characters/{brunella.pk}/ledger?before={first['next']}&limit=200").json()
    assert second["entries"][0]["reason"] == "Award 150"
    assert len(second["entries"]) == 150
    assert second["next"] is None
    seen = [e["id"] for e in first["entries"] + second["entries"]]
    assert len(set(seen)) == 250


@pytest.mark.parametrize("query", ["before=0", "before=abc", "before=²", "limit=0", "limit=501", f"before={2**63}"])
def test_a_bad_page_of_the_ledger_is_a_422(api, brunella, player, query) -> None:
    assert api(player).get(f"/characters/{brunella.pk}/ledger?{query}").status_code == 422
