"""``manage.py verify_rolls [CAMPAIGN ...]``: checks every campaign's roll log from its first roll.

The log page's Verify goes on from its last checkpoint, so a roll changed after it was verified, long
ago, is found only when every roll is hashed again: this does that (``check_chain(full=True)``), for
a cron job or after a restore. It exits with status 1 when a log is broken, naming each one.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaigns.models import Campaign
from play import chain


class Command(BaseCommand):
    help = "Check every roll of every campaign's log (or of the campaigns given, by id) against its signature."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaigns", nargs="*", type=int, metavar="CAMPAIGN", help="campaign ids (default: all)")

    def handle(self, *args: Any, campaigns: list[int], **options: Any) -> None:
        chosen = Campaign.objects.order_by("pk")
        if campaigns:
            chosen = chosen.filter(pk__in=campaigns)
            missing = sorted(set(campaigns) - set(chosen.values_list("pk", flat=True)))
            if missing:
                raise CommandError(f"No campaign {', '.join(map(str, missing))}.")
        broken = 0
        for campaign in chosen.iterator():
            report = chain.check_chain(campaign, full=True)
            if report.broken is None:
                self.stdout.write(f"Campaign {campaign.pk}: all {report.count} rolls verified.")
                continue
            broken += 1
            self.stdout.write(f"Campaign {campaign.pk}: broken at roll #{report.broken}. {report.reason}")
        if broken:
            raise CommandError(f"{broken} roll log(s) broken.", returncode=1)
