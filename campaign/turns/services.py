"""The turn as a state machine the GM drives, with its clock: every change of a turn's status
is made here (a resolution's claim, its lease and its release in `campaign.turns.claims`),
and only here are battles' services and notifications called.

    open ──(deadline · every player confirmed · GM)──▶ closed ──▶ resolving (Phases 0–2)
      ▲                                                               │
      │                                                               ▼
    the next turn opens ◀── resolved ◀── resolving-after (4–8) ◀── battles pending

Closing fixes the seed (`turn_close`; its hash is published, the seed itself revealed only
after resolution) and queues the resolution. Resolution runs in Celery tasks
(`campaign.turns.tasks`) calling `turn_resolve` and `turn_resolve_after_battles`: those
claim the turn with a conditional update (`Turn.claim`) that commits before any work, so a
task run twice resolves once. The claim has a lease (`campaign.turns.claims`): a run that fails
gives the turn back, and a turn whose worker died is given back by the periodic check once the
lease is over; either way the turn is marked interrupted and the GM retries it (`turn_retry`),
with the seed it closed with. A turn without battles goes on to Phases 4–8 at once; a turn
with battles goes on once the battles app announces every one settled
(`campaign.signals.battles_settled`, received in `campaign.turns.receivers`).

The clock: the GM sets the deadline and its time zone, may pause the turn (a paused deadline
does not fire; resuming moves it on by the time spent paused, counted from `Turn.paused_at`)
and extend it (at most three times a turn, at most seven days each). A turn with a deadline
closes early once every active player has confirmed his orders; a turn without one waits for
the GM. A new turn opened by Phases 4–8 gets the previous turn's duration as its deadline, or
none. While battles wait, the GM may set when their results are due
(`turn_battles_deadline_set`); the battles he marked "auto-resolve at the deadline" that
still have no result are then fought by the tactical engine. While orders are open the GM may
remind the players who have not confirmed (`turn_remind`: by email and in their
notifications, at most once an hour each).
"""

from __future__ import annotations

import functools
import secrets
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone as djtz
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from battles import services as battles
from battles.models import Battle
from campaign.errors import ServiceError, TurnBusy, TurnNotOpen
from campaign.models import DEADLINE_AHEAD_MAX, Orders, Turn
from campaign.moments import moment
from campaign.selectors import players_active
from campaign.turns import claims, resolution
from campaign.turns.resolution import Resolution
from config.celery import enqueue_on_commit
from notifications import tasks as notices
from notifications.services import GmReminders, notify_gm_reminder
from rules import Dice

MAX_EXTENSIONS = 3  # per turn
MAX_EXTENSION = timedelta(days=7)  # each

# The tasks this module queues (`campaign.turns.tasks` defines them), named: the tasks call
# this module, so it names them rather than importing them.
RESOLVE_TASK = "campaign.turn_resolve"
RESOLVE_AFTER_TASK = "campaign.turn_resolve_after_battles"
CLOSE_IF_READY_TASK = "campaign.turn_close_if_ready"
DEADLINES_TASK = "campaign.deadlines_check"


class ClockError(ServiceError):
    """A deadline, pause or extension the rules of the clock do not allow."""


# the calendar ends with 9999; a day less, so that any zone's clock still has the date
_CALENDAR_END = datetime.max.replace(tzinfo=UTC) - timedelta(days=1)


def _moved_on(deadline: datetime, by: timedelta) -> datetime | None:
    """`deadline` moved on `by`; None past the end of the calendar (an admin's deadline)."""
    if by > _CALENDAR_END - deadline:
        return None
    return deadline + by


@functools.cache
def timezones() -> list[str]:
    """Every time zone name a deadline may be given in, sorted."""
    return sorted(zoneinfo.available_timezones())


