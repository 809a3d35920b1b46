"""Real Celery workers for the tests that need one (test_celery_worker.py,
test_worker_killed.py): started as subprocesses on the real broker, on a queue of their own,
pointed at pytest-django's test database, stopped by their PID.

The worker uses the database named in its environment (DATABASE_URL), so it is given the test
database's; the test's data must be committed (`transaction=True`) for it to see them. The
worker and the test keep to their queue (CELERY_QUEUE, see config/celery.py), so that a broker
shared with other test runs or a development worker neither steals nor feeds their messages."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

from config import celery_app

BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
NO_BROKER = not BROKER_URL or BROKER_URL.startswith("memory://")
# the marks of a test that runs a real worker against the test database
WORKER_TEST = [
    pytest.mark.celery,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        NO_BROKER, reason="no broker configured (set CELERY_BROKER_URL, as `./run tests` does)"
    ),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="the worker must share the test database: needs PostgreSQL, not in-memory SQLite",
    ),
]
WAIT = 60  # seconds: bounded, a worker that never answers fails the test


@dataclass
class Worker:
    process: subprocess.Popen
    queue: str
    log: Path

    def output(self, tail: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-tail:]

    def stop(self) -> None:
        """SIGTERM to its PID (a warm shutdown); SIGKILL, by PID too, if it does not end."""
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)


def database_url() -> str:
    """The URL of the test database, for a worker to use it."""
    s = connection.settings_dict
    auth = quote(s["USER"] or "", safe="")
    if s["PASSWORD"]:
        auth += ":" + quote(s["PASSWORD"], safe="")
    host = s["HOST"] or "localhost"
    port = f":{s['PORT']}" if s["PORT"] else ""
    return f"postgres://{auth}{'@' if auth else ''}{host}{port}/{quote(s['NAME'], safe='')}"


def worker_start(
    queue: str, log: Path, *, module: str = "celery", env: dict[str, str] | None = None
) -> Worker:
    """A worker on `queue`, its output in `log`. `module`: what `python -m` runs (`celery`,
    or a test's own entry point that takes the same arguments)."""
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": database_url(),
        "CELERY_BROKER_URL": BROKER_URL,
        "CELERY_QUEUE": queue,  # the tasks the worker queues stay on this queue too
        **(env or {}),
    }
    with log.open("a") as out:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                module,
                "-A",
                "config",
                "worker",
                "--pool=solo",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel=INFO",
                "-Q",
                f"{queue},{queue}.mail",  # the turns' tasks, and the notifications'
            ],
            cwd=settings.BASE_DIR,
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return Worker(process, queue, log)


def queue_forget(queue: str) -> None:
    """Leave nothing of `queue` on the broker: the queue, and on Redis the messages a killed
    worker took and never acknowledged (Redis keeps them aside for an hour, then puts them
    back on their queue; RabbitMQ puts them back at once)."""
    with celery_app.connection_for_write() as conn:
        channel = conn.default_channel
        channel.queue_delete(queue)
        channel.queue_delete(f"{queue}.mail")
        client = getattr(channel, "client", None)
        key = getattr(channel, "unacked_key", None)
        if client is None or key is None:
            return
        for tag, raw in client.hgetall(key).items():
            _payload, exchange, routing_key = json.loads(raw)
            if queue in (exchange, routing_key):
                client.hdel(key, tag)
                client.zrem(channel.unacked_index_key, tag)


def wait_for(
    check: Callable[[], bool], what: str, worker: Worker | None = None, *, exits: bool = False
) -> None:
    """Wait (bounded) until `check()`; a worker that exits meanwhile fails the test, unless
    that is what is awaited (`exits`)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if check():
            return
        if worker is not None and not exits and worker.process.poll() is not None:
            pytest.fail(f"the worker exited ({worker.process.returncode}):\n{worker.output()}")
        time.sleep(0.25)
    said = f"; the worker said:\n{worker.output()}" if worker is not None else ""
    pytest.fail(f"no {what} within {WAIT} s{said}")
