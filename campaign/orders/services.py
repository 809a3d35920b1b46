"""Writing a player's standing orders for the open turn: all of them at once
(`orders_submit`), one force at a time from the orders page, and confirming them.

Every write goes through `orders_submit`, which validates the whole of the player's orders
with `rules.validate_orders` and refuses a turn that is no longer open, leaving what was
saved before untouched. Saving is not confirming: any change drops confirmed orders back to
"saved", so the player confirms again once he is done. A confirmation is announced
(`campaign.signals.orders_confirmed`): the last one may close the turn before its deadline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from campaign import adapters
from campaign.errors import ServiceError, TurnNotOpen
from campaign.models import Force, Orders, Player, Turn
from campaign.orders.selectors import (
    force_orders_version,
    orders_decoded,
    orders_decoded_put,
    orders_version,
    requests_version,
)
from campaign.signals import orders_confirmed
from rules import (
    CampaignState,
    Coord,
    ForceOrders,
    FormatError,
    OrderError,
    PlayerOrders,
    ReinforcementRequest,
    from_data,
    to_data,
    validate_orders,
)


class InvalidOrders(ServiceError):
    """Orders the rules refuse; `errors` are the rules' own (`rules.OrderError`), which the
    orders form puts beside the fields they concern."""

    def __init__(self, errors: list[OrderError]) -> None:
        self.errors = errors
        super().__init__("; ".join(e.message for e in errors))


class ForceNotYours(ServiceError):
    """An order for a force the player does not command (or that does not exist)."""


class OrdersChanged(ServiceError):
    """The saved orders a form was built on (its `base`) are no longer the saved ones: another
    tab or window saved since. Nothing was written; `row` is the player's row as it stands
    (None: no orders saved), to show the other change."""

    def __init__(self, row: Orders | None) -> None:
        self.row = row
        super().__init__("The orders were saved elsewhere since this form was built.")


def _base_check(
    row: Orders | None, base: str | None, version: Callable[[Orders | None], str]
) -> None:
    """Refuse a write built on other saved orders than `row`'s (`base`: the form's version;
    None: a caller that read the orders in the same transaction)."""
    if base is not None and version(row) != base:
        raise OrdersChanged(row)


@dataclass(frozen=True)
class OrdersSaved:
    orders: Orders
    was_confirmed: bool  # the save set confirmed orders back to "saved"
    decoded: PlayerOrders | None = None  # `orders.data` as the rules read it


def _open_turn(turn: Turn) -> Turn:
    """The turn, locked, if it still takes orders."""
    turn = Turn.objects.select_for_update().get(pk=turn.pk)
    if not turn.is_open:
        raise TurnNotOpen(
            f"Turn {turn.number} is {turn.get_status_display().lower()}: orders can no longer "
            "be changed. Your saved orders are kept as they were."
        )
    return turn


@transaction.atomic
def orders_submit(
    *,
    player: Player,
    turn: Turn,
    data: dict[str, Any],
    confirm: bool = False,
    user: User | None = None,
    state: CampaignState | None = None,
) -> Orders:
    """Save (and optionally confirm) a player's orders for an open turn. Invalid orders are
    refused with every error; orders for a closed turn are refused and whatever was saved
    before stays as it was. `state`: the campaign's state as the caller read it in this
    request (the state changes only when a turn resolves, which a turn still open under the
    lock rules out); without it, it is read here."""
    turn, row = _locked(player, turn)
    return _write(player, turn, row, data, confirm=confirm, user=user, state=state)[0]


def _write(
    player: Player,
    turn: Turn,
    row: Orders | None,
    data: dict[str, Any],
    *,
    confirm: bool,
    user: User | None,
    state: CampaignState | None,
    decoded: PlayerOrders | None = None,
) -> tuple[Orders, PlayerOrders]:
    """Check and write the orders of a turn locked by the caller (`_locked`), into `row`,
    the player's row read under that lock (None: a new one). `decoded`: `data` as the rules
    read it, when the caller has it."""
    if player.campaign_id != turn.campaign_id:
        raise ServiceError("This player does not belong to the turn's campaign.")
    try:
        po = decoded if decoded is not None else orders_decoded(player.key, data)
    except FormatError as e:
        raise InvalidOrders([OrderError(None, "format", str(e))]) from e
    if state is None:
        state = adapters.state_load(campaign=turn.campaign)
    errors = validate_orders(state, player.key, po)
    if errors:
        raise InvalidOrders(errors)
    now = timezone.now()
    stored = adapters.orders_to_data(po)
    orders_decoded_put(player.key, stored, po)  # the page after the save reads it so
    fields = {
        "data": stored,
        "status": Orders.Status.CONFIRMED if confirm else Orders.Status.SAVED,
        "confirmed_at": now if confirm else None,
        "submitted_by": user,
    }
    if row is None:  # the turn's lock makes this the only writer of the player's row
        row = Orders.objects.create(turn=turn, player=player, **fields)
    else:
        for name, value in fields.items():
            setattr(row, name, value)
        row.save(update_fields=[*fields, "saved_at"])
    if confirm:
        orders_confirmed.send(sender=Orders, turn=turn)
    return row, po


def path_after_click(*, path: tuple[Coord, ...], square: Coord) -> tuple[Coord, ...]:
    """The path after a click on `square`: a square already on the path is removed together
    with every step after it (clicking the last step undoes it); any other square is added
    as the next step. Whether the step is legal is for `validate_orders` to say."""
    if square in path:
        return path[: path.index(square)]
    return (*path, square)


def _locked(player: Player, turn: Turn) -> tuple[Turn, Orders | None]:
    """Lock the turn (as `orders_submit` does) before reading the saved orders, so that two
    edits of different forces at once cannot overwrite each other."""
    turn = _open_turn(turn)
    return turn, Orders.objects.filter(turn=turn, player=player).first()


def _check_force(player: Player, force_key: str, state: CampaignState | None = None) -> None:
    """The force is the player's: in the caller's state if given (it read the campaign in
    this request), otherwise in the rows."""
    if state is not None:
        try:
            mine = state.force(force_key).owner == player.key
        except KeyError:
            mine = False
    else:
        mine = Force.objects.filter(
            campaign_id=player.campaign_id, key=force_key, owner=player
        ).exists()
    if not mine:
        raise ForceNotYours(f"You do not command a force {force_key!r}.")


def _save(
    player: Player,
    turn: Turn,
    row: Orders | None,
    data: dict[str, Any],
    user: User | None,
    state: CampaignState | None = None,
    decoded: PlayerOrders | None = None,
) -> OrdersSaved:
    was_confirmed = row is not None and row.status == Orders.Status.CONFIRMED
    orders, po = _write(
        player, turn, row, data, confirm=False, user=user, state=state, decoded=decoded
    )
    return OrdersSaved(orders, was_confirmed, po)


@transaction.atomic
def force_orders_save(
    *,
    player: Player,
    turn: Turn,
    force_orders: ForceOrders,
    user: User | None = None,
    state: CampaignState | None = None,
    base: str | None = None,
) -> OrdersSaved:
    """Save one force's orders into the player's orders for the turn, keeping the rest as
    saved (other forces, initiative priority, reinforcement requests). `state` as for
    `orders_submit`. `base`: the version of the force's orders the editor was built on
    (`selectors.force_orders_version`); another one saved since is refused (`OrdersChanged`)."""
    _check_force(player, force_orders.force_id, state)
    turn, row = _locked(player, turn)
    _base_check(row, base, lambda r: force_orders_version(r, force_orders.force_id))
    data = dict(row.data) if row is not None else {}
    fo = to_data(force_orders)
    fo.pop("force_id")
    data["forces"] = {**(data.get("forces") or {}), force_orders.force_id: fo}
    # the saved orders as decoded already (the page read them), this force's put in: the
    # other forces' orders are not decoded again
    try:
        before = orders_decoded(player.key, row.data) if row is not None else None
    except FormatError:
        before = None  # decoded whole below, which says what is wrong
    decoded = None
    if before is not None or row is None:
        before = before or PlayerOrders(player.key)
        # read back from its data, as a decoding of the whole would give it
        one = from_data(ForceOrders, {**fo, "force_id": force_orders.force_id})
        decoded = replace(before, forces={**before.forces, force_orders.force_id: one})
    return _save(player, turn, row, data, user, state, decoded)


@transaction.atomic
def force_orders_clear(
    *,
    player: Player,
    turn: Turn,
    force_key: str,
    user: User | None = None,
    base: str | None = None,
) -> OrdersSaved:
    """Remove one force's orders: it keeps its status and does not move (R5.1.4). `base` as
    for `force_orders_save`."""
    _check_force(player, force_key)
    turn, row = _locked(player, turn)
    _base_check(row, base, lambda r: force_orders_version(r, force_key))
    data = dict(row.data) if row is not None else {}
    data["forces"] = {k: v for k, v in (data.get("forces") or {}).items() if k != force_key}
    return _save(player, turn, row, data, user)


@transaction.atomic
def orders_confirm(
    *, player: Player, turn: Turn, user: User | None = None, base: str | None = None
) -> Orders:
    """Confirm the player's saved orders (with none saved: every force holds, R5.1.4).
    They stay editable until the turn closes; an edit makes them "saved" again. `base`: the
    version of the orders the player saw (`selectors.orders_version`); orders saved since
    (another tab) are not confirmed unseen (`OrdersChanged`)."""
    turn, row = _locked(player, turn)
    _base_check(row, base, orders_version)
    data = dict(row.data) if row is not None else {}
    return _write(player, turn, row, data, confirm=True, user=user, state=None)[0]


@transaction.atomic
def orders_unconfirm(*, player: Player, turn: Turn, user: User | None = None) -> Orders | None:
    """Withdraw the confirmation; the orders stay saved as they are."""
    turn, row = _locked(player, turn)
    if row is None or row.status != Orders.Status.CONFIRMED:
        return row
    return _write(player, turn, row, dict(row.data), confirm=False, user=user, state=None)[0]


@transaction.atomic
def army_choices_save(
    *, player: Player, turn: Turn, choices: dict[str, Any], user: User | None = None
) -> OrdersSaved:
    """Save the player's army-wide standing choices (top-level `PlayerOrders` fields such as
    `army_initiative`, R6.1.2), keeping his forces' orders as saved."""
    turn, row = _locked(player, turn)
    data = {**(row.data if row is not None else {}), **choices}
    return _save(player, turn, row, data, user)


