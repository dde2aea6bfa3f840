"""The sheet's Edit buttons, drawn in Python for speed, are byte for byte what the shared partial
``characters/_section_edit.html`` draws of the same links (which other sheets still include)."""

from __future__ import annotations

import re

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

pytestmark = pytest.mark.django_db


def _assert_drawn_as_the_partial(context):
    links, drawn = context["edit_links"], context["edit_buttons"]
    assert set(links) == set(drawn)
    for region, shown in links.items():
        assert str(drawn[region]) == render_to_string("characters/_section_edit.html", {"links": shown})


@pytest.mark.parametrize("viewer", ["gm", "player", "other_player"])
def test_the_drawn_edit_buttons_are_the_partials(client, brunella, viewer, request):
    client.force_login(request.getfixturevalue(viewer))
    response = client.get(reverse("characters:sheet", args=[brunella.pk]))
    assert response.status_code == 200
    _assert_drawn_as_the_partial(response.context)
    editable = sum(len(shown) for shown in response.context["edit_links"].values())
    assert response.text.count('class="edit-link" id="edit-') == editable
    assert (editable > 0) == (viewer != "other_player")


def test_the_focused_edit_button_is_drawn_with_autofocus(client, brunella, gm):
    client.force_login(gm)
    url = reverse("characters:sheet-section", args=[brunella.pk, "notes"])
    response = client.get(url, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert response.text.count("autofocus") == 1
    drawn = (
        r'<a class="edit-link" id="edit-notes" href="([^"]+)" hx-get="\1" hx-target="#notes"'
        r' hx-swap="outerHTML" autofocus>Edit<span class="visually-hidden"> [^<]+</span></a>'
    )
    button = re.search(drawn, response.text)
    assert button is not None
    assert button[1] == reverse("characters:edit-section", args=[brunella.pk, "notes"])
