"""The table moves here from ``campaigns``: the roll log (Roll, RollReveal) and encounters
(Encounter, Combatant), with every row they hold.

``campaigns.0008_table_moves_to_play`` removed the models from that app's state; here they enter
this app's state as they stood, on their old tables, and then the database follows with real,
reversible operations, none of which touches a row:

- the tables are renamed ``campaigns_*`` → ``play_*`` (foreign keys follow a renamed table);
- the named constraints and indexes are renamed ``campaigns_<model>_<rule>`` → ``play_<model>_<rule>``;
- on PostgreSQL, the append-only triggers (which stay attached to a renamed table) and their
  function are renamed to match;
- the content types move with the models, so permissions and admin history keep pointing at them.

``migrate play zero`` undoes each step in reverse order, back to the tables as they were.
"""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models
from django.db.migrations.operations.base import Operation

DIE = [(0, "none"), (1, "d4"), (2, "d6"), (3, "d8"), (4, "d10"), (5, "d12")]

#: Model, old table; each becomes ``play_<model>``.
TABLES = [
    ("roll", "campaigns_roll"),
    ("rollreveal", "campaigns_rollreveal"),
    ("encounter", "campaigns_encounter"),
    ("combatant", "campaigns_combatant"),
]


def roll_constraints(app):
    return [
        models.UniqueConstraint(fields=("campaign", "seq"), name=f"{app}_roll_unique_seq"),
        models.CheckConstraint(condition=models.Q(("seq__gte", 1)), name=f"{app}_roll_seq_positive"),
        models.CheckConstraint(
            condition=models.Q(
                (
                    "kind__in",
                    [
                        "check",
                        "reaction",
                        "opposed",
                        "attack",
                        "damage",
                        "initiative",
                        "adjustment",
                        "removal",
                        "free",
                    ],
                )
            ),
            name=f"{app}_roll_kind_valid",
        ),
        models.CheckConstraint(
            condition=models.Q(("chance__isnull", True), models.Q(("chance_of", ""), _negated=True), _connector="OR"),
            name=f"{app}_roll_chance_says_of_what",
        ),
    ]


def roll_indexes(app):
    return [
        models.Index(fields=["campaign", "character", "-seq"], name=f"{app}_roll_character_idx"),
        models.Index(fields=["campaign", "kind", "-seq"], name=f"{app}_roll_kind_idx"),
    ]


def encounter_constraints(app):
    return [
        models.UniqueConstraint(
            condition=models.Q(("ended_at__isnull", True)), fields=("campaign",), name=f"{app}_encounter_one_running"
        ),
        models.CheckConstraint(condition=models.Q(("name", ""), _negated=True), name=f"{app}_encounter_name_not_blank"),
        models.CheckConstraint(
            condition=models.Q(("round__gte", 0), ("turn__gte", 0)), name=f"{app}_encounter_round_turn"
        ),
    ]


def combatant_constraints(app):
    return [
        models.CheckConstraint(
            condition=models.Q(("reflex__gte", 1), ("reflex__lte", 5)), name=f"{app}_combatant_reflex_die"
        ),
        models.CheckConstraint(
            condition=models.Q(("pulse__gte", 1), ("pulse__lte", 5)), name=f"{app}_combatant_pulse_die"
        ),
        *(
            models.CheckConstraint(
                condition=models.Q((f"{key}__gte", 0), (f"{key}__lte", 5)), name=f"{app}_combatant_{key}_die"
            )
            for key in ("combat", "accuracy", "damage", "armor")
        ),
        models.CheckConstraint(condition=models.Q(("name", ""), _negated=True), name=f"{app}_combatant_name_not_blank"),
        models.CheckConstraint(
            condition=models.Q(
                models.Q(("character__isnull", True), ("hit_points__isnull", False)),
                models.Q(("character__isnull", False), ("hit_points__isnull", True)),
                _connector="OR",
            ),
            name=f"{app}_combatant_hit_points_of_npc_only",
        ),
        models.UniqueConstraint(
            condition=models.Q(("character__isnull", False)),
            fields=("encounter", "character"),
            name=f"{app}_combatant_character_once",
        ),
        models.UniqueConstraint(
            condition=models.Q(("order__isnull", False)),
            fields=("encounter", "order"),
            name=f"{app}_combatant_unique_order",
        ),
    ]


CONSTRAINTS = {"roll": roll_constraints, "encounter": encounter_constraints, "combatant": combatant_constraints}


