"""What the D13 table hides, hidden everywhere: a hand is seen by its player and the host only, the deck's order
by nobody, and a secret d4 by the host alone — on every page, every partial a page swaps in, every socket
message and every API response, for every role (the host, the hand's player, another player, an outsider)."""

from __future__ import annotations

import json

import pytest
from channels.layers import get_channel_layer
from django.urls import reverse

from play import live
from play.models import Table
from rules.systems.d13 import cards
from tests.systems.d13.helpers import campaign_of, made, make, roll, skill

pytestmark = pytest.mark.django_db


@pytest.fixture
def scene(gm, player, other_player, dice):
    """Maud with a card in her hand (doubles on a Difficult task) and a secret d4 of 3 rolled for an unclear
    task of Elias's, which the host has not revealed."""
    parish = campaign_of(gm, player, other_player)
    maud, elias = made(parish, player), made(parish, other_player, name="Elias")
    dice(2, 2)
    roll(maud, {"level": "difficult", "ability": "wits", "skill": skill(maud, "Occult")}, gm)
    dice(3, 6)
    roll(elias, {"level": "difficult", "ability": "will", "unclear": True}, gm)
    document = Table.objects.get(campaign=parish).document
    [hand] = document["hands"]
    return parish, maud, elias, hand["cards"][0], document["draw"]


def pages(parish, maud, elias) -> list[str]:
    """Every page and partial of the campaign a member may open, for either character."""
    out = [reverse("campaigns:detail", args=[parish.pk]), reverse("play:dashboard", args=[parish.pk]),
           reverse("play:table", args=[parish.pk]), reverse("play:table-history", args=[parish.pk]),
           reverse("play:rolls", args=[parish.pk])]  # fmt: skip
    for character in (maud, elias):
        out += [reverse("characters:sheet", args=[character.pk]), reverse("characters:print", args=[character.pk]),
                reverse("characters:export", args=[character.pk]), reverse("characters:history", args=[character.pk]),
                reverse("characters:ledger", args=[character.pk]), reverse("play:sheet-roll", args=[character.pk]),
                *(reverse("characters:sheet-section", args=[character.pk, section])
                  for section in ("notes", "condition", "ratings")),
                *(reverse("play:move", args=[character.pk, key]) for key in ("d13-card", "d13-reveal"))]  # fmt: skip
    return out


def api_paths(parish, maud, elias) -> list[str]:
    out = [f"/campaigns/{parish.pk}", f"/campaigns/{parish.pk}/table", f"/campaigns/{parish.pk}/moves",
           f"/campaigns/{parish.pk}/rolls", f"/campaigns/{parish.pk}/characters"]  # fmt: skip
    for character in (maud, elias):
        out += [f"/characters/{character.pk}", f"/characters/{character.pk}/moves",
                f"/characters/{character.pk}/export"]  # fmt: skip
    return out


@pytest.mark.parametrize("who", ["gm", "player", "other_player", "outsider"])
def test_a_hand_and_the_deck_and_a_secret_d4_are_hidden_on_every_page_and_in_every_answer(
    client, api, request, who, scene
) -> None:
    parish, maud, elias, held, draw = scene
    user = request.getfixturevalue(who)
    client.force_login(user)
    sees_hand = who in ("gm", "player")
    name = cards.card(held).name
    deck = [f'"{c}"' for c in draw[:8]] + [cards.card(c).name for c in draw[:3] if cards.card(c).name != name]
    said = []
    for url in pages(parish, maud, elias):
        response = client.get(url)
        assert response.status_code < 500, url
        said.append((url, response.content.decode()))
    client_api = api(user)
    for path in api_paths(parish, maud, elias):
        response = client_api.get(path)
        assert response.status_code < 500, path
        said.append((path, response.content.decode()))
    everything = "\n".join(text for _, text in said)
    assert (name in everything) is sees_hand
    for shown in deck:
        assert shown not in everything, shown
    # The secret d4 (3) of Elias's task: the host's, in the table's view; nowhere for anyone else.
    api_table = next(text for path, text in said if path.endswith("/table"))
    if who == "gm":
        assert json.loads(api_table)["view"]["secrets"] == [{"character": elias.pk, "d4": 3}]
    else:
        assert "secrets" not in api_table
        sheet = json.loads(next(text for path, text in said if path == f"/characters/{elias.pk}"))
        if who == "outsider":
            assert "sheet" not in sheet  # not found: nothing of the campaign is theirs to see
        else:
            assert sheet["sheet"]["pending"]["d4"] is None


def test_the_sockets_carry_the_tables_version_and_nothing_of_it(scene, django_capture_on_commit_callbacks,
                                                                 monkeypatch, gm) -> None:  # fmt: skip
    parish, maud, _, held, _ = scene
    sent: list[tuple[str, dict]] = []
    layer = get_channel_layer()

    async def capture(group: str, message: dict) -> None:
        sent.append((group, message))

    monkeypatch.setattr(layer, "group_send", capture)
    with django_capture_on_commit_callbacks(execute=True):
        make(maud, "d13-turn", {}, gm)
    tables = [message for group, message in sent if message.get("type") == "table.changed"]
    assert {group for group, message in sent if message.get("type") == "table.changed"} == {
        live.group_name(parish.pk),
        live.table_group_name(parish.pk),
    }
    assert all(set(message) == {"type", "version"} for message in tables)
    assert not any(cards.card(held).name in json.dumps(message) or held in json.dumps(message) for _, message in sent)


@pytest.mark.parametrize("key", ["shuffle", "end-scene", "next-turn", "clear-turns"])
def test_no_player_shuffles_or_runs_the_table(client, api, player, scene, key) -> None:
    """The deck is the server's to shuffle, at the host's word: a player can neither stack it nor run the scene."""
    parish, *_ = scene
    before = Table.objects.get(campaign=parish)
    client.force_login(player)
    refused = client.post(reverse("play:table-move", args=[parish.pk, key]), {"version": before.version})
    assert refused.status_code == 403
    through_api = api(player).post(f"/campaigns/{parish.pk}/moves/{key}", {"version": before.version, "input": {}})
    assert through_api.status_code == 403
    after = Table.objects.get(campaign=parish)
    assert (after.version, after.document) == (before.version, before.document)
