"""The sheet page costs the same number of queries however much the character has."""

from __future__ import annotations

import pytest
from django.db import connection
from django.urls import reverse

pytestmark = pytest.mark.django_db

SHEET_QUERIES = (
    # 1. the session with its signed-in user (accounts.sessions)
    # 2. access: the character (its sheet document on the row) with its campaign, owner, the viewer's role,
    #    its balances, its newest ledger entry and whether a decision waits on it
    # 3. its latest Adventure-Point entries, read only when the sheet's region is drawn (not when kept)
    3
)
#: The same sheet shown again, its region kept (``characters.sheets.regions``): no ledger entries read.
KEPT_SHEET_QUERIES = SHEET_QUERIES - 1


@pytest.mark.parametrize("n", [1, 6])
@pytest.mark.parametrize("viewer", ["gm", "player", "other_player"])
def test_the_sheet_page_queries_stay_constant(client, brunella, grow, n, viewer, request, django_assert_num_queries):
    grow(brunella, n)
    document = brunella.document
    assert len(document.skills) == 5 + n
    assert sum(len(skill.specializations) for skill in document.skills) == 3 + n * n
    assert len(document.assets) == 2 + n
    client.force_login(request.getfixturevalue(viewer))
    with django_assert_num_queries(SHEET_QUERIES):
        response = client.get(reverse("characters:sheet", args=[brunella.pk]))
    assert response.status_code == 200
    assert f"Trick {n - 1}" in response.text
    assert f"Asset {n - 1}" in response.text
    assert "helps Extra skill 0" in response.text  # the names of the skills each asset helps


@pytest.mark.parametrize("n", [1, 6])
def test_a_sheet_shown_again_costs_the_same_queries(client, brunella, gm, grow, n, django_assert_num_queries, settings):
    """The second view reads the sheet kept by the first (``characters.sheets.reads``) and shows the page the
    first drew (``characters.views.pages``, its region with it): the latest ledger entries are not read again.
    Counted as a server shows it, without the suite's check drawing the page again with its region, which reads
    them (tests/characters/test_sheet_kept_whole.py)."""
    settings.KEPT_CHECKED = False
    grow(brunella, n)
    client.force_login(gm)
    url = reverse("characters:sheet", args=[brunella.pk])
    for queries in (SHEET_QUERIES, KEPT_SHEET_QUERIES, KEPT_SHEET_QUERIES):
        with django_assert_num_queries(queries):
            response = client.get(url)
        assert f"Trick {n - 1}" in response.text


@pytest.mark.parametrize("n", [1, 6])
def test_a_saved_section_comes_back_in_constant_queries(client, brunella, gm, grow, n, django_assert_num_queries):
    grow(brunella, n)
    client.force_login(gm)
    url = reverse("characters:edit-section", args=[brunella.pk, "notes"])
    # 1 (the session with its user) + 1 (access) + 2 (savepoint) + 2 (lock the campaign, found by the character's row;
    # lock the character) + 1 (is the user the GM?) + 3 (update the character, the campaign's last
    # activity, the sheet history: one statement on PostgreSQL, web.prepared.write_together) + 1 (the
    # character again, for its region; the notes show no ledger)
    with django_assert_num_queries(9 if connection.vendor == "postgresql" else 11):
        response = client.post(url, {"version": "0", "notes": "New."}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "New." in response.text
