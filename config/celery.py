"""The Celery app (configured from the Django settings named CELERY_*; it finds each app's
tasks), the one retry policy every task uses, and the one way to queue a task.

Tasks take ids, call one service, and are safe to run twice. `RETRY`: a lost database
connection, or a failure the task marks `Retryable` (the mailer was down), is retried with
backoff; a worker lost in the middle leaves the message to another one (`acks_late`), and a
turn's claim keeps its resolution single. `enqueue_on_commit` queues a task once the current
transaction commits (at once outside one): a task never sees data that is not there yet.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery, Task
from django.db import InterfaceError, OperationalError, transaction
from kombu import Exchange, Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("fwcampaign")
app.config_from_object("django.conf:settings", namespace="CELERY")
# each package that defines tasks (its `tasks` module)
app.autodiscover_tasks(["campaign.turns", "campaign.exchange", "battles", "notifications"])

# A worker and its beat: turn deadlines are checked every minute, and the exports members
# downloaded are deleted a day after they were asked for (`celery -A config beat`).
app.conf.beat_schedule = {
    "turn-deadlines": {"task": "campaign.deadlines_check", "schedule": 60.0},
    "exports-expire": {"task": "campaign.exports_expire", "schedule": 3600.0},
}
# Workers that share a broker with others (several deployments, or a test's own worker) keep
# to their own queue; the tasks they queue go there too.
app.conf.task_default_queue = os.environ.get("CELERY_QUEUE") or "celery"


def mail_queue() -> str:
    """The notification tasks' queue, `<default queue>.mail`: a turn's resolution never waits
    behind mail. A worker started without -Q consumes both (`task_queues`); see README."""
    return f"{app.conf.task_default_queue}.mail"


def _route(name: str, *args: Any, **kwargs: Any) -> dict[str, str] | None:
    # read at each call: a test that moves the default queue moves the mail queue with it
    return {"queue": mail_queue()} if name.startswith("notifications.") else None


app.conf.task_routes = (_route,)
app.conf.task_queues = [
    Queue(q, Exchange(q), routing_key=q) for q in (app.conf.task_default_queue, mail_queue())
]


class Retryable(Exception):
    """A task failure worth trying again later, with backoff (`RETRY`)."""


RETRY: dict[str, Any] = {
    "autoretry_for": (OperationalError, InterfaceError, Retryable),
    "retry_backoff": True,
    "retry_backoff_max": 600,
    "retry_jitter": True,
    "max_retries": 5,
    "acks_late": True,
}


def enqueue_on_commit(task: Task[..., Any] | str, *args: Any) -> None:
    """Queue `task(*args)` once the current transaction commits; `task` may be given by name
    (a service that its own tasks call names them). `robust`: a task that cannot be queued is
    logged and never undoes the transaction that asked for it (what the database holds is
    what everyone sees, and the periodic check or the GM's button queues it again)."""

    def send() -> None:
        (app.tasks[task] if isinstance(task, str) else task).delay(*args)

    transaction.on_commit(send, robust=True)
