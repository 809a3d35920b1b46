"""Claims on a turn's resolution and their leases (`campaign.turns.claims`): a claim says when
and by whom; a run that fails gives the turn back and says why, trying again while the
database does not answer; a claim no run holds is released once its lease is over, never
while a run could still commit; the GM retries an interrupted resolution from the overview,
and the retry gives exactly what an uninterrupted run gives.

A worker killed in the middle leaves exactly what `_dead_worker` leaves: a committed claim and
nothing else (the run's transaction dies with its connection). The real worker, killed, is
tests/campaign/turns/test_worker_killed.py."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import OperationalError, connection
from django.urls import reverse
from django.utils import timezone

from battles.models import Battle
from campaign import adapters
from campaign.access import viewer_for
from campaign.adapters import state_current
from campaign.errors import ServiceError, TurnBusy
from campaign.exchange.export import campaign_export, export_json
from campaign.models import AuditEntry, Campaign, Turn, TurnResolution
from campaign.selectors import turn_current
from campaign.setup.services import campaign_delete
from campaign.todo import todo_list_for_viewer, todo_waiting_for
from campaign.turns import claims, resolution, services
from campaign.turns.services import (
    turn_close,
    turn_deadlines_check,
    turn_resolve,
    turn_resolve_after_battles,
    turn_retry,
)
from campaign.turns.tasks import deadlines_check_task
from rules.codec import to_data
from tests.stamp import stamped

pytestmark = pytest.mark.django_db

SLUG = "lease"
SEED = 1
DEAD = "task 0d1e on celery@gone pid 4242"  # the worker that claimed the turn, then died


@pytest.fixture
def closed(make_campaign, submit_orders) -> Turn:
    """Turn 1 of 10 forces, closed with seed 1; its orders bring one battle."""
    campaign = make_campaign(slug=SLUG)
    submit_orders(campaign)
    return turn_close(turn=turn_current(campaign=campaign), seed=SEED)


def _dead_worker(turn: Turn, *, after: bool = False) -> Turn:
    """What a worker killed in the middle of its run leaves: its claim, and nothing else."""
    frm, to = (
        (Turn.Status.BATTLES, Turn.Status.RESOLVING_AFTER)
        if after
        else (Turn.Status.CLOSED, Turn.Status.RESOLVING)
    )
    return claims.claim(turn_id=turn.pk, frm=frm, to=to, by=DEAD)


def _past_the_lease(turn: Turn, seconds: float = 1) -> timezone.datetime:
    assert turn.claimed_at is not None
    return turn.claimed_at + claims.lease() + timedelta(seconds=seconds)


def _fresh(turn: Turn) -> Turn:
    return Turn.objects.get(pk=turn.pk)


# --- the claim -------------------------------------------------------------------------------


def test_a_claim_says_when_and_by_whom(closed):
    before = timezone.now()
    turn = _dead_worker(closed)

    stored = _fresh(turn)
    assert stored.status == Turn.Status.RESOLVING
    assert before <= stored.claimed_at <= timezone.now()
    assert stored.claimed_by.startswith(DEAD + " #")  # with a token unique to the claim
    with pytest.raises(TurnBusy, match="already resolving or resolved"):
        claims.claim(turn_id=turn.pk, frm=Turn.Status.CLOSED, to=Turn.Status.RESOLVING)


def test_two_claims_by_the_same_name_are_told_apart(closed):
    first = _dead_worker(closed).claimed_by
    claims.claims_release_expired(now=_past_the_lease(_fresh(closed)))
    assert _dead_worker(closed).claimed_by != first


def test_a_run_in_the_web_process_claims_as_web(closed, monkeypatch):
    seen = []
    real = resolution.phases_0_2_run

    def spy(turn: Turn) -> resolution.Resolution:
        seen.append(turn.claimed_by)
        return real(turn)

    monkeypatch.setattr(resolution, "phases_0_2_run", spy)
    turn_resolve(turn_id=closed.pk)
    assert seen[0].startswith("web #")


def test_a_finished_run_ends_its_claim(closed, record_results):
    turn_resolve(turn_id=closed.pk)
    turn = _fresh(closed)
    assert (turn.status, turn.claimed_at, turn.claimed_by) == (Turn.Status.BATTLES, None, "")

    record_results(turn)
    turn_resolve_after_battles(turn_id=turn.pk)
    turn = _fresh(turn)
    assert (turn.status, turn.claimed_at, turn.claimed_by) == (Turn.Status.RESOLVED, None, "")


# --- the lease -------------------------------------------------------------------------------


def test_a_claim_within_its_lease_stands(closed):
    turn = _dead_worker(closed)

    assert claims.claims_release_expired(now=_past_the_lease(turn, seconds=-1)) == []
    assert _fresh(turn).status == Turn.Status.RESOLVING


def test_a_claim_past_its_lease_is_released_keeping_the_seed(closed):
    turn = _dead_worker(closed)
    now = _past_the_lease(turn)

    [released] = claims.claims_release_expired(now=now)

    stored = _fresh(turn)
    assert released.pk == turn.pk
    assert stored.status == Turn.Status.CLOSED
    assert (stored.claimed_at, stored.claimed_by) == (None, "")
    assert (stored.interrupted, stored.interrupted_at) == (Turn.Interruption.LOST, now)
    assert (stored.seed, stored.seed_hash) == (SEED, closed.seed_hash)  # the retry reuses it
    assert not TurnResolution.objects.filter(turn=turn).exists()


def test_the_audit_log_keeps_a_released_claim(closed):
    turn = _dead_worker(closed)
    by = turn.claimed_by
    claims.claims_release_expired(now=_past_the_lease(turn))
    entry = AuditEntry.objects.get(campaign_id=turn.campaign_id)
    assert (entry.action, entry.user, entry.turn_number) == ("claim-released", None, 1)
    assert entry.changes == {"status": "resolving", "claimed_by": by, "interrupted": "lost"}


def test_phases_4_8_past_their_lease_go_back_to_the_battles(closed, record_results):
    turn_resolve(turn_id=closed.pk)
    record_results(_fresh(closed))
    turn = _dead_worker(closed, after=True)

    claims.claims_release_expired(now=_past_the_lease(turn))

    stored = _fresh(turn)
    assert (stored.status, stored.interrupted) == (Turn.Status.BATTLES, Turn.Interruption.LOST)
    assert not Battle.objects.filter(turn=turn, status=Battle.Status.PENDING).exists()


def test_a_turn_stuck_before_claims_had_a_lease_is_released(closed):
    Turn.objects.filter(pk=closed.pk).update(status=Turn.Status.RESOLVING)  # no claimed_at

    [released] = claims.claims_release_expired()
    assert released.status == Turn.Status.CLOSED


def test_the_lease_is_a_setting(closed, settings):
    turn = _dead_worker(closed)
    settings.TURN_CLAIM_LEASE = 5
    assert claims.lease() == timedelta(seconds=5)
    assert claims.claims_release_expired(now=turn.claimed_at + timedelta(seconds=4)) == []
    assert len(claims.claims_release_expired(now=turn.claimed_at + timedelta(seconds=5))) == 1


def test_the_periodic_check_releases_expired_claims(closed, settings):
    turn = _dead_worker(closed)
    check = turn_deadlines_check(now=_past_the_lease(turn))
    assert [t.pk for t in check.released] == [turn.pk]

    _dead_worker(closed)
    settings.TURN_CLAIM_LEASE = 0
    assert deadlines_check_task().endswith(", 1 interrupted turns released")


def test_a_run_whose_claim_was_released_writes_nothing(closed):
    """The killed worker's run never reached its transaction; another claimed the turn since:
    the first run finds its claim gone and writes nothing, nor gives the turn back."""
    stale = _dead_worker(closed)
    claims.claims_release_expired(now=_past_the_lease(stale))
    current = claims.claim(turn_id=closed.pk, frm=Turn.Status.CLOSED, to=Turn.Status.RESOLVING)

    with pytest.raises(claims.ClaimLost, match="was released before it finished"):
        services._run(stale, resolution.phases_0_2_run)

    assert not TurnResolution.objects.exists() and not Battle.objects.exists()
    assert _fresh(closed).claimed_by == current.claimed_by  # not given back
    resolution.phases_0_2_run(current)
    assert _fresh(closed).status == Turn.Status.BATTLES


def test_a_run_moves_the_turn_on_only_while_its_claim_holds(closed, monkeypatch):
    """The last write is conditional on the claim: a run that lost it in the middle (here, on
    a database without row locks) rolls back everything it wrote."""
    before = to_data(state_current(campaign=closed.campaign))
    real = adapters.state_save

    def taken_meanwhile(**kwargs):
        real(**kwargs)
        Turn.objects.filter(pk=closed.pk).update(claimed_by="someone else #0000")

    monkeypatch.setattr(adapters, "state_save", taken_meanwhile)
    with pytest.raises(claims.ClaimLost):
        turn_resolve(turn_id=closed.pk)

    assert not TurnResolution.objects.exists() and not Battle.objects.exists()
    closed.campaign.refresh_from_db()
    assert to_data(state_current(campaign=closed.campaign)) == before


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks between two connections: PostgreSQL"
)
def test_a_live_run_is_never_released_however_long_it_takes(make_campaign, submit_orders):
    campaign = make_campaign(slug=SLUG)
    submit_orders(campaign)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=SEED)
    inside, go = threading.Event(), threading.Event()
    outcome: list[object] = []
    real = adapters.state_save

    def slow(**kwargs):
        real(**kwargs)
        inside.set()
        go.wait(timeout=60)

    def work() -> None:
        try:
            outcome.append(turn_resolve(turn_id=turn.pk))
        except BaseException as e:  # noqa: BLE001 - reported to the test
            outcome.append(e)
        finally:
            connection.close()

    adapters.state_save = slow  # the thread's run pauses in the middle of its transaction
    try:
        worker = threading.Thread(target=work)
        worker.start()
        assert inside.wait(timeout=60), "the run never got under way"
        long_after = timezone.now() + 100 * claims.lease()
        assert claims.claims_release_expired(now=long_after) == []
        assert turn_deadlines_check(now=long_after).released == []
        go.set()
        worker.join(timeout=60)
    finally:
        adapters.state_save = real
        go.set()
    assert isinstance(outcome[0], resolution.Resolution), outcome
    assert _fresh(turn).status == Turn.Status.BATTLES


# --- a run that fails ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (RuntimeError("disk full"), Turn.Interruption.ERROR),
        (OperationalError("server closed the connection"), Turn.Interruption.DATABASE),
    ],
)
def test_a_failed_run_gives_the_turn_back_saying_why(closed, monkeypatch, error, reason):
    def broken(**kwargs):
        raise error

    monkeypatch.setattr(adapters, "state_save", broken)
    with pytest.raises(type(error)):
        turn_resolve(turn_id=closed.pk)

    turn = _fresh(closed)
    assert (turn.status, turn.interrupted) == (Turn.Status.CLOSED, reason)
    assert (turn.claimed_at, turn.claimed_by) == (None, "")
    assert turn.interrupted_at is not None


@pytest.mark.django_db(transaction=True)
def test_giving_back_is_tried_again_until_the_database_answers(
    make_campaign, submit_orders, monkeypatch
):
    """The database went away in the middle of the run and is still away when the run
    gives the turn back: that is tried again (never skipped) until it answers."""
    campaign = make_campaign(slug=SLUG)
    submit_orders(campaign)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=SEED)
    tries: list[int] = []
    real = claims._give_back_once

    def down_twice(*args):
        tries.append(1)
        if len(tries) <= 2:
            raise OperationalError("the database system is shutting down")
        return real(*args)

    def outage(**kwargs):
        raise OperationalError("terminating connection due to administrator command")

    monkeypatch.setattr(claims, "_give_back_once", down_twice)
    monkeypatch.setattr(claims, "FIRST_WAIT", 0.0)
    monkeypatch.setattr(adapters, "state_save", outage)
    with pytest.raises(OperationalError, match="administrator command"):
        turn_resolve(turn_id=turn.pk)

    assert len(tries) == 3
    turn = _fresh(turn)
    assert (turn.status, turn.interrupted) == (Turn.Status.CLOSED, Turn.Interruption.DATABASE)


@pytest.mark.django_db(transaction=True)
def test_giving_back_waits_longer_each_time_and_gives_up_after_a_lease(closed, settings):
    claimed = _dead_worker(closed)
    waits: list[float] = []
    settings.TURN_CLAIM_LEASE = 20

    def clock_moves(wait: float) -> None:
        waits.append(wait)

    def never(*args):
        raise OperationalError("could not connect to server")

    real = claims._give_back_once
    claims._give_back_once = never
    try:
        given = claims.give_back(
            turn_id=claimed.pk,
            status=claimed.status,
            by=claimed.claimed_by,
            reason=Turn.Interruption.DATABASE,
            sleep=clock_moves,
        )
    finally:
        claims._give_back_once = real
    assert given is False
    assert waits == [0.5, 1.0, 2.0, 4.0, 8.0]  # 15.5 s waited; 16 more would pass the lease

    settings.TURN_CLAIM_LEASE = 0  # nothing left of the lease: one try, then the lease's turn
    claims._give_back_once = never
    try:
        given = claims.give_back(
            turn_id=claimed.pk,
            status=claimed.status,
            by=claimed.claimed_by,
            reason=Turn.Interruption.DATABASE,
            sleep=clock_moves,
        )
    finally:
        claims._give_back_once = real
    assert given is False
    assert _fresh(claimed).status == Turn.Status.RESOLVING  # the periodic check releases it
    assert claims.claims_release_expired()[0].status == Turn.Status.CLOSED


def test_giving_back_a_claim_released_meanwhile_changes_nothing(closed):
    stale = _dead_worker(closed)
    claims.claims_release_expired(now=_past_the_lease(stale))
    current = claims.claim(turn_id=closed.pk, frm=Turn.Status.CLOSED, to=Turn.Status.RESOLVING)

    given = claims.give_back(
        turn_id=stale.pk, status=stale.status, by=stale.claimed_by, reason="error"
    )

    assert given is False
    assert _fresh(closed).claimed_by == current.claimed_by


# --- the retry -------------------------------------------------------------------------------


def _export(campaign: Campaign) -> str:
    """The export without its moments, nor the audit log, which keeps the interruption (the
    uninterrupted baseline had none: `test_the_audit_log_keeps_a_released_claim`)."""
    data = campaign_export(campaign=Campaign.objects.get(pk=campaign.pk), times=False)
    data.pop("audit_log", None)
    return export_json(data)


def _uninterrupted(make_campaign, submit_orders, record_results) -> str:
    """The export of turn 1 played to its end without a hitch; the campaign is gone after."""
    campaign = make_campaign(slug=SLUG)
    submit_orders(campaign)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=SEED)
    turn_resolve(turn_id=turn.pk)
    record_results(_fresh(turn))
    turn_resolve_after_battles(turn_id=turn.pk)
    done = _export(campaign)
    campaign_delete(campaign=campaign)
    return done


def test_a_retry_after_phases_0_2_were_interrupted_gives_the_uninterrupted_result(
    make_campaign, submit_orders, record_results, django_capture_on_commit_callbacks
):
    expected = _uninterrupted(make_campaign, submit_orders, record_results)
    campaign = make_campaign(slug=SLUG)
    submit_orders(campaign)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=SEED)
    claims.claims_release_expired(now=_past_the_lease(_dead_worker(turn)))

    with django_capture_on_commit_callbacks(execute=True):
        assert turn_retry(turn=turn) == "The resolution of turn 1 has started again."
    assert _fresh(turn).status == Turn.Status.BATTLES and not _fresh(turn).interrupted
    record_results(_fresh(turn))
    turn_resolve_after_battles(turn_id=turn.pk)

    assert _export(campaign) == expected


def test_a_retry_after_phases_4_8_were_interrupted_gives_the_uninterrupted_result(
    make_campaign, submit_orders, record_results, django_capture_on_commit_callbacks
):
    expected = _uninterrupted(make_campaign, submit_orders, record_results)
    campaign = make_campaign(slug=SLUG)
    submit_orders(campaign)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=SEED)
    turn_resolve(turn_id=turn.pk)
    record_results(_fresh(turn))
    claims.claims_release_expired(now=_past_the_lease(_dead_worker(turn, after=True)))

    with django_capture_on_commit_callbacks(execute=True):
        turn_retry(turn=turn)

    assert _fresh(turn).status == Turn.Status.RESOLVED
    assert _export(campaign) == expected


def test_only_an_interrupted_resolution_is_retried(closed):
    with pytest.raises(ServiceError, match="was not interrupted: there is nothing to retry"):
        turn_retry(turn=closed)
    turn = _dead_worker(closed)
    with pytest.raises(ServiceError, match="was not interrupted"):
        turn_retry(turn=turn)  # still claimed: it is not interrupted (yet)


def test_a_retry_clears_the_interruption_once(closed, monkeypatch):
    claims.claims_release_expired(now=_past_the_lease(_dead_worker(closed)))
    queued: list[tuple] = []
    monkeypatch.setattr(services, "enqueue_on_commit", lambda *a: queued.append(a))

    turn_retry(turn=closed)
    assert queued == [(services.RESOLVE_TASK, closed.pk)]
    assert not _fresh(closed).interrupted
    with pytest.raises(ServiceError, match="was not interrupted"):
        turn_retry(turn=closed)


# --- the overview ----------------------------------------------------------------------------


@pytest.fixture
def interrupted(cast) -> Turn:
    """The demo's turn 1, closed; its worker died in Phases 0–2 and the lease released it."""
    turn = turn_close(turn=turn_current(campaign=cast.campaign), seed=SEED)
    claims.claims_release_expired(now=_past_the_lease(_dead_worker(turn)))
    return _fresh(turn)


