"""Claims on a turn's resolution, and their leases.

A run of the engine (Phases 0–2 or 4–8) first claims its turn: a conditional update that
commits before any work (`Turn.claim`), so that of two workers only one resolves it, and that
records when and by whom (`claimed_at`, `claimed_by`: the task and its worker, or the process,
with a token unique to the claim). The run's own transaction then starts by locking the turn's
row while the claim is still its own (`hold`) and ends by moving the turn on only if it still
is (`finish`); the lock lasts until the run commits or rolls back.

What ends a claim:

- the run commits (`finish`): the turn moves on;
- the run fails: it gives the turn back, to the status before its claim, with why
  (`give_back`), trying again while the database does not answer;
- nobody is at work on it (the worker was killed, or never managed to give the turn back):
  the periodic check releases a claim older than its lease (`claims_release_expired`,
  `settings.TURN_CLAIM_LEASE`), and skips every turn whose row a run holds locked.

So a release never races a run that could still commit: a run holds the lock from before its
first write until its commit, and a run that finds its claim gone (`ClaimLost`) writes
nothing. Nor does a live worker lose its claim, however long it works: it holds the lock, and
the lease counts only for a claim that no run holds. A released turn keeps its seed, so the
GM's retry (`services.turn_retry`) gives the result an uninterrupted run would have.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from campaign.errors import TurnBusy, TurnNotOpen
from campaign.models import AuditEntry, Turn

log = logging.getLogger(__name__)

# the status a claim was taken from, by the status it holds
BEFORE: dict[str, str] = {
    Turn.Status.RESOLVING: Turn.Status.CLOSED,
    Turn.Status.RESOLVING_AFTER: Turn.Status.BATTLES,
}
FIRST_WAIT = 0.5  # seconds before giving the turn back is tried again; doubled each time
LONGEST_WAIT = 30.0


class ClaimLost(TurnBusy):
    """The run's claim was released before its transaction took hold of the turn: another
    run may resolve it now, and this one writes nothing."""


def lease() -> timedelta:
    """How long a claim stands with no run holding its turn (`settings.TURN_CLAIM_LEASE`)."""
    return timedelta(seconds=settings.TURN_CLAIM_LEASE)


def claim(*, turn_id: int, frm: str, to: str, by: str = "") -> Turn:
    """Claim the turn for one run, moving it from `frm` to `to` (`Turn.claim`) in the name
    of `by` (a task on its worker; "web" when left out: a run in the web process). Every
    other caller gets `TurnBusy`, or `TurnNotOpen` while the turn is still open."""
    turn = Turn.objects.select_related("campaign").get(pk=turn_id)
    holder = f"{by or 'web'} #{secrets.token_hex(4)}"[-200:]  # the token keeps it unique
    if not turn.claim(frm, to, holder):
        turn.refresh_from_db()
        if turn.is_open:
            raise TurnNotOpen(f"Turn {turn.number} is still open: close it before resolving.")
        raise TurnBusy(
            f"Turn {turn.number} cannot be resolved now: it is "
            f"{turn.get_status_display().lower()} (already resolving or resolved)."
        )
    return turn


def _mine(turn: Turn) -> QuerySet[Turn]:
    """The turn's row, if the claim `turn` carries still holds it."""
    return Turn.objects.filter(pk=turn.pk, status=turn.status, claimed_by=turn.claimed_by)


def _lost(turn: Turn) -> ClaimLost:
    return ClaimLost(
        f"Turn {turn.number}: the claim of this run ({turn.claimed_by}) was released before "
        "it finished; nothing of it was kept."
    )


def hold(turn: Turn) -> None:
    """The first thing a run does in its transaction: lock the turn's row (until the run
    commits or rolls back) while its claim is still its own; `ClaimLost` if not. A lock
    that does not stop what only refers to the turn (`FOR NO KEY UPDATE`)."""
    held = _mine(turn).select_for_update(no_key=True, of=("self",)).order_by()
    if not list(held.values_list("pk", flat=True)):
        raise _lost(turn)


def finish(turn: Turn, **fields: Any) -> None:
    """The run's last write: move the turn on (`fields`) and end its claim, if the claim is
    still its own; `ClaimLost` if not (the run's transaction then writes nothing)."""
    if _mine(turn).update(claimed_at=None, claimed_by="", **fields) != 1:
        raise _lost(turn)
    turn.claimed_at, turn.claimed_by = None, ""
    for name, value in fields.items():
        setattr(turn, name, value)


