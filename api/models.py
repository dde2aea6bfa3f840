"""Personal API tokens: a user names one, sees it once, and can revoke it. Only its hash is kept."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class ApiTokenQuerySet(models.QuerySet["ApiToken"]):
    def live(self) -> ApiTokenQuerySet:
        return self.filter(revoked_at__isnull=True)


class ApiToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=60)
    #: SHA-256 of the token, hex: a token carries 256 bits of randomness, so a fast hash is enough.
    key_hash = models.CharField(max_length=64, unique=True)
    #: The token's first characters, so its owner can tell their tokens apart.
    prefix = models.CharField(max_length=12)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [models.CheckConstraint(condition=~Q(name=""), name="api_apitoken_name_not_blank")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
