"""`manage.py import_campaign <file>`: rebuild a campaign written by export_campaign, from its
JSON or from its .zip with the photos."""

from __future__ import annotations

import sys
from contextlib import ExitStack
from io import BytesIO
from typing import IO, Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaign.exchange.archive import archive_read
from campaign.exchange.importing import campaign_import
from campaign.management.commands._common import json_parse, service_errors

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


class Command(BaseCommand):
    help = (
        "Create a campaign from a file written by export_campaign (its JSON, or its .zip with "
        "the photo files), in one transaction: nothing is created if anything is wrong. "
        "Everything the export holds is restored as it was, the moments too; nothing is sent. "
        "From the JSON alone the photos are left out (it names them; the .zip holds them). "
        "Users it names are created when missing, with no password and no e-mail address "
        "(set a password with changepassword); it says which. A campaign with the same slug "
        "must not exist: --slug imports it under another one. Prints the new campaign's slug."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the export (JSON or .zip; - reads standard input)")
        parser.add_argument("--slug", help="import under this slug instead of the export's")
        parser.add_argument("--name", help="give the campaign this name instead of the export's")

    def handle(self, *args: Any, **opts: Any) -> None:
        path = opts["file"]
        with ExitStack() as stack:
            f = _open(path, stack)
            with service_errors():
                if f.read(4) in ZIP_MAGIC:
                    f.seek(0)
                    data, photos = archive_read(f)
                else:
                    f.seek(0)
                    data, photos = _json(f, path), None
                done = campaign_import(
                    data=data, slug=opts["slug"], name=opts["name"], photos=photos
                )
        if done.users_created:
            self.stderr.write(
                "Created the users this database did not have, with no password and no e-mail "
                f"address: {', '.join(done.users_created)} (set a password with changepassword)."
            )
        for note in done.notes:
            self.stderr.write(f"Not restored: {note}.")
        self.stdout.write(done.campaign.slug)


def _open(path: str, stack: ExitStack) -> IO[bytes]:
    if path == "-":
        return BytesIO(sys.stdin.buffer.read())
    try:
        return stack.enter_context(open(path, "rb"))  # noqa: SIM115 - the stack closes it
    except OSError as e:
        raise CommandError(f"Cannot read the export file {path}: {e.strerror or e}.") from None


def _json(f: IO[bytes], path: str) -> Any:
    try:
        text = f.read().decode("utf-8")
    except UnicodeDecodeError:
        raise CommandError(f"The export file {path} is not UTF-8 text.") from None
    return json_parse(text, path, "export")
