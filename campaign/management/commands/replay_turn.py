"""`manage.py replay_turn <campaign> <turn>`: check a resolved turn by playing it again."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from campaign.exchange.replay import turn_replay
from campaign.management.commands._common import campaign_get, turn_get


class Command(BaseCommand):
    help = (
        "Replay the stored resolutions of a turn (Phases 0–2 and Phases 4–8) from the state "
        "each started from, its orders or battle results and its seed, and compare every "
        "ledger roll and every event with the stored ones. Prints OK per stage, or each "
        "difference and exits with status 1."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="the campaign's slug")
        parser.add_argument("turn", type=int, help="the turn number")

    def handle(self, *args: Any, **opts: Any) -> None:
        campaign = campaign_get(opts["campaign"])
        turn = turn_get(campaign, opts["turn"])
        report = turn_replay(turn=turn)
        for stage in report.stages:
            if not any(d.startswith(f"{stage}:") for d in report.differences):
                self.stdout.write(f"Turn {turn.number}, {stage}: OK")
        for difference in report.differences:
            self.stderr.write(f"Turn {turn.number}, {difference}")
        if not report.ok:
            raise CommandError(
                f"Turn {turn.number} of {campaign.slug} does not replay: "
                f"{len(report.differences)} difference(s)."
            )
