"""A real worker dies in the middle of a big turn (240 forces), and the turn survives it.

The worker (tests/campaign/turns/stopping_worker.py, a `celery worker` that stops once at a
named point inside a run's transaction, after it wrote the new state) is SIGKILLed in Phases
0–2, or in Phases 4–8 after the battles' results were entered; or the database is made
unreachable under it for 3 s (new connections refused, its own terminated). Each time the turn
ends up given back: by the lease's expiry (a short lease here) and the periodic check after a
kill, by the run itself once the database answers again after the outage. The GM reads on the
overview that the resolution was interrupted and retries it (a POST, as the GM); a fresh
worker finishes it, and the campaign's export is byte for byte the export of the same turn
played without a hitch, with the same seed.

The stop is reached by every run, whatever its timing: nothing here waits for a moment, only
for conditions (a file the worker writes, its exit, the turn's status, a line of its log), each
within a bound. On PostgreSQL with a broker only (`./run tests`); the outage touches the test
database alone (`ALTER DATABASE … ALLOW_CONNECTIONS`), never the shared server."""

from __future__ import annotations

import signal
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from campaign.exchange.export import campaign_export, export_json
from campaign.models import Campaign, Membership, Turn, TurnResolution
from campaign.selectors import turn_current
from campaign.setup.invitations import membership_add, user_get_or_create
from campaign.setup.services import campaign_delete
from campaign.turns.services import (
    turn_close,
    turn_deadlines_check,
    turn_resolve,
    turn_resolve_after_run,
)
from campaign.turns.tasks import turn_resolve_task
from config import celery_app
from tests.campaign.turns.workers import NO_BROKER, Worker, queue_forget, wait_for, worker_start
from tests.stamp import stamped

pytestmark = [
    pytest.mark.celery,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        NO_BROKER, reason="no broker configured (set CELERY_BROKER_URL, as `./run tests` does)"
    ),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="the worker must share the test database, and the outage is PostgreSQL's: "
        "needs PostgreSQL, not SQLite",
    ),
]

SLUG = "big"
SEED = 1  # the turn's; with the seed-1 orders of this campaign, Phases 0–2 give battles
BIG = {"forces": 240, "players": 12, "width": 64, "height": 64, "units_per_force": 10}
OUTAGE = 3.0  # seconds the database stays unreachable, at least
LEASE = 1  # seconds: the lease configured for these tests
_expected: dict[str, str] = {}  # the uninterrupted run's export, made once


@dataclass
class Workers:
    """The workers of one test, on one queue of their own; each with its own log."""

    queue: str
    where: Path
    started: list[Worker] = field(default_factory=list)

    def start(self, stop: str = "") -> Worker:
        env = {}
        module = "celery"
        if stop:
            module = "tests.campaign.turns.stopping_worker"
            env = {"FW_TEST_STOP": stop, "FW_TEST_STOP_DIR": str(self.where)}
        log = self.where / f"worker-{len(self.started) + 1}.log"
        worker = worker_start(self.queue, log, module=module, env=env)
        self.started.append(worker)
        return worker

    def reached(self) -> bool:
        return (self.where / "reached").exists()

    def go(self) -> None:
        (self.where / "go").write_text("go")


@contextmanager
def _eager() -> Iterator[None]:
    """Tasks run in this process, at once (the baseline's run and its notices)."""
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_eager_propagates
    conf.task_always_eager, conf.task_eager_propagates = True, True
    try:
        yield
    finally:
        conf.task_always_eager, conf.task_eager_propagates = saved


@pytest.fixture
def workers(tmp_path: Path, settings) -> Iterator[Workers]:
    """Workers on their own queue; what this process queues goes there too (the GM's
    retry, the battles settled), and this process's lease is short."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.TURN_CLAIM_LEASE = LEASE
    conf = celery_app.conf
    saved = conf.task_always_eager, conf.task_default_queue
    crew = Workers(f"fw-test-{uuid.uuid4().hex[:12]}", tmp_path)
    conf.task_always_eager, conf.task_default_queue = False, crew.queue
    try:
        yield crew
    finally:
        for worker in crew.started:
            worker.stop()
        conf.task_always_eager, conf.task_default_queue = saved
        queue_forget(crew.queue)


def _big(make_campaign, submit_orders) -> tuple[Campaign, Client]:
    """The generated 240-force campaign with its turn-1 orders, and its GM's client."""
    campaign = make_campaign(slug=SLUG, **BIG)
    gm = user_get_or_create(username="big-gm", password="big-gm-pass-1")
    membership_add(campaign=campaign, user=gm, role=Membership.Role.GM)
    submit_orders(campaign)
    client = Client()
    client.force_login(gm)
    return campaign, client


