"""Small builders and readers shared by the campaign view tests."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import resolve_url

from characters.models import Balance, Character
from rules.dice import StepDie
from rules.systems import lucky13


def html(response: HttpResponse) -> str:
    return response.content.decode()


def text(response: HttpResponse) -> str:
    """The page's text with tags removed and whitespace collapsed, for reading messages."""
    return " ".join(re.sub(r"<[^>]+>", " ", html(response)).split())


def login_url() -> str:
    return resolve_url(settings.LOGIN_URL)


def assert_login_redirect(response: HttpResponse) -> None:
    assert response.status_code == 302
    assert response["Location"].startswith(login_url() + "?next=")


def make_character(campaign: Any, owner: Any, name: str, *, status: str = "active", **fields: Any) -> Character:
    """A character straight from the ORM, with a sheet document: an active one has its five
    abilities (d8, or a rung 1 … 5 given as ``will=…``), its skills and its hit points (30).
    ``creation_step`` sets a draft's step; ``ap_balance`` its balance of Adventure Points."""
    options = campaign.settings
    ap_balance = fields.pop("ap_balance", 0)
    sheet: dict[str, Any] = lucky13.SYSTEM.new_draft(options).model_dump(mode="json")
    if "creation_step" in fields:
        sheet["creation"]["step"] = fields.pop("creation_step")
    if status != Character.Status.DRAFT:
        rungs = {key: fields.pop(key, 3) for key in lucky13.ABILITY_KEYS}
        sheet["abilities"] = {key: StepDie(rung).label for key, rung in rungs.items()}
        sheet["skills"] = [{**skill, "die": "d6"} for skill in sheet["skills"]]
        sheet["hit_points"] = 30
        sheet["creation"]["step"] = ""
    sheet.update(fields)
    character = Character.objects.create(campaign=campaign, owner=owner, name=name, status=status, sheet=sheet)
    if ap_balance:
        Balance.objects.create(character=character, currency="ap", amount=ap_balance)
    return character


def options_post(
    *,
    skills: list[dict[str, Any]] | None = None,
    name: str = "The Iron Marches",
    description: str = "Border wars.",
    system: str | None = "lucky13",
    **options: Any,
) -> dict[str, Any]:
    """The POST of the campaign form: the defaults, changed by ``options``; ``skills`` are rows
    (``name``, ``ability``, and optionally ``original``, ``combat``, ``ORDER``, ``DELETE``)."""
    values = lucky13.default_options()
    values.update(options)
    if skills is None:
        skills = [
            {"name": s["name"], "ability": s["ability"], "combat": s["combat"], "original": ""}
            for s in values["skills"]
        ]
    data: dict[str, Any] = {
        "name": name,
        "description": description,
        "explosion": values["explosion"],
        "hit_points_per_step": values["hit_points_per_step"],
        "ability_methods": values["ability_methods"],
        "skill_method": values["skill_method"],
        "skill_array": values["skill_array"]
        if isinstance(values["skill_array"], str)
        else " ".join(values["skill_array"]),
        "skill_points": values["skill_points"],
        "starting_specializations": values["starting_specializations"],
        "gear": values["gear"],
        "resting": values["resting"],
        "recovery": values["recovery"],
        "skill_preset": values["skill_preset"],
        "save": "1",
        "skills-TOTAL_FORMS": len(skills),
        "skills-INITIAL_FORMS": len(skills),
        "skills-MIN_NUM_FORMS": 0,
        "skills-MAX_NUM_FORMS": 1000,
    }
    if system is not None:
        data["system"] = system
    for i, ability_name in enumerate(values["ability_names"]):
        data[f"ability_names-{i}"] = ability_name
    for key in ("background_table", "impairment_table"):
        data.update(table_post(key, values.get(key) or []))
    for i, row in enumerate(skills):
        data[f"skills-{i}-original"] = row.get("original", "")
        data[f"skills-{i}-name"] = row["name"]
        data[f"skills-{i}-ability"] = row.get("ability") or ""
        data[f"skills-{i}-ORDER"] = row.get("ORDER", i + 1)
        if row.get("DELETE"):
            data[f"skills-{i}-DELETE"] = "on"
        if row.get("combat"):
            data[f"skills-{i}-combat"] = "on"
    return data


