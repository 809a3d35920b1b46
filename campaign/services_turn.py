"""The turn as a state machine the GM drives, with its clock.

    open ──(deadline · every player confirmed · GM)──▶ closed ──▶ resolving (Phases 0–2)
      ▲                                                               │
      │                                                               ▼
    the next turn opens ◀── resolved ◀── resolving-after (4–8) ◀── battles pending

Closing fixes the seed (`services.turn_close`) and queues the resolution; resolution runs in
Celery tasks (`campaign.tasks`), which call `services.turn_resolve` and
`services.turn_resolve_after_battles`: those claim the turn with a conditional update, so a
task run twice resolves once. A turn without battles goes on to Phases 4–8 at once.

The clock: the GM sets the deadline and its time zone, may pause the turn (a paused deadline
does not fire; resuming moves it on by the time spent paused) and extend it (at most three
times a turn, at most seven days each). A turn with a deadline closes early once every
active player has confirmed his orders; a turn without one waits for the GM. A new turn
opened by Phases 4–8 gets the previous turn's duration as its deadline, or none. While
battles wait, the GM may set when their results are due (`turn_battles_deadline_set`); the
battles he marked "auto-resolve at the deadline" that still have no result are then fought by
the tactical engine.

While a turn is open and paused, the moment the pause began is kept in `Turn.carry["clock"]`
(the carry is empty until Phases 0–2 fill it, and the rules ignore the key).
"""

from __future__ import annotations

import functools
import zoneinfo
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone as djtz
from django.utils.translation import gettext as _

from battles.models import Battle
from campaign import services
from campaign.models import Campaign, Orders, Player, Turn
from campaign.services import ServiceError, TurnBusy, TurnNotOpen

MAX_EXTENSIONS = 3  # per turn
MAX_EXTENSION = timedelta(days=7)  # each

# the steps the overview polls through: something is under way that needs no one's input
BUSY = {Turn.Status.CLOSED, Turn.Status.RESOLVING, Turn.Status.RESOLVING_AFTER}


class ClockError(ServiceError):
    """A deadline, pause or extension the rules of the clock do not allow."""


@functools.cache
def timezones() -> list[str]:
    """Every time zone name a deadline may be given in, sorted."""
    return sorted(zoneinfo.available_timezones())


