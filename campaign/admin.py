"""Admin pages for every campaign model: raw access for the operators, not the GM's tools.

Rows that belong to one campaign only offer that campaign's sides, players, forces … in their
inlines. What a resolution decided (seeds, carried state, orders as resolved, ledgers) is
shown read-only: changing it here would break the replay check.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Protocol, cast

from django.contrib import admin
from django.db import models
from django.forms import ModelChoiceField
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from campaign.models import (
    Campaign,
    Command,
    Force,
    Holding,
    Individual,
    Invitation,
    Membership,
    Orders,
    Player,
    SetupRoll,
    Side,
    Sighting,
    Square,
    Turn,
    TurnResolution,
    Unit,
)

if TYPE_CHECKING:  # re-exported for the other apps' admin modules
    from django.contrib.admin import ModelAdmin as ModelAdmin
    from django.contrib.admin import TabularInline as TabularInline
    from django_stubs_ext import StrOrPromise
else:

    class _Unparameterised:
        """`ModelAdmin[Side]` at run time: the stubs' admin classes are generic over their
        model, Django's take no parameter, so subscribing one gives the class itself."""

        def __init__(self, cls: type) -> None:
            self.cls = cls

        def __getitem__(self, _params: object) -> type:
            return self.cls

    ModelAdmin = _Unparameterised(admin.ModelAdmin)
    TabularInline = _Unparameterised(admin.TabularInline)


class _InCampaign(Protocol):
    campaign_id: int


def _campaign_id(obj: models.Model) -> int:
    """The campaign's own key, or the key of the campaign a row belongs to."""
    if isinstance(obj, Campaign):
        return obj.pk
    # every campaign-scoped model has a `campaign` foreign key, hence `campaign_id`
    return cast(_InCampaign, obj).campaign_id


def pretty_json(value: Any) -> str:
    """JSON as an indented, preformatted block (escaped)."""
    return format_html(
        '<pre class="fw-json">{}</pre>',  # static/css/admin.css: no style attribute (CSP)
        json.dumps(value, indent=1, sort_keys=True, ensure_ascii=False),
    )


