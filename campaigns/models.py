from __future__ import annotations

import json
import secrets
from datetime import datetime
from typing import Any, Final

from django.conf import settings
from django.db import connections, models, router
from django.db.models import F, Q
from django.utils import timezone

from rules import systems
from rules.systems.base import RulesSystem
from web.kept import Kept


def new_token() -> str:
    """An unguessable invitation token (about 190 bits)."""
    return secrets.token_urlsafe(32)


def system_choices() -> list[tuple[str, str]]:
    """The rules systems a campaign can use: whatever the engine's registry lists."""
    return [(system.key, system.name) for system in systems.all_systems()]


#: The campaigns' options as their systems read them (:attr:`Campaign.settings`), as JSON text, by system and
#: stored options: a handful of campaigns is played at once on a process, and a changed option is a new entry.
SETTINGS: Final[Kept[str]] = Kept(256)


class CampaignQuerySet(models.QuerySet["Campaign"]):
    def visible_to(self, user: settings.AUTH_USER_MODEL) -> CampaignQuerySet:
        if not user.is_authenticated:
            return self.none()
        return self.filter(memberships__user=user)

    def with_party_size(self) -> CampaignQuerySet:
        """Adds ``party_size``: each campaign's characters in play (the characters app's ``active``
        status), counted in the same query along the campaign's ``characters``."""
        return self.annotate(party_size=models.Count("characters", filter=models.Q(characters__status="active")))


class Campaign(models.Model):
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True)
    system = models.CharField(max_length=20, choices=system_choices, default=systems.default_key)
    options = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    #: Moved forward by anything that happens in the campaign (a character saved, a member joining).
    last_activity_at = models.DateTimeField(default=timezone.now)
    archived_at = models.DateTimeField(null=True, blank=True)
    #: The GM's calls (rules README): off, a player rolls what the GM calls for (a roll request); on,
    #: players also roll freely, setting their own difficulty, and such rolls are marked self-called.
    #: Campaigns made before the option keep the free rolling they had (migration 0002).
    players_call_rolls = models.BooleanField(default=False)

    objects = CampaignQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="campaigns_campaign_name_not_blank"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def rules(self) -> RulesSystem:
        return systems.get(self.system)

    @property
    def settings(self) -> dict[str, Any]:
        """The options with their defaults filled in, as the rules system reads them: validated once
        for the options the campaign holds (a page reads them for every row it draws), again when
        they are replaced. Treat the result as read-only."""
        return self._settings_read()[1]

    @property
    def settings_key(self) -> tuple[str, str]:
        """What :attr:`settings` are worked out from, as text: the system and the options the campaign holds
        (the same key, the same settings). A key for what is kept per campaign's options."""
        return self._settings_read()[0]

    def _settings_read(self) -> tuple[tuple[str, str], dict[str, Any]]:
        cached = self.__dict__.get("_settings")
        if cached is not None and cached[0] is self.options and cached[1] == self.system:
            return cached[2], cached[3]
        # Kept by what they are read from, across requests: each read of a campaign (the access check, the
        # lock of a write, the announcement after it) would otherwise validate the same options again. Kept as
        # JSON text (they are JSON: the system's model dumps them so), each read gets a dict of its own.
        key = (self.system, json.dumps(self.options, separators=(",", ":")))
        settings = json.loads(SETTINGS.get(key, lambda: json.dumps(self.rules.validate_options(self.options))))
        self.__dict__["_settings"] = (self.options, self.system, key, settings)
        return key, settings


def moved(campaign_id: int, when: datetime) -> bool:
    """Move the campaign's last activity to ``when`` (and so take its row's lock, as any UPDATE does); False
    when there is no such campaign. The UPDATE Django's ``QuerySet.update`` would send, written directly:
    building it through the ORM cost every write on a sheet more than the database took to run it."""
    database = connections[router.db_for_write(Campaign)]
    with database.cursor() as cursor:
        cursor.execute(*moved_statement(campaign_id, when))
        return cursor.rowcount > 0


