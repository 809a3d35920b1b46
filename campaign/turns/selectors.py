"""Reads for the campaign overview: where the turn stands, for everyone, and for the GM who
has orders in (never what they say), who plays each army and when he last reminded it."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _

from battles.models import Battle
from campaign.access import Viewer
from campaign.fog import sees_sides
from campaign.models import Membership, Orders, Player, Turn
from campaign.selectors import players_active, user_label
from notifications.selectors import gm_reminders_for_turn

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


@dataclass(frozen=True)
class OrdersState:
    player: Player
    state: str  # none / saved / confirmed
    members: list[str] = field(default_factory=list)  # who plays the army, by name
    reminded_at: datetime | None = None  # the GM's last reminder this turn

    @property
    def waiting(self) -> bool:
        return self.state != Orders.Status.CONFIRMED


def orders_states_list_for_gm(*, turn: Turn) -> list[OrdersState]:
    """Whether each active player has orders for the turn (none, saved or confirmed), never
    what they say; who plays him, and when the GM last reminded him."""
    status = dict(Orders.objects.filter(turn=turn).values_list("player_id", "status"))
    members: dict[int, list[str]] = {}
    for m in (
        Membership.objects.filter(campaign=turn.campaign_id, role=Membership.Role.PLAYER)
        .select_related("user")
        .order_by("pk")
    ):
        if m.player_id is not None:
            members.setdefault(m.player_id, []).append(user_label(m.user))
    reminded = gm_reminders_for_turn(turn=turn)
    return [
        OrdersState(
            p,
            status.get(p.pk, "none"),
            members.get(p.pk, []),
            reminded[p.key][1] if p.key in reminded else None,
        )
        for p in players_active(campaign=turn.campaign)
    ]


def turn_steps_list(*, turn: Turn) -> list[dict[str, StrOrPromise]]:
    """The turn's statuses in order, each done, current or still to come."""
    labels: dict[str, StrOrPromise] = dict(Turn.Status.choices)
    labels[Turn.Status.RESOLVED] = _("Resolved: the next turn opens")
    order = list(Turn.Status.values)
    now = order.index(turn.status)
    return [
        {
            "status": s,
            "label": labels[s],
            "state": "done" if i < now else "current" if i == now else "todo",
        }
        for i, s in enumerate(order)
    ]


@dataclass(frozen=True)
class TurnBattles:
    total: int
    pending: int
    auto: int  # pending and marked "auto-resolve at the deadline"


def turn_battles_get(*, turn: Turn, viewer: Viewer | None = None) -> TurnBattles:
    """The turn's battles, counted; with `viewer`, only those fog of war lets him see (a
    third side does not hear of a battle it does not fight)."""
    rows = Battle.objects.filter(turn=turn).values_list("status", "auto_at_deadline", "pack__sides")
    seen = [
        (status, auto)
        for status, auto, sides in rows
        if viewer is None or sees_sides(viewer, (str(s.get("side")) for s in sides or ()))
    ]
    pending = [auto for status, auto in seen if status == Battle.Status.PENDING]
    return TurnBattles(len(seen), len(pending), sum(1 for auto in pending if auto))
