"""The admin of the rows no one edits by hand: the map versions the stored resolutions refer
to, and the stamp the database's triggers renew on every write of a campaign's state rows
(`campaign.state_rows`). Both are read only."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from campaign.admin import ModelAdmin
from campaign.models import StateStamp, StoredMap


class _ReadOnly[M: (StoredMap, StateStamp)](ModelAdmin[M]):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: M | None = None) -> bool:
        return False


@admin.register(StoredMap)
class StoredMapAdmin(_ReadOnly[StoredMap]):
    """Map versions the stored resolutions refer to (a replay reads its map)."""

    list_display = ["campaign", "digest", "created_at"]
    list_filter = ["campaign"]
    list_select_related = ["campaign"]
    readonly_fields = ["campaign", "digest", "data", "created_at"]


@admin.register(StateStamp)
class StateStampAdmin(_ReadOnly[StateStamp]):
    """A campaign's state stamp: deleting one only makes the next page read the rows afresh."""

    list_display = ["campaign_id", "stamp"]
    readonly_fields = ["campaign_id", "stamp"]
