"""The one write path of a sheet: version check, validation by the system, the history, the news."""

from __future__ import annotations

import pytest
from django.db import transaction

from campaigns.errors import Conflict
from characters import write
from characters.models import Character, SheetChange
from rules.systems.base import SheetInvalid

pytestmark = pytest.mark.django_db


def notes(text: str):
    return lambda character: character.document.model_copy(update={"notes": text})


def test_a_change_is_saved_with_a_new_version_and_its_history(brunella, player) -> None:
    before = brunella.sheet
    changed = write.change(brunella.pk, version=brunella.version, by=player, what="Notes", edit=notes("Paid him."))
    brunella.refresh_from_db()
    assert brunella.version == changed.version == 2
    assert brunella.document.notes == "Paid him."
    entry = SheetChange.objects.get(character=brunella)
    assert (entry.version, entry.what, entry.by, entry.sections) == (2, "Notes", player, [])
    assert entry.before == before
    assert entry.after == brunella.sheet


def test_a_change_made_from_an_older_version_is_refused_with_the_current_sheet(brunella, player, gm) -> None:
    write.change(brunella.pk, version=1, by=gm, what="Notes", edit=notes("The GM's words."))
    with pytest.raises(write.StaleSheet) as refused:
        write.change(brunella.pk, version=1, by=player, what="Notes", edit=notes("Mine."))
    assert isinstance(refused.value, Conflict)
    assert refused.value.status == 409
    assert refused.value.character.document.notes == "The GM's words."
    brunella.refresh_from_db()
    assert (brunella.version, brunella.document.notes) == (2, "The GM's words.")
    assert SheetChange.objects.filter(character=brunella).count() == 1


def test_a_section_form_goes_stale_only_when_its_own_section_changed(brunella, player) -> None:
    write.change(brunella.pk, version=0, section="notes", by=player, what="Notes", edit=notes("One."))
    brunella.refresh_from_db()
    assert write.section_version(brunella, "notes") == 2
    assert not write.is_stale(brunella, 0, "details")
    assert write.is_stale(brunella, 0, "notes")
    assert write.is_stale(brunella, 1)


def test_a_sheet_its_system_refuses_changes_nothing(brunella, player) -> None:
    def unfinished(character: Character):
        return character.document.model_copy(update={"hit_points": None})

    with pytest.raises(SheetInvalid) as refused:
        write.change(brunella.pk, version=1, by=player, what="Hit points", edit=unfinished)
    assert [p.field for p in refused.value.problems] == ["hit_points"]
    assert write.refusal(refused.value).errors == {"hit_points": "Is needed on a finished character."}
    brunella.refresh_from_db()
    assert brunella.version == 1
    assert not SheetChange.objects.exists()


def test_open_pages_hear_of_a_change_once_it_is_committed(brunella, player, django_capture_on_commit_callbacks) -> None:
    heard: list[int] = []

    def listener(sender, character_id, **kwargs) -> None:
        heard.append(character_id)

    write.character_changed.connect(listener)
    try:
        with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
            write.change(brunella.pk, version=1, by=player, what="Notes", edit=notes("x"))
            assert heard == []
        assert heard == [brunella.pk]
    finally:
        write.character_changed.disconnect(listener)


def test_the_history_is_read_newest_first_a_page_at_a_time(brunella, player) -> None:
    for n in range(5):
        write.change(brunella.pk, version=None, by=player, what=f"Change {n}", edit=notes(str(n)))
    first = write.history(brunella, limit=2)
    assert [c.what for c in first] == ["Change 4", "Change 3"]
    assert [c.what for c in write.history(brunella, before=first[-1].pk, limit=2)] == ["Change 2", "Change 1"]


def test_an_unknown_character_is_not_found(player) -> None:
    with pytest.raises(write.NotFound):
        write.change(999, version=1, by=player, what="x", edit=notes("x"))


def test_a_save_that_changes_nothing_writes_nothing_and_keeps_the_version(
    brunella, player, django_capture_on_commit_callbacks
) -> None:
    heard: list[int] = []

    def listener(sender, character_id, **kwargs) -> None:
        heard.append(character_id)

    write.character_changed.connect(listener)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            same = write.change(
                brunella.pk, version=1, section="notes", by=player, what="Notes", edit=notes(brunella.document.notes)
            )
    finally:
        write.character_changed.disconnect(listener)
    brunella.refresh_from_db()
    assert same.version == brunella.version == 1
    assert write.section_version(brunella, "notes") == 0
    assert not SheetChange.objects.filter(character=brunella).exists()
    assert heard == []
