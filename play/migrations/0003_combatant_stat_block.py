"""A combatant fights with a stat block, a document of its campaign's system, instead of Lucky 13
columns (issue 13): every combatant's dice, weapon name and (an NPC's) hit points become its
``block``, and whether it was stabilized its ``state``. The old columns are dropped by 0004, so that
in reverse they exist again, nullable, before the rows are refilled; then they become required and
their checks come back.

The documents are built as plain data here, frozen with the migration (not with today's engine).
"""

from django.db import migrations, models
from django.db.migrations.exceptions import IrreversibleError

#: The step ladder as the columns stored it: a rung, 0 for no die.
LABELS = (None, "d4", "d6", "d8", "d10", "d12")
DIE = [(0, "none"), (1, "d4"), (2, "d6"), (3, "d8"), (4, "d10"), (5, "d12")]


def to_block(apps, schema_editor):
    Combatant = apps.get_model("play", "Combatant")
    for combatant in Combatant.objects.order_by("pk").iterator():
        combatant.block = {
            "schema_version": 1,
            "reflex": LABELS[combatant.reflex],
            "combat": LABELS[combatant.combat],
            "accuracy": LABELS[combatant.accuracy],
            "damage": LABELS[combatant.damage],
            "weapon": combatant.weapon,
            "armor": LABELS[combatant.armor],
            "pulse": LABELS[combatant.pulse],
            "hit_points": combatant.hit_points if combatant.character_id is None else None,
        }
        combatant.state = {"stabilized": True} if combatant.stabilized else {}
        combatant.save(update_fields=["block", "state"])


def rung(label):
    return LABELS.index(label) if label else 0


def to_columns(apps, schema_editor):
    Combatant = apps.get_model("play", "Combatant")
    for combatant in Combatant.objects.order_by("pk").iterator():
        block = combatant.block
        if not isinstance(block, dict) or block.get("reflex") not in LABELS[1:] or block.get("pulse") not in LABELS[1:]:
            raise IrreversibleError(
                f"Combatant {combatant.pk} fights with a stat block that has no Lucky 13 columns: "
                "the encounters of systems other than Lucky 13 cannot go back to them."
            )
        combatant.reflex = rung(block["reflex"])
        combatant.combat = rung(block.get("combat"))
        combatant.accuracy = rung(block.get("accuracy"))
        combatant.damage = rung(block.get("damage"))
        combatant.weapon = block.get("weapon") or ""
        combatant.armor = rung(block.get("armor"))
        combatant.pulse = rung(block["pulse"])
        combatant.hit_points = block.get("hit_points") if combatant.character_id is None else None
        combatant.stabilized = bool((combatant.state or {}).get("stabilized"))
        combatant.save(
            update_fields=[
                "reflex", "combat", "accuracy", "damage", "weapon", "armor", "pulse", "hit_points", "stabilized"
            ]
        )  # fmt: skip


class Migration(migrations.Migration):
    dependencies = [("play", "0002_roll_system_label")]

    operations = [
        *(
            migrations.RemoveConstraint(model_name="combatant", name=f"play_combatant_{key}")
            for key in (
                "reflex_die", "pulse_die", "combat_die", "accuracy_die", "damage_die", "armor_die",
                "hit_points_of_npc_only",
            )
        ),  # fmt: skip
        migrations.AlterField(
            model_name="combatant", name="reflex", field=models.PositiveSmallIntegerField(choices=DIE[1:], null=True)
        ),
        migrations.AlterField(
            model_name="combatant", name="pulse", field=models.PositiveSmallIntegerField(choices=DIE[1:], null=True)
        ),
        *(
            migrations.AlterField(
                model_name="combatant", name=key, field=models.PositiveSmallIntegerField(choices=DIE, null=True)
            )
            for key in ("combat", "accuracy", "damage")
        ),
        migrations.AddField(
            model_name="combatant", name="block", field=models.JSONField(default=dict), preserve_default=False
        ),
        migrations.AddField(model_name="combatant", name="state", field=models.JSONField(blank=True, default=dict)),
        migrations.RunPython(to_block, to_columns, elidable=False),
    ]
