"""The sheet page costs the same number of queries however much the character has."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters.models import Asset, Skill, Specialization

pytestmark = pytest.mark.django_db

SHEET_QUERIES = (
    # 1. the session
    # 2. the signed-in user
    # 3. access: the character with its campaign, owner and the viewer's role (a subquery)
    # 4. the character again with its campaign and owner, for the sheet's prefetches
    # 5. its skills
    # 6. their specializations
    # 7. its backgrounds and impairments
    # 8. its assets
    # 9. the skills each asset helps
    # 10. its weapons
    # 11. its armor
    # 12. its latest Adventure-Point entries
    12
)


@pytest.mark.parametrize("n", [1, 6])
@pytest.mark.parametrize("viewer", ["gm", "player", "other_player"])
def test_the_sheet_page_queries_stay_constant(client, brunella, grow, n, viewer, request, django_assert_num_queries):
    grow(brunella, n)
    assert Skill.objects.filter(character=brunella).count() == 5 + n
    assert Specialization.objects.filter(skill__character=brunella).count() == 3 + n * n
    assert Asset.objects.filter(character=brunella).count() == 2 + n
    client.force_login(request.getfixturevalue(viewer))
    with django_assert_num_queries(SHEET_QUERIES):
        response = client.get(reverse("characters:sheet", args=[brunella.pk]))
    assert response.status_code == 200
    assert f"Trick {n - 1}" in response.text
    assert f"Asset {n - 1}" in response.text


@pytest.mark.parametrize("n", [1, 6])
def test_a_saved_section_comes_back_in_constant_queries(client, brunella, gm, grow, n, django_assert_num_queries):
    grow(brunella, n)
    client.force_login(gm)
    url = reverse("characters:edit-section", args=[brunella.pk, "notes"])
    # 2 (session, user) + 1 (access) + 8 (the sheet, for the form) + 2 (savepoint) + 3 (the character's
    # campaign, lock it, lock the character) + 1 (is the user the GM?) + 2 (update the character, the
    # campaign's last activity) + 8 (the sheet again)
    with django_assert_num_queries(27):
        response = client.post(url, {"version": "0", "notes": "New."}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
