"""Reads for the campaign overview: where the turn stands, for everyone, and for the GM who
has orders in (never what they say)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _

from battles.models import Battle
from campaign.models import Orders, Player, Turn
from campaign.selectors import players_active

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise


@dataclass(frozen=True)
class OrdersState:
    player: Player
    state: str  # none / saved / confirmed


def orders_states_list_for_gm(*, turn: Turn) -> list[OrdersState]:
    """Whether each active player has orders for the turn (none, saved or confirmed); never
    what they say."""
    status = dict(Orders.objects.filter(turn=turn).values_list("player_id", "status"))
    return [
        OrdersState(p, status.get(p.pk, "none")) for p in players_active(campaign=turn.campaign)
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


def turn_battles_get(*, turn: Turn) -> TurnBattles:
    rows = list(Battle.objects.filter(turn=turn).values_list("status", "auto_at_deadline"))
    pending = [auto for status, auto in rows if status == Battle.Status.PENDING]
    return TurnBattles(len(rows), len(pending), sum(1 for auto in pending if auto))
