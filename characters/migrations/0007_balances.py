"""The ledger in the currencies a system declares: a :class:`Balance` per character and currency
takes the place of ``Character.ap_balance``, and every ledger entry says its currency.

Ledger entries are append-only (a PostgreSQL trigger refuses UPDATE, see 0004), so their
``currency`` is filled by the column's default as the column is added, never by updating rows.
Each character's balance becomes a :class:`Balance` in its system's currency; a character with
nothing earned and no entries gets no row (no row reads as 0, and a draft without one can still
be deleted). Backwards, ``ap_balance`` is restored from the balances; that is refused if any entry
or balance is in another currency, which the old column could not hold.
"""

from django.db import migrations, models
from django.db.migrations.exceptions import IrreversibleError
from django.db.models import OuterRef, Q, Subquery

#: The currency each system kept its balance in before this migration, written here as data:
#: a migration names no system through the registry (Lucky 13's Adventure Points are "ap").
FIRST_CURRENCY = {"lucky13": "ap"}
BATCH = 2000


def fill_balances(apps, schema_editor) -> None:
    Character = apps.get_model("characters", "Character")
    Balance = apps.get_model("characters", "Balance")
    LedgerEntry = apps.get_model("characters", "LedgerEntry")
    with_entries = set(LedgerEntry.objects.values_list("character_id", flat=True).distinct())
    rows = []
    characters = Character.objects.order_by("pk").values_list("pk", "system", "ap_balance")
    for pk, system, amount in characters.iterator(chunk_size=BATCH):
        if not amount and pk not in with_entries:
            continue
        currency = FIRST_CURRENCY.get(system)
        if currency is None:  # its entries were given "ap" by the column's default, which would be wrong
            raise RuntimeError(
                f"Character {pk} of the rules system {system!r} has a balance or ledger entries, and this "
                "migration knows no currency for that system: add it to FIRST_CURRENCY."
            )
        rows.append(Balance(character_id=pk, currency=currency, amount=amount))
        if len(rows) >= BATCH:
            Balance.objects.bulk_create(rows)
            rows = []
    Balance.objects.bulk_create(rows)


def restore_ap_balance(apps, schema_editor) -> None:
    Character = apps.get_model("characters", "Character")
    Balance = apps.get_model("characters", "Balance")
    LedgerEntry = apps.get_model("characters", "LedgerEntry")
    kept = Q(pk__in=[])
    for system, currency in FIRST_CURRENCY.items():
        kept |= Q(character__system=system, currency=currency)
    if LedgerEntry.objects.exclude(kept).exists() or Balance.objects.exclude(kept).exclude(amount=0).exists():
        raise IrreversibleError(
            "Some ledger entries or balances are in a currency other than a system's first: "
            "Character.ap_balance cannot hold them, so this migration is not undone."
        )
    for system, currency in FIRST_CURRENCY.items():
        balances = Balance.objects.filter(character=OuterRef("pk"), currency=currency)
        Character.objects.filter(system=system, balances__currency=currency).update(
            ap_balance=Subquery(balances.values("amount")[:1])
        )


class Migration(migrations.Migration):
    dependencies = [("characters", "0006_drop_sheet_columns")]

    operations = [
        migrations.CreateModel(
            name="Balance",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("currency", models.CharField(max_length=20)),
                ("amount", models.PositiveIntegerField(default=0)),
                (
                    "character",
                    models.ForeignKey(
                        on_delete=models.deletion.PROTECT, related_name="balances", to="characters.character"
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("character", "currency"), name="characters_balance_one_per_currency"
                    ),
                    models.CheckConstraint(condition=models.Q(amount__gte=0), name="characters_balance_not_negative"),
                    models.CheckConstraint(
                        condition=~models.Q(currency=""), name="characters_balance_currency_not_blank"
                    ),
                ],
            },
        ),
        # The default fills the column as it is added (no row is updated, so the trigger stays
        # quiet); it is not kept: every new entry names its currency.
        migrations.AddField(
            model_name="ledgerentry",
            name="currency",
            field=models.CharField(default="ap", max_length=20),
            preserve_default=False,
        ),
        migrations.AddConstraint(
            model_name="ledgerentry",
            constraint=models.CheckConstraint(
                condition=~models.Q(currency=""), name="characters_ledgerentry_currency_not_blank"
            ),
        ),
        migrations.RunPython(fill_balances, restore_ap_balance, elidable=False),
        migrations.RemoveConstraint(model_name="character", name="characters_character_ap_not_negative"),
        migrations.RemoveField(model_name="character", name="ap_balance"),
    ]