def _overview(client) -> str:
    return client.get(reverse("campaign:detail", args=["incursion"])).content.decode()


def test_the_gm_reads_why_and_can_retry(cast, interrupted):
    html = _overview(cast.client("gm"))

    assert "Resolution interrupted — retry" in html
    assert "Phases 0–2 stopped before they finished:" in html
    assert "the worker resolving it stopped answering (it was stopped or died)" in html
    assert "gives the result an uninterrupted run would have" in html
    assert reverse("campaign:turn-retry", args=["incursion"]) in html
    assert "Retry the resolution" in html
    assert reverse("campaign:turn-advance", args=["incursion"]) not in html  # one way on
    assert 'hx-trigger="every 2s"' in html  # a task's own retry may finish it first


@pytest.mark.parametrize("who", ["side_a", "side_b", "observer"])
def test_the_others_read_that_the_gm_will_retry(cast, interrupted, who):
    html = _overview(cast.client(who))

    assert "The resolution of this turn was interrupted; the game master will retry it." in html
    assert "Resolution interrupted — retry" not in html
    assert reverse("campaign:turn-retry", args=["incursion"]) not in html
    assert "stopped answering" not in html


def test_the_gm_retries_from_the_overview(cast, interrupted, django_capture_on_commit_callbacks):
    gm = cast.client("gm")
    with django_capture_on_commit_callbacks(execute=True):
        response = gm.post(reverse("campaign:turn-retry", args=["incursion"]), stamped("incursion"))

    assert response.status_code == 302
    assert _fresh(interrupted).status == Turn.Status.RESOLVED  # the demo's turn 1: no battle
    html = _overview(gm)
    assert "The resolution of turn 1 has started again." in html
    assert "Resolution interrupted" not in html


