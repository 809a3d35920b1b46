"""Helpers shared by the campaign management commands (not a command: the name starts with _).

Every bad input becomes a one-line `CommandError`, so that scripts and people both get a
clear message and a non-zero exit status instead of a traceback.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError

from campaign.errors import ServiceError
from campaign.models import Campaign, Turn


def campaign_get(slug: str) -> Campaign:
    try:
        return Campaign.objects.get(slug=slug)
    except Campaign.DoesNotExist:
        known = ", ".join(Campaign.objects.order_by("slug").values_list("slug", flat=True))
        raise CommandError(
            f"Unknown campaign {slug!r}" + (f" (campaigns: {known})." if known else ".")
        ) from None


def turn_get(campaign: Campaign, number: int) -> Turn:
    try:
        return campaign.turns.get(number=number)
    except Turn.DoesNotExist:
        numbers = list(campaign.turns.order_by("number").values_list("number", flat=True))
        span = f" (it has turns {numbers[0]}–{numbers[-1]})" if numbers else ""
        raise CommandError(f"Campaign {campaign.slug} has no turn {number}{span}.") from None


def json_read(path: str, what: str) -> Any:
    """The JSON document in `path` ("-" reads standard input)."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise CommandError(f"Cannot read the {what} file {path}: {e.strerror or e}.") from None
    except UnicodeDecodeError:
        raise CommandError(f"The {what} file {path} is not UTF-8 text.") from None
    return json_parse(text, path, what)


def json_parse(text: str, path: str, what: str) -> Any:
    """The JSON document `text`, read from `path`."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise CommandError(
            f"The {what} file {path} is not valid JSON: {e.msg} at line {e.lineno} "
            f"column {e.colno}."
        ) from None


@contextmanager
def service_errors() -> Iterator[None]:
    """Service refusals become command errors carrying the service's message."""
    try:
        yield
    except ServiceError as e:
        raise CommandError(str(e)) from None


def summary_lines(
    title: str, events: list[dict[str, Any]], ledger: list[dict[str, Any]]
) -> list[str]:
    """A short report of one resolution: counts, then contacts, captures and Will to Fight."""
    lines = [f"{title}: {len(events)} event(s), {len(ledger)} roll(s) in the ledger."]
    by_type: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        by_type.setdefault(e.get("type", "?"), []).append(e)
    for e in by_type.get("ContactMade", []):
        enemies = ", ".join(e.get("enemy_ids", []))
        lines.append(
            f"  Contact: {e['force_id']} met {enemies} at {_square(e['square'])} "
            f"(battle {e['battle_id']})."
        )
    for e in by_type.get("HoldingCaptured", []):
        capital = " (capital)" if e.get("capital") else ""
        lines.append(
            f"  Captured: {e['holding_id']}{capital} by {e['by_player']} from {e['from_player']}."
        )
    for e in by_type.get("WillToFightTested", []):
        verdict = "passed" if e.get("passed") else "FAILED"
        why = ", ".join(e.get("triggers", [])) or "no trigger"
        lines.append(f"  Will to fight: {e['player_id']} {verdict} (total {e['total']}; {why}).")
    counts = [
        f"{len(by_type.get(t, []))} {label}"
        for t, label in (
            ("ContactMade", "contact(s)"),
            ("HoldingCaptured", "capture(s)"),
            ("WillToFightTested", "will-to-fight test(s)"),
        )
    ]
    lines.append("  " + ", ".join(counts) + ".")
    return lines


def _square(sq: Any) -> str:
    return f"({sq[0]}, {sq[1]})" if isinstance(sq, list | tuple) and len(sq) == 2 else str(sq)
