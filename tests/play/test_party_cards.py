"""A card of the party drawn in Python (``play.party_cards``) is the card its template draws, byte for byte:
the dashboard's (each track's slots with it) and the campaign page's, over every shape a system's standing
takes (no track, tracks with and without a maximum, rows of slots, the badge of a character who cannot act,
one note or several, balances, a concept or none) and names that need escaping. Under ``KEPT_CHECKED`` (the
suite's setting) every card the suite draws is drawn both ways too."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string

from play import party_cards
from rules.systems.protocol.sheets import Summary, Track, Vitals

#: Standings of every shape the cards draw.
STANDINGS = {
    "draft": Vitals(tracks=(), state="draft", can_act=False),
    "up": Vitals(
        tracks=(Track("hp", "Hit points", 12, maximum=20, segments=(("d4", 5, 5), ("d6", 5, 5), ("d8", 2, 5))),),
        state="up",
        notes=(("Pulse now", "d8"), ("Reputation", "+2")),
    ),
    "dying": Vitals(
        tracks=(Track("hp", "Hit points", -3, maximum=20, segments=(("d4", 0, 5),)), Track("luck", "Luck", 4)),
        state="dying",
        can_act=False,
        notes=(("Pulse now", "no die"), ("Reputation", "-1"), ("Recovering", "Ability dice -1 step <until>")),
    ),
    "helpless": Vitals(tracks=(Track("condition", "Wounds & <scars>", 6, maximum=6),), state="helpless", can_act=False),
    "one note": Vitals(tracks=(Track("condition", "Wounds", 0, maximum=6),), state="up", notes=(("Last roll", "9"),)),
}


def row(standing: Vitals, *, name: str, concept: str, holdings: int) -> dict:
    owner = SimpleNamespace(get_username=lambda: "o'Neil & <co>")
    character = SimpleNamespace(pk=41, name=name, owner=owner)
    held = [SimpleNamespace(currency=SimpleNamespace(name=f"Points <{n}>"), amount=7 - 5 * n) for n in range(holdings)]
    return {"character": character, "summary": Summary(concept=concept), "vitals": standing, "holdings": held}


@pytest.mark.parametrize("template_name", [party_cards.DASHBOARD, party_cards.CAMPAIGN])
@pytest.mark.parametrize("standing", list(STANDINGS), ids=list(STANDINGS))
@pytest.mark.parametrize(("name", "concept"), [("Brunella", ""), ('Ann "the <Bold>" & Co', "Sellsword & <spy>")])
@pytest.mark.parametrize("holdings", [0, 2])
def test_each_card_is_its_templates(template_name, standing, name, concept, holdings, settings) -> None:
    settings.KEPT_CHECKED = False  # compared here, not by the suite's check
    shown = row(STANDINGS[standing], name=name, concept=concept, holdings=holdings)
    drawn = party_cards.card(template_name, shown, template=lambda: pytest.fail("drawn by its template"))
    assert drawn == render_to_string(template_name, {"row": shown})


def test_a_card_drawn_otherwise_than_its_template_fails_the_check(monkeypatch, settings) -> None:
    settings.KEPT_CHECKED = True
    shown = row(STANDINGS["up"], name="Brunella", concept="", holdings=1)
    monkeypatch.setattr(party_cards, "_drawn", lambda template_name, row: "<li>not the card</li>\n")
    with pytest.raises(AssertionError, match=r"otherwise than play/dashboard_party_row\.html"):
        party_cards.card(
            party_cards.DASHBOARD, shown, template=lambda: render_to_string(party_cards.DASHBOARD, {"row": shown})
        )


def test_a_card_of_another_template_is_its_templates_to_draw() -> None:
    assert party_cards.card("coin/party_card.html", {}, template=lambda: "<li>coin</li>") == "<li>coin</li>"
