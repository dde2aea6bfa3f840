from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from rules import systems


def system_choices() -> list[tuple[str, str]]:
    """The rules systems a campaign can use: whatever the engine's registry lists."""
    return [(system.KEY, system.NAME) for system in systems.all_systems()]


class CampaignQuerySet(models.QuerySet["Campaign"]):
    def visible_to(self, user: settings.AUTH_USER_MODEL) -> CampaignQuerySet:
        if not user.is_authenticated:
            return self.none()
        return self.filter(memberships__user=user)


class Campaign(models.Model):
    name = models.CharField(max_length=120)
    description = models.TextField(blank=True)
    system = models.CharField(max_length=20, choices=system_choices, default="lucky13")
    options = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    archived_at = models.DateTimeField(null=True, blank=True)

    objects = CampaignQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="campaigns_campaign_name_not_blank"),
        ]

    def __str__(self) -> str:
        return self.name


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