def moved_statement(campaign_id: int, when: datetime) -> tuple[str, list[Any]]:
    """:func:`moved`'s UPDATE and its parameters, to be sent with other writes (``web.prepared.write_together``)."""
    database = connections[router.db_for_write(Campaign)]
    meta, quote = Campaign._meta, database.ops.quote_name
    field = meta.get_field("last_activity_at")
    # Names from the model's own meta, quoted; the values are parameters.
    sql = f"UPDATE {quote(meta.db_table)} SET {quote(field.column)} = %s WHERE {quote(meta.pk.column)} = %s"  # noqa: S608
    return sql, [field.get_db_prep_save(when, connection=database), campaign_id]


class Membership(models.Model):
    class Role(models.TextChoices):
        GM = "gm", "Game master"
        PLAYER = "player", "Player"

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.PLAYER)
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["campaign", "user"], name="campaigns_membership_unique_member"),
            models.UniqueConstraint(fields=["campaign"], condition=Q(role="gm"), name="campaigns_membership_one_gm"),
            models.CheckConstraint(condition=Q(role__in=["gm", "player"]), name="campaigns_membership_role_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.get_role_display()}) in {self.campaign}"


class InvitationQuerySet(models.QuerySet["Invitation"]):
    def usable(self, now: datetime | None = None) -> InvitationQuerySet:
        now = now or timezone.now()
        return self.filter(revoked_at__isnull=True, expires_at__gt=now).filter(
            Q(max_uses__isnull=True) | Q(uses__lt=F("max_uses"))
        )


class Invitation(models.Model):
    """A link the GM shares: a signed-in user who opens it joins as a player."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="invitations")
    token = models.CharField(max_length=64, unique=True, default=new_token)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    #: 1 for a single-use link; empty for any number of uses until it expires.
    max_uses = models.PositiveIntegerField(null=True, blank=True)
    uses = models.PositiveIntegerField(default=0)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = InvitationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(max_uses__isnull=True) | Q(uses__lte=F("max_uses")),
                name="campaigns_invitation_uses_within_max",
            ),
            models.CheckConstraint(
                condition=Q(max_uses__isnull=True) | Q(max_uses__gte=1), name="campaigns_invitation_max_uses_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"Invitation to {self.campaign}"

    def state(self, now: datetime | None = None) -> str:
        """ "active", "revoked", "expired" or "used up", for people."""
        now = now or timezone.now()
        if self.revoked_at:
            return "revoked"
        if self.expires_at <= now:
            return "expired"
        if self.max_uses is not None and self.uses >= self.max_uses:
            return "used up"
        return "active"


# --- Append-only rows (the roll log, the ledger) ---------------------------------------------------


class AppendOnly(Exception):
    """An attempt to change or remove a row of an append-only table (the roll log, the ledger)."""


class AppendOnlyQuerySet(models.QuerySet):
    """Rows are written once: bulk updates and deletes are refused here, and by a trigger on PostgreSQL."""

    def update(self, **kwargs: Any) -> int:
        raise AppendOnly(f"{self.model.__name__} rows are never updated: record a new row instead")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnly(f"{self.model.__name__} rows are never deleted")

    def bulk_update(self, objs: Any, fields: Any, batch_size: int | None = None) -> int:
        raise AppendOnly(f"{self.model.__name__} rows are never updated: record a new row instead")

    # What a cascade uses when it can skip the model's delete().
    def _raw_delete(self, using: str) -> int:
        raise AppendOnly(f"{self.model.__name__} rows are never deleted")


class AppendOnlyModel(models.Model):
    """A row that is inserted once and then never saved again nor deleted."""

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnly(f"{type(self).__name__} #{self.pk} is never updated: record a new row instead")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnly(f"{type(self).__name__} #{self.pk} is never deleted")
