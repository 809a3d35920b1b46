"""Fog of war: what a side may see of the map, decided on the server.

A side sees its own and allied forces, enemy forces inside the zones of control of its
forces (and in their squares), and enemy forces in the squares of its holdings. Every other
enemy is shown only as a ghost where the side last saw it ("last seen N turns ago"), from
`Sighting` rows recorded after each resolution. The GM sees everything.
"""

from __future__ import annotations

from dataclasses import dataclass

from campaign.access import Viewer
from campaign.models import Campaign, Sighting
from rules.types import CampaignState, Coord, Force


def watched_squares(state: CampaignState, side_key: str) -> set[Coord]:
    """Squares a side observes: its forces' squares and zones of control (R6.6.1), and the
    squares of the holdings its players own."""
    side_of = {p.id: p.side for p in state.players}
    watched: set[Coord] = set()
    for f in state.forces:
        if side_of[f.owner] == side_key:
            watched.add(f.square)
            watched.update(state.map.neighbours(f.square))
    for h in state.holdings:
        if side_of.get(h.owner) == side_key and not h.destroyed and h.carried_by is None:
            watched.add(h.square)
    return watched


def visible_force_keys(state: CampaignState, side_key: str) -> set[str]:
    side_of = {p.id: p.side for p in state.players}
    watched = watched_squares(state, side_key)
    return {f.id for f in state.forces if side_of[f.owner] == side_key or f.square in watched}


@dataclass(frozen=True)
class Ghost:
    """An enemy force where a side last saw it."""

    force_key: str
    square: Coord
    turn_number: int
    status: str
    figures: int

    def turns_ago(self, current_turn: int) -> int:
        return max(0, current_turn - self.turn_number)


@dataclass(frozen=True)
class MapView:
    """The forces a viewer may see, and the ghosts of the others."""

    forces: tuple[Force, ...]
    ghosts: tuple[Ghost, ...]
    everything: bool


def map_view_for(*, viewer: Viewer, state: CampaignState) -> MapView:
    """What this viewer may see of `state`'s forces. Hidden forces are not in the result at
    all, so no template, JSON or export built from it can leak them."""
    if viewer.sees_everything:
        return MapView(tuple(state.forces), (), True)
    side_key = viewer.side_key
    if side_key is None:  # an observer following no side sees no forces under fog
        return MapView((), (), False)
    keys = visible_force_keys(state, side_key)
    forces = tuple(f for f in state.forces if f.id in keys)
    ghosts = tuple(
        Ghost(s.force_key, (s.x, s.y), s.turn_number, s.status, s.figures)
        for s in Sighting.objects.filter(campaign=viewer.campaign, side_key=side_key)
        .exclude(force_key__in=keys)
        .order_by("force_key")
    )
    return MapView(forces, ghosts, False)


def sightings_record(*, campaign: Campaign, state: CampaignState) -> None:
    """Remember, per side, where each enemy force it can see stands now (two queries, however
    many forces and sides). Forces that left play are forgotten."""
    side_of = {p.id: p.side for p in state.players}
    rows = []
    for side_key in sorted(set(side_of.values())):
        seen = visible_force_keys(state, side_key)
        rows.extend(
            Sighting(
                campaign=campaign,
                side_key=side_key,
                force_key=f.id,
                x=f.square[0],
                y=f.square[1],
                turn_number=state.turn,
                status=f.status.value,
                figures=f.figures,
            )
            for f in state.forces
            if side_of[f.owner] != side_key and f.id in seen
        )
    Sighting.objects.filter(campaign=campaign).exclude(
        force_key__in=[f.id for f in state.forces]
    ).delete()
    if rows:
        Sighting.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["campaign", "side_key", "force_key"],
            update_fields=["x", "y", "turn_number", "status", "figures"],
        )