# --- standing reinforcement requests (§9.3) --------------------------------------------------


class ReinforcementsNotChanged(ServiceError):
    """A request to remove or move that is not in the saved list (any more)."""


def _requests_edit(
    player: Player,
    turn: Turn,
    edit: Callable[[list[Any]], list[Any]],
    user: User | None,
    base: str | None = None,
) -> OrdersSaved:
    """Apply `edit` to the saved list of requests (as stored) under the turn's lock, keeping
    the rest of the orders as saved. `base`: the version of the list the page numbered
    (`selectors.requests_version`): a list changed since is refused (`OrdersChanged`), so that
    "remove request 2" never removes another one."""
    turn, row = _locked(player, turn)
    _base_check(row, base, requests_version)
    data = dict(row.data) if row is not None else {}
    data["reinforcements"] = edit(list(data.get("reinforcements") or []))
    return _save(player, turn, row, data, user)


@transaction.atomic
def reinforcement_add(
    *, player: Player, turn: Turn, request: ReinforcementRequest, user: User | None = None
) -> OrdersSaved:
    """Add a purchase at the end of the player's standing requests (Phase 7 buys them in
    order, R9.3.8). The caller has checked it (`rules.reinforcement_request_problems`)."""
    return _requests_edit(player, turn, lambda reqs: [*reqs, to_data(request)], user)


