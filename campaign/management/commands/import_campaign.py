"""`manage.py import_campaign <file>`: rebuild a campaign written by export_campaign."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from campaign.exchange.importing import campaign_import
from campaign.management.commands._common import json_read, service_errors


class Command(BaseCommand):
    help = (
        "Create a campaign from a file written by export_campaign, in one transaction: "
        "nothing is created if anything is wrong. Users it names are created when missing, "
        "with an unusable password (set one with changepassword). A campaign with the same "
        "slug must not exist. Prints the new campaign's slug."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the export (JSON; - reads standard input)")

    def handle(self, *args: Any, **opts: Any) -> None:
        data = json_read(opts["file"], "export")
        with service_errors():
            campaign = campaign_import(data=data)
        self.stdout.write(campaign.slug)
