"""`manage.py resolve_turn <campaign>`: take the current turn as far as it can go."""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from battles.models import Battle
from battles.services import battle_result_record
from campaign.management.commands._common import (
    campaign_get,
    json_read,
    service_errors,
    summary_lines,
)
from campaign.models import Campaign, Turn
from campaign.selectors import turn_current
from campaign.turns import services
from campaign.turns.resolution import Resolution

BY = f"manage.py resolve_turn pid {os.getpid()}"  # who claims the turn (Turn.claimed_by)


class Command(BaseCommand):
    help = (
        "Advance the current turn of a campaign as far as possible: close an open turn (fixing "
        "its seed and printing the seed's hash), run Phases 0–2, record the battle results "
        "given with --battle-results, and once no battle is pending run Phases 4–8, which "
        "opens the next turn. If battles still need results, list them and stop (exit "
        "status 0); run the command again with their results."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="the campaign's slug")
        parser.add_argument(
            "--seed",
            type=int,
            help="the seed to close an open turn with (default: a random one); on a turn "
            "already closed it must be the seed the turn was closed with",
        )
        parser.add_argument(
            "--battle-results",
            metavar="FILE",
            help="JSON object battle id → BattleResult (docs/state-format.md); entries for "
            "battles that already have a result are ignored. - reads standard input",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        campaign = campaign_get(opts["campaign"])
        results = None
        if opts["battle_results"]:
            results = json_read(opts["battle_results"], "battle results")
            if not isinstance(results, dict) or not all(
                isinstance(v, dict) for v in results.values()
            ):
                raise CommandError(
                    "The battle results file must hold a JSON object: battle id → result object."
                )
        with service_errors():
            turn = turn_current(campaign=campaign)
            seed = opts["seed"]
            if seed is not None and not turn.is_open and turn.seed != seed:
                raise CommandError(
                    f"Turn {turn.number} is already closed with another seed; --seed {seed} "
                    "cannot change it (leave --seed out to go on)."
                )
            self._advance(campaign, turn, seed, results)

    def _advance(
        self, campaign: Campaign, turn: Turn, seed: int | None, results: dict[str, Any] | None
    ) -> None:
        if turn.resolved:
            self.stdout.write(
                f"Turn {turn.number} of {campaign.slug} is resolved and no turn follows: "
                f"the campaign has ended ({campaign.ended or 'no reason recorded'})."
            )
            return
        if turn.resolving:
            raise CommandError(
                f"Turn {turn.number} is being resolved right now "
                f"({turn.get_status_display().lower()}); try again in a moment."
            )
        if turn.is_open:
            turn = services.turn_close(turn=turn, seed=seed)
            self.stdout.write(f"Turn {turn.number} closed. Seed hash: {turn.seed_hash}")
        if turn.is_closed:
            out = services.turn_resolve(turn_id=turn.pk, by=BY)
            self._summary(f"Turn {turn.number}, Phases 0–2", out)
            turn.refresh_from_db()
        pending = self._pending(turn)
        if pending and results:
            self._results_record(campaign, turn, results)
            pending = self._pending(turn)
        if pending:
            self._pending_show(campaign, turn, pending)
            return
        out = services.turn_resolve_after_battles(turn_id=turn.pk, by=BY)
        self._summary(f"Turn {turn.number}, Phases 4–8", out)
        self.stdout.write(f"Seed of turn {turn.number}: {turn.seed} (hash {turn.seed_hash}).")
        campaign.refresh_from_db()
        if campaign.ended:
            winner = f", won by {campaign.winner}" if campaign.winner else ""
            self.stdout.write(
                self.style.SUCCESS(f"The campaign has ended: {campaign.ended}{winner}.")
            )
        else:
            nxt = turn_current(campaign=campaign)
            self.stdout.write(
                self.style.SUCCESS(f"Turn {nxt.number} is open for orders (day {campaign.day}).")
            )

    def _summary(self, title: str, out: Resolution) -> None:
        for line in summary_lines(title, out.events, out.ledger):
            self.stdout.write(line)

    @staticmethod
    def _pending(turn: Turn) -> list[Battle]:
        return list(turn.battles.filter(status=Battle.Status.PENDING).order_by("contact_order"))

    @transaction.atomic
    def _results_record(self, campaign: Campaign, turn: Turn, results: dict[str, Any]) -> None:
        """All the file's results or none: entries for battles that already have a result are
        skipped; any other battle that is not pending this turn is an error."""
        battles = {b.key: b for b in Battle.objects.filter(campaign=campaign, key__in=results)}
        for key in sorted(results):
            battle = battles.get(key)
            if battle is None:
                raise CommandError(f"The results name {key!r}, not a battle of {campaign.slug}.")
            if battle.status == Battle.Status.RESOLVED:
                self.stdout.write(f"Battle {key} already has a result; its entry is ignored.")
                continue
            if battle.turn_id != turn.pk:
                raise CommandError(f"Battle {key} is not a battle of turn {turn.number}.")
            battle_result_record(battle=battle, data=results[key])
            self.stdout.write(f"Result recorded for battle {key}.")

    def _pending_show(self, campaign: Campaign, turn: Turn, pending: list[Battle]) -> None:
        self.stdout.write(
            self.style.WARNING(f"Turn {turn.number} waits for {len(pending)} battle result(s):")
        )
        for b in pending:
            self.stdout.write(f"  {b.key} at ({b.x}, {b.y}):")
            for label, side in zip("ab", b.pack.get("sides", []), strict=False):
                forces = ", ".join(
                    f"{f['force_id']} ({f.get('owner', '?')}, {f.get('status', '?')}, "
                    f"{f.get('figures', '?')} figures)"
                    for f in side.get("forces", [])
                )
                self.stdout.write(f"    {label} ({side.get('side', '?')}): {forces}")
        self.stdout.write(
            "Enter the results with\n"
            f"  manage.py resolve_turn {campaign.slug} --battle-results FILE\n"
            "(FILE: a JSON object battle id → result, see docs/state-format.md), or one "
            "battle at a time with\n"
            f"  manage.py enter_battle_result {pending[0].key} RESULT.json "
            f"--campaign {campaign.slug}"
        )
