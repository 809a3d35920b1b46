"""R2.3 holdings: placement in friendly territory, terrain by race, spacing, one capital."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.setup.problems import Problems, SetupProblem
from rules.types import Coord, Feature, GameMap, Holding, Player


def chebyshev(a: Coord, b: Coord) -> int:
    """Distance in king moves (§0, A-19, A-22)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


HOLDING_MIN_DISTANCE = 3  # R2.3.3 "not within two squares", Chebyshev
FORBIDDEN_HOLDING_TERRAIN = frozenset(
    {Feature.MOUNTAIN, Feature.FOREST, Feature.JUNGLE, Feature.SWAMP}
)  # R2.3.4; jungle counts as forest
RACE_HOLDING_TERRAIN: dict[str, frozenset[Feature]] = {  # R2.3.4 exceptions
    "dwarves": frozenset({Feature.MOUNTAIN}),
    "wood-elves": frozenset({Feature.FOREST, Feature.JUNGLE}),
    "goblins": frozenset({Feature.FOREST, Feature.JUNGLE}),
    "orcs": frozenset({Feature.SWAMP}),
}
_RACE_ALIASES = {
    "dwarf": "dwarves",
    "wood-elf": "wood-elves",
    "goblin": "goblins",
    "orc": "orcs",
    # the Italian rulebook's names, which the set-up page offers an Italian GM
    "nani": "dwarves",
    "elfi-dei-boschi": "wood-elves",
    "orchi": "orcs",
}


def race_key(race: str) -> str:
    """'Wood Elves', 'wood_elf', 'wood-elves' and 'Elfi dei Boschi' are the same race for
    R2.3.4."""
    key = "-".join(race.lower().replace("_", " ").split())
    return _RACE_ALIASES.get(key, key)


def holding_spacing_ok(a: Coord, b: Coord) -> bool:
    """R2.3.3 / D-20: two holdings of one owner stand at Chebyshev distance ≥ 3."""
    return chebyshev(a, b) >= HOLDING_MIN_DISTANCE


@dataclass(frozen=True, slots=True)
class HoldingPlacement:
    problems: tuple[SetupProblem, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.problems


def validate_holding_placement(
    *, game_map: GameMap, players: Sequence[Player], holdings: Sequence[Holding]
) -> HoldingPlacement:
    """R2.3.2–2.3.5: each holding on the map in its owner's friendly third, on allowed
    terrain (with the race exceptions), ≥ 3 squares (Chebyshev) from the owner's other
    holdings, and exactly one capital per player."""
    out = Problems()
    by_id = {p.id: p for p in players}
    placed: list[Holding] = []
    for h in holdings:
        player = by_id.get(h.owner)
        if player is None:
            msg = f"Holding {h.id} belongs to no player."
            out.add("unknown-owner", "R2.3", msg, h.id, holding=h.id, owner=h.owner)
            continue
        if not game_map.on_map(h.square):
            msg = f"Holding {h.id} at {h.square} is off the map."
            out.add("off-map", "R2.3", msg, h.id, holding=h.id, square=h.square)
            continue
        placed.append(h)
        if game_map.zones.get(h.square) != h.owner:
            msg = f"Holding {h.id} at {h.square} is not in {h.owner}'s friendly territory."
            out.add(
                "outside-territory",
                "R2.3.2",
                msg,
                h.id,
                holding=h.id,
                square=h.square,
                owner=h.owner,
            )
        allowed = RACE_HOLDING_TERRAIN.get(race_key(player.race), frozenset())
        bad = sorted((game_map.features_at(h.square) & FORBIDDEN_HOLDING_TERRAIN) - allowed)
        if bad:
            msg = (
                f"Holding {h.id} at {h.square} stands on {', '.join(f.value for f in bad)}, "
                f"not allowed to {player.race or 'this race'}."
            )
            out.add(
                "forbidden-terrain",
                "R2.3.4",
                msg,
                h.id,
                holding=h.id,
                square=h.square,
                owner=h.owner,
                terrain=tuple(f.value for f in bad),
                race=player.race,
            )
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            if a.owner == b.owner and not holding_spacing_ok(a.square, b.square):
                msg = (
                    f"Holdings {a.id} and {b.id} are {chebyshev(a.square, b.square)} "
                    "square(s) apart; holdings of one owner must be at least 3 apart."
                )
                out.add(
                    "too-close",
                    "R2.3.3",
                    msg,
                    b.id,
                    holding=b.id,
                    other=a.id,
                    owner=b.owner,
                    distance=chebyshev(a.square, b.square),
                )
    for p in players:
        capitals = sum(h.capital for h in holdings if h.owner == p.id)
        if capitals != 1:
            msg = f"Player {p.id} has {capitals} capitals; each player has exactly one."
            out.add("capital-count", "R2.3.5", msg, p.id, player=p.id, capitals=capitals)
    return HoldingPlacement(out())
