"""The orders editor's path map: the campaign map as the player sees it, with where the
force may go under the order it asks for, its next steps and its path."""

from __future__ import annotations

from dataclasses import dataclass, replace

from django.utils.translation import gettext as _

from campaign.access import Viewer
from campaign.map.build import map_model
from campaign.map.model import Clickable, MapModel
from campaign.orders.selectors import ForceCard, OrdersPage, square_label
from campaign.text.labels import TERRITORY, features_label, label
from rules import CampaignState, Coord, Feature, Status, Territory, legal_moves


@dataclass(frozen=True)
class NextStep:
    square: Coord
    features: frozenset[Feature]
    territory: Territory
    zoc: bool  # entering it stops the force or brings contact (R6.6.3)
    enemy: bool  # a visible enemy force stands there: entering it is contact (R6.7.1)

    @property
    def value(self) -> str:
        return f"{self.square[0]},{self.square[1]}"

    @property
    def label(self) -> str:
        parts = [square_label(self.square), features_label(self.features)]
        parts.append(label(TERRITORY, self.territory))
        if self.enemy:
            parts.append(_("an enemy force: contact"))
        elif self.zoc:
            parts.append(_("enemy zone of control"))
        return ", ".join(parts)


@dataclass(frozen=True)
class PathMap:
    """The map for drawing one force's path, and the squares its next step may take."""

    map: MapModel
    next_steps: tuple[NextStep, ...]
    legal: frozenset[Coord]  # the squares a path may use under the order asked for


def legal_under(
    state: CampaignState, card: ForceCard, requested: Status | None
) -> frozenset[Coord]:
    """The squares the force's path may use if it gets the order it asks for (a Defend
    force asking for Probe may move); as it stands when it asks for nothing or for Defend:
    a force asking for Defend moves only if its test fails into a reaction (R5.2 results
    1–3), so its path is conditional (R6.4.4)."""
    if requested is None or requested is card.force.status or requested is Status.DEFEND:
        return card.legal
    return frozenset(legal_moves(state, replace(card.force, status=requested)))


def path_map_get(
    *,
    viewer: Viewer,
    page: OrdersPage,
    card: ForceCard,
    path: tuple[Coord, ...],
    clickable: Clickable,
    error_index: int | None = None,
    requested: Status | None = None,
) -> PathMap:
    """The campaign map as this player sees it (fog of war applied by `campaign.map.build`),
    with the force's legal squares under the order it asks for, the next steps, visible
    enemies' zones of control, the path and a refused step highlighted. Every highlight comes
    from what the player may know."""
    state = page.state
    legal = legal_under(state, card, requested)
    last = path[-1] if path else card.square
    nexts = (
        sorted(
            (n for n in state.map.neighbours(last) if n in legal),
            key=lambda c: (c[1], c[0]),
        )
        if len(path) < 3
        else []
    )
    refused = (
        [path[error_index]] if error_index is not None and 0 <= error_index < len(path) else []
    )
    every = ((x, y) for y in range(state.map.height) for x in range(state.map.width))
    highlight = {
        "out": [sq for sq in every if sq not in legal and sq != card.square],
        "legal": legal,
        "next": nexts,
        "enemy-zoc": page.enemy.zoc,
        "path": [sq for sq in path if state.map.on_map(sq)],
        "refused": [sq for sq in refused if state.map.on_map(sq)],
        "selected": [card.square],
    }
    model = map_model(viewer=viewer, state=state, highlight=highlight, clickable=clickable)
    steps = tuple(
        NextStep(
            n,
            state.map.features_at(n),
            state.territory(page.player.key, n),
            n in page.enemy.zoc,
            n in page.enemy.squares,
        )
        for n in nexts
    )
    return PathMap(model, steps, legal)