class RenameConstraint(Operation):
    """Rename a named constraint, keeping its definition: on PostgreSQL in place (a constraint, or
    the unique index Django makes for a conditional UniqueConstraint); elsewhere by dropping and
    adding it again (SQLite rebuilds the table)."""

    reversible = True

    def __init__(self, model_name, old_name, new_name):
        self.model_name = model_name
        self.old_name = old_name
        self.new_name = new_name

    def deconstruct(self):
        kwargs = {"model_name": self.model_name, "old_name": self.old_name, "new_name": self.new_name}
        return self.__class__.__name__, [], kwargs

    @staticmethod
    def _renamed(constraints, old_name, new_name):
        renamed = []
        for constraint in constraints:
            if constraint.name == old_name:
                constraint = constraint.clone()
                constraint.name = new_name
            renamed.append(constraint)
        return renamed

    def state_forwards(self, app_label, state):
        model_state = state.models[app_label, self.model_name]
        model_state.options["constraints"] = self._renamed(
            model_state.options["constraints"], self.old_name, self.new_name
        )
        state.reload_model(app_label, self.model_name, delay=True)

    def _rename(self, app_label, schema_editor, from_state, to_state, old_name, new_name):
        from_model = from_state.apps.get_model(app_label, self.model_name)
        to_model = to_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, to_model):
            return
        old = next(c for c in from_model._meta.constraints if c.name == old_name)
        new = next(c for c in to_model._meta.constraints if c.name == new_name)
        if schema_editor.connection.vendor != "postgresql":
            schema_editor.remove_constraint(from_model, old)
            schema_editor.add_constraint(to_model, new)
            return
        quote = schema_editor.quote_name
        if isinstance(old, models.UniqueConstraint) and old.condition is not None:
            schema_editor.execute(f"ALTER INDEX {quote(old_name)} RENAME TO {quote(new_name)}")
        else:
            table = quote(to_model._meta.db_table)
            schema_editor.execute(f"ALTER TABLE {table} RENAME CONSTRAINT {quote(old_name)} TO {quote(new_name)}")

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        self._rename(app_label, schema_editor, from_state, to_state, self.old_name, self.new_name)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        self._rename(app_label, schema_editor, from_state, to_state, self.new_name, self.old_name)

    def describe(self):
        return f"Rename constraint {self.old_name} on {self.model_name} to {self.new_name}"

    @property
    def migration_name_fragment(self):
        return f"rename_{self.old_name.lower()}_{self.new_name.lower()}"


# --- The append-only triggers (PostgreSQL), created by campaigns.0003_roll_append_only_trigger ----

#: The function the triggers run, old name → new.
FUNCTIONS = {"campaigns_refuse_change": "play_refuse_change"}


def _rename_triggers(schema_editor, *, to_play):
    if schema_editor.connection.vendor != "postgresql":
        return
    for model, _ in TABLES[:2]:  # the roll log's two tables
        old, new = f"campaigns_{model}_append_only", f"play_{model}_append_only"
        if not to_play:
            old, new = new, old
        schema_editor.execute(f"ALTER TRIGGER {old} ON play_{model} RENAME TO {new}")
    for old, new in FUNCTIONS.items():
        if not to_play:
            old, new = new, old
        schema_editor.execute(f"ALTER FUNCTION {old}() RENAME TO {new}")


def triggers_to_play(apps, schema_editor):
    _rename_triggers(schema_editor, to_play=True)


def triggers_to_campaigns(apps, schema_editor):
    _rename_triggers(schema_editor, to_play=False)


# --- Content types -------------------------------------------------------------------------------


def _move_content_types(apps, schema_editor, source, target):
    """The models' content types (and so their permissions and admin log entries) follow them. Where
    the target already has one of its own (made after an earlier move back), both are left alone."""
    content_type = apps.get_model("contenttypes", "ContentType")
    rows = content_type.objects.using(schema_editor.connection.alias)
    for model, _ in TABLES:
        if not rows.filter(app_label=target, model=model).exists():
            rows.filter(app_label=source, model=model).update(app_label=target)


def content_types_to_play(apps, schema_editor):
    _move_content_types(apps, schema_editor, "campaigns", "play")


