"""The GM inbox: everything that holds up the current turn (orders missing or not confirmed,
battles without a result) and the choices left to the rules' defaults (retreat squares,
banked reinforcement points without a standing request)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from battles.models import Battle
from campaign import adapters
from campaign.models import Campaign, Orders, Turn
from campaign.selectors import players_active
from rules import CampaignState


@dataclass(frozen=True)
class InboxItem:
    kind: str  # orders-missing, orders-unconfirmed, battle-pending, retreat-default, reinforcements
    text: str
    battle: Battle | None = None  # the battle where it is settled; None: the overview page


@dataclass(frozen=True)
class Inbox:
    turn: Turn | None
    status: str  # a sentence on where the turn stands
    items: list[InboxItem]


def inbox_get(*, campaign: Campaign) -> Inbox:
    """Everything that holds up the current turn, for the GM: orders missing or not confirmed,
    battles without a result, and choices left to defaults (retreat squares, banked
    reinforcement points without a standing request)."""
    if campaign.ended:
        return Inbox(None, _("The campaign has ended: nothing is waiting."), [])
    turn = campaign.turns.order_by("-number").first()
    if turn is None:
        return Inbox(None, _("The campaign has no turn yet."), [])
    items: list[InboxItem] = []
    players = players_active(campaign=campaign)
    if turn.is_open:
        status = _("Turn %(number)s is open for orders.") % {"number": turn.number}
        orders = {o.player_id: o for o in Orders.objects.filter(turn=turn)}
        for p in players:
            o = orders.get(p.pk)
            if o is None:
                items.append(
                    InboxItem(
                        "orders-missing",
                        _("%(player)s has not sent orders for turn %(number)s.")
                        % {"player": p.name, "number": turn.number},
                    )
                )
            elif o.status != Orders.Status.CONFIRMED:
                items.append(
                    InboxItem(
                        "orders-unconfirmed",
                        _("%(player)s has saved orders for turn %(number)s but not confirmed them.")
                        % {"player": p.name, "number": turn.number},
                    )
                )
        requests = {
            p.key: bool((orders[p.pk].data or {}).get("reinforcements"))
            if p.pk in orders
            else False
            for p in players
        }
        items += _reinforcement_items(players, requests)
    elif turn.waiting_for_battles:
        state = adapters.state_current(campaign=campaign)
        pending = list(
            turn.battles.filter(status=Battle.Status.PENDING)
            .select_related("campaign")
            .order_by("contact_order")
        )
        if pending:
            status = _("Turn %(number)s waits for battle results.") % {"number": turn.number}
        else:
            status = _(
                "Every battle of turn %(number)s has a result: Phases 4–8 can be resolved."
            ) % {"number": turn.number}
        for b in pending:
            items.append(
                InboxItem(
                    "battle-pending",
                    _("Battle %(battle)s at (%(x)s, %(y)s) has no result yet.")
                    % {"battle": b.label, "x": b.x, "y": b.y},
                    b,
                )
            )
        items += _retreat_items(state, pending)
        requests = {
            p.key: bool(state.orders.get(p.key) and state.orders[p.key].reinforcements)
            for p in players
        }
        items += _reinforcement_items(players, requests)
    elif turn.resolved:
        status = _("Turn %(number)s is resolved.") % {"number": turn.number}
    else:
        status = _("Turn %(number)s is being resolved (%(status)s).") % {
            "number": turn.number,
            "status": turn.get_status_display().lower(),
        }
    return Inbox(turn, status, items)


def _retreat_items(state: CampaignState, pending: Sequence[Battle]) -> list[InboxItem]:
    """Forces in a pending battle whose standing orders name no retreat square (§8.4)."""
    names = {f.id: f.name or f.id for f in state.forces}
    owners = {f.id: f.owner for f in state.forces}
    player_names = {p.id: p.name or p.id for p in state.players}
    items = []
    for b in pending:
        for side in (b.pack or {}).get("sides", []):
            for bf in side.get("forces", []):
                fid = bf.get("force_id")
                owner = bf.get("owner") or owners.get(fid)
                po = state.orders.get(owner or "")  # no player is called ""
                fo = po.for_force(fid) if po is not None else None
                if fo is not None and fo.retreat_squares:
                    continue
                items.append(
                    InboxItem(
                        "retreat-default",
                        _(
                            "%(force)s (%(player)s) has no retreat square in its orders for "
                            "battle %(battle)s: the default retreat will apply (R8.4)."
                        )
                        % {
                            "force": names.get(fid, fid),
                            "player": player_names.get(owner or "", owner),
                            "battle": b.label,
                        },
                        b,
                    )
                )
    return items


def _reinforcement_items(players: Sequence[Any], requests: Mapping[str, bool]) -> list[InboxItem]:
    return [
        InboxItem(
            "reinforcements",
            _(
                "%(player)s has %(points)s reinforcement points banked and no standing "
                "reinforcement request: the points will stay in the bank."
            )
            % {"player": p.name, "points": p.bank},
        )
        for p in players
        if p.bank > 0 and not requests.get(p.key)
    ]
