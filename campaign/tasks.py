"""Turn tasks: each takes ids, calls one service of `campaign.services_turn`, and is safe to run
twice. A turn is claimed with a conditional update before it is resolved, so a duplicate or
late task finds it taken (`TurnBusy`) or already closed (`TurnNotOpen`): that means "done
already", logged and not retried. A lost database connection is retried with backoff."""

from __future__ import annotations

import logging

from celery import shared_task
from django.core.exceptions import ObjectDoesNotExist
from django.db import InterfaceError, OperationalError

from campaign import services_turn
from campaign.services import ServiceError, TurnBusy, TurnNotOpen

log = logging.getLogger(__name__)

RETRY = {
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": True,
    "retry_backoff_max": 300,
    "retry_jitter": True,
    "max_retries": 5,
    # a worker lost in the middle leaves the message to another one; the claim keeps it single
    "acks_late": True,
}


@shared_task(name="campaign.turn_resolve", **RETRY)
def turn_resolve_task(turn_id: int) -> str:
    """Phases 0–2 of a closed turn (then 4–8 at once if there is no battle)."""
    try:
        resolution = services_turn.turn_resolve_run(turn_id=turn_id)
    except (TurnBusy, TurnNotOpen, ObjectDoesNotExist) as e:
        log.info("turn_resolve(%s): nothing to do: %s", turn_id, e)
        return "skipped"
    return f"resolved, {len(resolution.pending)} battles pending"


@shared_task(name="campaign.turn_resolve_after_battles", **RETRY)
def turn_resolve_after_battles_task(turn_id: int) -> str:
    """Phases 4–8 once every battle has a result; the next turn opens."""
    try:
        services_turn.turn_resolve_after_run(turn_id=turn_id)
    except (TurnBusy, TurnNotOpen, ObjectDoesNotExist) as e:
        log.info("turn_resolve_after_battles(%s): nothing to do: %s", turn_id, e)
        return "skipped"
    except ServiceError as e:  # battles still without a result: the GM goes on later
        log.warning("turn_resolve_after_battles(%s): %s", turn_id, e)
        return "waiting"
    return "resolved"


@shared_task(name="campaign.turn_close_if_ready", **RETRY)
def turn_close_if_ready_task(turn_id: int) -> str:
    """Close a turn early once every active player has confirmed."""
    return "closed" if services_turn.turn_close_if_ready(turn_id=turn_id) else "open"


@shared_task(name="campaign.deadlines_check", **RETRY)
def deadlines_check_task() -> str:
    """Periodic (celery beat, every minute): close due turns, auto-resolve the battles due at
    their deadline, send due reminders."""
    check = services_turn.turn_deadlines_check()
    return (
        f"{len(check.closed)} closed at the deadline, {len(check.ready)} early, "
        f"{len(check.auto_resolved)} battles auto-resolved"
    )
