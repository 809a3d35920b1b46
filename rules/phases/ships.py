"""Phase 7 — ships for the ports and craft for the river forests (R6.11.2, R6.11.5 [NARAN],
option `naval_movement`).

"A force whose initial holding is a port receives 2 free ships per campaign turn, provided it
has not moved from that holding and has the Defend order." [SR] Each turn's Phase 7 gives them
to every force on Defend that stands in a port of its own side and did not move this turn
(the R6.11.1 port is a holding flag).

R6.11.5: a force whose holding is in a forest crossed by a river gets 4 boats and 2 rafts free
"every two turns" while it stays there on Defend. [SR] Every even-numbered turn, on the same
terms as the ships: a holding of its side on a square with forest (or jungle) and a river.
No dice.
"""

from __future__ import annotations

from dataclasses import replace

from rules.dice import Dice
from rules.events import CraftReceived, Event, ShipsReceived
from rules.types import CampaignState, Feature, Force, Holding, Status

FREE_SHIPS = 2  # R6.11.2, each campaign turn
FREE_BOATS, FREE_RAFTS = 4, 2  # R6.11.5, every two turns
FORESTS = frozenset({Feature.FOREST, Feature.JUNGLE})


def resolve(state: CampaignState, dice: Dice) -> tuple[CampaignState, list[Event]]:
    if not state.options.naval_movement or state.ended:
        return state, []
    standing = {h.square: h for h in state.holdings if not (h.destroyed or h.carried_by)}
    craft_turn = state.turn % 2 == 0
    events: list[Event] = []
    for f in sorted(state.forces, key=lambda f: f.id):
        h = standing.get(f.square)
        if h is None or not _stays_home(state, f, h):
            continue
        before = f
        if h.port:
            f = replace(f, ships=f.ships + FREE_SHIPS)
            events.append(ShipsReceived(f.id, h.id, FREE_SHIPS, f.ships))
        feats = state.map.features_at(h.square)
        if craft_turn and Feature.RIVER in feats and feats & FORESTS:
            f = replace(f, boats=f.boats + FREE_BOATS, rafts=f.rafts + FREE_RAFTS)
            events.append(CraftReceived(f.id, h.id, FREE_BOATS, FREE_RAFTS))
        if f is not before:
            state = state.replace_force(f)
    return state, events


def _stays_home(state: CampaignState, f: Force, h: Holding) -> bool:
    """On Defend, unmoved this turn, at a holding of its own side."""
    if f.status is not Status.DEFEND or f.id in state.moves:
        return False
    return state.side_of(h.owner) == state.side_of(f.owner)
