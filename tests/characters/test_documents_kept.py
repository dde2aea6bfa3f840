"""A sheet is read into its system's document once per process for each content (characters.models.read_document):
the same content gives the same frozen document, another content or another system object reads afresh,
and a sheet the system refuses is refused every time."""

from __future__ import annotations

import copy

import pytest

from characters.models import DOCUMENTS, Character, read_document
from rules import systems
from rules.systems.base import SheetInvalid
from tests.campaigns.helpers import make_character

pytestmark = pytest.mark.django_db


def test_the_same_content_is_read_once_and_another_afresh(campaign, player) -> None:
    hero = make_character(campaign, player, "Brunella")
    rules = systems.get(hero.system)
    DOCUMENTS.clear()
    first = read_document(rules, hero.sheet)
    assert read_document(rules, copy.deepcopy(hero.sheet)) is first  # by content, not by the dict
    assert first == rules.read_sheet(hero.sheet)
    changed = {**hero.sheet, "hit_points": 17}
    other = read_document(rules, changed)
    assert other is not first
    assert other == rules.read_sheet(changed)
    again = Character.objects.get(pk=hero.pk)  # another row, another instance: the same document
    assert again.document is first


def test_another_system_object_reads_afresh(campaign, player) -> None:
    hero = make_character(campaign, player, "Brunella")
    rules = systems.get(hero.system)
    standin = copy.copy(rules)
    assert read_document(standin, hero.sheet) is not read_document(rules, hero.sheet)


def test_a_refused_sheet_is_refused_every_time(campaign, player) -> None:
    hero = make_character(campaign, player, "Brunella")
    rules = systems.get(hero.system)
    broken = {**hero.sheet, "hit_points": "many"}
    for _ in range(2):
        with pytest.raises(SheetInvalid):
            read_document(rules, broken)
