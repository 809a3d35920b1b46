"""Reads for the orders page: a player's forces, his saved orders, what the map may show him
while he draws a path, and the exact chances of the Phase 1 force test (R5.2).

Enemy forces and their zones of control come only from the forces the viewer may see
(`campaign.fog`): a hidden enemy is never in anything built here.
"""

from __future__ import annotations

import hashlib
import heapq
import json
from dataclasses import dataclass, replace
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from campaign import adapters
from campaign.access import Viewer
from campaign.fog import Ghost, map_view_for
from campaign.kept import Kept
from campaign.models import Orders, Player, Turn
from campaign.orders.chances import snow_modifier
from campaign.orders.event_targets import EventChoices, event_choices_for_player
from campaign.orders.regroup_lines import RegroupLine, regroup_lines
from campaign.text.labels import STATUS, TERRITORY, features_label, label
from campaign.text.names import general_label
from rules import (
    CampaignState,
    Coord,
    Feature,
    Force,
    ForceOrders,
    FormatError,
    General,
    PlayerOrders,
    Status,
    Territory,
    craft_carry,
    craft_needed,
    has_weather_magic,
    legal_moves,
    may_sack,
    ships_needed,
)


def square_label(square: Coord) -> str:
    return f"({square[0]}, {square[1]})"


# --- saved orders ----------------------------------------------------------------------------


def orders_get_for_player(*, player: Player, turn: Turn) -> Orders | None:
    """The player's Orders row for the turn (saved or confirmed), or None if he has none."""
    return Orders.objects.filter(turn=turn, player=player).select_related("submitted_by").first()


def player_orders_get(*, player: Player, row: Orders | None) -> PlayerOrders:
    """The row's data as rules orders; no row (or data that no longer parse) means none."""
    if row is None:
        return PlayerOrders(player.key)
    try:
        return orders_decoded(player.key, row.data)
    except FormatError:
        return PlayerOrders(player.key)


# (player, the data's text) → its orders: a save reads the player's orders for the page,
# then again under the lock, then for the answer; decoding a big army's orders cost more
# than the rest of the save. Immutable (frozen), so shared.
DECODED_MAX = 64
_decoded: Kept[tuple[str, str], PlayerOrders] = Kept(DECODED_MAX)