def _zone(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as e:
        raise ClockError(_("“%(zone)s” is not a time zone.") % {"zone": name}) from e


def _locked(turn: Turn) -> Turn:
    return Turn.objects.select_for_update().select_related("campaign").get(pk=turn.pk)


def _require_open(turn: Turn) -> None:
    if turn.status != Turn.Status.OPEN:
        raise TurnNotOpen(
            _("Turn %(turn)s is not open for orders (%(status)s).")
            % {"turn": turn.number, "status": turn.get_status_display().lower()}
        )


def _clock(turn: Turn) -> dict:
    return dict((turn.carry or {}).get("clock") or {})


def _set_clock(turn: Turn, clock: dict) -> None:
    carry = {k: v for k, v in (turn.carry or {}).items() if k != "clock"}
    if clock:
        carry["clock"] = clock
    turn.carry = carry


def _enqueue(task, *args) -> None:
    """Queue `task` when the current transaction commits; a failure to queue is logged, the
    turn's state is what everyone sees (and the GM's advance button queues it again)."""
    transaction.on_commit(lambda: task.delay(*args), robust=True)


def _tasks():
    from campaign import tasks  # the tasks call this module

    return tasks


def _notifications():
    from notifications import tasks

    return tasks


# --- the clock -------------------------------------------------------------------------------


@transaction.atomic
def turn_open(*, turn: Turn, deadline: datetime | None, timezone: str) -> Turn:
    """Set (or clear, with `None`) the deadline of the open turn and the time zone it is shown
    in. A naive deadline is read in that time zone; it must lie in the future. The players are
    told the new deadline."""
    zone = _zone(timezone)
    turn = _locked(turn)
    _require_open(turn)
    now = djtz.now()
    if deadline is not None:
        if djtz.is_naive(deadline):
            deadline = djtz.make_aware(deadline, zone)
        if deadline <= now:
            raise ClockError(_("The deadline must be in the future."))
    turn.deadline = deadline
    turn.timezone = timezone
    if turn.paused:  # the pause counts for this deadline from the moment it was set
        _set_clock(turn, {**_clock(turn), "paused_at": now.isoformat()})
    turn.save(update_fields=["deadline", "timezone", "carry"])
    _enqueue(_notifications().notify_turn_opened_task, turn.pk)
    if deadline is not None:
        _enqueue(_tasks().turn_close_if_ready_task, turn.pk)
    return turn


@transaction.atomic
def turn_pause(*, turn: Turn) -> Turn:
    """Stop the clock of the open turn: its deadline does not fire while it is paused. Orders
    may still be written and confirmed."""
    turn = _locked(turn)
    _require_open(turn)
    if turn.paused:
        raise ClockError(_("Turn %(turn)s is already paused.") % {"turn": turn.number})
    turn.paused = True
    _set_clock(turn, {**_clock(turn), "paused_at": djtz.now().isoformat()})
    turn.save(update_fields=["paused", "carry"])
    return turn


@transaction.atomic
def turn_resume(*, turn: Turn) -> Turn:
    """Start the clock again; the deadline moves on by the time the turn was paused."""
    turn = _locked(turn)
    _require_open(turn)
    if not turn.paused:
        raise ClockError(_("Turn %(turn)s is not paused.") % {"turn": turn.number})
    clock = _clock(turn)
    paused_at = clock.pop("paused_at", None)
    if turn.deadline is not None and paused_at:
        turn.deadline += max(timedelta(0), djtz.now() - datetime.fromisoformat(paused_at))
    turn.paused = False
    _set_clock(turn, clock)
    turn.save(update_fields=["paused", "deadline", "carry"])
    if turn.deadline is not None:
        _enqueue(_tasks().turn_close_if_ready_task, turn.pk)
    return turn


@transaction.atomic
def turn_extend(*, turn: Turn, days: int = 0, hours: int = 0) -> Turn:
    """Move the deadline of the open turn later: at most three times a turn, by at most seven
    days each time. The players are told the new deadline."""
    if days < 0 or hours < 0:
        raise ClockError(_("An extension cannot be negative."))
    delta = timedelta(days=days, hours=hours)
    if delta <= timedelta(0):
        raise ClockError(_("An extension must add some time: give days or hours."))
    if delta > MAX_EXTENSION:
        raise ClockError(_("An extension can be at most 7 days."))
    turn = _locked(turn)
    _require_open(turn)
    if turn.deadline is None:
        raise ClockError(
            _("Turn %(turn)s has no deadline to extend: set one first.") % {"turn": turn.number}
        )
    if turn.extensions >= MAX_EXTENSIONS:
        raise ClockError(
            _("Turn %(turn)s has been extended %(n)s times already, the most allowed.")
            % {"turn": turn.number, "n": MAX_EXTENSIONS}
        )
    turn.deadline += delta
    turn.extensions += 1
    turn.save(update_fields=["deadline", "extensions"])
    _enqueue(_notifications().notify_turn_opened_task, turn.pk)
    return turn


@transaction.atomic
def turn_battles_deadline_set(
    *, turn: Turn, deadline: datetime | None, timezone: str | None = None
) -> Turn:
    """Set (or clear, with `None`) when the results of the turn's battles are due, while they
    wait. A naive deadline is read in `timezone` (default: the turn's); it must lie in the
    future. At the deadline, each battle the GM marked "auto-resolve at the deadline" that
    still has no result entered is fought by the tactical engine (`turn_deadlines_check`)."""
    zone = _zone(timezone or turn.timezone)
    turn = _locked(turn)
    if turn.status != Turn.Status.BATTLES:
        raise ClockError(
            _("Turn %(turn)s has no battles waiting for their results.") % {"turn": turn.number}
        )
    if deadline is not None:
        if djtz.is_naive(deadline):
            deadline = djtz.make_aware(deadline, zone)
        if deadline <= djtz.now():
            raise ClockError(_("The deadline must be in the future."))
    turn.battles_deadline = deadline
    if timezone:
        turn.timezone = timezone
    turn.save(update_fields=["battles_deadline", "timezone"])
    return turn


# --- closing ---------------------------------------------------------------------------------


@transaction.atomic
def _close(turn: Turn, *, seed: int | None = None) -> Turn:
    """Close an open turn (fixing its seed), stop its clock and queue its resolution."""
    turn = services.turn_close(turn=turn, seed=seed)
    if turn.paused or "clock" in (turn.carry or {}):
        turn.paused = False
        _set_clock(turn, {})
        turn.save(update_fields=["paused", "carry"])
    _enqueue(_tasks().turn_resolve_task, turn.pk)
    return turn


def turn_close_by_gm(*, turn: Turn, seed: int | None = None) -> Turn:
    """The GM closes the open turn now, whatever its deadline; resolution starts."""
    return _close(turn, seed=seed)


def turn_close_due(*, now: datetime | None = None) -> list[Turn]:
    """Close every open turn whose deadline has passed, unless it is paused, and queue their
    resolutions. A turn closed meanwhile by someone else is left alone."""
    now = now or djtz.now()
    due = Turn.objects.filter(status=Turn.Status.OPEN, paused=False, deadline__lte=now)
    closed = []
    for turn in due.order_by("deadline", "pk"):
        try:
            closed.append(_close(turn))
        except TurnNotOpen:
            continue
    return closed


def players_active(*, campaign: Campaign) -> list[Player]:
    """The players who still give orders: those who have not surrendered."""
    return list(campaign.players.filter(surrendered=False).order_by("position", "key"))


def turn_all_confirmed(*, turn: Turn) -> bool:
    active = {p.pk for p in players_active(campaign=turn.campaign)}
    confirmed = set(
        Orders.objects.filter(turn=turn, status=Orders.Status.CONFIRMED).values_list(
            "player_id", flat=True
        )
    )
    return bool(active) and active <= confirmed


def turn_close_if_ready(*, turn_id: int) -> Turn | None:
    """Close an open turn before its deadline when every active player has confirmed his
    orders. Not a paused turn, nor one without a deadline (the GM closes those)."""
    turn = Turn.objects.select_related("campaign").filter(pk=turn_id).first()
    if (
        turn is None
        or turn.status != Turn.Status.OPEN
        or turn.paused
        or turn.deadline is None
        or not turn_all_confirmed(turn=turn)
    ):
        return None
    try:
        return _close(turn)
    except TurnNotOpen:
        return None


@dataclass(frozen=True)
class DeadlineCheck:
    closed: list[Turn] = field(default_factory=list)  # at their deadline
    ready: list[Turn] = field(default_factory=list)  # early: every player confirmed
    auto_resolved: list[Battle] = field(default_factory=list)  # at their battles deadline


def turn_deadlines_check(*, now: datetime | None = None) -> DeadlineCheck:
    """The periodic check: close the turns whose deadline has passed, close early those whose
    players have all confirmed (in case the close queued with the last confirmation was
    lost), have the tactical engine fight the battles due to be auto-resolved at their
    turn's battles deadline, and send the reminders that are due."""
    now = now or djtz.now()
    closed = turn_close_due(now=now)
    ready = []
    waiting = Turn.objects.filter(
        status=Turn.Status.OPEN, paused=False, deadline__gt=now
    ).values_list("pk", flat=True)
    for pk in waiting:
        turn = turn_close_if_ready(turn_id=pk)
        if turn is not None:
            ready.append(turn)
    from battles.services import battles_auto_resolve_due  # battles' services use this app

    auto = battles_auto_resolve_due(now=now)
    _enqueue(_notifications().notify_reminders_due_task)
    return DeadlineCheck(closed, ready, auto)


# --- resolving -------------------------------------------------------------------------------


def turn_resolve_run(*, turn_id: int) -> services.Resolution:
    """Phases 0–2 of a closed turn; a turn that produced no battle goes on to Phases 4–8."""
    resolution = services.turn_resolve(turn_id=turn_id)
    if not resolution.pending:
        _enqueue(_tasks().turn_resolve_after_battles_task, turn_id)
    return resolution


def turn_resolve_after_run(*, turn_id: int) -> services.Resolution:
    """Phases 4–8 once every battle has its result; then the next turn opens, with the
    previous turn's duration as its deadline, and its players are told."""
    resolution = services.turn_resolve_after_battles(turn_id=turn_id)
    turn_next_schedule(previous=resolution.turn)
    return resolution


@transaction.atomic
def turn_next_schedule(*, previous: Turn) -> Turn | None:
    """Give the turn after `previous` the deadline `previous` had, counted from its opening
    (pauses and extensions included), in the same time zone; none if `previous` had none.
    Queue the turn-opened notice. `None` when the campaign has ended."""
    turn = (
        Turn.objects.select_for_update()
        .filter(campaign_id=previous.campaign_id, number__gt=previous.number)
        .order_by("number")
        .first()
    )
    if turn is None:
        return None
    if (
        turn.status == Turn.Status.OPEN
        and turn.deadline is None
        and previous.deadline is not None
        and previous.opened_at is not None
        and previous.deadline > previous.opened_at
    ):
        turn.deadline = (turn.opened_at or djtz.now()) + (previous.deadline - previous.opened_at)
        turn.timezone = previous.timezone
        turn.save(update_fields=["deadline", "timezone"])
    _enqueue(_notifications().notify_turn_opened_task, turn.pk)
    return turn


# --- the GM's button -------------------------------------------------------------------------


def turn_advance(*, turn: Turn) -> str:
    """Move the turn one step on, as far as the GM can: close it if open (its resolution is
    queued), queue its resolution if closed, queue Phases 4–8 once every battle has a
    result. Returns what was done, for people; refuses with why it cannot go on."""
    turn = Turn.objects.select_related("campaign").get(pk=turn.pk)
    values = {"turn": turn.number}
    if turn.status == Turn.Status.OPEN:
        _close(turn)
        return _("Turn %(turn)s is closed and its resolution has started.") % values
    if turn.status == Turn.Status.CLOSED:
        _enqueue(_tasks().turn_resolve_task, turn.pk)
        return _("The resolution of turn %(turn)s has started.") % values
    if turn.status == Turn.Status.BATTLES:
        waiting = Battle.objects.filter(turn=turn, status=Battle.Status.PENDING).count()
        if waiting:
            raise ServiceError(
                _("Turn %(turn)s still waits for the result of %(n)s battles: enter them first.")
                % {**values, "n": waiting}
            )
        _enqueue(_tasks().turn_resolve_after_battles_task, turn.pk)
        return _("Phases 4–8 of turn %(turn)s have started.") % values
    if turn.status in (Turn.Status.RESOLVING, Turn.Status.RESOLVING_AFTER):
        raise TurnBusy(_("Turn %(turn)s is being resolved: wait for it to finish.") % values)
    raise ServiceError(_("Turn %(turn)s is resolved and the campaign has ended.") % values)


# --- reads for the overview ------------------------------------------------------------------


@dataclass(frozen=True)
class OrdersState:
    player: Player
    state: str  # none / saved / confirmed


def orders_states_list_for_gm(*, turn: Turn) -> list[OrdersState]:
    """Whether each active player has orders for the turn (none, saved or confirmed); never
    what they say."""
    status = dict(Orders.objects.filter(turn=turn).values_list("player_id", "status"))
    return [
        OrdersState(p, status.get(p.pk, "none")) for p in players_active(campaign=turn.campaign)
    ]
