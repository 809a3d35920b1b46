"""Fog of war on the map: what a side sees of the forces now, and the ghosts of those it saw
before (`Sighting` rows recorded after each resolution). The rules are in `campaign.fog`."""

from __future__ import annotations

from dataclasses import dataclass

from campaign.access import Viewer
from campaign.models import Campaign, Sighting
from campaign.state_rows import derived
from rules import CampaignState, Coord, Force

# --- the map ---------------------------------------------------------------------------------


def watched_squares(state: CampaignState, side_key: str) -> frozenset[Coord]:
    """Squares a side observes: its forces' squares and zones of control (R6.6.1), and the
    squares of the holdings its players own."""
    return _sight(state, side_key)[0]


def visible_force_keys(state: CampaignState, side_key: str) -> frozenset[str]:
    return _sight(state, side_key)[1]


def _sight(state: CampaignState, side_key: str) -> tuple[frozenset[Coord], frozenset[str]]:
    """What a side watches and sees, once for the same decoded rows (`state_rows.derived`)."""

    def compute() -> tuple[frozenset[Coord], frozenset[str]]:
        side_of = {p.id: p.side for p in state.players}
        watched: set[Coord] = set()
        for f in state.forces:
            if side_of[f.owner] == side_key:
                watched.add(f.square)
                watched.update(state.map.neighbours(f.square))
        for h in state.holdings:
            if side_of.get(h.owner) == side_key and not h.destroyed and h.carried_by is None:
                watched.add(h.square)
        seen = frozenset(
            f.id for f in state.forces if side_of[f.owner] == side_key or f.square in watched
        )
        return frozenset(watched), seen

    parts = (state.forces, state.holdings, state.players, state.map)
    return derived(("sight", side_key), parts, compute)


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
    # the side's sightings filtered here: an `exclude` of every visible key built a query
    # that grew with the campaign
    ghosts = tuple(
        Ghost(s.force_key, (s.x, s.y), s.turn_number, s.status, s.figures)
        for s in Sighting.objects.filter(campaign=viewer.campaign, side_key=side_key)
        .order_by("force_key")
        .values_list("force_key", "x", "y", "turn_number", "status", "figures", named=True)
        if s.force_key not in keys
    )
    return MapView(forces, ghosts, False)


def sightings_record(*, campaign: Campaign, state: CampaignState) -> None:
    """Remember, per side, where each enemy force it can see stands now (two queries, however
    many forces and sides). Forces that left play are forgotten."""
    side_of = {p.id: p.side for p in state.players}
    rows: list[Sighting] = []
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