def _zone(name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as e:
        raise ClockError(_("“%(zone)s” is not a time zone.") % {"zone": name}) from e


def _aware(deadline: datetime | None, zone: zoneinfo.ZoneInfo) -> datetime | None:
    """A deadline given on the GM's clock (naive: read in `zone`); it must lie ahead."""
    if deadline is None:
        return None
    try:
        if djtz.is_naive(deadline):
            deadline = djtz.make_aware(deadline, zone)
        deadline.astimezone(UTC)  # what the database stores must exist too
    except OverflowError as e:
        raise ClockError(_("That date is too far ahead to be a deadline.")) from e
    if deadline > djtz.now() + DEADLINE_AHEAD_MAX:
        raise ClockError(_("A deadline can be at most 100 years ahead."))
    if deadline <= djtz.now():
        raise ClockError(_("The deadline must be in the future."))
    return deadline


def _locked(turn: Turn) -> Turn:
    return Turn.objects.select_for_update().select_related("campaign").get(pk=turn.pk)


def _require_open(turn: Turn) -> None:
    if not turn.is_open:
        raise TurnNotOpen(
            _("Turn %(turn)s is not open for orders (%(status)s).")
            % {"turn": turn.number, "status": turn.get_status_display().lower()}
        )


# --- the clock -------------------------------------------------------------------------------


@transaction.atomic
def turn_open(*, turn: Turn, deadline: datetime | None, timezone: str) -> Turn:
    """Set (or clear, with `None`) the deadline of the open turn and the time zone it is shown
    in. A naive deadline is read in that time zone; it must lie in the future. The players are
    told the new deadline."""
    zone = _zone(timezone)
    turn = _locked(turn)
    _require_open(turn)
    turn.deadline = _aware(deadline, zone)
    turn.timezone = timezone
    if turn.paused:  # the pause counts for this deadline from the moment it was set
        turn.paused_at = djtz.now()
    turn.save(update_fields=["deadline", "timezone", "paused_at"])
    enqueue_on_commit(notices.notify_turn_opened_task, turn.pk)
    turn_close_if_ready_queue(turn=turn)
    return turn


@transaction.atomic
def turn_pause(*, turn: Turn) -> Turn:
    """Stop the clock of the open turn: its deadline does not fire while it is paused. Orders
    may still be written and confirmed."""
    turn = _locked(turn)
    _require_open(turn)
    if turn.paused:
        raise ClockError(_("Turn %(turn)s is already paused.") % {"turn": turn.number})
    turn.paused_at = djtz.now()
    turn.save(update_fields=["paused_at"])
    return turn


@transaction.atomic
def turn_resume(*, turn: Turn) -> Turn:
    """Start the clock again; the deadline moves on by the time the turn was paused."""
    turn = _locked(turn)
    _require_open(turn)
    if turn.paused_at is None:
        raise ClockError(_("Turn %(turn)s is not paused.") % {"turn": turn.number})
    if turn.deadline is not None:
        moved = _moved_on(turn.deadline, max(timedelta(0), djtz.now() - turn.paused_at))
        if moved is None:
            raise ClockError(
                _(
                    "Turn %(turn)s cannot resume: moved on by the time it was paused, its "
                    "deadline would fall past the end of the calendar. Set an earlier deadline "
                    "first."
                )
                % {"turn": turn.number}
            )
        turn.deadline = moved
    turn.paused_at = None
    turn.save(update_fields=["paused_at", "deadline"])
    turn_close_if_ready_queue(turn=turn)
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
    moved = _moved_on(turn.deadline, delta)
    if moved is None:
        raise ClockError(_("That date is too far ahead to be a deadline."))
    turn.deadline = moved
    turn.extensions += 1
    turn.save(update_fields=["deadline", "extensions"])
    enqueue_on_commit(notices.notify_turn_opened_task, turn.pk)
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
    if not turn.waiting_for_battles:
        raise ClockError(
            _("Turn %(turn)s has no battles waiting for their results.") % {"turn": turn.number}
        )
    turn.battles_deadline = _aware(deadline, zone)
    if timezone:
        turn.timezone = timezone
    turn.save(update_fields=["battles_deadline", "timezone"])
    return turn


# --- closing ---------------------------------------------------------------------------------


@transaction.atomic
def turn_close(*, turn: Turn, seed: int | None = None, queue_resolution: bool = False) -> Turn:
    """Close the open turn: fix its seed (random unless given) and publish the seed's hash,
    stop its clock, and with `queue_resolution` queue Phases 0–2 once this commits (the GM's
    close, the deadline, the last confirmation; a caller that resolves the turn itself, such
    as the `resolve_turn` command, leaves it out)."""
    if seed is None:
        seed = secrets.randbits(62)
    if not 0 <= seed < 2**63:
        raise ServiceError("The seed must be a non-negative 63-bit integer.")
    updated = Turn.objects.filter(pk=turn.pk, status=Turn.Status.OPEN).update(
        status=Turn.Status.CLOSED,
        seed=seed,
        seed_hash=turn.hash_of(seed),
        closed_at=djtz.now(),
        paused_at=None,
    )
    turn.refresh_from_db()
    if not updated:
        raise TurnNotOpen(f"Turn {turn.number} is not open ({turn.get_status_display()}).")
    if queue_resolution:
        enqueue_on_commit(RESOLVE_TASK, turn.pk)
    return turn


def turn_close_due(*, now: datetime | None = None) -> list[Turn]:
    """Close every open turn whose deadline has passed, unless it is paused, and queue their
    resolutions. A turn closed meanwhile by someone else is left alone."""
    now = now or djtz.now()
    due = Turn.objects.filter(
        status=Turn.Status.OPEN, paused_at__isnull=True, deadline__lte=now
    ).select_related("campaign")
    closed = []
    for turn in due.order_by("deadline", "pk"):
        try:
            closed.append(turn_close(turn=turn, queue_resolution=True))
        except TurnNotOpen:
            continue
    return closed


def turn_all_confirmed(*, turn: Turn) -> bool:
    """Every active player has confirmed his orders for the turn."""
    active = {p.pk for p in players_active(campaign=turn.campaign)}
    confirmed = set(
        Orders.objects.filter(turn=turn, status=Orders.Status.CONFIRMED).values_list(
            "player_id", flat=True
        )
    )
    return bool(active) and active <= confirmed


def turn_close_if_ready(*, turn_id: int) -> Turn | None:
    """Close an open turn before its deadline when every active player has confirmed his
    orders, if the GM chose that for the campaign (`Campaign.auto_close`); never a paused
    turn. Otherwise the GM closes it, or its deadline does."""
    turn = Turn.objects.select_related("campaign").filter(pk=turn_id).first()
    if (
        turn is None
        or not turn.campaign.auto_close
        or not turn.is_open
        or turn.paused
        or not turn_all_confirmed(turn=turn)
    ):
        return None
    try:
        return turn_close(turn=turn, queue_resolution=True)
    except TurnNotOpen:
        return None


@transaction.atomic
def turn_auto_close_set(*, turn: Turn, on: bool) -> Turn:
    """The GM's choice for the campaign: close the turn by itself once every active player has
    confirmed (`on`), or leave closing to him and the deadline. Switched on while everyone
    has already confirmed, it closes the open turn at once."""
    turn = _locked(turn)
    campaign = turn.campaign
    campaign.auto_close = on
    campaign.save(update_fields=["auto_close", "updated_at"])
    if turn.is_open:
        turn_close_if_ready_queue(turn=turn)
    return turn


def turn_close_if_ready_queue(*, turn: Turn) -> None:
    """Orders were confirmed for `turn`: if the campaign closes by itself, see (once this
    commits) whether every player has confirmed, which closes it early."""
    if turn.campaign.auto_close:
        enqueue_on_commit(CLOSE_IF_READY_TASK, turn.pk)


@dataclass(frozen=True)
class DeadlineCheck:
    closed: list[Turn] = field(default_factory=list)  # at their deadline
    ready: list[Turn] = field(default_factory=list)  # early: every player confirmed
    auto_resolved: list[Battle] = field(default_factory=list)  # at their battles deadline
    released: list[Turn] = field(default_factory=list)  # claims past their lease, given back


def turn_deadlines_check(*, now: datetime | None = None) -> DeadlineCheck:
    """The periodic check: give back the turns whose resolution's claim outlived its lease
    with no run at work on it (`claims.claims_release_expired`: the GM retries them), close
    the turns whose deadline has passed, close early those whose players have all confirmed
    (in case the close queued with the last confirmation was lost), have the tactical engine
    fight the battles due to be auto-resolved at their turn's battles deadline, and send the
    reminders that are due."""
    now = now or djtz.now()
    released = claims.claims_release_expired(now=now)
    closed = turn_close_due(now=now)
    ready = []
    waiting = (
        Turn.objects.filter(status=Turn.Status.OPEN, paused_at__isnull=True)
        .filter(campaign__auto_close=True)
        .exclude(deadline__lte=now)
        .values_list("pk", flat=True)
    )
    for pk in waiting:
        turn = turn_close_if_ready(turn_id=pk)
        if turn is not None:
            ready.append(turn)
    auto = battles.battles_auto_resolve_due(now=now)
    enqueue_on_commit(notices.notify_reminders_due_task)
    return DeadlineCheck(closed, ready, auto, released)


# --- resolving -------------------------------------------------------------------------------


def _run(turn: Turn, run: Callable[[Turn], Resolution]) -> Resolution:
    """Run one resolution of the claimed turn; a run that fails gives the turn back, saying
    why (`claims.give_back`), unless its claim was released already."""
    status, by = turn.status, turn.claimed_by
    try:
        return run(turn)
    except claims.ClaimLost:
        raise
    except BaseException as e:
        claims.give_back(turn_id=turn.pk, status=status, by=by, reason=claims.reason_of(e))
        raise


def turn_resolve(*, turn_id: int, by: str = "") -> Resolution:
    """Phases 0–2 of a closed turn, claimed in the name of `by` (`claims.claim`). Afterwards
    the turn waits for battle results; with no battle it is ready for Phases 4–8 at once. A
    failed run gives the turn back (closed)."""
    turn = claims.claim(turn_id=turn_id, frm=Turn.Status.CLOSED, to=Turn.Status.RESOLVING, by=by)
    return _run(turn, resolution.phases_0_2_run)


def turn_resolve_after_battles(
    *, turn_id: int, dice: Dice | None = None, by: str = ""
) -> Resolution:
    """Phases 4–8 once every battle of the turn has a result; then the next turn opens.
    `dice`: for tests (`resolution.phases_4_8_run`). A failed run gives the turn back."""
    waiting = list(
        Battle.objects.filter(turn_id=turn_id, status=Battle.Status.PENDING).values_list(
            "key", flat=True
        )
    )
    if waiting:
        raise ServiceError(f"Battles still without a result: {', '.join(sorted(waiting))}.")
    turn = claims.claim(
        turn_id=turn_id, frm=Turn.Status.BATTLES, to=Turn.Status.RESOLVING_AFTER, by=by
    )
    return _run(turn, lambda claimed: resolution.phases_4_8_run(claimed, dice))


def turn_resolve_run(*, turn_id: int, by: str = "") -> Resolution:
    """Phases 0–2 of a closed turn; a turn that produced no battle goes on to Phases 4–8."""
    done = turn_resolve(turn_id=turn_id, by=by)
    if not done.pending:
        enqueue_on_commit(RESOLVE_AFTER_TASK, turn_id)
    return done


def turn_resolve_after_run(*, turn_id: int, by: str = "") -> Resolution:
    """Phases 4–8 once every battle has its result; then the next turn opens, with the
    previous turn's duration as its deadline, and its players are told."""
    done = turn_resolve_after_battles(turn_id=turn_id, by=by)
    turn_next_schedule(previous=done.turn)
    return done


def turn_after_battles_queue(*, turn: Turn) -> None:
    """Every battle of `turn` is settled: queue its Phases 4–8 once this commits."""
    enqueue_on_commit(RESOLVE_AFTER_TASK, turn.pk)


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
        turn.is_open
        and turn.deadline is None
        and previous.deadline is not None
        and previous.opened_at is not None
        and previous.deadline > previous.opened_at
    ):
        # none past the end of the calendar: the resolution goes on, the GM sets one
        turn.deadline = _moved_on(
            turn.opened_at or djtz.now(), previous.deadline - previous.opened_at
        )
        turn.timezone = previous.timezone
        turn.save(update_fields=["deadline", "timezone"])
    enqueue_on_commit(notices.notify_turn_opened_task, turn.pk)
    return turn


