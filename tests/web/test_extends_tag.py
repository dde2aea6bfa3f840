"""``{% extends %}`` in every template draws what Django's tag draws, through every level of a chain of
templates and ``{{ block.super }}``, and walks each compiled root template for its blocks once
(web/templatetags/extends.py)."""

from __future__ import annotations

from typing import Any

import pytest
from django.template import Context, Engine
from django.template.base import NodeList
from django.template.loader_tags import ExtendsNode

from web.templatetags import extends

TEMPLATES = {
    "root.html": "<{% block title %}Root{% endblock %}|{% if shown %}{% block body %}root body{% endblock %}{% endif %}"
    "|{% block foot %}root foot{% endblock %}>",
    "middle.html": "{% extends 'root.html' %}{% block title %}Middle·{{ block.super }}{% endblock %}"
    "{% block foot %}middle foot{% endblock %}",
    "page.html": "{% extends 'middle.html' %}{% block title %}Page·{{ block.super }}{% endblock %}"
    "{% block body %}page body, {{ block.super }}{% endblock %}",
}


def engine(*builtins: str) -> Engine:
    loaders = [("django.template.loaders.cached.Loader", [("django.template.loaders.locmem.Loader", TEMPLATES)])]
    return Engine(loaders=loaders, builtins=list(builtins))


@pytest.mark.parametrize("shown", [True, False])
def test_a_chain_of_templates_draws_as_with_djangos_tag(shown: bool) -> None:
    ours, djangos = engine("web.templatetags.extends"), engine()
    page = ours.get_template("page.html")
    assert type(page.nodelist[0]) is extends.KeptExtendsNode
    assert type(djangos.get_template("page.html").nodelist[0]) is ExtendsNode
    drawn = page.render(Context({"shown": shown}))
    assert drawn == djangos.get_template("page.html").render(Context({"shown": shown}))
    assert drawn == (
        "<Page·Middle·Root|page body, root body|middle foot>" if shown else "<Page·Middle·Root||middle foot>"
    )


def test_the_root_is_walked_for_its_blocks_once(monkeypatch: pytest.MonkeyPatch) -> None:
    ours, djangos = engine("web.templatetags.extends"), engine()
    page, djangos_page = ours.get_template("page.html"), djangos.get_template("page.html")
    for drawn in (page, djangos_page):  # each template read (and its blocks found as it is read) and drawn once
        drawn.render(Context({"shown": True}))
    walked: list[Any] = []
    walk = NodeList.get_nodes_by_type

    def counted(self: NodeList, nodetype: type) -> list[Any]:
        walked.append(self)
        return walk(self, nodetype)

    monkeypatch.setattr(NodeList, "get_nodes_by_type", counted)
    for _ in range(3):
        assert page.render(Context({"shown": True})) == "<Page·Middle·Root|page body, root body|middle foot>"
    assert walked == []
    djangos_page.render(Context({"shown": True}))
    assert walked  # Django's tag walks the root again on every drawing
    root = ours.get_template("root.html")
    assert extends.root_blocks(root) is not None
    assert set(extends.root_blocks(root) or {}) == {"title", "body", "foot"}
    assert extends.root_blocks(ours.get_template("middle.html")) is None


def test_every_page_of_the_site_uses_it() -> None:
    from django.template import engines

    dashboard = engines["django"].get_template("play/dashboard.html").template
    assert type(dashboard.nodelist[0]) is extends.KeptExtendsNode
