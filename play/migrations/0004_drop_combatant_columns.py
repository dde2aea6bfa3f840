"""The Lucky 13 columns of a combatant, now in its stat block (0003)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("play", "0003_combatant_stat_block")]

    operations = [
        migrations.RemoveField(model_name="combatant", name=name)
        for name in ("reflex", "combat", "accuracy", "damage", "weapon", "armor", "pulse", "hit_points", "stabilized")
    ]
