"""`manage.py export_campaign <campaign>`: the whole campaign as JSON on standard output."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from campaign.exchange.export import campaign_export, export_json
from campaign.management.commands._common import campaign_get


class Command(BaseCommand):
    help = (
        "Write a campaign as one JSON document to standard output: its rules state, players' "
        "colours, memberships, every turn (seeds, orders, stored resolutions with ledger and "
        "events) and every battle. The document holds no database ids or timestamps, so the "
        "same campaign exports the same bytes from any database; import_campaign reads it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="the campaign's slug")

    def handle(self, *args: Any, **opts: Any) -> None:
        campaign = campaign_get(opts["campaign"])
        self.stdout.write(export_json(campaign_export(campaign=campaign)))
