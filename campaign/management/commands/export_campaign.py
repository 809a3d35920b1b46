"""`manage.py export_campaign <campaign>`: the whole campaign as JSON on standard output, or
as a .zip with its photo files."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaign.exchange.archive import archive_write
from campaign.exchange.export import campaign_export, export_json
from campaign.management.commands._common import campaign_get, service_errors


class Command(BaseCommand):
    help = (
        "Write a campaign as one JSON document to standard output: everything it holds, its "
        "rules state, players' colours, memberships, every turn (seeds, orders, stored "
        "resolutions with ledger and events), every battle (result entry, dispute, report, "
        "photos by checksum, audit log), the sightings, invitations (without their links) and "
        "the notification log. Users are named by username. The document holds no database "
        "ids, so the same campaign exports the same bytes from any database; --without-times "
        "leaves out the moments rows were made, so that two runs from the same seeds compare "
        "equal. --zip writes a .zip with the document and the photo files instead. "
        "import_campaign reads either."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="the campaign's slug")
        parser.add_argument(
            "--without-times",
            action="store_true",
            help="leave out when rows were made, sent, read (to compare two runs)",
        )
        parser.add_argument("--zip", metavar="FILE", help="write the .zip with the photos here")

    def handle(self, *args: Any, **opts: Any) -> None:
        campaign = campaign_get(opts["campaign"])
        times = not opts["without_times"]
        if opts["zip"] is None:
            self.stdout.write(export_json(campaign_export(campaign=campaign, times=times)))
            return
        try:
            with open(opts["zip"], "wb") as out, service_errors():
                archive_write(campaign=campaign, out=out, times=times)
        except OSError as e:
            raise CommandError(f"Cannot write {opts['zip']}: {e.strerror or e}.") from None
        self.stderr.write(f"Wrote {opts['zip']}.")
