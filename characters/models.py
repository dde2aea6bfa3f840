from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Character(models.Model):
    """A player character in a campaign. Its sheet, by the campaign's rules system,
    grows with the sheet work; ``version`` guards every save against stale pages."""

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.PROTECT, related_name="characters")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="characters")
    name = models.CharField(max_length=120)
    concept = models.CharField(max_length=200, blank=True)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="characters_character_name_not_blank"),
        ]

    def __str__(self) -> str:
        return self.name
