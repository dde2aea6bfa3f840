"""The Lucky 13 columns and tables that the sheet document replaced (see 0005), and the sheet history."""

from django.conf import settings
from django.db import migrations, models
from django.utils import timezone

from campaigns import append_only

FUNCTION = "characters_sheetchange_refuse_change"
TABLE = "characters_sheetchange"


def create_trigger(apps, schema_editor) -> None:
    """Sheet history is never changed; it is removed only with a deleted draft: the database
    allows it for a character not in play (a draft, or one archived, as a removed player's
    unfinished draft is); the code deletes only never-finished drafts."""
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(
        f"""
CREATE OR REPLACE FUNCTION {FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND EXISTS (
        SELECT 1 FROM characters_character WHERE id = OLD.character_id AND status <> 'active'
    ) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation',
              HINT = 'A sheet''s history is never changed; a new change is recorded instead.';
END;
$$;
""",
        params=None,
    )
    schema_editor.execute(
        f"CREATE TRIGGER {TABLE}_append_only BEFORE UPDATE OR DELETE ON {TABLE} "
        f"FOR EACH ROW EXECUTE FUNCTION {FUNCTION}();"
    )


def drop_trigger(apps, schema_editor) -> None:
    append_only.drop_triggers(schema_editor, FUNCTION, (TABLE,))


class Migration(migrations.Migration):
    dependencies = [
        ("characters", "0005_sheet_document"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        *(
            migrations.RemoveConstraint(model_name="character", name=f"characters_character_{key}_d4_to_d12")
            for key in ("will", "charm", "pulse", "intellect", "reflex")
        ),
        migrations.RemoveConstraint(model_name="character", name="characters_character_reputation_range"),
        migrations.DeleteModel(name="Armor"),
        migrations.DeleteModel(name="Weapon"),
        migrations.DeleteModel(name="Asset"),
        migrations.DeleteModel(name="Trait"),
        migrations.DeleteModel(name="Specialization"),
        migrations.DeleteModel(name="Skill"),
        *(
            migrations.RemoveField(model_name="character", name=name)
            for name in (
                "concept", "creation_step", "ability_method", "creation_rolls", "will", "charm", "pulse",
                "intellect", "reflex", "took_impairment", "hit_points", "reputation", "notes",
            )
        ),  # fmt: skip
        migrations.AddConstraint(
            model_name="character",
            constraint=models.CheckConstraint(
                condition=models.Q(status__in=["draft", "active", "archived"]), name="characters_character_status"
            ),
        ),
        migrations.CreateModel(
            name="SheetChange",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("version", models.PositiveIntegerField()),
                ("what", models.CharField(max_length=200)),
                ("sections", models.JSONField(default=list)),
                ("before", models.JSONField()),
                ("after", models.JSONField()),
                ("created_at", models.DateTimeField(default=timezone.now)),
                (
                    "by",
                    models.ForeignKey(
                        null=True, on_delete=models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL
                    ),
                ),
                (
                    "character",
                    models.ForeignKey(
                        on_delete=models.deletion.PROTECT, related_name="sheet_changes", to="characters.character"
                    ),
                ),
            ],
            options={
                "ordering": ["-pk"],
                "indexes": [models.Index(fields=["character", "-id"], name="characters_sheetchange_recent")],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("character", "version"), name="characters_sheetchange_one_per_version"
                    )
                ],
            },
        ),
        migrations.RunPython(create_trigger, drop_trigger, elidable=False),
    ]
