"""The style sheets are split by area (static/css: base.css on every page, then the sheets of a page's own
area in its ``styles`` block), so that a page loads only the rules it can use. These tests keep the split
safe: no page misses a rule that could style it, and no rule is left that nothing can match.

Every page the tests can render is rendered for each system's campaign (the fuzzing's tables: a GM, a
player's character and another's, rolls, an encounter running, an invitation, a draft, the ledger), by the
GM and by the player: every named address that shows a page on GET. For each, every rule of every style
sheet whose selector could match the page (each class and id it names, outside ``:not()``, is on the page)
must be in a sheet the page loads; so must the rules that could match the HTML the page puts in through
htmx (each ``hx-get`` asked as htmx asks it) and the classes our scripts add (:data:`SCRIPT_CLASSES`).
A rule that no template, script or view names a class or id of is dead, and fails."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

import pytest
from django.test import Client
from django.urls import NoReverseMatch, get_resolver, reverse

from tests.fuzz.tables import SYSTEMS, coin_registered  # noqa: F401 (a fixture)
from tests.fuzz.test_forms import FORMS, NO_FORM, Table
from tests.web.styles import JS, ROOT, Names, Rule, names_of, rules_of, sheets

#: The classes each of our scripts puts on the page, and those of them only the scripts read (a hook, styled
#: by no sheet). A script that sets a class this does not list fails :func:`test_every_class_a_script_sets_is_known`.
SCRIPT_CLASSES: Final = {
    "js/dicehall.js": {"js", "request-problem"},
    "js/sheet-live.js": {"sheet-changed"},
    "js/encounter-live.js": {"encounter-changed"},
    "js/round-live.js": {"round-changed"},
    "js/table-live.js": {"table-changed"},
}
JS_HOOKS: Final = {"encounter-changed", "round-changed", "table-changed"}

#: Where the code names a class: the templates, our scripts and the apps' Python (a view or a template tag
#: that writes HTML, a form's widget).
SOURCES: Final = (
    "templates",
    "static/js",
    "accounts",
    "api",
    "campaigns",
    "characters",
    "games",
    "pages",
    "play",
    "web",
)


def all_rules() -> list[Rule]:
    return [rule for sheet in sheets() for rule in rules_of(sheet)]


def test_there_is_a_base_sheet_and_every_sheet_is_loaded_by_a_template() -> None:
    names = sheets()
    assert "css/base.css" in names
    templates = "\n".join(path.read_text() for path in (ROOT / "templates").rglob("*.html"))
    for name in names:
        assert f"{{% static '{name}' %}}" in templates, f"{name} is loaded by no template"


def _source_text() -> str:
    texts = []
    for folder in SOURCES:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".html", ".js", ".py") and "migrations" not in path.parts:
                texts.append(path.read_text(encoding="utf-8"))
    return "\n".join(texts)


def test_every_class_and_id_a_style_sheet_names_is_written_somewhere() -> None:
    """Dead CSS: a selector whose class or id no template, script or view writes matches nothing. A class a
    template builds from a value (``state-{{ row.state|slugify }}``) counts by its written prefix."""
    source = _source_text()
    dead = set()
    for rule in all_rules():
        classes, ids = rule.needs
        for name in classes | ids:
            whole = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", source)
            built = "-" in name and f"{name.rsplit('-', 1)[0]}-{{{{" in source
            if not whole and not built:
                dead.add(f"{rule.sheet}: {rule.selector} ({name})")
    assert sorted(dead) == []


def test_every_class_a_script_sets_is_known() -> None:
    """The classes our scripts add to a page (``className =``, ``classList.add``, a live notice's name) are
    the ones :data:`SCRIPT_CLASSES` lists, so that the pages below are checked with them."""
    pattern = re.compile(
        r"""(?:className\s*=\s*|classList\.add\(|noticeName:\s*|live\.notice\([^,]+,\s*)["']([\w-]+)["']"""
    )
    for path in JS.glob("*.js"):
        name = f"js/{path.name}"
        assert set(pattern.findall(path.read_text())) <= SCRIPT_CLASSES.get(name, set()), name
    for name, classes in SCRIPT_CLASSES.items():
        text = (ROOT / "static" / name).read_text()
        assert all(f'"{cls}"' in text for cls in classes), name


def missing(names: Names, loaded: list[str], rules: list[Rule]) -> list[str]:
    """The rules that could match what ``names`` names but are in a sheet not ``loaded``; and the classes
    set by the loaded scripts that no loaded sheet styles and that are not hooks."""
    classes = set(names.classes)
    for script in names.scripts:
        classes |= SCRIPT_CLASSES.get(script, set())
    left_out = [
        f"{r.sheet}: {r.selector}" for r in rules if r.sheet not in loaded and r.could_match(classes, names.ids)
    ]
    styled = {cls for r in rules if r.sheet in loaded for cls in r.needs[0]}
    for script in names.scripts:
        left_out += [
            f"{script} sets .{c}, styled nowhere it loads"
            for c in SCRIPT_CLASSES.get(script, set()) - styled - JS_HOOKS
        ]
    return left_out


def route_of(name: str) -> tuple[str, list[str]]:
    """The path a named address takes (``characters/%(pk)s/``) and the names of its parts."""
    resolver, prefix = get_resolver(), ""
    *namespaces, short = name.split(":")
    for namespace in namespaces:
        extra, resolver = resolver.namespace_dict[namespace]
        prefix += extra
    ((path, parts),) = resolver.reverse_dict.getlist(short)[0][0]
    return prefix + path, parts


def pages_of(table: Table, users: dict[str, Any]) -> Iterator[tuple[str, Client, str, Names]]:
    """Every page of the campaign that answers a GET with HTML, for each user: who, their client, the
    address and what it names."""
    for who, user in users.items():
        client = Client()
        client.force_login(user)
        for name in sorted(FORMS.keys() | NO_FORM):
            route, parts = route_of(name)
            values = table.kwargs(name, route, lambda keys: keys[0])
            try:
                url = reverse(name, kwargs={part: values[part] for part in parts})
            except NoReverseMatch:
                continue
            response = client.get(url)
            if response.status_code == 200 and response["Content-Type"].startswith("text/html"):
                yield who, client, url, names_of(response.content.decode())


@pytest.mark.django_db
@pytest.mark.parametrize("system", SYSTEMS)
def test_every_page_loads_every_rule_that_could_style_it(system, coin_registered, gm, player, other_player) -> None:  # noqa: F811
    table = Table(system, gm, player, other_player)
    rules = all_rules()
    problems: list[str] = []
    loaded_somewhere: set[str] = set()
    seen = 0
    for who, client, url, names in pages_of(table, {"gm": gm, "player": player}):
        seen += 1
        loaded = [sheet for sheet in names.sheets if sheet.startswith("css/")]
        assert loaded[:1] == ["css/base.css"], url
        loaded_somewhere.update(loaded)
        problems += [f"{who} {url}: {problem}" for problem in missing(names, loaded, rules)]
        for verb, asked in sorted(names.asks):
            if verb != "get":
                continue
            fragment = client.get(asked, headers={"HX-Request": "true"})
            if fragment.status_code == 200 and fragment["Content-Type"].startswith("text/html"):
                inserted = names_of(fragment.content.decode())
                inserted.scripts = names.scripts
                problems += [f"{who} {url} <- {asked}: {problem}" for problem in missing(inserted, loaded, rules)]
    assert seen > 40, seen  # the walk reached the campaign's pages
    assert problems == []
    if system == "lucky13":  # the system every page is drawn for: each sheet some page of it loads
        assert loaded_somewhere >= {"css/base.css", "css/chance.css", "css/campaign.css", "css/encounter.css",
                                    "css/ledger.css", "css/account.css", "css/print.css"}  # fmt: skip


def test_the_rules_are_read_as_the_browser_reads_them() -> None:
    """The reading the tests above rely on: selector lists split outside brackets, ``:not()`` asks nothing,
    attribute values are not classes, ``@media`` blocks are read inside."""
    rules = rules_of("css/base.css")
    rule = Rule("x", '.field.checkbox > :not(input, label) a[href="a.b"]', "")
    assert rule.needs == (frozenset({"field", "checkbox"}), frozenset())
    assert Rule("x", ".invitation:not(.state-active)", "").needs == (frozenset({"invitation"}), frozenset())
    assert any(r.media.startswith("@media print") for r in rules)
    assert not any(r.selector.startswith("@") for r in rules)
    page = names_of('<link rel="stylesheet" href="/static/css/base.css"><p class="a b" id="c" hx-get="/x">')
    assert (page.sheets, page.classes, page.ids, page.asks) == (["css/base.css"], {"a", "b"}, {"c"}, {("get", "/x")})