# --- reminding the players -------------------------------------------------------------------


@transaction.atomic
def turn_remind(*, turn: Turn, by: User, player_key: str = "") -> GmReminders:
    """The GM reminds the players who have not confirmed their orders for the open turn (all
    of them, or the one `player_key` names), by email and on the site, at most once an hour
    each (`notifications.services.notify_gm_reminder`). Refused, with why, when nobody is
    reminded."""
    turn = _locked(turn)
    _require_open(turn)
    confirmed = set(
        Orders.objects.filter(turn=turn, status=Orders.Status.CONFIRMED).values_list(
            "player_id", flat=True
        )
    )
    active = players_active(campaign=turn.campaign)
    waiting = [p for p in active if p.pk not in confirmed]
    if player_key:
        chosen = [p for p in active if p.key == player_key]
        if not chosen:
            raise ServiceError(_("There is no such player to remind."))
        if chosen[0].pk in confirmed:
            raise ServiceError(
                _("%(player)s has confirmed his orders already.") % {"player": chosen[0].name}
            )
        waiting = chosen
    if not waiting:
        raise ServiceError(_("Every player has confirmed his orders: nobody to remind."))
    done = notify_gm_reminder(turn=turn, players=waiting, gm=by)
    if not done.reminded:
        raise ServiceError(" ".join(turn_remind_notes(turn=turn, done=done)))
    for notice in done.notices:
        enqueue_on_commit(notices.notification_deliver_task, notice.pk)
    return done


