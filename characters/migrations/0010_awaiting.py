"""Each character counts the items of its sheet that wait for the GM's approval (``awaiting``), so that
the campaign page and the dashboard find them by an index; the count of every sheet already saved is
taken from its system here."""

from django.conf import settings
from django.db import migrations, models


def count_awaiting(apps, schema_editor) -> None:
    from rules import systems
    from rules.systems.base import SheetInvalid, SpecError

    Character = apps.get_model("characters", "Character")
    for character in Character.objects.only("pk", "system", "sheet").iterator(chunk_size=500):
        try:
            rules = systems.get(character.system)
            waiting = len(rules.awaiting(rules.read_sheet(character.sheet)))
        except (SheetInvalid, SpecError):
            continue  # a sheet its system cannot read (an empty draft) waits for nothing
        if waiting:
            Character.objects.filter(pk=character.pk).update(awaiting=waiting)


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0010_players_call_rolls"),
        ("characters", "0009_creation_dice"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="character",
            name="awaiting",
            field=models.PositiveSmallIntegerField(default=0),
        ),
        migrations.AddIndex(
            model_name="character",
            index=models.Index(
                condition=models.Q(("awaiting__gt", 0)), fields=["campaign", "name", "id"], name="characters_awaiting_gm"
            ),
        ),
        migrations.RunPython(count_awaiting, migrations.RunPython.noop),
    ]