def _export(campaign: Campaign) -> str:
    """The campaign as exported, without the moments its rows were made and without the
    notification log: which notices went out, and when, is the mail worker's business, not
    the resolution's (the baseline sends them in this process, the workers here on their own
    time, from the mail queue). Nor the audit log, which keeps the interruption (the
    baseline had none)."""
    data = campaign_export(campaign=Campaign.objects.get(pk=campaign.pk), times=False)
    data.pop("notifications", None)
    data.pop("audit_log", None)
    return export_json(data)


def _uninterrupted(make_campaign, submit_orders, record_results) -> str:
    """The export of turn 1 played without a hitch, in this process; the campaign is gone
    afterwards (the interrupted run is played under the same slug: the seed's hash has it)."""
    if "export" not in _expected:
        with _eager():
            campaign, _gm = _big(make_campaign, submit_orders)
            turn = turn_close(turn=turn_current(campaign=campaign), seed=SEED)
            turn_resolve(turn_id=turn.pk)
            record_results(Turn.objects.get(pk=turn.pk))
            turn_resolve_after_run(turn_id=turn.pk)  # what the GM's "advance" queues
            assert Turn.objects.get(pk=turn.pk).status == Turn.Status.RESOLVED
            _expected["export"] = _export(campaign)
            campaign_delete(campaign=campaign)
    return _expected["export"]


def _turn(turn: Turn) -> Turn:
    return Turn.objects.get(pk=turn.pk)


def _status_is(turn: Turn, *statuses: str) -> Callable[[], bool]:
    return lambda: _turn(turn).status in statuses


def _killed(crew: Workers, worker: Worker) -> None:
    wait_for(lambda: worker.process.poll() is not None, "dead worker", worker, exits=True)
    assert crew.reached(), worker.output()
    assert worker.process.returncode == -signal.SIGKILL, worker.output()


def _released(turn: Turn, status: str) -> Turn:
    """The periodic check, run until the lease is over and PostgreSQL has seen the dead
    worker's connection go (until then its lock stands and the check leaves the turn be)."""
    wait_for(lambda: any(t.pk == turn.pk for t in turn_deadlines_check().released), "released turn")
    released = _turn(turn)
    assert (released.status, released.interrupted) == (status, Turn.Interruption.LOST)
    assert (released.claimed_at, released.claimed_by) == (None, "")
    assert released.seed == SEED
    return released


def _advance(gm: Client) -> None:
    """The GM goes on once every battle has its result: Phases 4–8 are queued."""
    response = gm.post(reverse("campaign:turn-advance", args=[SLUG]), stamped(SLUG))
    assert response.status_code == 302, response.content.decode()[-2000:]


def _retry_from_the_overview(gm: Client, phases: str) -> None:
    overview = reverse("campaign:detail", args=[SLUG])
    html = gm.get(overview).content.decode()
    assert "Resolution interrupted — retry" in html
    assert f"Phases {phases} stopped before they finished:" in html
    assert "the worker resolving it stopped answering" in html
    response = gm.post(reverse("campaign:turn-retry", args=[SLUG]), stamped(SLUG))
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert "has started again" in gm.get(overview).content.decode()


