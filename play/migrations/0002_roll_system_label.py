"""Every roll says which rules system it followed and, in words, what was rolled.

Existing rows keep both columns empty (""): the roll log is append-only (in code, and on
PostgreSQL by a trigger that refuses UPDATE), and its hash chain covers each row's content.
Filling old rows would mean dropping the trigger for the length of the migration and writing
history after the fact. Instead nothing is rewritten: :func:`play.rolls.canonical` leaves an
empty ``system`` and ``label`` out of the hashed content, so every chain recorded before verifies
unchanged, and an old row's words are said from its stored spec when it is shown
(:func:`play.rolls.label_of`, :func:`play.rolls.system_of`).

Adding and dropping a column rewrites no row (PostgreSQL fires no row trigger for ALTER TABLE),
so the migration is reversible and the trigger stays as it is.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("play", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="roll",
            name="system",
            field=models.CharField(blank=True, default="", max_length=20),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="roll",
            name="label",
            field=models.CharField(blank=True, default="", max_length=200),
            preserve_default=False,
        ),
    ]
