"""Helpers shared by several phases."""

from __future__ import annotations

from dataclasses import replace

from rules.events import Event, ForceDestroyed, LootLost
from rules.types import CampaignState, Force


def remove_force(
    state: CampaignState, force: Force, *, reason: str, rule: str
) -> tuple[CampaignState, list[Event]]:
    """Take a force out of play. Loot it carried is lost and the sacked holding destroyed
    (§11.6 rule 4, A-47). If it was the owner's last force, that is a Will-to-Fight trigger
    (R9.1.1)."""
    events: list[Event] = [ForceDestroyed(force.id, force.owner, reason, rule)]
    state = state.without_force(force.id)
    for hid in force.loot:
        h = next(h for h in state.holdings if h.id == hid)
        state = state.replace_holding(replace(h, carried_by=None, destroyed=True))
        events.append(LootLost(force.id, hid))
    if not any(f.owner == force.owner for f in state.forces):
        state = state.add_trigger(force.owner, "all-forces-lost")
    return state, events


def players_in_turn_order(state: CampaignState, first: str | None) -> list[str]:
    """Active players starting with `first` (the last initiative winner), then by id."""
    ids = sorted(p.id for p in state.active_players())
    if first in ids:
        i = ids.index(first)
        ids = ids[i:] + ids[:i]
    return ids
