"""A roll's row drawn in Python (``play.roll_rows``) is the row ``play/_roll.html`` draws, byte for byte; under
``KEPT_CHECKED`` (the suite's setting) every row drawn is drawn both ways, so a drawing that strays fails the
test that drew it."""

from __future__ import annotations

import random

import pytest
from django.template.loader import render_to_string

from play import roll_rows, rolls
from play.roll_views import roll_entry
from play.templatetags import kept

pytestmark = pytest.mark.django_db

#: Free rolls of every shape the dice box draws: one die, a modifier, dice kept and dropped, exploding dice,
#: several groups.
EXPRESSIONS = (("d6", False), ("2d6+1", False), ("4d6kh3", False), ("3d6", True), ("d20-2", False),
               ("2d10+d4", False), ("8d6kl2", True))  # fmt: skip


@pytest.mark.parametrize("secret", [False, True], ids=["open", "secret"])
@pytest.mark.parametrize("as_gm", [True, False], ids=["gm", "player"])
def test_each_row_is_the_templates(campaign, gm, as_gm, secret, settings) -> None:
    settings.KEPT_CHECKED = False  # compared here, not by the suite's check
    rng = random.Random(13)
    made = [
        rolls.roll_free(campaign_id=campaign.pk, by=gm, text=text, explode=explode, secret=secret, rng=rng)
        for text, explode in EXPRESSIONS
    ]
    if secret:
        rolls.reveal_roll(campaign_id=campaign.pk, seq=made[0].seq, by=gm)
    drawn = 0
    for roll in made:
        roll.refresh_from_db()
        entry = roll_entry(roll, gm=as_gm)
        if not roll_rows.drawable(entry):
            continue  # the GM's Reveal button: the template's to draw
        assert roll_rows.row(entry) == render_to_string(kept.ROW_TEMPLATE, {"entry": entry})
        drawn += 1
    assert drawn == (1 if secret and as_gm else len(EXPRESSIONS))


def test_a_row_drawn_otherwise_than_the_template_fails_the_check(campaign, gm, monkeypatch, settings) -> None:
    settings.KEPT_CHECKED = True
    roll = rolls.roll_free(campaign_id=campaign.pk, by=gm, text="d6", explode=False, secret=False, rng=random.Random(1))
    monkeypatch.setattr(roll_rows, "_drawn", lambda entry: "<li>not the row</li>\n")
    with pytest.raises(AssertionError, match=r"otherwise than play/_roll\.html"):
        roll_rows.row(roll_entry(roll, gm=True))
