from django.db import migrations, models


class Migration(migrations.Migration):
    """The GM's calls: a new campaign leaves the difficulty to the GM (players roll what the GM calls
    for); a campaign made before the option keeps the free rolling its table has played with."""

    dependencies = [
        ("campaigns", "0009_system_default_from_registry"),
    ]

    operations = [
        # Existing rows get True (the rolling they had); then new rows default to False.
        migrations.AddField(
            model_name="campaign",
            name="players_call_rolls",
            field=models.BooleanField(default=True),
        ),
        migrations.AlterField(
            model_name="campaign",
            name="players_call_rolls",
            field=models.BooleanField(default=False),
        ),
    ]