def reason_of(error: BaseException) -> str:
    """Why a run stopped, as the GM reads it (`Turn.Interruption`)."""
    if isinstance(error, OperationalError | InterfaceError):
        return Turn.Interruption.DATABASE
    if isinstance(error, Exception):
        return Turn.Interruption.ERROR
    return Turn.Interruption.LOST  # SystemExit, KeyboardInterrupt: the worker is stopping


def _audited(turn_id: int, action: str, status: str, by: str, reason: str) -> None:
    """The campaign's audit log keeps every claim recovered or released (a savepoint: a
    failure to log it never undoes the recovery)."""
    try:
        with transaction.atomic():
            row = Turn.objects.filter(pk=turn_id).values_list("campaign_id", "number").first()
            if row is not None:
                changes = {"status": status, "claimed_by": by, "interrupted": reason}
                AuditEntry.log(row[0], action, turn=row[1], changes=changes)
    except DatabaseError as e:
        log.error("turn %s: the audit log did not take the claim's recovery (%s)", turn_id, e)


def _give_back_once(turn_id: int, status: str, by: str, reason: str) -> bool:
    given = Turn.objects.filter(pk=turn_id, status=status, claimed_by=by).update(
        status=BEFORE[status],
        claimed_at=None,
        claimed_by="",
        interrupted=reason,
        interrupted_at=timezone.now(),
    )
    if given == 1:
        _audited(turn_id, AuditEntry.Action.CLAIM_RECOVERED, status, by, reason)
    return given == 1


def give_back(
    *, turn_id: int, status: str, by: str, reason: str, sleep: Callable[[float], Any] = time.sleep
) -> bool:
    """A run that held the claim (`status`, `by`) failed: give the turn back to the status
    before its claim, saying why (`reason`), for a retry. While the database does not answer
    this is tried again, waiting twice as long each time (at most 30 s), until the waits add
    up to a lease; past it the periodic check releases the turn all the same. Inside a
    caller's transaction (which the failure has spoilt) it is tried once. False when the turn
    was not given back: the claim was no longer the run's, or the database did not answer."""
    waited, wait = 0.0, FIRST_WAIT
    while True:
        try:
            return _give_back_once(turn_id, status, by, reason)
        except (OperationalError, InterfaceError) as e:
            if connection.in_atomic_block or waited + wait > lease().total_seconds():
                log.error("turn %s: not given back (%s); its lease will release it", turn_id, e)
                return False
            log.warning("turn %s: not given back yet (%s); again in %.1f s", turn_id, e, wait)
        except DatabaseError as e:  # the caller's transaction is spoilt: it rolls back
            log.error("turn %s: not given back (%s); its lease will release it", turn_id, e)
            return False
        connection.close()  # the next try connects afresh
        sleep(wait)
        waited += wait
        wait = min(wait * 2, LONGEST_WAIT)


@transaction.atomic
def claims_release_expired(*, now: datetime | None = None) -> list[Turn]:
    """The periodic check's part: give back every turn whose claim is older than its lease
    and whose row no run holds (a run at work holds it locked, `hold`): the worker that
    claimed it is gone. Each goes back to the status before its claim, interrupted
    (`Turn.Interruption.LOST`), for the GM to retry; its seed stays."""
    now = now or timezone.now()
    stale = (
        Turn.objects.select_for_update(skip_locked=True, no_key=True, of=("self",))
        .filter(status__in=list(BEFORE))
        .filter(Q(claimed_at__lte=now - lease()) | Q(claimed_at__isnull=True))
        .order_by("pk")
    )
    released = []
    for turn in stale:
        log.warning(
            "turn %s: the claim of %s (since %s) outlived its lease; released",
            turn.pk,
            turn.claimed_by or "an unknown run",
            turn.claimed_at,
        )
        fields = {
            "status": BEFORE[turn.status],
            "claimed_at": None,
            "claimed_by": "",
            "interrupted": Turn.Interruption.LOST,
            "interrupted_at": now,
        }
        Turn.objects.filter(pk=turn.pk).update(**fields)
        _audited(
            turn.pk,
            AuditEntry.Action.CLAIM_RELEASED,
            turn.status,
            turn.claimed_by,
            Turn.Interruption.LOST,
        )
        for name, value in fields.items():
            setattr(turn, name, value)
        released.append(turn)
    return released
