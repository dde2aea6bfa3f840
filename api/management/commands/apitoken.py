"""``manage.py apitoken USERNAME [--create-user] [--name NAME]``: prints a new personal API token."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from api import tokens
from campaigns.operations import Refused


class Command(BaseCommand):
    help = "Print a new personal API token for USERNAME (for scripts and tests)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--create-user", action="store_true", help="make the user (with no password) if missing")
        parser.add_argument("--name", default="command line", help="the token's name (default: command line)")

    def handle(self, *args: Any, username: str, create_user: bool, name: str, **options: Any) -> None:
        users = get_user_model()
        user = users.objects.filter(username=username).first()
        if user is None:
            if not create_user:
                raise CommandError(f"No user {username!r}; add --create-user to make one.")
            user = users.objects.create_user(username=username)  # no usable password: tokens only
        try:
            _, raw = tokens.create_token(user=user, name=name)
        except Refused as refused:
            raise CommandError(refused.message) from None
        self.stdout.write(raw)
