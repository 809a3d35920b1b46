"""The turn as a state machine: the deadline and its time zone, pause and resume, capped
extensions, closing at the deadline / early / by the GM, the GM's advance button, the tasks
run twice, and the missing-orders notice. Celery runs eagerly here (the real worker has its
own test, test_celery_worker.py); on-commit callbacks are run with
`django_capture_on_commit_callbacks(execute=True)`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from battles.models import Battle
from campaign.adapters import state_current
from campaign.errors import ServiceError, TurnBusy, TurnNotOpen
from campaign.models import Orders, Turn, TurnResolution
from campaign.orders.services import orders_submit
from campaign.selectors import turn_current
from campaign.setup.services import campaign_create
from campaign.turns.services import (
    ClockError,
    turn_advance,
    turn_all_confirmed,
    turn_auto_close_set,
    turn_close,
    turn_close_due,
    turn_close_if_ready,
    turn_extend,
    turn_open,
    turn_pause,
    turn_resolve,
    turn_resume,
)
from campaign.turns.tasks import (
    deadlines_check_task,
    turn_resolve_after_battles_task,
    turn_resolve_task,
)
from notifications.models import Kind, Notification

pytestmark = pytest.mark.django_db

SEED = 5  # the demo's turn 1 with this seed: every raider moves, no battle


@pytest.fixture
def turn(cast) -> Turn:
    return turn_current(campaign=cast.campaign)


def _reload(turn: Turn) -> Turn:
    return Turn.objects.get(pk=turn.pk)


def _confirm_all(campaign, turn: Turn) -> None:
    """Each demo player confirms the orders load_demo saved for him."""
    for player in campaign.players.all():
        saved = Orders.objects.filter(turn=turn, player=player).first()
        orders_submit(
            player=player, turn=turn, data=saved.data if saved else {"forces": {}}, confirm=True
        )


def _in_days(days: float) -> datetime:
    return timezone.now() + timedelta(days=days)


# --- the deadline ----------------------------------------------------------------------------


def test_the_gm_sets_a_deadline_read_in_its_time_zone(
    turn, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        turn_open(turn=turn, deadline=datetime(2099, 1, 10, 18, 0), timezone="Europe/Rome")

    turn = _reload(turn)
    assert turn.deadline == datetime(2099, 1, 10, 17, 0, tzinfo=UTC)  # CET is UTC+1
    assert turn.timezone == "Europe/Rome"
    # both players are told, each on his own clock (UTC: the demo's players chose no zone)
    assert sorted(m.to[0] for m in mailoutbox) == ["defender@example.org", "raider@example.org"]
    assert "Orders are due by Saturday 10 January 2099, 17:00 UTC." in mailoutbox[0].body


def test_a_deadline_must_be_in_the_future_and_its_zone_real(turn):
    with pytest.raises(ClockError, match="in the future"):
        turn_open(turn=turn, deadline=_in_days(-1), timezone="UTC")
    with pytest.raises(ClockError, match="not a time zone"):
        turn_open(turn=turn, deadline=_in_days(1), timezone="Mars/Olympus")
    assert _reload(turn).deadline is None


def test_only_an_open_turn_gets_a_deadline(turn):
    turn_close(turn=turn, seed=SEED)
    with pytest.raises(TurnNotOpen):
        turn_open(turn=turn, deadline=_in_days(1), timezone="UTC")


def test_the_deadline_can_be_cleared(turn):
    turn_open(turn=turn, deadline=_in_days(2), timezone="UTC")
    turn_open(turn=turn, deadline=None, timezone="UTC")
    assert _reload(turn).deadline is None


# --- extensions ------------------------------------------------------------------------------


def test_at_most_three_extensions_of_at_most_seven_days(turn):
    turn_open(turn=turn, deadline=_in_days(2), timezone="UTC")
    deadline = _reload(turn).deadline

    with pytest.raises(ClockError, match="at most 7 days"):
        turn_extend(turn=turn, days=7, hours=1)
    with pytest.raises(ClockError, match="must add some time"):
        turn_extend(turn=turn)
    with pytest.raises(ClockError, match="cannot be negative"):
        turn_extend(turn=turn, days=-1)
    turn_extend(turn=turn, days=7)
    turn_extend(turn=turn, hours=5)
    turn_extend(turn=turn, days=1, hours=1)
    with pytest.raises(ClockError, match="extended 3 times already"):
        turn_extend(turn=turn, hours=1)

    turn = _reload(turn)
    assert turn.extensions == 3
    assert turn.deadline == deadline + timedelta(days=8, hours=6)


def test_a_turn_without_deadline_cannot_be_extended(turn):
    with pytest.raises(ClockError, match="no deadline to extend"):
        turn_extend(turn=turn, days=1)


# --- pause and resume ------------------------------------------------------------------------


def test_a_paused_deadline_does_not_fire(turn):
    turn_open(turn=turn, deadline=_in_days(1), timezone="UTC")
    turn_pause(turn=turn)
    Turn.objects.filter(pk=turn.pk).update(deadline=timezone.now() - timedelta(minutes=1))

    assert turn_close_due() == []
    assert _reload(turn).status == Turn.Status.OPEN


def test_resuming_moves_the_deadline_on_by_the_paused_time(turn):
    turn_open(turn=turn, deadline=_in_days(1), timezone="UTC")
    turn_pause(turn=turn)
    turn = _reload(turn)
    assert turn.paused
    # the turn was paused two hours ago
    started = timezone.now() - timedelta(hours=2)
    Turn.objects.filter(pk=turn.pk).update(paused_at=started)
    deadline = turn.deadline

    turn_resume(turn=turn)

    turn = _reload(turn)
    assert not turn.paused
    assert turn.carry == {}  # the clock leaves nothing for the rules to carry
    shift = turn.deadline - deadline
    assert timedelta(hours=2) <= shift < timedelta(hours=2, minutes=1)


def test_pause_and_resume_refuse_what_makes_no_sense(turn):
    with pytest.raises(ClockError, match="not paused"):
        turn_resume(turn=turn)
    turn_pause(turn=turn)
    with pytest.raises(ClockError, match="already paused"):
        turn_pause(turn=turn)


def test_a_paused_turn_state_is_the_rules_state(turn, cast):
    before = state_current(campaign=cast.campaign)
    turn_pause(turn=turn)
    assert state_current(campaign=cast.campaign) == before


# --- closing ---------------------------------------------------------------------------------


def test_at_the_deadline_the_turn_closes_and_resolves(turn, django_capture_on_commit_callbacks):
    turn_open(turn=turn, deadline=_in_days(1), timezone="UTC")
    Turn.objects.filter(pk=turn.pk).update(deadline=timezone.now() - timedelta(seconds=1))

    with django_capture_on_commit_callbacks(execute=True):
        closed = turn_close_due()

    assert [t.pk for t in closed] == [turn.pk]
    turn = _reload(turn)
    assert turn.seed_hash and turn.closed_at is not None
    assert TurnResolution.objects.filter(turn=turn, stage=TurnResolution.Stage.TURN).count() == 1
    assert turn.status in (Turn.Status.BATTLES, Turn.Status.RESOLVED)


def _auto_close(campaign, on: bool = True) -> None:
    campaign.auto_close = on
    campaign.save(update_fields=["auto_close"])


def test_the_turn_closes_early_when_every_player_has_confirmed(
    turn, cast, django_capture_on_commit_callbacks
):
    _auto_close(cast.campaign)
    turn_open(turn=turn, deadline=_in_days(3), timezone="UTC")
    raiders = cast.campaign.players.get(key="raiders")
    saved = Orders.objects.get(turn=turn, player=raiders)

    with django_capture_on_commit_callbacks(execute=True):
        orders_submit(player=raiders, turn=turn, data=saved.data, confirm=True)
    assert _reload(turn).status == Turn.Status.OPEN  # the defenders have not confirmed

    with django_capture_on_commit_callbacks(execute=True):
        _confirm_all(cast.campaign, turn)

    turn = _reload(turn)
    assert turn.status != Turn.Status.OPEN
    assert TurnResolution.objects.filter(turn=turn).exists()


def test_a_new_campaign_leaves_closing_to_the_gm(turn, cast, django_capture_on_commit_callbacks):
    assert not cast.campaign.auto_close  # the default
    turn_open(turn=turn, deadline=_in_days(3), timezone="UTC")
    with django_capture_on_commit_callbacks(execute=True):
        _confirm_all(cast.campaign, turn)
    assert turn_all_confirmed(turn=turn)
    assert turn_close_if_ready(turn_id=turn.pk) is None
    assert _reload(turn).status == Turn.Status.OPEN


def test_auto_close_needs_no_deadline(turn, cast, django_capture_on_commit_callbacks):
    _auto_close(cast.campaign)
    with django_capture_on_commit_callbacks(execute=True):
        _confirm_all(cast.campaign, turn)
    assert _reload(turn).status != Turn.Status.OPEN


def test_switching_auto_close_on_closes_a_turn_everyone_confirmed(
    turn, cast, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        _confirm_all(cast.campaign, turn)
    assert _reload(turn).status == Turn.Status.OPEN
    with django_capture_on_commit_callbacks(execute=True):
        turn_auto_close_set(turn=turn, on=True)
    assert _reload(turn).status != Turn.Status.OPEN


def test_a_paused_turn_does_not_close_early(turn, cast, django_capture_on_commit_callbacks):
    _auto_close(cast.campaign)
    turn_open(turn=turn, deadline=_in_days(3), timezone="UTC")
    turn_pause(turn=turn)
    with django_capture_on_commit_callbacks(execute=True):
        _confirm_all(cast.campaign, turn)
    assert _reload(turn).status == Turn.Status.OPEN

    with django_capture_on_commit_callbacks(execute=True):
        turn_resume(turn=turn)
    assert _reload(turn).status != Turn.Status.OPEN


def test_surrendered_players_are_not_waited_for(turn, cast):
    _auto_close(cast.campaign)
    turn_open(turn=turn, deadline=_in_days(3), timezone="UTC")
    cast.campaign.players.filter(key="defenders").update(surrendered=True)
    raiders = cast.campaign.players.get(key="raiders")
    saved = Orders.objects.get(turn=turn, player=raiders)
    orders_submit(player=raiders, turn=turn, data=saved.data, confirm=True)

    assert turn_close_if_ready(turn_id=turn.pk) is not None


def test_the_gm_closes_now_and_the_resolution_starts(turn, django_capture_on_commit_callbacks):
    turn_open(turn=turn, deadline=_in_days(3), timezone="UTC")
    turn_pause(turn=turn)
    with django_capture_on_commit_callbacks(execute=True):
        turn_close(turn=turn, seed=SEED, queue_resolution=True)

    turn = _reload(turn)
    assert not turn.paused
    assert turn.seed == SEED
    assert TurnResolution.objects.filter(turn=turn, stage=TurnResolution.Stage.TURN).count() == 1


def test_the_deadlines_check_task_closes_due_turns_and_reminds(
    turn, cast, mailoutbox, django_capture_on_commit_callbacks
):
    other = campaign_create(
        slug="second",
        name="Second",
        state=state_current(campaign=cast.campaign),
    )
    second = turn_current(campaign=other)
    turn_open(turn=turn, deadline=_in_days(1), timezone="UTC")
    Turn.objects.filter(pk=turn.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    turn_open(turn=second, deadline=_in_days(1), timezone="UTC")

    with django_capture_on_commit_callbacks(execute=True):
        result = deadlines_check_task.delay().get()

    assert result == "1 closed at the deadline, 0 early, 0 battles auto-resolved"
    assert _reload(turn).status != Turn.Status.OPEN
    assert _reload(second).status == Turn.Status.OPEN


# --- the GM's advance button and the resolution tasks ----------------------------------------


def test_advance_walks_the_demo_turn_to_the_next(turn, cast, django_capture_on_commit_callbacks):
    turn_open(turn=turn, deadline=_in_days(3), timezone="Europe/Rome")
    turn = _reload(turn)

    with django_capture_on_commit_callbacks(execute=True):
        message = turn_advance(turn=turn)

    assert message == "Turn 1 is closed and its resolution has started."
    turn = _reload(turn)
    assert turn.status == Turn.Status.RESOLVED  # no battle: Phases 4–8 followed at once
    assert TurnResolution.objects.filter(turn=turn).count() == 2
    nxt = turn_current(campaign=cast.campaign)
    assert nxt.number == 2 and nxt.status == Turn.Status.OPEN
    # the new turn has the previous turn's duration, in its time zone
    assert nxt.timezone == "Europe/Rome"
    assert nxt.deadline - nxt.opened_at == turn.deadline - turn.opened_at


def test_advance_waits_for_battle_results(
    make_campaign, submit_orders, record_results, django_capture_on_commit_callbacks
):
    campaign = make_campaign()
    submit_orders(campaign)
    turn = turn_current(campaign=campaign)
    with django_capture_on_commit_callbacks(execute=True):
        turn_close(turn=turn, seed=1, queue_resolution=True)  # seed 1: one battle
    turn = _reload(turn)
    waiting = Battle.objects.filter(turn=turn, status=Battle.Status.PENDING).count()
    assert turn.status == Turn.Status.BATTLES and waiting, "the generated turn should fight"

    with pytest.raises(ServiceError, match=f"result of {waiting} battles?: enter (it|them) first"):
        turn_advance(turn=turn)

    record_results(turn)
    with django_capture_on_commit_callbacks(execute=True):
        assert turn_advance(turn=turn) == "Phases 4–8 of turn 1 have started."
    assert _reload(turn).status == Turn.Status.RESOLVED
    assert turn_current(campaign=campaign).deadline is None  # none before, none now


def test_advance_refuses_a_turn_being_resolved(turn):
    Turn.objects.filter(pk=turn.pk).update(status=Turn.Status.RESOLVING)
    with pytest.raises(TurnBusy, match="being resolved"):
        turn_advance(turn=turn)


def test_the_resolution_tasks_run_twice_resolve_once(turn, django_capture_on_commit_callbacks):
    turn_close(turn=turn, seed=SEED)

    with django_capture_on_commit_callbacks(execute=True):
        first = turn_resolve_task.delay(turn.pk).get()
    second = turn_resolve_task.delay(turn.pk).get()
    again = turn_resolve_after_battles_task.delay(turn.pk).get()

    assert first == "resolved, 0 battles pending"
    assert second == "skipped" and again == "skipped"
    assert TurnResolution.objects.filter(turn=turn).count() == 2
    assert turn_resolve_task.delay(10**9).get() == "skipped"  # no such turn


# --- missing orders --------------------------------------------------------------------------


def test_players_whose_forces_had_no_orders_are_told(
    turn, cast, mailoutbox, django_capture_on_commit_callbacks
):
    Orders.objects.filter(turn=turn, player__key="defenders").delete()
    turn_close(turn=turn, seed=SEED)

    with django_capture_on_commit_callbacks(execute=True):
        turn_resolve(turn_id=turn.pk)

    notices = Notification.objects.filter(turn=turn, kind=Kind.MISSING_ORDERS)
    assert [n.user.username for n in notices] == ["defender"]
    [mail] = [m for m in mailoutbox if m.subject == notices[0].subject]
    assert mail.to == ["defender@example.org"]
    for name in ("Ashbury Garrison", "The Northern March", "The Southern March"):
        assert name in mail.body
    assert "holds its status and does not move" in mail.body
