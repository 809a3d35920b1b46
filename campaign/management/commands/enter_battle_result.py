"""`manage.py enter_battle_result <battle> <file.json>`: record one battle's result."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from battles.models import Battle
from battles.services import battle_result_record
from campaign.management.commands._common import json_read, service_errors


class Command(BaseCommand):
    help = (
        "Record the result of a pending battle from a JSON file holding one BattleResult "
        "object (docs/state-format.md: outcomes per side a/b, losses per unit, fates of "
        "individuals). The result is checked against the battle first; a refused result "
        "changes nothing. When the last battle of the turn has its result, run resolve_turn."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("battle", help="the battle's key, e.g. t3-b1")
        parser.add_argument("file", help="the result as JSON (- reads standard input)")
        parser.add_argument(
            "--campaign",
            metavar="SLUG",
            help="the campaign of the battle; needed when several campaigns have a battle "
            "with this key",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        battle = _battle_get(opts["battle"], opts["campaign"])
        data = json_read(opts["file"], "battle result")
        if (
            isinstance(data, dict)
            and list(data) == [battle.key]
            and isinstance(data[battle.key], dict)
        ):
            data = data[battle.key]  # a results file with this one battle in it
        if not isinstance(data, dict):
            raise CommandError("The battle result file must hold one JSON object.")
        named = data.pop("battle_id", battle.key)
        if named != battle.key:
            raise CommandError(f"The file is the result of battle {named!r}, not {battle.key}.")
        with service_errors():
            battle_result_record(battle=battle, data=data)
        self.stdout.write(self.style.SUCCESS(f"Result recorded for battle {battle.key}."))
        waiting = list(
            Battle.objects.filter(turn=battle.turn_id, status=Battle.Status.PENDING)
            .order_by("contact_order")
            .values_list("key", flat=True)
        )
        if waiting:
            self.stdout.write(f"Still waiting for: {', '.join(waiting)}.")
        else:
            self.stdout.write(
                f"Every battle of turn {battle.turn.number} has its result: run "
                f"`manage.py resolve_turn {battle.campaign.slug}` for Phases 4–8."
            )


def _battle_get(key: str, slug: str | None) -> Battle:
    battles = Battle.objects.filter(key=key).select_related("campaign", "turn")
    if slug is not None:
        battles = battles.filter(campaign__slug=slug)
    found = list(battles)
    if not found:
        where = f" in campaign {slug!r}" if slug else ""
        raise CommandError(f"Unknown battle {key!r}{where}.")
    if len(found) > 1:
        slugs = ", ".join(sorted(b.campaign.slug for b in found))
        raise CommandError(
            f"Battle {key!r} exists in several campaigns ({slugs}): give --campaign SLUG."
        )
    return found[0]
