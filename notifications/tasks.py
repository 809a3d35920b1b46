"""Notification tasks: thin, by id, enqueued on commit (`enqueue_on_commit`), safe to run twice
(the delivery log sends each message once) and retried with backoff when the database or
the mailer fails."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError, transaction

from notifications import services

RETRY = {
    "autoretry_for": (OperationalError, services.DeliveryFailed),
    "retry_backoff": True,
    "retry_backoff_max": 600,
    "retry_jitter": True,
    "max_retries": 5,
    "acks_late": True,
}


def enqueue_on_commit(task, *args) -> None:
    """Send `task` once the current transaction commits (at once outside one). `robust`: a
    notification that cannot be queued is logged, it never undoes the turn that caused it."""
    transaction.on_commit(lambda: task.delay(*args), robust=True)


@shared_task(name="notifications.notify_turn_opened", **RETRY)
def notify_turn_opened_task(turn_id: int) -> int:
    return len(services.notify_turn_opened(turn_id=turn_id))


@shared_task(name="notifications.notify_reminders_due", **RETRY)
def notify_reminders_due_task() -> int:
    return len(services.notify_reminders_due())


@shared_task(name="notifications.notify_battle", **RETRY)
def notify_battle_task(battle_id: int) -> int:
    return len(services.notify_battle(battle_id=battle_id))


@shared_task(name="notifications.notify_missing_orders", **RETRY)
def notify_missing_orders_task(turn_id: int) -> int:
    return len(services.notify_missing_orders(turn_id=turn_id))


@shared_task(name="notifications.notify_turn_resolved", **RETRY)
def notify_turn_resolved_task(turn_id: int) -> int:
    return len(services.notify_turn_resolved(turn_id=turn_id))


def enqueue_phases_0_2_notices(*, turn_id: int, events: list[dict]) -> None:
    """Called inside the Phases 0–2 transaction: once it commits, a notice for each battle it
    created and one for the players whose forces acted without orders."""
    from battles.models import Battle

    for battle_id in Battle.objects.filter(turn_id=turn_id).values_list("pk", flat=True):
        enqueue_on_commit(notify_battle_task, battle_id)
    if any(e.get("type") == "OrdersMissing" for e in events):
        enqueue_on_commit(notify_missing_orders_task, turn_id)