def _text(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def orders_decoded(player_key: str, data: Any) -> PlayerOrders:
    """`adapters.orders_from_data`, once for the same data (`FormatError` as it raises)."""
    key = (player_key, _text(data))
    found = _decoded.get(key)
    if found is not None:
        return found
    orders = adapters.orders_from_data(player_key, data)
    _decoded.put(key, orders)
    return orders


def orders_decoded_put(player_key: str, data: Any, orders: PlayerOrders) -> None:
    """Keep `orders` as what `data` decodes to (`data` = `adapters.orders_to_data(orders)`,
    which the codec reads back as `orders`)."""
    _decoded.put((player_key, _text(data)), orders)


# --- versions: what a form was built on -----------------------------------------------------

NO_ORDERS = "none"  # the version of orders never saved (a digest is hexadecimal: never this)


def _version(data: Any) -> str:
    """A short digest of orders as stored; two forms built on the same saved orders carry the
    same one, and a save of other orders changes it (architecture.md, "Nothing acts on a
    stale page")."""
    if data is None:
        return NO_ORDERS
    return hashlib.sha256(_text(data).encode()).hexdigest()[:16]


def _stored(row: Orders | None) -> dict[str, Any]:
    return row.data if row is not None and isinstance(row.data, dict) else {}


def force_orders_version(row: Orders | None, force_key: str) -> str:
    """The version of one force's saved orders in the player's row (`NO_ORDERS`: none): the
    editor's `base`, so that two tabs editing different forces do not refuse each other."""
    forces = _stored(row).get("forces")
    return _version(forces.get(force_key) if isinstance(forces, dict) else None)


def orders_version(row: Orders | None) -> str:
    """The version of all the player's saved orders: what the confirm button confirms."""
    return _version(row.data if row is not None else None)


def requests_version(row: Orders | None) -> str:
    """The version of the standing reinforcement requests: the list their remove and move
    buttons number."""
    return _version(list(_stored(row).get("reinforcements") or []))


# --- the player's forces ---------------------------------------------------------------------


class ForceFacts:
    """What the orders page shows of a force (`self.force`), own or enemy."""

    force: Force

    @property
    def key(self) -> str:
        return self.force.id

    @property
    def name(self) -> str:
        return self.force.name or self.force.id

    @property
    def figures(self) -> int:
        return self.force.figures

    @property
    def status_label(self) -> str:
        return label(STATUS, self.force.status)

    @property
    def square_label(self) -> str:
        return square_label(self.force.square)


@dataclass(frozen=True)
class ForceCard(ForceFacts):
    """One of the player's forces as the orders page shows it."""

    force: Force
    territory: Territory
    features: tuple[Feature, ...]
    snow: int
    orders: ForceOrders | None  # as saved
    legal: frozenset[Coord]  # squares a path may use this turn (rules.orders.legal_moves)
    enemies: tuple[EnemyChoice, ...] = ()  # the nearest visible enemy forces, nearest first
    enemies_seen: int = 0  # how many enemy forces the side sees in all
    weather_magic: bool = False  # its Wizard may shift its weather (R4.4.3)

    @property
    def status(self) -> Status:
        return self.force.status

    @property
    def square(self) -> Coord:
        return self.force.square

    @property
    def leader(self) -> General | None:
        return self.force.leader

    @property
    def points(self) -> int:
        return self.force.points

    @property
    def carries_loot(self) -> bool:
        return self.force.carries_loot

    @property
    def ships_needed(self) -> int:
        """R6.11.3: the ships that carry all of it (it sails only with that many)."""
        return ships_needed(self.force)

    @property
    def on_river(self) -> bool:
        """§6.11: it stands on a navigable river, where a voyage may start (R6.11.7)."""
        return bool(set(self.features) & {Feature.NAVIGABLE, Feature.SHIP_NAVIGABLE})

    @property
    def craft_carry(self) -> bool:
        """R6.11.4: its boats and rafts carry all of it."""
        return craft_carry(self.force)

    @property
    def craft_needed(self) -> tuple[int, int]:
        """R6.11.4: the boats and rafts that carry all of it along a river."""
        return craft_needed(self.force)

    @property
    def territory_label(self) -> str:
        return label(TERRITORY, self.territory)

    # the card's lines, built here: the same texts through a template's blocktranslate, for
    # every card of a big army, cost most of the page
    @property
    def leader_text(self) -> str:
        leader = self.leader
        if leader is None:
            return _("No general")
        return _("%(name)s (command value %(cv)s)") % {
            "name": general_label(leader, self.force),
            "cv": leader.cv,
        }

    @property
    def strength_text(self) -> str:
        return ngettext(
            "%(figures)s figure, %(points)s points",
            "%(figures)s figures, %(points)s points",
            self.figures,
        ) % {"figures": self.figures, "points": self.points}

    @property
    def square_text(self) -> str:
        return _("%(square)s: %(features)s, %(territory)s") % {
            "square": self.square_label,
            "features": self.features_label,
            "territory": self.territory_label,
        }

    @property
    def edit_text(self) -> str:
        return _("Edit the orders of %(name)s") % {"name": self.name}

    @property
    def show_text(self) -> str:
        return _("Show the orders of %(name)s") % {"name": self.name}

    @property
    def as_it_stands_text(self) -> str:
        return _("As it stands: %(status)s") % {"status": self.status_label}

    @property
    def features_label(self) -> str:
        return features_label(self.features)


def force_cards_list_for_player(
    *, state: CampaignState, player_key: str, orders: PlayerOrders, only: str | None = None
) -> list[ForceCard]:
    """The player's forces in the state's order, each with its saved orders and legal squares
    (`only`: that force's card alone)."""
    return [
        ForceCard(
            force=f,
            territory=state.territory(player_key, f.square),
            features=tuple(sorted(state.map.features_at(f.square))),
            snow=snow_modifier(state, f.square),
            orders=orders.for_force(f.id),
            legal=frozenset(legal_moves(state, f)),
            weather_magic=has_weather_magic(state, f),
        )
        for f in state.forces
        if f.owner == player_key and (only is None or f.id == only)
    ]


# --- what the player may see of the enemy --------------------------------------------------


@dataclass(frozen=True)
class EnemyChoice(ForceFacts):
    """A visible enemy force a player may ask the odds against, as his side sees it."""

    force: Force
    distance: int  # in squares from the player's force (diagonal steps count one)

    @property
    def option_label(self) -> str:
        """Its line in the odds picker (built here: a template's blocktranslate for each of
        every card's enemies cost more than the rest of the page)."""
        return ngettext(
            "%(name)s: %(figures)s figure, %(status)s, at %(square)s (distance %(distance)s)",
            "%(name)s: %(figures)s figures, %(status)s, at %(square)s (distance %(distance)s)",
            self.figures,
        ) % {
            "name": self.name,
            "figures": self.figures,
            "status": self.status_label,
            "square": self.square_label,
            "distance": self.distance,
        }


CARDS_AT_ONCE = 12  # an orders page draws this many force cards; the rest when scrolled to
ENEMY_CHOICES_MAX = 8  # a card offers the odds against its nearest enemies, not every one


def enemy_choices(card: ForceCard, enemies: tuple[Force, ...]) -> tuple[EnemyChoice, ...]:
    """The nearest visible enemy forces (at most `ENEMY_CHOICES_MAX`), nearest first: every
    card of a large campaign listing every enemy made the page grow with the square of it."""
    x, y = card.square
    nearest = heapq.nsmallest(
        ENEMY_CHOICES_MAX,
        enemies,
        key=lambda f: (max(abs(f.square[0] - x), abs(f.square[1] - y)), f.name or f.id, f.id),
    )
    return tuple(EnemyChoice(f, max(abs(f.square[0] - x), abs(f.square[1] - y))) for f in nearest)


@dataclass(frozen=True)
class EnemyPicture:
    """Enemy forces the viewer can see, their zones of control (R6.6.1), and ghosts."""

    squares: frozenset[Coord]
    zoc: frozenset[Coord]
    ghosts: tuple[Ghost, ...]
    friendly: frozenset[Coord]  # squares of the viewer's own and allied forces
    forces: tuple[Force, ...] = ()  # the visible enemy forces themselves

    def force(self, force_key: str) -> Force | None:
        """A visible enemy force; None for any other key, hidden enemies included."""
        return next((f for f in self.forces if f.id == force_key), None)


def enemy_picture_get_for_viewer(*, viewer: Viewer, state: CampaignState) -> EnemyPicture:
    """Built from `map_view_for`, so a hidden enemy force is not in it at all."""
    view = map_view_for(viewer=viewer, state=state)
    side = viewer.side_key
    side_of = {p.id: p.side for p in state.players}
    enemies = [f for f in view.forces if side is None or side_of[f.owner] != side]
    friends = [f for f in view.forces if side is not None and side_of[f.owner] == side]
    squares = frozenset(f.square for f in enemies)
    zoc = frozenset(n for f in enemies for n in state.map.neighbours(f.square))
    return EnemyPicture(
        squares, zoc, view.ghosts, frozenset(f.square for f in friends), tuple(enemies)
    )


# --- the whole page --------------------------------------------------------------------------


@dataclass(frozen=True)
class OrdersPage:
    """Everything the orders page of one player shows."""

    turn: Turn
    player: Player
    state: CampaignState
    row: Orders | None
    orders: PlayerOrders
    forces: tuple[ForceCard, ...]
    enemy: EnemyPicture
    surrendered: bool = False
    others_unconfirmed: int = 0  # active players besides this one who have not confirmed
    partial: bool = False  # `forces` holds one card (an htmx answer about one force)

    # cards drawn whole with the page; a bigger army's others come as they are scrolled to
    cards_at_once: int = CARDS_AT_ONCE

    @property
    def editable(self) -> bool:
        """Orders stay editable while the turn is open (and the player has not surrendered)."""
        return self.turn.is_open and not self.surrendered

    @property
    def confirmed(self) -> bool:
        return self.row is not None and self.row.status == Orders.Status.CONFIRMED

    @property
    def version(self) -> str:
        """His saved orders' version as the page shows them: the confirm form's `base`."""
        return orders_version(self.row)

    @property
    def requests_version(self) -> str:
        """His reinforcement requests' version: the base of their remove and move forms."""
        return requests_version(self.row)

    def card(self, force_key: str) -> ForceCard | None:
        found = next((c for c in self.forces if c.key == force_key), None)
        if found is None and self.partial:  # another of his forces, built when asked for
            more = _cards(self.state, self.player.key, self.orders, self.enemy, force_key)
            found = more[0] if more else None
        return found

    @property
    def may_sack(self) -> bool:
        """§11.6: only the Raiders carry off loot: nobody else is offered a sack."""
        return may_sack(self.state, self.player.key)

    @property
    def event_choices(self) -> EventChoices:
        """The "Random events" box: re-roll and targets (campaign.orders.event_targets)."""
        return event_choices_for_player(
            state=self.state, player_key=self.player.key, orders=self.orders
        )

    @property
    def regroup(self) -> list[RegroupLine]:
        """The "Regrouping" box: what each pool may buy (R8.3.2, `orders.regroup_lines`)."""
        return regroup_lines(self)

    def bank(self) -> int:
        """His reinforcement points in the bank (R9.3.8)."""
        return self.state.bank.get(self.player.key, 0)

    @property
    def by_army(self) -> bool:
        """R6.1.1–2: initiative by army, where the winner chooses when he moves."""
        return self.state.options.initiative_method == "by-army"


def _cards(
    state: CampaignState,
    player_key: str,
    orders: PlayerOrders,
    enemy: EnemyPicture,
    only: str | None = None,
) -> list[ForceCard]:
    return [
        replace(card, enemies=enemy_choices(card, enemy.forces), enemies_seen=len(enemy.forces))
        for card in force_cards_list_for_player(
            state=state, player_key=player_key, orders=orders, only=only
        )
    ]


def orders_page_get_for_player(
    *,
    viewer: Viewer,
    turn: Turn,
    state: CampaignState | None = None,
    only: str | None = None,
) -> OrdersPage:
    """The orders page of the viewer's own army for `turn` (a player viewer only). `state`:
    the campaign's state as this request already read it (saving orders does not change it),
    so that a save decodes the campaign once, not once per step. `only`: an htmx answer
    about that one force builds its card alone (the others when asked for)."""
    player = viewer.player
    assert player is not None
    if state is None:
        state = adapters.state_load(campaign=viewer.campaign)
    row = orders_get_for_player(player=player, turn=turn)
    orders = player_orders_get(player=player, row=row)
    enemy = enemy_picture_get_for_viewer(viewer=viewer, state=state)
    cards = _cards(state, player.key, orders, enemy, only)
    me = next((p for p in state.players if p.id == player.key), None)
    others = [p.id for p in state.players if not p.surrendered and p.id != player.key]
    confirmed = Orders.objects.filter(
        turn=turn, status=Orders.Status.CONFIRMED, player__key__in=others
    ).count()
    return OrdersPage(
        turn=turn,
        player=player,
        state=state,
        row=row,
        orders=orders,
        forces=tuple(cards),
        enemy=enemy,
        surrendered=bool(me and me.surrendered),
        others_unconfirmed=len(others) - confirmed,
        partial=only is not None,
    )


def orders_page_after_save(
    page: OrdersPage, row: Orders, only: str, orders: PlayerOrders | None = None
) -> OrdersPage:
    """The page again after a save of the player's orders into `row` (`orders`: its data as
    the rules read it, if the save decoded it): the rest of what the page shows does not
    change with his orders; `only`'s card built anew."""
    if orders is None:
        orders = player_orders_get(player=page.player, row=row)
    cards = _cards(page.state, page.player.key, orders, page.enemy, only)
    return replace(page, row=row, orders=orders, forces=tuple(cards), partial=True)


def orders_list_for_gm(*, turn: Turn) -> list[tuple[Player, Orders | None]]:
    """Every player of the turn's campaign with his Orders row for the turn (or None)."""
    rows = {o.player_id: o for o in Orders.objects.filter(turn=turn).select_related("submitted_by")}
    players = Player.objects.filter(campaign_id=turn.campaign_id).select_related("side")
    return [(p, rows.get(p.pk)) for p in players.order_by("position", "key")]
