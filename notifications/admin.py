"""Admin for the delivery log (read-only: it records what happened) and the opt-outs."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from campaign.admin import ModelAdmin
from notifications.models import Notification, NotificationPreference


@admin.register(Notification)
class NotificationAdmin(ModelAdmin[Notification]):
    list_display = [
        "created_at",
        "user",
        "campaign",
        "turn",
        "kind",
        "status",
        "sent_at",
        "read_at",
    ]
    list_filter = ["status", "kind", "campaign"]
    search_fields = ["user__username", "user__email", "subject"]
    list_select_related = ["user", "campaign", "turn__campaign"]
    date_hierarchy = "created_at"
    fields = readonly_fields = (
        "user",
        "campaign",
        "turn",
        "kind",
        "key",
        "status",
        "error",
        "created_at",
        "sent_at",
        "read_at",
        "subject",
        "url",
        "body",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # written by the notification services

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(NotificationPreference)
class NotificationPreferenceAdmin(ModelAdmin[NotificationPreference]):
    list_display = ["user", "kind", "enabled"]
    list_filter = ["kind", "enabled"]
    search_fields = ["user__username"]
    list_select_related = ["user"]