def content_types_to_campaigns(apps, schema_editor):
    _move_content_types(apps, schema_editor, "play", "campaigns")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("campaigns", "0008_table_moves_to_play"),
        ("characters", "0004_ledger_append_only_trigger"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The models as campaigns left them, on the tables they have.
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Roll",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("check", "Check"),
                                    ("reaction", "Reaction check"),
                                    ("opposed", "Opposed roll"),
                                    ("attack", "Attack"),
                                    ("damage", "Damage"),
                                    ("initiative", "Initiative"),
                                    ("adjustment", "Hit point change"),
                                    ("removal", "Left the fight"),
                                    ("free", "Free roll"),
                                ],
                                max_length=20,
                            ),
                        ),
                        ("spec", models.JSONField()),
                        ("dice", models.JSONField()),
                        ("total", models.IntegerField(blank=True, null=True)),
                        ("outcome", models.JSONField(blank=True, default=dict)),
                        ("chance", models.CharField(blank=True, max_length=200, null=True)),
                        ("chance_of", models.CharField(blank=True, max_length=200)),
                        ("secret", models.BooleanField(default=False)),
                        ("created_at", models.DateTimeField()),
                        ("seq", models.PositiveIntegerField()),
                        ("prev_hash", models.CharField(max_length=64)),
                        ("hash", models.CharField(max_length=64)),
                        (
                            "by",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="rolls",
                                to="campaigns.campaign",
                            ),
                        ),
                        (
                            "character",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="rolls",
                                to="characters.character",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "campaigns_roll",
                        "ordering": ["-seq"],
                        "constraints": roll_constraints("campaigns"),
                        "indexes": roll_indexes("campaigns"),
                    },
                ),
                migrations.CreateModel(
                    name="RollReveal",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "by",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "roll",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="reveal",
                                to="play.roll",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "campaigns_rollreveal",
                        "abstract": False,
                    },
                ),
                migrations.CreateModel(
                    name="Encounter",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("name", models.CharField(max_length=120)),
                        ("started_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("ended_at", models.DateTimeField(blank=True, null=True)),
                        ("round", models.PositiveIntegerField(default=0)),
                        ("turn", models.PositiveIntegerField(default=0)),
                        ("log_after", models.PositiveIntegerField(blank=True, null=True)),
                        ("log_until", models.PositiveIntegerField(blank=True, null=True)),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="encounters",
                                to="campaigns.campaign",
                            ),
                        ),
                        (
                            "created_by",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "campaigns_encounter",
                        "ordering": ["-started_at", "-pk"],
                        "constraints": encounter_constraints("campaigns"),
                    },
                ),
                migrations.CreateModel(
                    name="Combatant",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("name", models.CharField(max_length=120)),
                        ("reflex", models.PositiveSmallIntegerField(choices=DIE[1:])),
                        ("combat", models.PositiveSmallIntegerField(choices=DIE)),
                        ("accuracy", models.PositiveSmallIntegerField(choices=DIE)),
                        ("damage", models.PositiveSmallIntegerField(choices=DIE)),
                        ("weapon", models.CharField(blank=True, max_length=60)),
                        ("armor", models.PositiveSmallIntegerField(choices=DIE, default=0)),
                        ("pulse", models.PositiveSmallIntegerField(choices=DIE[1:])),
                        ("hit_points", models.IntegerField(blank=True, null=True)),
                        ("group", models.PositiveIntegerField(blank=True, null=True)),
                        ("initiative", models.IntegerField(blank=True, null=True)),
                        ("order", models.PositiveIntegerField(blank=True, null=True)),
                        ("stabilized", models.BooleanField(default=False)),
                        ("removed", models.BooleanField(default=False)),
                        (
                            "character",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="combatants",
                                to="characters.character",
                            ),
                        ),
                        (
                            "encounter",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="combatants",
                                to="play.encounter",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "campaigns_combatant",
                        "ordering": ["order", "pk"],
                        "constraints": combatant_constraints("campaigns"),
                    },
                ),
            ],
        ),
        # The tables take this app's names (db_table unset: play_roll, play_rollreveal, …).
        *(migrations.AlterModelTable(name=model, table=None) for model, _ in TABLES),
        # So do the named indexes and constraints.
        *(
            migrations.RenameIndex(model_name="roll", new_name=new.name, old_name=old.name)
            for old, new in zip(roll_indexes("campaigns"), roll_indexes("play"), strict=True)
        ),
        *(
            RenameConstraint(model_name=model, old_name=old.name, new_name=new.name)
            for model, constraints in CONSTRAINTS.items()
            for old, new in zip(constraints("campaigns"), constraints("play"), strict=True)
        ),
        migrations.RunPython(triggers_to_play, triggers_to_campaigns, elidable=False),
        migrations.RunPython(content_types_to_play, content_types_to_campaigns, elidable=False),
    ]
