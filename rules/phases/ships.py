"""Phase 7 — ships for the ports (R6.11.2 [NARAN], option `naval_movement`).

"A force whose initial holding is a port receives 2 free ships per campaign turn, provided it
has not moved from that holding and has the Defend order." [SR] Each turn's Phase 7 gives them
to every force on Defend that stands in a port of its own side and did not move this turn
(the R6.11.1 port is a holding flag). No dice.
"""

from __future__ import annotations

from dataclasses import replace

from rules.dice import Dice
from rules.events import Event, ShipsReceived
from rules.types import CampaignState, Status

FREE_SHIPS = 2  # R6.11.2, each campaign turn


def resolve(state: CampaignState, dice: Dice) -> tuple[CampaignState, list[Event]]:
    if not state.options.naval_movement or state.ended:
        return state, []
    ports = {h.square: h for h in state.holdings if h.port and not (h.destroyed or h.carried_by)}
    events: list[Event] = []
    for f in sorted(state.forces, key=lambda f: f.id):
        h = ports.get(f.square)
        if h is None or f.status is not Status.DEFEND or f.id in state.moves:
            continue
        if state.side_of(h.owner) != state.side_of(f.owner):
            continue
        state = state.replace_force(replace(f, ships=f.ships + FREE_SHIPS))
        events.append(ShipsReceived(f.id, h.id, FREE_SHIPS, f.ships + FREE_SHIPS))
    return state, events