@transaction.atomic
def reinforcement_remove(
    *, player: Player, turn: Turn, index: int, user: User | None = None, base: str | None = None
) -> OrdersSaved:
    def edit(reqs: list[Any]) -> list[Any]:
        if not 0 <= index < len(reqs):
            raise ReinforcementsNotChanged("No such reinforcement request.")
        return reqs[:index] + reqs[index + 1 :]

    return _requests_edit(player, turn, edit, user, base)


@transaction.atomic
def reinforcement_move(
    *,
    player: Player,
    turn: Turn,
    index: int,
    step: int,
    user: User | None = None,
    base: str | None = None,
) -> OrdersSaved:
    """Move a request one place up (`step` -1) or down (+1) in the buying order."""

    def edit(reqs: list[Any]) -> list[Any]:
        to = index + step
        if step not in (-1, 1) or not (0 <= index < len(reqs) and 0 <= to < len(reqs)):
            raise ReinforcementsNotChanged("That request cannot move that way.")
        reqs[index], reqs[to] = reqs[to], reqs[index]
        return reqs

    return _requests_edit(player, turn, edit, user, base)


def reinforcement_requests_carry(
    *, turn: Turn, orders: Mapping[str, PlayerOrders], events: list[dict[str, Any]]
) -> int:
    """Standing requests stand until bought (R9.3.8: the points wait in the bank): those of
    the turn just resolved (`orders`, as Phases 4–8 read them) that Phase 7 did not buy
    (`events`, its Phases 4–8 events) become the saved orders of the new `turn`. No query
    when nobody has a request. Returns how many players' requests were carried."""
    bought: dict[str, set[int]] = {}
    for e in events:
        if e.get("type") == "ReinforcementsArrived" and e.get("request") is not None:
            bought.setdefault(str(e.get("player_id")), set()).add(int(e["request"]))
    rest = {
        key: [to_data(r) for n, r in enumerate(po.reinforcements) if n not in bought.get(key, ())]
        for key, po in orders.items()
    }
    rest = {key: reqs for key, reqs in rest.items() if reqs}
    if not rest:
        return 0
    players = Player.objects.filter(campaign_id=turn.campaign_id, key__in=rest, surrendered=False)
    for player in players:
        Orders.objects.update_or_create(
            turn=turn,
            player=player,
            defaults={"data": {"reinforcements": rest[player.key]}, "status": Orders.Status.SAVED},
        )
    return len(players)
