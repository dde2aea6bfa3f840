"""Every existing user gets the canonical form of their name (accounts.names.skeleton).

Two existing accounts whose names already look alike both keep their names: the first (by id) gets
the row, the later is logged and has none, so neither loses access; new names are then refused beside
either. Backwards, the rows go (the table itself goes with 0001).
"""

import logging

from django.db import migrations

from accounts.names import skeleton

logger = logging.getLogger("accounts.migrations")


def fill(apps, schema_editor):
    User = apps.get_model("auth", "User")
    CanonicalName = apps.get_model("accounts", "CanonicalName")
    taken = dict(CanonicalName.objects.values_list("skeleton", "user_id"))
    rows = []
    for user_id, username in User.objects.order_by("pk").values_list("pk", "username").iterator():
        name = skeleton(username)
        if name in taken:
            if taken[name] != user_id:
                logger.warning(
                    "User %s (%r) looks like user %s: both keep their names; only user %s holds the canonical name",
                    user_id, username, taken[name], taken[name],
                )  # fmt: skip
            continue
        taken[name] = user_id
        rows.append(CanonicalName(user_id=user_id, skeleton=name))
    CanonicalName.objects.bulk_create(rows, batch_size=1000)


def empty(apps, schema_editor):
    apps.get_model("accounts", "CanonicalName").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_sessions_names_addresses")]

    operations = [migrations.RunPython(fill, empty)]
