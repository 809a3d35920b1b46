"""A real Celery worker, on the real broker, resolves a turn.

The worker is started as a subprocess (`celery -A config worker --pool=solo …`) and pointed
at pytest-django's test database through DATABASE_URL; the test's data is committed
(`transaction=True`) so the worker sees it. The worker and the test keep to a queue of their
own (CELERY_QUEUE, see config/celery.py), so that a broker shared with other test runs or a
development worker neither steals nor feeds this test's messages; it consumes that queue's
mail queue too (`<queue>.mail`, where the notification tasks go), as a worker of a simple
deployment does. The worker is stopped with SIGTERM to its PID (tests/campaign/turns/workers.py)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from campaign.models import Turn, TurnResolution
from campaign.selectors import turn_current
from campaign.turns.services import turn_close
from campaign.turns.tasks import turn_resolve_task
from config import celery_app
from notifications.models import Kind, Notification
from tests.campaign.turns.workers import WORKER_TEST, Worker, queue_forget, wait_for, worker_start

pytestmark = WORKER_TEST


@pytest.fixture
def not_eager() -> Iterator[None]:
    conf = celery_app.conf
    saved = conf.task_always_eager
    conf.task_always_eager = False
    yield
    conf.task_always_eager = saved


@pytest.fixture
def worker(tmp_path: Path, not_eager) -> Iterator[Worker]:
    queue = f"fw-test-{uuid.uuid4().hex[:12]}"
    started = worker_start(queue, tmp_path / "worker.log")
    try:
        yield started
    finally:
        started.stop()
        queue_forget(queue)  # leave nothing behind on the broker


def _wait_for(check, worker: Worker, what: str) -> None:
    wait_for(check, what, worker)


def test_a_real_worker_resolves_a_turn(cast, worker):
    turn = turn_close(turn=turn_current(campaign=cast.campaign), seed=5)

    turn_resolve_task.apply_async((turn.pk,), queue=worker.queue)
    turn_resolve_task.apply_async((turn.pk,), queue=worker.queue)  # a duplicate: still once

    # the demo's turn 1 has no battle: the worker goes on to Phases 4–8 by itself
    _wait_for(
        lambda: Turn.objects.get(pk=turn.pk).status == Turn.Status.RESOLVED,
        worker,
        "resolved turn",
    )
    resolutions = TurnResolution.objects.filter(turn=turn)
    assert resolutions.filter(stage=TurnResolution.Stage.TURN).count() == 1
    assert resolutions.filter(stage=TurnResolution.Stage.AFTER).count() == 1
    nxt = turn_current(campaign=cast.campaign)
    assert (nxt.number, nxt.status) == (2, Turn.Status.OPEN)

    # the digests are the worker's too: one per member, logged by the notification task
    members = cast.campaign.memberships.count()
    _wait_for(
        lambda: Notification.objects.filter(turn=turn, kind=Kind.TURN_RESOLVED).count() == members,
        worker,
        "digest for every member",
    )
    # the duplicate found the turn taken, and said so
    assert "campaign.turn_resolve" in worker.output(tail=10**7)
    assert "succeeded" in worker.output(tail=10**7)
    assert ": 'skipped'" in worker.output(tail=10**7)


@pytest.fixture
def to_the_worker(worker: Worker) -> Iterator[None]:
    """Tasks this process queues (`.delay` in a view) go to the test worker's queue."""
    conf = celery_app.conf
    saved = conf.task_default_queue
    conf.task_default_queue = worker.queue
    yield
    conf.task_default_queue = saved


def test_a_real_worker_computes_the_odds_a_player_asks_for(cast, worker, to_the_worker):
    """The orders page queues the what-if odds; the worker computes them and the panel,
    polling, finds them."""
    from django.urls import reverse

    from battles.models import WhatIfOdds
    from campaign.models import Force

    Force.objects.filter(campaign=cast.campaign, key="d3").update(x=4, y=4)  # in sight
    url = reverse("campaign:orders-odds", args=[cast.campaign.slug, "r1"])
    client = cast.client("side_a")
    htmx = {"HX-Request": "true"}
    html = client.get(url, {"enemy": "d3"}, headers=htmx).content.decode()
    assert "The tactical engine is computing the odds" in html  # queued, not computed here
    _wait_for(lambda: WhatIfOdds.objects.filter(campaign=cast.campaign).exists(), worker, "odds")
    html = client.get(url, {"enemy": "d3", "poll": "1"}, headers=htmx).content.decode()
    assert "From 1000 battles fought by the tactical engine" in html
    assert "battles.what_if_odds" in worker.output(tail=10**7)
