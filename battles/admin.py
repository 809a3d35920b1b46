"""Admin page for battles: the pack is what Phases 0–2 decided, so it is read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from battles.models import Battle, BattleAudit, BattlePhoto, WhatIfOdds
from campaign.admin import ModelAdmin, pretty_json


@admin.register(Battle)
class BattleAdmin(ModelAdmin[Battle]):
    list_display = ["key", "campaign", "turn_number", "square", "status", "resolver", "resolved_at"]
    list_filter = ["status", "resolver", "campaign"]
    search_fields = ["key", "campaign__slug", "campaign__name"]
    list_select_related = ["campaign", "turn"]
    fields = [
        "campaign",
        "turn",
        "key",
        "x",
        "y",
        "contact_order",
        "status",
        "resolver",
        "result",
        "resolved_at",
        "the_pack",
    ]
    readonly_fields = ["campaign", "turn", "key", "x", "y", "contact_order", "the_pack"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # battles come from contacts in Phases 0–2

    def save_model(self, request: HttpRequest, obj: Battle, form: Any, change: bool) -> None:
        """A result changed here is a new version of it: a result page open on the battle
        refuses its forms (`battles.stale`)."""
        if change and form.changed_data:
            obj.result_changed()
        super().save_model(request, obj, form, change)

    @admin.display(description=_("turn"), ordering="turn__number")
    def turn_number(self, obj: Battle) -> int:
        return obj.turn.number

    @admin.display(description=_("square"))
    def square(self, obj: Battle) -> str:
        return f"({obj.x}, {obj.y})"

    @admin.display(description=_("battle pack"))
    def the_pack(self, obj: Battle) -> str:
        return pretty_json(obj.pack)


@admin.register(BattlePhoto)
class BattlePhotoAdmin(ModelAdmin[BattlePhoto]):
    list_display = ["battle", "caption", "uploaded_by", "uploaded_at"]
    list_select_related = ["battle", "uploaded_by"]


@admin.register(BattleAudit)
class BattleAuditAdmin(ModelAdmin[BattleAudit]):
    """The audit log is evidence: it can be read, never edited."""

    list_display = ["battle", "action", "user", "created_at"]
    list_filter = ["action"]
    list_select_related = ["battle", "user"]
    readonly_fields = ["battle", "user", "action", "note", "data", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(WhatIfOdds)
class WhatIfOddsAdmin(ModelAdmin[WhatIfOdds]):
    """A cache of computed odds: read or delete (it is computed again when asked for)."""

    list_display = ["campaign", "turn", "input_hash", "created_at"]
    list_select_related = ["campaign", "turn"]
    readonly_fields = ["campaign", "turn", "input_hash", "odds", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
