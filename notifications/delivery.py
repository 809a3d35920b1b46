"""The delivery log and the mailer: every message is written to the log (`Notification`,
unique per user, turn, kind and key) and only then sent, under a row lock, so that a task
retried after a crash, or run twice, never sends the same message twice. A user who opted out
gets a log row marked so, and no email. The row is also the notice on the site (the
notification list and the header's unread badge), whatever became of the email: the opt-outs
are for email only. Mail goes through Django's default mailer (`MAILERS`: the console unless
a deployment configures SMTP). Who is told what is `notifications.services`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.core.mail import EmailMessage, mailers
from django.core.mail.backends.base import BaseEmailBackend
from django.db import transaction
from django.utils import timezone

from campaign.models import Turn
from config.celery import Retryable
from notifications.models import Notification, NotificationPreference

log = logging.getLogger(__name__)


class DeliveryFailed(Retryable):
    """Some messages could not be handed to the mailer; a retry sends only those."""


def preference_enabled(*, user: User, kind: str) -> bool:
    """Whether `user` wants notifications of `kind`: no to all of them wins, then the kind's
    own choice; with no choice made, yes."""
    prefs = dict(
        NotificationPreference.objects.filter(
            user=user, kind__in=[NotificationPreference.ALL, kind]
        ).values_list("kind", "enabled")
    )
    return _wants(prefs, kind)


def _wants(prefs: dict[str, bool], kind: str) -> bool:
    if prefs.get(NotificationPreference.ALL) is False:
        return False
    return prefs.get(kind, True)


def preferences_enabled(*, user_ids: Iterable[int], kind: str) -> dict[int, bool]:
    """`preference_enabled` for many users in one query: user id → yes or no."""
    prefs: dict[int, dict[str, bool]] = {}
    for user_id, k, enabled in NotificationPreference.objects.filter(
        user_id__in=list(user_ids), kind__in=[NotificationPreference.ALL, kind]
    ).values_list("user_id", "kind", "enabled"):
        prefs.setdefault(user_id, {})[k] = enabled
    return {user_id: _wants(p, kind) for user_id, p in prefs.items()}


def notification_log(
    *,
    user: User,
    turn: Turn,
    kind: str,
    subject: str,
    body: str,
    url: str = "",
    key: str = "",
    params: dict[str, Any] | None = None,
) -> Notification:
    """Write one message to the log, once (the row of the same user, turn, kind and key if
    there is one): from now it is a notice on the user's list, its email still to be sent."""
    notification, _created = Notification.objects.get_or_create(
        user=user,
        turn=turn,
        kind=kind,
        key=key,
        defaults={
            "campaign_id": turn.campaign_id,
            "subject": one_line(subject),
            "params": params or {},
            "body": body,
            "url": url,
        },
    )
    return notification


def notification_send(
    *,
    user: User,
    turn: Turn,
    kind: str,
    subject: str,
    body: str,
    url: str = "",
    key: str = "",
    params: dict[str, Any] | None = None,
) -> Notification:
    """Log and send one message, once: a message already sent (or skipped) for the same user,
    turn, kind and key is left as it is; one that failed is tried again."""
    notification = notification_log(
        user=user,
        turn=turn,
        kind=kind,
        subject=subject,
        body=body,
        url=url,
        key=key,
        params=params,
    )
    return send_once(notification, user)


def one_line(subject: str) -> str:
    # a line break (a campaign's name, say) must never reach a mail header
    return " ".join(subject.split())[:200]


@dataclass(frozen=True)
class Message:
    user: User
    key: str
    subject: str
    body: str
    url: str
    params: dict[str, Any] = field(default_factory=dict)


