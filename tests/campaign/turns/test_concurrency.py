"""Two workers resolving the same turn at the same moment: the conditional update that claims
the turn lets exactly one through. Needs real concurrent transactions, so it runs on
PostgreSQL with committed data (each thread has its own connection)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from campaign.errors import TurnBusy
from campaign.models import Turn, TurnResolution
from campaign.selectors import turn_current
from campaign.turns.resolution import Resolution
from campaign.turns.services import turn_close, turn_resolve, turn_resolve_after_battles

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="needs concurrent transactions on PostgreSQL (row locks, one connection a thread)",
    ),
]

ROUNDS = 3  # fresh campaigns per test: a race that passes once by luck should not pass thrice


def _race(call: Callable[[], Any], workers: int = 2) -> list[Any]:
    """Run `call` in `workers` threads released together; each outcome is its return value or
    the exception it raised."""
    barrier = threading.Barrier(workers)
    outcomes: list[Any] = [None] * workers

    def work(i: int) -> None:
        from django.db import connection as thread_connection

        try:
            barrier.wait(timeout=30)
            outcomes[i] = call()
        except BaseException as e:  # noqa: BLE001 - reported to the test thread
            outcomes[i] = e
        finally:
            thread_connection.close()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a worker hung"
    return outcomes


def _split(outcomes: list[Any]) -> tuple[list[Resolution], list[BaseException]]:
    won = [o for o in outcomes if isinstance(o, Resolution)]
    lost = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(won) + len(lost) == len(outcomes), outcomes
    return won, lost


def _closed_turn(make_campaign, submit_orders, n: int) -> Turn:
    campaign = make_campaign(slug=f"race-{n}")
    submit_orders(campaign)
    return turn_close(turn=turn_current(campaign=campaign), seed=1)


@pytest.mark.parametrize("n", range(ROUNDS))
def test_two_workers_resolve_a_turn_once(make_campaign, submit_orders, n):
    turn = _closed_turn(make_campaign, submit_orders, n)

    won, lost = _split(_race(lambda: turn_resolve(turn_id=turn.pk)))

    assert len(won) == 1, lost
    [loser] = lost
    assert isinstance(loser, TurnBusy), repr(loser)
    # the loser either found the winner still at work or already done
    assert str(loser) in (
        f"Turn {turn.number} cannot be resolved now: it is {state} (already resolving or resolved)."
        for state in ("resolving phases 0–2", "battles pending")
    )
    assert TurnResolution.objects.filter(turn=turn).count() == 1
    turn.refresh_from_db()
    assert turn.status == Turn.Status.BATTLES
    assert turn.battles.count() == len(won[0].pending)


@pytest.mark.parametrize("n", range(ROUNDS))
def test_two_workers_resolve_phases_4_8_once(make_campaign, submit_orders, record_results, n):
    turn = _closed_turn(make_campaign, submit_orders, n)
    turn_resolve(turn_id=turn.pk)
    record_results(Turn.objects.get(pk=turn.pk))

    won, lost = _split(_race(lambda: turn_resolve_after_battles(turn_id=turn.pk)))

    assert len(won) == 1, lost
    [loser] = lost
    assert isinstance(loser, TurnBusy), repr(loser)
    assert str(loser) in (
        f"Turn {turn.number} cannot be resolved now: it is {state} (already resolving or resolved)."
        for state in ("resolving phases 4–8", "resolved")
    )
    assert TurnResolution.objects.filter(turn=turn).count() == 2  # Phases 0–2, then 4–8 once
    assert TurnResolution.objects.filter(turn=turn, stage=TurnResolution.Stage.AFTER).count() == 1
    turn.refresh_from_db()
    assert turn.status == Turn.Status.RESOLVED
    # one next turn, not two (a second would break the (campaign, number) constraint anyway)
    assert list(turn.campaign.turns.values_list("number", "status")) == [
        (1, Turn.Status.RESOLVED),
        (2, Turn.Status.OPEN),
    ]
