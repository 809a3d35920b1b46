"""R2.2 territory: the map cut in three along one axis, the outer thirds friendly."""

from __future__ import annotations

from dataclasses import dataclass

from rules.setup.problems import SetupError
from rules.types import Coord


@dataclass(frozen=True, slots=True)
class Thirds:
    """The three areas along one axis (R2.2.1): `low` and `high` are the outer thirds."""

    axis: str
    low: range
    centre: range
    high: range


def territory_thirds(width: int, height: int, axis: str) -> Thirds:
    """R2.2.1: three areas along `axis` ("x" cuts columns, "y" rows); the outer two are
    equal, the centre takes the remainder. Each is as close to a third as it can be."""
    if axis not in ("x", "y"):
        raise SetupError(f"axis must be 'x' or 'y', not {axis!r}")
    if width < 1 or height < 1:
        raise SetupError(f"the map must be at least 1×1, not {width}×{height}")
    n = width if axis == "x" else height
    if n < 3:
        raise SetupError(f"a map {n} square(s) long along {axis} cannot be cut in three")
    outer = round(n / 3)
    return Thirds(axis, range(0, outer), range(outer, n - outer), range(n - outer, n))


def territory_zones(width: int, height: int, axis: str, *, low: str, high: str) -> dict[Coord, str]:
    """`GameMap.zones` for R2.2: player `low` owns the low outer third, `high` the other;
    the centre is neutral (absent)."""
    thirds = territory_thirds(width, height, axis)
    zones: dict[Coord, str] = {}
    for x in range(width):
        for y in range(height):
            i = x if axis == "x" else y
            if i in thirds.low:
                zones[(x, y)] = low
            elif i in thirds.high:
                zones[(x, y)] = high
    return zones
