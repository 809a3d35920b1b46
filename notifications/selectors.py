"""Reads for the notifications page. Keyword-only, `<entity>_<get/list>[_for_<who>]`."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import QuerySet

from notifications.models import Kind, Notification, NotificationPreference


def notifications_list_for_user(*, user: User, limit: int = 100) -> QuerySet[Notification]:
    """The user's delivery log, newest first."""
    return Notification.objects.filter(user=user).select_related("campaign", "turn")[:limit]


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
