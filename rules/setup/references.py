"""State references: the ids of a campaign state hold together (R2.3, R6.4.7)."""

from __future__ import annotations

from rules.setup.problems import Problems, SetupProblem
from rules.types import CampaignState


def validate_state_references(state: CampaignState) -> tuple[SetupProblem, ...]:
    """The ids of a state hold together: players, forces and holdings are unique, every owner
    is a player and every force and holding stands on the map. (The codec checks shapes and
    types; this checks what refers to what, before a phase trips over it.)"""
    out = Problems()
    players = [p.id for p in state.players]
    for kind, ids in (
        ("player", players),
        ("force", [f.id for f in state.forces]),
        ("holding", [h.id for h in state.holdings]),
    ):
        for dup in sorted({i for i in ids if ids.count(i) > 1}):
            out.add("duplicate-id", "state", f"Two {kind}s share the id {dup!r}.", dup)
    known = set(players)
    for f in state.forces:
        if f.owner not in known:
            out.add(
                "unknown-owner", "state", f"Force {f.id} belongs to no player ({f.owner!r}).", f.id
            )
        if not state.map.on_map(f.square):
            out.add("off-map", "R6.4.7", f"Force {f.id} at {f.square} is off the map.", f.id)
    for h in state.holdings:
        for owner in {h.owner, h.original_owner} - known:
            out.add("unknown-owner", "state", f"Holding {h.id} names no player {owner!r}.", h.id)
        if not state.map.on_map(h.square):
            out.add("off-map", "R2.3", f"Holding {h.id} at {h.square} is off the map.", h.id)
    return out()