def test_a_worker_killed_in_phases_0_2(make_campaign, submit_orders, record_results, workers):
    expected = _uninterrupted(make_campaign, submit_orders, record_results)
    campaign, gm = _big(make_campaign, submit_orders)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=SEED)
    doomed = workers.start(stop="0-2:kill")

    turn_resolve_task.apply_async((turn.pk,), queue=workers.queue)
    _killed(workers, doomed)

    stuck = _turn(turn)
    assert stuck.status == Turn.Status.RESOLVING and "task" in stuck.claimed_by
    assert not TurnResolution.objects.filter(turn=turn).exists()  # its transaction died
    _released(turn, Turn.Status.CLOSED)

    fresh = workers.start()
    _retry_from_the_overview(gm, "0–2")
    wait_for(_status_is(turn, Turn.Status.BATTLES), "Phases 0–2 done", fresh)
    record_results(_turn(turn))
    _advance(gm)
    wait_for(_status_is(turn, Turn.Status.RESOLVED), "resolved turn", fresh)

    assert _export(campaign) == expected


def test_a_worker_killed_in_phases_4_8(make_campaign, submit_orders, record_results, workers):
    expected = _uninterrupted(make_campaign, submit_orders, record_results)
    campaign, gm = _big(make_campaign, submit_orders)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=SEED)
    with _eager():
        turn_resolve(turn_id=turn.pk)  # Phases 0–2 here: the battles wait for their results
    assert _turn(turn).status == Turn.Status.BATTLES
    doomed = workers.start(stop="4-8:kill")

    record_results(_turn(turn))
    _advance(gm)  # Phases 4–8, for the doomed worker
    _killed(workers, doomed)

    stuck = _turn(turn)
    assert stuck.status == Turn.Status.RESOLVING_AFTER
    assert not TurnResolution.objects.filter(turn=turn, stage="after-battles").exists()
    assert campaign.turns.count() == 1
    _released(turn, Turn.Status.BATTLES)

    fresh = workers.start()
    _retry_from_the_overview(gm, "4–8")
    wait_for(_status_is(turn, Turn.Status.RESOLVED), "resolved turn", fresh)

    assert _export(campaign) == expected


@contextmanager
def _database_away() -> Iterator[None]:
    """The test database refuses new connections and its clients' connections are cut (this
    process's own excepted: it must put things back); the server and its other databases go
    on. A database cannot refuse connections from a session in itself: this is done from the
    server's maintenance database."""
    s = connection.settings_dict
    name = connection.ops.quote_name(s["NAME"])
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        [(mine,)] = cursor.fetchall()
    with psycopg.connect(
        host=s["HOST"] or None,
        port=s["PORT"] or None,
        user=s["USER"] or None,
        password=s["PASSWORD"] or None,
        dbname="postgres",
        autocommit=True,
    ) as admin:
        admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        try:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> %s AND backend_type = 'client backend'",
                (s["NAME"], mine),
            )
            yield
        finally:
            admin.execute(f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")


def test_the_database_unreachable_for_3_s_in_phases_0_2(
    make_campaign, submit_orders, record_results, workers
):
    """The run loses its connection mid-transaction and cannot give the turn back while the
    database is away; it keeps trying, gives it back once the database answers, and the task's
    retry (`config.celery.RETRY`) resolves it: never stuck, and nothing for the GM to do."""
    expected = _uninterrupted(make_campaign, submit_orders, record_results)
    campaign, gm = _big(make_campaign, submit_orders)
    turn = turn_close(turn=turn_current(campaign=campaign), seed=SEED)
    worker = workers.start(stop="0-2:hold")

    turn_resolve_task.apply_async((turn.pk,), queue=workers.queue)
    wait_for(workers.reached, "run in the middle of Phases 0–2", worker)
    with _database_away():
        away = time.monotonic()
        workers.go()
        wait_for(
            lambda: "not given back yet" in worker.output(tail=10**6),
            "try to give the turn back while the database is away",
            worker,
        )
        time.sleep(max(0.0, OUTAGE - (time.monotonic() - away)))  # the outage's length
        assert _turn(turn).status == Turn.Status.RESOLVING  # nobody could write anything

    wait_for(_status_is(turn, Turn.Status.BATTLES), "Phases 0–2 done after the outage", worker)
    done = _turn(turn)
    assert not done.interrupted and "Retry in" in worker.output(tail=10**6)
    record_results(done)
    _advance(gm)
    wait_for(_status_is(turn, Turn.Status.RESOLVED), "resolved turn", worker)

    assert _export(campaign) == expected
