"""``manage.py demo``: a demo campaign of every system that has one (``games/<key>/demo.py``), to click
around in, created once and left alone after."""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import transaction

import games
from rules import systems


class Command(BaseCommand):
    help = "Load a demo campaign of every system, with its GM and players. Idempotent."

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        for key in systems.KEYS:
            if games.has(key, "demo"):
                self.stdout.write(import_module(f"games.{key}.demo").load() + ".")
        self.stdout.write(
            f"Users made now have the password '{settings.DEMO_PASSWORD}' (DEMO_PASSWORD); existing ones keep theirs."
        )
