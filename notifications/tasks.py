"""Notification tasks: thin, by id, queued on commit (`config.celery.enqueue_on_commit`) by the
turn's state machine only (`campaign.turns`), safe to run twice (the delivery log sends each
message once) and retried with backoff when the database or the mailer fails
(`config.celery.RETRY`; `DeliveryFailed` is `Retryable`). They go to the mail queue, never the
turns' own (`config.celery.mail_queue`): mail never holds up a resolution."""

from __future__ import annotations

from typing import Any

from celery import shared_task

from battles.models import Battle
from config.celery import RETRY, enqueue_on_commit
from notifications import delivery, services


@shared_task(name="notifications.notify_turn_opened", **RETRY)
def notify_turn_opened_task(turn_id: int) -> int:
    return len(services.notify_turn_opened(turn_id=turn_id))


@shared_task(name="notifications.notify_reminders_due", **RETRY)
def notify_reminders_due_task() -> int:
    return len(services.notify_reminders_due())


@shared_task(name="notifications.notify_battles", **RETRY)
def notify_battles_task(turn_id: int) -> int:
    """Every battle notice of a turn: one task, whatever the number of battles."""
    return len(services.notify_battles(turn_id=turn_id))


@shared_task(name="notifications.notify_battle", **RETRY)
def notify_battle_task(battle_id: int) -> int:
    """One battle's notices: what a version before `notify_battles_task` queued."""
    return len(services.notify_battle(battle_id=battle_id))


@shared_task(name="notifications.notify_missing_orders", **RETRY)
def notify_missing_orders_task(turn_id: int) -> int:
    return len(services.notify_missing_orders(turn_id=turn_id))


@shared_task(name="notifications.notify_turn_resolved", **RETRY)
def notify_turn_resolved_task(turn_id: int) -> int:
    return len(services.notify_turn_resolved(turn_id=turn_id))


@shared_task(name="notifications.notify_amended", **RETRY)
def notify_amended_task(amendment_id: int) -> int:
    return len(services.notify_amended(amendment_id=amendment_id))


@shared_task(name="notifications.notification_deliver", **RETRY)
def notification_deliver_task(notification_id: int) -> str:
    """The email of a message logged before (the game master's reminder)."""
    delivered = delivery.notification_deliver(notification_id=notification_id)
    return delivered.status if delivered is not None else ""


def enqueue_phases_0_2_notices(*, turn_id: int, events: list[dict[str, Any]]) -> None:
    """Called inside the Phases 0–2 transaction: once it commits, one task for the notices of
    every battle it created, and one for the players whose forces acted without orders."""
    if Battle.objects.filter(turn_id=turn_id).exists():
        enqueue_on_commit(notify_battles_task, turn_id)
    if any(e.get("type") == "OrdersMissing" for e in events):
        enqueue_on_commit(notify_missing_orders_task, turn_id)
