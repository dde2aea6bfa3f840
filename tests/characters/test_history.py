"""A sheet's history page: newest first, a bounded page at a time, for those who may see the sheet."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters import write
from characters.models import SheetChange
from tests.campaigns.helpers import text

pytestmark = pytest.mark.django_db


def notes(value: str):
    return lambda character: character.document.model_copy(update={"notes": value})


def url(character, **query) -> str:
    suffix = "".join(f"?{k}={v}" for k, v in query.items())
    return reverse("characters:history", args=[character.pk]) + suffix


def test_the_history_says_who_changed_what(client, brunella, gm) -> None:
    write.change(brunella.pk, version=1, by=gm, what="Notes changed on the sheet", edit=notes("Paid."))
    client.force_login(gm)
    page = text(client.get(url(brunella)))
    assert "Notes changed on the sheet — gm" in page
    assert "Changed: notes" in page


def test_an_untouched_sheet_says_so(client, brunella, player) -> None:
    client.force_login(player)
    assert "No changes yet" in text(client.get(url(brunella)))


def test_a_long_history_is_read_a_page_at_a_time_in_the_same_queries(
    client, brunella, player, django_assert_max_num_queries
) -> None:
    for n in range(30):
        write.change(brunella.pk, version=None, by=player, what=f"Change {n}", edit=notes(str(n)))
    client.force_login(player)
    first = client.get(url(brunella))
    page = text(first)
    assert "Change 29" in page
    assert "Change 4 " not in page
    assert page.count("version ") == 25
    oldest_shown = SheetChange.objects.filter(character=brunella).order_by("-pk")[24]
    assert first.context["older_url"] == f"?before={oldest_shown.pk}"
    second = text(client.get(url(brunella, before=oldest_shown.pk)))
    assert "Change 4 " in second
    assert "Change 5 " not in second
    assert second.count("version ") == 5
    with django_assert_max_num_queries(8):
        client.get(url(brunella))


@pytest.mark.parametrize("before", ["0", "-1", "abc", "²", "٣", "1" * 13])
def test_a_bad_page_key_is_a_400_that_says_so(client, brunella, player, before) -> None:
    client.force_login(player)
    response = client.get(url(brunella, before=before))
    assert response.status_code == 400
    assert "change number" in text(response)


def test_outsiders_do_not_see_the_history(client, brunella, outsider) -> None:
    client.force_login(outsider)
    assert client.get(url(brunella)).status_code == 404


def test_ten_thousand_changes_cost_the_page_no_more(client, brunella, player, django_assert_max_num_queries) -> None:
    SheetChange.objects.bulk_create(
        SheetChange(character=brunella, version=n, what=f"Change {n}", before={}, after={"notes": str(n)}, by=player)
        for n in range(2, 10_002)
    )
    client.force_login(player)
    with django_assert_max_num_queries(8):
        response = client.get(url(brunella))
    assert len(response.context["entries"]) == 25
    assert "Change 10001" in text(response)


def test_the_sheet_links_to_its_history(client, brunella, player) -> None:
    client.force_login(player)
    assert f'href="{url(brunella)}"' in client.get(reverse("characters:sheet", args=[brunella.pk])).content.decode()
