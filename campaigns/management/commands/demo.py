"""``manage.py demo``: a demo campaign to click around in, created once and left alone after."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from campaigns.models import Campaign, Membership
from characters.models import Character

CAMPAIGN = "The Sunken Crown"
PLAYERS = {"alice": ("Brunella", "Sellsword with a broadsword"), "bob": ("Casimir", "Hedge knight in chainmail")}


class Command(BaseCommand):
    help = "Load the demo campaign: GM 'gm', players 'alice' and 'bob', one character each. Idempotent."

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        password = settings.DEMO_PASSWORD
        users = {}
        for username in ("gm", *PLAYERS):
            user, created = user_model.objects.get_or_create(username=username)
            if created:
                user.set_password(password)
                user.save()
            users[username] = user
        campaign = Campaign.objects.filter(name=CAMPAIGN, memberships__user=users["gm"]).first()
        if campaign is None:
            campaign = Campaign.objects.create(
                name=CAMPAIGN,
                description="A demo Lucky 13 campaign: a drowned city, a lost crown, two rivals.",
                system="lucky13",
            )
            Membership.objects.create(campaign=campaign, user=users["gm"], role=Membership.Role.GM)
        for username, (name, concept) in PLAYERS.items():
            Membership.objects.get_or_create(
                campaign=campaign, user=users[username], defaults={"role": Membership.Role.PLAYER}
            )
            Character.objects.get_or_create(
                campaign=campaign, owner=users[username], name=name, defaults={"concept": concept}
            )
        self.stdout.write(f"Demo campaign '{CAMPAIGN}': sign in as gm, alice or bob with the password '{password}'.")
