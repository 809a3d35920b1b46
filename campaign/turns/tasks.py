"""Turn tasks: each takes ids, calls one service of `campaign.turns.services`, and is safe to
run twice. A turn is claimed with a conditional update before it is resolved, so a duplicate
or late task finds it taken (`TurnBusy`) or already closed (`TurnNotOpen`): that means "done
already", logged and not retried. Retries: `config.celery.RETRY`. A resolution claims its turn in
the task's name (its id, its worker and process: `Turn.claimed_by`), which is what the GM and
the logs read of a claim that was released."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Task, shared_task
from django.core.exceptions import ObjectDoesNotExist

from campaign.errors import ServiceError, TurnBusy, TurnNotOpen
from campaign.turns import services
from config.celery import RETRY

log = logging.getLogger(__name__)


def _by(task: Task[..., Any]) -> str:
    """Who runs this task: its id, its worker (none in-process) and process."""
    request = task.request
    return f"task {request.id} on {request.hostname or 'no worker'} pid {os.getpid()}"


@shared_task(name=services.RESOLVE_TASK, bind=True, **RETRY)
def turn_resolve_task(self: Task[..., str], turn_id: int) -> str:
    """Phases 0–2 of a closed turn (then 4–8 at once if there is no battle)."""
    try:
        resolution = services.turn_resolve_run(turn_id=turn_id, by=_by(self))
    except (TurnBusy, TurnNotOpen, ObjectDoesNotExist) as e:
        log.info("turn_resolve(%s): nothing to do: %s", turn_id, e)
        return "skipped"
    return f"resolved, {len(resolution.pending)} battles pending"


@shared_task(name=services.RESOLVE_AFTER_TASK, bind=True, **RETRY)
def turn_resolve_after_battles_task(self: Task[..., str], turn_id: int) -> str:
    """Phases 4–8 once every battle has a result; the next turn opens."""
    try:
        services.turn_resolve_after_run(turn_id=turn_id, by=_by(self))
    except (TurnBusy, TurnNotOpen, ObjectDoesNotExist) as e:
        log.info("turn_resolve_after_battles(%s): nothing to do: %s", turn_id, e)
        return "skipped"
    except ServiceError as e:  # battles still without a result: the GM goes on later
        log.warning("turn_resolve_after_battles(%s): %s", turn_id, e)
        return "waiting"
    return "resolved"


@shared_task(name=services.CLOSE_IF_READY_TASK, **RETRY)
def turn_close_if_ready_task(turn_id: int) -> str:
    """Close a turn early once every active player has confirmed."""
    return "closed" if services.turn_close_if_ready(turn_id=turn_id) else "open"


@shared_task(name=services.DEADLINES_TASK, **RETRY)
def deadlines_check_task() -> str:
    """Periodic (celery beat, every minute): give back the turns whose claim outlived its
    lease, close due turns, auto-resolve the battles due at their deadline, send due
    reminders."""
    check = services.turn_deadlines_check()
    released = f", {len(check.released)} interrupted turns released" if check.released else ""
    return (
        f"{len(check.closed)} closed at the deadline, {len(check.ready)} early, "
        f"{len(check.auto_resolved)} battles auto-resolved{released}"
    )
