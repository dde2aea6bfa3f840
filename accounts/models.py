"""What accounts keep beside Django's User: the canonical form of each username, which sessions are
whose, and the addresses each person has logged in from."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class CanonicalName(models.Model):
    """A username's skeleton (:func:`accounts.names.skeleton`), unique: no two accounts whose names a
    reader cannot tell apart. Kept by :mod:`accounts.signals` whenever a user is saved.

    A separate table because the user model is Django's own. Two accounts that already looked alike
    before this rule keep their names; the later one has no row (the migration logs it).
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="canonical_name"
    )
    #: Text, not a bounded column: case folding can make a 150-character name up to three times longer.
    skeleton = models.TextField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["skeleton"], name="accounts_canonicalname_skeleton_unique")]

    def __str__(self) -> str:
        return self.skeleton


class UserSession(models.Model):
    """A session someone logged in to, so that a new password can end every other one: Django's
    sessions are not looked up by user. A row may outlive its session (it expired); rows older than a
    session can live are dropped at each log-in."""

    session_key = models.CharField(max_length=40, primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="logged_in_sessions")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.session_key[:6]}…"


class KnownAddress(models.Model):
    """An address someone logged in from with the right password: failures elsewhere never slow
    their log-in from here. Only a keyed hash of the address is kept."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="known_addresses")
    address_hash = models.CharField(max_length=64)
    last_seen_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "address_hash"], name="accounts_knownaddress_one_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.address_hash[:8]}…"