@pytest.mark.parametrize(("who", "status"), [("side_a", 403), ("observer", 403), ("outsider", 404)])
def test_only_the_gm_retries(cast, interrupted, who, status):
    response = cast.client(who).post(
        reverse("campaign:turn-retry", args=["incursion"]), stamped("incursion")
    )

    assert response.status_code == status
    assert _fresh(interrupted).interrupted == Turn.Interruption.LOST


def test_a_retry_with_nothing_to_retry_is_refused_clearly(cast):
    response = cast.client("gm").post(
        reverse("campaign:turn-retry", args=["incursion"]), stamped("incursion")
    )

    assert response.status_code == 400
    assert "was not interrupted: there is nothing to retry" in response.content.decode()


def test_the_phases_4_8_interruption_reads_so(cast, interrupted):
    Turn.objects.filter(pk=interrupted.pk).update(status=Turn.Status.BATTLES, interrupted="")
    turn = claims.claims_release_expired(
        now=_past_the_lease(_dead_worker(interrupted, after=True))
    )[0]
    assert turn.status == Turn.Status.BATTLES

    html = _overview(cast.client("gm"))
    assert "Phases 4–8 stopped before they finished:" in html
    assert "the resolution of phases 4–8 was interrupted" in html


def test_your_move_tells_the_gm_to_retry(cast, interrupted):
    gm = viewer_for(user=cast.users["gm"], campaign=cast.campaign)
    [item] = todo_list_for_viewer(viewer=gm)
    assert (item.kind, item.text) == (
        "retry",
        "The resolution of turn 1 was interrupted: retry it.",
    )
    player = viewer_for(user=cast.users["side_a"], campaign=cast.campaign)
    assert todo_list_for_viewer(viewer=player) == []
    assert todo_waiting_for(viewer=player) == (
        "The resolution of turn 1 was interrupted; the game master will retry it."
    )