class CampaignScopedInline(TabularInline[models.Model, models.Model]):
    """An inline whose foreign keys (side, owner, player …) offer only the rows of the
    campaign of the object being edited, not those of every campaign."""

    extra = 0

    def formfield_for_foreignkey(
        self, db_field: models.ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> ModelChoiceField[Any] | None:
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        campaign_id = getattr(request, "_admin_campaign_id", None)
        related = db_field.related_model
        if (
            field is not None
            and field.queryset is not None
            and campaign_id is not None
            and any(f.name == "campaign" for f in related._meta.get_fields())
        ):
            field.queryset = field.queryset.filter(campaign_id=campaign_id)
        return field


class CampaignScopedAdmin[M: models.Model](ModelAdmin[M]):
    """Remembers the campaign of the object being edited for `CampaignScopedInline`, and
    gives new inline rows that campaign (it is not a form field)."""

    def get_object(
        self, request: HttpRequest, object_id: str, from_field: str | None = None
    ) -> M | None:
        obj = super().get_object(request, object_id, from_field)
        if obj is not None:
            # an attribute of this request only, read back by the inlines' foreign keys
            cast(Any, request)._admin_campaign_id = _campaign_id(obj)
        return obj

    def save_formset(self, request: HttpRequest, form: Any, formset: Any, change: bool) -> None:
        campaign_id = _campaign_id(form.instance)
        instances = formset.save(commit=False)
        for obj in formset.deleted_objects:
            obj.delete()
        for obj in instances:
            if hasattr(obj, "campaign_id") and obj.campaign_id is None:
                obj.campaign_id = campaign_id
            obj.save()
        formset.save_m2m()


# --- campaigns, sides and players -----------------------------------------------------------


class SideInline(CampaignScopedInline):
    model = Side
    fields = ["key", "name"]


class PlayerInline(CampaignScopedInline):
    model = Player
    fields = [
        "key",
        "position",
        "name",
        "side",
        "race",
        "role",
        "colour",
        "initial_points",
        "bank",
        "surrendered",
    ]


@admin.register(Campaign)
class CampaignAdmin(CampaignScopedAdmin[Campaign]):
    list_display = ["name", "slug", "scenario", "turn_number", "day", "weather", "ended"]
    list_filter = ["scenario", "fog_of_war"]
    search_fields = ["name", "slug", "description"]
    prepopulated_fields = {"slug": ["name"]}
    readonly_fields = ["seed_salt", "created_at", "updated_at"]
    inlines = [SideInline, PlayerInline]
    fieldsets = [
        (None, {"fields": ["name", "slug", "description", "scenario", "fog_of_war"]}),
        (_("Map"), {"fields": ["width", "height"]}),
        (
            _("Rules state"),
            {
                "fields": [
                    "turn_number",
                    "day",
                    "weather",
                    "force_weather",
                    "heavy_ground_now",
                    "snow",
                    "initiative_winner",
                    "next_id",
                    "options",
                    "ended",
                    "winner",
                ],
                "classes": ["collapse"],
            },
        ),
        (None, {"fields": ["seed_salt", "created_at", "updated_at"]}),
    ]


@admin.register(Side)
class SideAdmin(ModelAdmin[Side]):
    list_display = ["key", "name", "campaign"]
    list_filter = ["campaign"]
    search_fields = ["key", "name"]
    list_select_related = ["campaign"]


@admin.register(Player)
class PlayerAdmin(CampaignScopedAdmin[Player]):
    list_display = [
        "key",
        "name",
        "campaign",
        "side",
        "role",
        "colour",
        "bank",
        "battles_won",
        "battles_lost",
        "surrendered",
    ]
    list_filter = ["campaign", "surrendered", "tribal"]
    search_fields = ["key", "name", "race"]
    list_select_related = ["campaign", "side"]

    def formfield_for_foreignkey(
        self, db_field: models.ForeignKey[Any, Any], request: HttpRequest, **kwargs: Any
    ) -> ModelChoiceField[Any] | None:
        field = super().formfield_for_foreignkey(db_field, request, **kwargs)
        campaign_id = getattr(request, "_admin_campaign_id", None)
        if (
            db_field.name == "side"
            and campaign_id is not None
            and field is not None
            and field.queryset is not None
        ):
            field.queryset = field.queryset.filter(campaign_id=campaign_id)
        return field


@admin.register(Membership)
class MembershipAdmin(ModelAdmin[Membership]):
    list_display = ["user", "campaign", "role", "player"]
    list_filter = ["role", "campaign"]
    search_fields = ["user__username", "user__first_name", "campaign__name", "campaign__slug"]
    list_select_related = ["user", "campaign", "player"]
    raw_id_fields = ["user", "player"]


# --- the map ----------------------------------------------------------------------------------


@admin.register(Square)
class SquareAdmin(ModelAdmin[Square]):
    list_display = ["__str__", "campaign", "features", "zone"]
    list_filter = ["campaign", "zone"]
    list_select_related = ["campaign"]
    list_per_page = 200
    ordering = ["campaign", "y", "x"]


@admin.register(Holding)
class HoldingAdmin(ModelAdmin[Holding]):
    list_display = [
        "key",
        "name",
        "campaign",
        "square",
        "owner",
        "original_owner",
        "capital",
        "sacked",
        "carried_by",
        "destroyed",
    ]
    list_filter = ["campaign", "capital", "sacked", "destroyed"]
    search_fields = ["key", "name"]
    list_select_related = ["campaign", "owner", "original_owner"]
    raw_id_fields = ["owner", "original_owner"]

    @admin.display(description=_("square"))
    def square(self, obj: Holding) -> str:
        return f"({obj.x}, {obj.y})"


# --- armies -----------------------------------------------------------------------------------


class CommandInline(CampaignScopedInline):
    model = Command
    fields = [
        "key",
        "position",
        "general_key",
        "general_name",
        "general_cv",
        "general_points",
        "general_mounted",
    ]
    show_change_link = True  # its units are edited on the command's page


class IndividualInline(CampaignScopedInline):
    model = Individual
    fields = ["key", "position", "kind", "name", "points", "mounted", "magic_points"]


class UnitInline(CampaignScopedInline):
    model = Unit
    fields = [
        "key",
        "position",
        "type",
        "speciality",
        "quality",
        "figures",
        "points_per_figure",
        "mercenary",
        "missile",
        "mounted",
        "min_figures",
        "leader_points",
    ]


@admin.register(Force)
class ForceAdmin(CampaignScopedAdmin[Force]):
    list_display = ["key", "name", "campaign", "owner", "square", "status", "figures_lost"]
    list_filter = ["campaign", "status"]
    search_fields = ["key", "name"]
    list_select_related = ["campaign", "owner"]
    raw_id_fields = ["owner"]
    inlines = [CommandInline, IndividualInline]

    @admin.display(description=_("square"))
    def square(self, obj: Force) -> str:
        return f"({obj.x}, {obj.y})"


@admin.register(Command)
class CommandAdmin(CampaignScopedAdmin[Command]):
    list_display = ["key", "general_name", "general_cv", "force", "campaign"]
    list_filter = ["campaign"]
    search_fields = ["key", "general_name", "force__key", "force__name"]
    list_select_related = ["force", "campaign"]
    raw_id_fields = ["force"]
    inlines = [UnitInline]


@admin.register(Unit)
class UnitAdmin(ModelAdmin[Unit]):
    list_display = ["key", "type", "speciality", "quality", "figures", "command", "campaign"]
    list_filter = ["campaign", "speciality", "quality", "mercenary"]
    search_fields = ["key", "type"]
    list_select_related = ["command", "campaign"]
    raw_id_fields = ["command"]


@admin.register(Individual)
class IndividualAdmin(ModelAdmin[Individual]):
    list_display = ["key", "kind", "name", "points", "force", "campaign"]
    list_filter = ["campaign", "kind"]
    search_fields = ["key", "name"]
    list_select_related = ["force", "campaign"]
    raw_id_fields = ["force"]


# --- turns ------------------------------------------------------------------------------------


class OrdersInline(TabularInline[Orders, Turn]):
    model = Orders
    extra = 0
    fields = ["player", "status", "submitted_by", "saved_at", "confirmed_at", "orders"]
    readonly_fields = ["player", "submitted_by", "saved_at", "confirmed_at", "orders"]
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # orders are given through the orders page, which validates them

    def get_queryset(self, request: HttpRequest) -> models.QuerySet[Orders]:
        return super().get_queryset(request).select_related("player", "submitted_by")

    @admin.display(description=_("orders"))
    def orders(self, obj: Orders) -> str:
        return pretty_json(obj.data)


class TurnResolutionInline(TabularInline[TurnResolution, Turn]):
    model = TurnResolution
    extra = 0
    fields = readonly_fields = ("stage", "seed", "rolls", "event_count", "created_at")
    show_change_link = True
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> models.QuerySet[TurnResolution]:
        # the list needs counts, not the (large) JSON documents themselves
        return super().get_queryset(request).defer("state_before", "inputs")

    @admin.display(description=_("rolls"))
    def rolls(self, obj: TurnResolution) -> int:
        return len(obj.ledger)

    @admin.display(description=_("events"))
    def event_count(self, obj: TurnResolution) -> int:
        return len(obj.events)


@admin.register(Turn)
class TurnAdmin(ModelAdmin[Turn]):
    list_display = [
        "campaign",
        "number",
        "status",
        "deadline",
        "paused_at",
        "extensions",
        "hash",
    ]
    list_filter = ["status", ("paused_at", admin.EmptyFieldListFilter), "campaign"]
    search_fields = ["campaign__name", "campaign__slug"]
    list_select_related = ["campaign"]
    fields = [
        "campaign",
        "number",
        "status",
        "deadline",
        "timezone",
        "extensions",
        "paused_at",
        "seed_shown",
        "seed_hash",
        "carried",
        "opened_at",
        "closed_at",
        "resolved_at",
        "claimed_at",
        "claimed_by",
        "interrupted",
        "interrupted_at",
    ]
    readonly_fields = [
        "campaign",
        "number",
        "seed_shown",
        "seed_hash",
        "carried",
        "opened_at",
        "closed_at",
        "resolved_at",
        "claimed_at",
        "claimed_by",
        "interrupted",
        "interrupted_at",
    ]
    inlines = [OrdersInline, TurnResolutionInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # turns are opened by the turn services

    @admin.display(description=_("seed hash"))
    def hash(self, obj: Turn) -> str:
        return obj.seed_hash[:12]

    @admin.display(description=_("seed"))
    def seed_shown(self, obj: Turn) -> StrOrPromise:
        # the seed is secret until the turn is resolved: only its hash is published before
        if obj.seed is None:
            return "—"
        return str(obj.seed) if obj.resolved else _("(until resolved)")

    @admin.display(description=_("carried to Phases 4–8"))
    def carried(self, obj: Turn) -> str:
        return pretty_json(obj.carry)


@admin.register(Orders)
class OrdersAdmin(ModelAdmin[Orders]):
    list_display = ["turn", "player", "status", "submitted_by", "saved_at", "confirmed_at"]
    list_filter = ["status", "turn__campaign"]
    search_fields = ["player__key", "player__name", "turn__campaign__slug"]
    list_select_related = ["turn__campaign", "player", "submitted_by"]
    fields = readonly_fields = (
        "turn",
        "player",
        "status",
        "submitted_by",
        "saved_at",
        "confirmed_at",
        "orders",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("orders"))
    def orders(self, obj: Orders) -> str:
        return pretty_json(obj.data)


@admin.register(TurnResolution)
class TurnResolutionAdmin(ModelAdmin[TurnResolution]):
    """Read-only: the record `replay_turn` checks a turn against."""

    list_display = ["turn", "stage", "seed", "created_at"]
    list_filter = ["stage", "turn__campaign"]
    search_fields = ["turn__campaign__slug", "turn__campaign__name"]
    list_select_related = ["turn__campaign"]
    fields = readonly_fields = (
        "turn",
        "stage",
        "seed",
        "created_at",
        "the_ledger",
        "the_events",
        "the_inputs",
    )

    def get_queryset(self, request: HttpRequest) -> models.QuerySet[TurnResolution]:
        qs = super().get_queryset(request).defer("state_before")
        match = request.resolver_match
        if match is not None and (match.url_name or "").endswith("_changelist"):
            # the change list shows none of the big JSON documents
            qs = qs.defer("inputs", "ledger", "events")
        return qs

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("ledger"))
    def the_ledger(self, obj: TurnResolution) -> str:
        return pretty_json(obj.ledger)

    @admin.display(description=_("events"))
    def the_events(self, obj: TurnResolution) -> str:
        return pretty_json(obj.events)

    @admin.display(description=_("inputs (orders or battle results)"))
    def the_inputs(self, obj: TurnResolution) -> str:
        return pretty_json(obj.inputs)


@admin.register(Sighting)
class SightingAdmin(ModelAdmin[Sighting]):
    list_display = ["campaign", "side_key", "force_key", "x", "y", "turn_number", "status"]
    list_filter = ["campaign", "side_key"]
    search_fields = ["force_key"]
    list_select_related = ["campaign"]


@admin.register(Invitation)
class InvitationAdmin(ModelAdmin[Invitation]):
    list_display = [
        "campaign",
        "role",
        "player",
        "side",
        "uses",
        "max_uses",
        "expires_at",
        "revoked",
    ]
    list_filter = ["campaign", "role", "revoked"]
    readonly_fields = ["token", "uses", "created_at", "created_by"]
    list_select_related = ["campaign", "player", "side"]


@admin.register(SetupRoll)
class SetupRollAdmin(ModelAdmin[SetupRoll]):
    """The set-up's dice are evidence: read, never edited (a roll made again is a roll
    chosen)."""

    list_display = ["campaign", "kind", "rule", "target", "result", "detail", "made_by", "made_at"]
    list_filter = ["campaign", "kind"]
    list_select_related = ["campaign", "made_by"]
    readonly_fields = [
        "campaign",
        "kind",
        "rule",
        "seed",
        "players",
        "target",
        "ledger",
        "result",
        "detail",
        "made_by",
        "made_at",
    ]

    def has_add_permission(self, request: Any) -> bool:
        return False


# the rows a resolution leaves, and the state stamp: in their own module (read only)
from campaign import admin_records  # noqa: E402, F401