def turn_remind_notes(*, turn: Turn, done: GmReminders) -> list[str]:
    """What was done, for the GM: who was reminded, who was not and why (the time on the
    reader's clock)."""
    notes = []
    if done.reminded:
        notes.append(
            _("Reminder sent to %(players)s.")
            % {"players": ", ".join(p.name for p in done.reminded)}
        )
    for player, at in done.too_soon:
        notes.append(
            _(
                "%(player)s was reminded less than an hour ago: the next reminder can go at "
                "%(time)s."
            )
            % {"player": player.name, "time": moment(at)}
        )
    for player in done.nobody:
        notes.append(
            _("Nobody plays %(player)s yet: there is no one to remind.") % {"player": player.name}
        )
    return notes


# --- the GM's button -------------------------------------------------------------------------


def turn_advance(*, turn: Turn) -> str:
    """Move the turn one step on, as far as the GM can: close it if open (its resolution is
    queued), queue its resolution if closed, queue Phases 4–8 once every battle has a
    result. Returns what was done, for people; refuses with why it cannot go on."""
    turn = Turn.objects.select_related("campaign").get(pk=turn.pk)
    values = {"turn": turn.number}
    if turn.is_open:
        turn_close(turn=turn, queue_resolution=True)
        return _("Turn %(turn)s is closed and its resolution has started.") % values
    if turn.is_closed:
        enqueue_on_commit(RESOLVE_TASK, turn.pk)
        return _("The resolution of turn %(turn)s has started.") % values
    if turn.waiting_for_battles:
        waiting = Battle.objects.filter(turn=turn, status=Battle.Status.PENDING).count()
        if waiting:
            raise ServiceError(
                ngettext(
                    "Turn %(turn)s still waits for the result of %(n)s battle: enter it first.",
                    "Turn %(turn)s still waits for the result of %(n)s battles: enter them first.",
                    waiting,
                )
                % {**values, "n": waiting}
            )
        turn_after_battles_queue(turn=turn)
        return _("Phases 4–8 of turn %(turn)s have started.") % values
    if turn.resolving:
        raise TurnBusy(_("Turn %(turn)s is being resolved: wait for it to finish.") % values)
    raise ServiceError(_("Turn %(turn)s is resolved and the campaign has ended.") % values)


@transaction.atomic
def turn_retry(*, turn: Turn) -> str:
    """The GM retries a resolution that was interrupted (`Turn.interrupted`: given back by
    its failed run, or released once its claim outlived its lease): queue it again. Nothing
    of the interrupted run was kept and the seed was fixed when the turn closed, so the retry
    gives what an uninterrupted run would have. Refused, with why, for any other turn."""
    turn = Turn.objects.select_related("campaign").get(pk=turn.pk)
    values = {"turn": turn.number}
    if not turn.interrupted or turn.status not in claims.BEFORE.values():
        raise ServiceError(
            _("The resolution of turn %(turn)s was not interrupted: there is nothing to retry.")
            % values
        )
    cleared = (
        Turn.objects.filter(pk=turn.pk, status=turn.status)
        .exclude(interrupted="")
        .update(interrupted="", interrupted_at=None)
    )
    if not cleared:  # someone retried it meanwhile
        raise TurnBusy(_("The resolution of turn %(turn)s has been retried already.") % values)
    enqueue_on_commit(RESOLVE_TASK if turn.is_closed else RESOLVE_AFTER_TASK, turn.pk)
    return _("The resolution of turn %(turn)s has started again.") % values
