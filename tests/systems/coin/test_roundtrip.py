"""Export and import are each other's inverse for generated Coin characters too (the tests' own
system, ``tests.systems.coin.system``): drafts at each step, active and archived characters with bought
Nerve, lost Luck, tricks and notes come back with the same document, name and status."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns.models import Campaign, Membership
from characters import exchange
from characters.models import Character
from tests.characters.test_exchange import approved, comparable, export
from tests.strategies import free_text, names, unique_names
from tests.systems.coin import system as coin

pytestmark = pytest.mark.django_db

EXAMPLES = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@st.composite
def coin_characters(draw: st.DrawFn) -> tuple[str, str, dict[str, Any]]:
    """A name, a status and a Coin sheet as play leaves it at that status."""
    stage = draw(st.sampled_from(("draft", "active", "archived", "archived draft")))
    status = stage.partition(" ")[0]  # a draft archived when its player left stays a draft
    step = draw(st.sampled_from(("nerve", "tricks"))) if stage.endswith("draft") else ""
    nerve = None if step == "nerve" else draw(st.integers(1, 3 if step else coin.MAX_NERVE))
    tricks = draw(unique_names(0, 3)) if step != "nerve" else []
    first = draw(st.integers(1, 50))
    sheet = coin.Sheet(
        nerve=nerve,
        luck=draw(st.integers(0, 20)),
        tricks=tuple(coin.Trick(id=first + i, name=name) for i, name in enumerate(tricks)),
        notes=draw(free_text),
        step=step,
        next_id=first + len(tricks) + draw(st.integers(0, 3)),
    )
    return draw(names), status, sheet.model_dump(mode="json")


@pytest.fixture
def tails(coin_campaign, gm, player) -> Campaign:
    campaign = Campaign.objects.create(name="Tails", system="coin", options={"luck": 3})
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    return campaign


@EXAMPLES
@given(data=st.data())
def test_every_coin_character_comes_back_as_it_was_exported(coin_campaign, tails, player, data) -> None:
    name, status, sheet = data.draw(coin_characters())
    original = Character.objects.create(campaign=coin_campaign, owner=player, name=name, status=status, sheet=sheet)
    document = export(original)

    imported = approved(exchange.import_character(campaign=tails, owner=player, document=document))

    imported.refresh_from_db()
    assert (imported.name, imported.status) == (name, status)
    assert imported.sheet == sheet
    assert comparable(export(imported)) == comparable(document)