def table_post(prefix: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The rows of a table of the options form (``background_table``, ``impairment_table``) as posted: each
    with ``name``, and optionally ``description`` and ``DELETE``."""
    data: dict[str, Any] = {
        f"{prefix}-TOTAL_FORMS": len(rows),
        f"{prefix}-INITIAL_FORMS": len(rows),
        f"{prefix}-MIN_NUM_FORMS": 0,
        f"{prefix}-MAX_NUM_FORMS": 1000,
    }
    for i, row in enumerate(rows):
        data[f"{prefix}-{i}-name"] = row["name"]
        data[f"{prefix}-{i}-description"] = row.get("description", "")
        if row.get("DELETE"):
            data[f"{prefix}-{i}-DELETE"] = "on"
    return data


def saved_rows(options: dict[str, Any]) -> list[dict[str, Any]]:
    """The saved skill list as the settings form's rows: each keeps its original name."""
    return [
        {"name": s["name"], "ability": s["ability"], "combat": s["combat"], "original": s["name"]}
        for s in options["skills"]
    ]


class _FormReader(HTMLParser):
    """The values a browser would send for a page's first POST form (its save button pressed)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.data: list[tuple[str, str]] = []
        self.in_form = False
        self.select: str | None = None
        self.selected: str | None = None
        self.first_option: str | None = None
        self.textarea: str | None = None
        self.text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        if tag == "form" and a.get("method") == "post":
            self.in_form = True
        if not self.in_form or ("name" not in a and tag != "option"):
            return
        if tag == "input":
            kind = a.get("type", "text")
            if (kind in ("checkbox", "radio") and "checked" not in a) or kind in ("submit", "button"):
                return
            self.data.append((a["name"], a.get("value", "on" if kind in ("checkbox", "radio") else "")))
        elif tag == "select":
            self.select, self.selected, self.first_option = a["name"], None, None
        elif tag == "option" and self.select is not None:
            if self.first_option is None:
                self.first_option = a.get("value", "")
            if "selected" in a:
                self.selected = a.get("value", "")
        elif tag == "textarea":
            self.textarea, self.text = a["name"], ""

    def handle_data(self, data: str) -> None:
        if self.textarea is not None:
            self.text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.in_form = False
        elif tag == "select" and self.select is not None:
            self.data.append((self.select, self.selected if self.selected is not None else self.first_option or ""))
            self.select = None
        elif tag == "textarea" and self.textarea is not None:
            self.data.append((self.textarea, self.text.removeprefix("\n")))
            self.textarea = None


def form_data(response: HttpResponse, **changes: Any) -> dict[str, Any]:
    """What the page's form sends as it is shown (each field at the value the page gives it),
    with ``changes``, and its save button pressed."""
    reader = _FormReader()
    reader.feed(html(response))
    data: dict[str, Any] = {}
    for name, value in reader.data:
        data.setdefault(name, []).append(value)
    flat = {name: values if len(values) > 1 else values[0] for name, values in data.items()}
    return {**flat, **changes, "save": "1"}


def choice_words(response: HttpResponse, name: str) -> dict[str, str]:
    """The choices the page's select ``name`` offers: each value with the words it is shown in."""
    found = re.search(rf'<select name="{re.escape(name)}"[^>]*>(.*?)</select>', html(response), re.S)
    assert found is not None, f"the page has no choice {name}"
    return dict(re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', found.group(1)))


def rows_post(prefix: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A list of an options form's rows as posted, a row's own lists (a list of dicts) as rows of their own:
    ``rows_post("stats", [{"name": "Might", "skills": [{"name": "Lift", "combat": "melee"}]}])``. A true box is
    sent as "on", a false one not at all."""
    data: dict[str, Any] = {f"{prefix}-TOTAL_FORMS": len(rows), f"{prefix}-INITIAL_FORMS": len(rows)}
    for i, row in enumerate(rows):
        for key, value in row.items():
            if isinstance(value, list):
                data.update(rows_post(f"{prefix}-{i}-{key}", value))
            elif value is True:
                data[f"{prefix}-{i}-{key}"] = "on"
            elif value is not False:
                data[f"{prefix}-{i}-{key}"] = value
    return data