def send_many(*, turn: Turn, kind: str, messages: list[Message]) -> list[Notification]:
    """Log and send many messages of one turn and kind, each once, as `notification_send`
    does one: the log is written and read in two queries for the whole batch, the opt-outs in
    one, and each message still sent under its row's lock, so a batch retried after a crash
    (or run twice) sends only what is still pending or failed, never a message twice. The
    batch's emails share one connection to the mailer."""
    if not messages:
        return []
    Notification.objects.bulk_create(
        [
            Notification(
                user=m.user,
                turn=turn,
                campaign_id=turn.campaign_id,
                kind=kind,
                key=m.key,
                subject=one_line(m.subject),
                params=m.params,
                body=m.body,
                url=m.url,
            )
            for m in messages
        ],
        ignore_conflicts=True,  # a row of an earlier run stays as it is (`notification_log`)
    )
    users = {m.user.pk for m in messages}
    logged = {
        (n.user_id, n.key): n
        for n in Notification.objects.filter(turn=turn, kind=kind, user_id__in=users)
    }
    wants = preferences_enabled(user_ids=users, kind=kind)
    mailer = mailers.default
    try:
        return [
            send_once(
                logged[m.user.pk, m.key], m.user, wants=wants.get(m.user.pk, True), mailer=mailer
            )
            for m in messages
        ]
    finally:
        _close(mailer)


def notification_deliver(*, notification_id: int) -> Notification | None:
    """Send the email of a message logged before (`notification_log`), once; `DeliveryFailed`
    when the mailer failed, for the task to try again."""
    notification = Notification.objects.select_related("user").filter(pk=notification_id).first()
    if notification is None:
        return None
    return raise_if_failed([send_once(notification, notification.user)])[0]


def send_once(
    notification: Notification,
    user: User,
    wants: bool | None = None,
    mailer: BaseEmailBackend | None = None,
) -> Notification:
    """Send one logged message unless it went (or was skipped) already; `wants`: the user's
    opt-outs, read before for a batch (`preferences_enabled`), else here; `mailer`: the
    batch's connection, else one of its own."""
    if notification.status not in (Notification.Status.PENDING, Notification.Status.FAILED):
        return notification
    with transaction.atomic():
        # a concurrent run holding the row is sending it: leave it to that run
        locked = (
            Notification.objects.select_for_update(skip_locked=True)
            .filter(
                pk=notification.pk,
                status__in=[Notification.Status.PENDING, Notification.Status.FAILED],
            )
            .first()
        )
        if locked is None:
            notification.refresh_from_db()
            return notification
        _deliver(
            locked,
            user,
            preference_enabled(user=user, kind=locked.kind) if wants is None else wants,
            mailer,
        )
        locked.save(update_fields=["status", "error", "sent_at"])
    return locked


def _deliver(n: Notification, user: User, wants: bool, mailer: BaseEmailBackend | None) -> None:
    if not wants:
        n.status, n.error = Notification.Status.SKIPPED_OPT_OUT, ""
        return
    if not user.email:
        n.status, n.error = Notification.Status.SKIPPED_NO_EMAIL, ""
        return
    message = EmailMessage(subject=n.subject, body=n.body, to=[user.email])
    try:
        if mailer is None:
            message.send()
        else:
            mailer.open()  # the first message opens it, the next ones find it open
            mailer.send_messages([message])
    except Exception as e:  # noqa: BLE001 - any mailer failure is logged and retried
        log.warning("notification %s to %s failed: %s", n.pk, user.email, e)
        n.status, n.error = Notification.Status.FAILED, f"{type(e).__name__}: {e}"[:2000]
        if mailer is not None:
            _close(mailer)  # the next message tries a fresh connection
        return
    n.status, n.error, n.sent_at = Notification.Status.SENT, "", timezone.now()


def _close(mailer: BaseEmailBackend) -> None:
    try:
        mailer.close()
    except Exception as e:  # noqa: BLE001 - a connection that will not close is dropped anyway
        log.warning("closing the mailer failed: %s", e)


def raise_if_failed(sent: list[Notification]) -> list[Notification]:
    failed = [n for n in sent if n.status == Notification.Status.FAILED]
    if failed:
        raise DeliveryFailed(
            f"{len(failed)} of {len(sent)} notifications failed: {failed[0].error}"
        )
    return sent
