"""A D13 roll from the sheet writes each thing once: the roll, the sheet that waits for its player's
decision, and the campaign's last activity, moved to the roll's moment (not once for the roll and again
for the sheet)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import Campaign
from play.models import Roll
from tests.systems.d13.helpers import campaign_of, fresh, made, skill

pytestmark = pytest.mark.django_db

MOVED = 'UPDATE "campaigns_campaign" SET "last_activity_at"'


def test_a_roll_from_the_sheet_moves_the_campaigns_last_activity_once_to_its_roll(client, gm, player, dice) -> None:
    maud = made(campaign_of(gm, player), player)
    client.force_login(gm)
    dice(1, 5)  # no doubles: no card
    situation = {"level": "difficult", "ability": "wits", "skill": skill(maud, "Occult")}
    with CaptureQueriesContext(connection) as captured:
        response = client.post(reverse("play:sheet-roll", args=[maud.pk]), situation)
    assert response.status_code == 302
    # Moved once: on PostgreSQL by the function that writes the roll (play_roll_append), in the statement that
    # sends it; a first roll into a log whose head the process does not know yet reads it first, moving nothing.
    assert sum(q["sql"].startswith(MOVED) for q in captured) == (0 if connection.vendor == "postgresql" else 1)
    assert sum("play_roll_append(" in q["sql"] for q in captured) == (2 if connection.vendor == "postgresql" else 0)
    # The same at any size (tests/play/test_hot_paths.py); on PostgreSQL the sheet's save and its history row
    # are one statement (web.prepared.write_together), and so are the roll's lock, its read of the log's head and
    # the roll (play_roll_append, twice here: the first roll of the log this process makes reads its head first),
    # in no savepoint of its own.
    assert len(captured) == (19 if connection.vendor == "postgresql" else 23)
    rolled = Roll.objects.get(character=maud)
    assert Campaign.objects.get(pk=maud.campaign_id).last_activity_at == rolled.created_at
    assert fresh(maud).version == maud.version + 1  # the sheet saved, waiting for the player's decision
