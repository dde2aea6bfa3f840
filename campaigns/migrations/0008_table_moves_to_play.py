"""The table (the roll log and encounters) moves to the ``play`` app: its models leave this app's
state here, and ``play.0001_initial`` takes them over, tables, rows and all. Nothing is written
to the database by this migration."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0007_encounter_log_range"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="RollReveal"),
                migrations.DeleteModel(name="Combatant"),
                migrations.DeleteModel(name="Roll"),
                migrations.DeleteModel(name="Encounter"),
            ],
        ),
    ]
