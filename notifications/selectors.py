"""Reads for the notifications page and the header's badge. Keyword-only,
`<entity>_<get/list/count>[_for_<who>]`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.models import User
from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from campaign.models import Turn
from notifications.models import Kind, Notification, NotificationPreference

PER_PAGE = 25


def notifications_list_for_user(*, user: User) -> QuerySet[Notification]:
    """The user's notices (the delivery log), newest first."""
    return Notification.objects.filter(user=user).select_related("campaign", "turn")


def notifications_page_for_user(*, user: User, page: str | int | None) -> Page[Notification]:
    """One page of the user's notices, newest first, 25 a page; a page number out of range or
    not a number gives the nearest page (`Paginator.get_page`)."""
    return Paginator(notifications_list_for_user(user=user), PER_PAGE).get_page(page)


def notifications_unread_count_for_user(*, user: User) -> int:
    """How many of the user's notices he has not opened: one indexed count."""
    return Notification.objects.filter(user=user, read_at__isnull=True).count()


def notification_get_for_user(*, user: User, pk: int) -> Notification:
    """One of the user's own notices; anyone else's is a 404, as if it did not exist."""
    return get_object_or_404(Notification, pk=pk, user=user)


def gm_reminders_for_turn(*, turn: Turn) -> dict[str, tuple[int, datetime]]:
    """The game master's reminders of the turn, by player key: how many he sent the player and
    when he sent the last (the key of such a notice is "<player key>:<count>")."""
    out: dict[str, tuple[int, datetime]] = {}
    rows = Notification.objects.filter(turn=turn, kind=Kind.GM_REMINDER).values_list(
        "key", "created_at"
    )
    for key, at in rows:
        player, _sep, count = key.rpartition(":")
        sent, last = out.get(player, (0, at))
        out[player] = (max(sent, int(count) if count.isdigit() else 0), max(last, at))
    return out


@dataclass(frozen=True)
class PreferenceRow:
    kind: str
    label: str
    enabled: bool


def preferences_list_for_user(*, user: User) -> list[PreferenceRow]:
    """Every kind of notification (and "all") with the user's choice; on unless turned off."""
    chosen = dict(NotificationPreference.objects.filter(user=user).values_list("kind", "enabled"))
    kinds = [(NotificationPreference.ALL, NotificationPreference.KINDS[0][1]), *Kind.choices]
    return [PreferenceRow(k, str(label), chosen.get(k, True)) for k, label in kinds]
