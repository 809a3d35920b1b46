"""The admin of the rows no one edits by hand: the map versions the stored resolutions refer
to, the stamp the database's triggers renew on every write of a campaign's state rows
(`campaign.state_rows`), the amendments, the lines of turns they replaced and the audit log
(`campaign.turns.amend`: an amendment is made, committed or discarded on the campaign's own
pages, where it is previewed), and the members' exports (`campaign.exchange.jobs`). All are
read only."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from campaign.admin import ModelAdmin
from campaign.models import (
    Amendment,
    AuditEntry,
    ExportJob,
    LineArchive,
    StateStamp,
    StoredMap,
)


class _ReadOnly[M: (StoredMap, StateStamp, Amendment, LineArchive, AuditEntry, ExportJob)](
    ModelAdmin[M]
):
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


@admin.register(Amendment)
class AmendmentAdmin(_ReadOnly[Amendment]):
    list_display = ["campaign", "number", "kind", "turn_number", "status", "created_by"]
    list_filter = ["campaign", "status", "kind"]
    list_select_related = ["campaign", "created_by"]
    readonly_fields = [f.name for f in Amendment._meta.fields]


@admin.register(LineArchive)
class LineArchiveAdmin(_ReadOnly[LineArchive]):
    list_display = ["campaign", "amendment", "from_turn", "created_at"]
    list_select_related = ["campaign", "amendment"]
    readonly_fields = ["campaign", "amendment", "from_turn", "created_at"]
    exclude = ["data"]  # whole states: read it on the amendment's page, or download it


@admin.register(AuditEntry)
class AuditEntryAdmin(_ReadOnly[AuditEntry]):
    list_display = ["campaign", "created_at", "action", "turn_number", "user"]
    list_filter = ["campaign", "action"]
    list_select_related = ["campaign", "user"]
    readonly_fields = [f.name for f in AuditEntry._meta.fields]


@admin.register(ExportJob)
class ExportJobAdmin(_ReadOnly[ExportJob]):
    """Who asked for an export and how it went; the document itself is its reader's alone."""

    list_display = ["campaign", "user", "status", "created_at", "finished_at", "size"]
    list_filter = ["campaign", "status"]
    list_select_related = ["campaign", "user"]
    exclude = ["content"]
    readonly_fields = [f.name for f in ExportJob._meta.fields if f.name != "content"]
