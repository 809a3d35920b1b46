"""The header's unread badge (templates/base.html): how many notices the user has not opened.

Counted lazily, once per response: a page that shows the header asks one indexed count, an
htmx fragment (which has no header) and an anonymous visitor none."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.http import HttpRequest
from django.utils.functional import cached_property

from notifications import selectors


class UnreadNotifications:
    def __init__(self, user: User) -> None:
        self._user = user

    @cached_property
    def count(self) -> int:
        return selectors.notifications_unread_count_for_user(user=self._user)


def unread_notifications(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"unread_notifications": UnreadNotifications(user)}
