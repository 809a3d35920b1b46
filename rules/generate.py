"""Synthetic campaigns for benchmarks and load tests: the same seed gives the same campaign.

Players alternate between `sides` alliances; each player's friendly territory is a vertical
band of the map, with its capital and two minor holdings in it. Orders send every force a few
squares toward the nearest hostile band, so that movement, zones of control and contacts all
happen.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from rules.orders import CountermarchWhen, ForceOrders, PlayerOrders, ZocPolicy
from rules.types import (
    CampaignState,
    Command,
    Coord,
    Feature,
    Force,
    GameMap,
    General,
    Holding,
    Individual,
    IndividualKind,
    Options,
    Player,
    Quality,
    Speciality,
    Status,
    Unit,
)

TERRAIN_MIX: tuple[tuple[frozenset[Feature], int], ...] = (
    (frozenset(), 50),
    (frozenset({Feature.FOREST}), 10),
    (frozenset({Feature.HILL}), 8),
    (frozenset({Feature.CULTIVATED}), 10),
    (frozenset({Feature.SWAMP}), 4),
    (frozenset({Feature.MOUNTAIN}), 5),
    (frozenset({Feature.MOUNTAIN, Feature.PASS}), 2),
    (frozenset({Feature.ROAD}), 6),
    (frozenset({Feature.RIVER}), 3),
    (frozenset({Feature.RIVER, Feature.BRIDGE}), 2),
)
SPECIALITIES = (
    (Speciality.INFANTRY, 50),
    (Speciality.MISSILE, 20),
    (Speciality.CAVALRY, 20),
    (Speciality.ARTILLERY, 5),
    (Speciality.TERRIBLE_CREATURE, 5),
)
QUALITIES = ((Quality.LEVY, 20), (Quality.AVERAGE, 40), (Quality.VETERAN, 30), (Quality.ELITE, 10))
PPF = {Quality.LEVY: 4, Quality.AVERAGE: 6, Quality.VETERAN: 8, Quality.ELITE: 11}


def _pick[V](rng: random.Random, table: Sequence[tuple[V, int]]) -> V:
    values = [v for v, _ in table]
    return rng.choices(values, weights=[w for _, w in table])[0]


def band(width: int, players: int, index: int) -> tuple[int, int]:
    """Columns [x0, x1) of player `index`'s friendly band."""
    x0 = width * index // players
    x1 = width * (index + 1) // players
    return x0, max(x1, x0 + 1)


STATUSES = (
    (Status.PROBE, 50),
    (Status.FULL_SPEED, 20),
    (Status.DEFEND, 25),
    (Status.CONFUSED, 5),
)


def generate_campaign(
    *,
    width: int,
    height: int,
    players: int,
    forces: int,
    units_per_force: int,
    seed: int,
    sides: int = 2,
    options: Options | None = None,
) -> CampaignState:
    _check_size(width, height, players, forces, units_per_force)
    rng = random.Random(seed)
    features = _terrain(rng, width, height)
    plist = [_player(i, sides) for i in range(players)]
    zones: dict[Coord, str] = {}
    holdings: list[Holding] = []
    for i, p in enumerate(plist):
        x0, x1 = band(width, players, i)
        zones.update({(x, y): p.id for x in range(x0, x1) for y in range(height)})
        holdings += _holdings(p.id, i + 1, (x0 + x1 - 1) // 2, height)
    for h in holdings:
        features.pop(h.square, None)  # holdings stand on open ground (R2.3.4)
    flist: list[Force] = []
    for n in range(forces):
        i = n % players
        x0, x1 = band(width, players, i)
        sq = (rng.randrange(x0, x1), rng.randrange(height))
        flist.append(_force(rng, n + 1, plist[i].id, sq, units_per_force))
    return CampaignState(
        turn=1,
        day=0,
        map=GameMap(width, height, features, zones),
        players=tuple(plist),
        holdings=tuple(holdings),
        forces=tuple(flist),
        options=options or Options(),
    )


def _check_size(width: int, height: int, players: int, forces: int, units_per_force: int) -> None:
    """Whether the sizes make a campaign: a ValueError names the first that does not."""
    if width < 3 or height < 3:
        raise ValueError("the map must be at least 3×3")
    if players < 2:
        raise ValueError("a campaign needs at least two players")
    if players > width:
        raise ValueError("each player needs at least one column of the map")
    if forces < players:
        raise ValueError("give every player at least one force")
    if units_per_force < 1:
        raise ValueError("a force needs at least one unit (R2.5.2)")


def _terrain(rng: random.Random, width: int, height: int) -> dict[Coord, frozenset[Feature]]:
    """Each square's features, drawn from `TERRAIN_MIX` row by row; open ground is left out."""
    features: dict[Coord, frozenset[Feature]] = {}
    for y in range(height):
        for x in range(width):
            f = _pick(rng, TERRAIN_MIX)
            if f:
                features[(x, y)] = f
    return features


def _player(i: int, sides: int) -> Player:
    """Player `i` (from 0), on alliance `i mod sides`."""
    return Player(
        f"p{i + 1}",
        side=f"s{i % sides + 1}",
        name=f"Player {i + 1}",
        race="Human",
        initial_points=2000,
    )


def _holdings(pid: str, number: int, cx: int, height: int) -> list[Holding]:
    """A player's capital in the middle of column `cx` of his band, and two villages a sixth
    of the map from its top and bottom edges."""
    return [
        Holding(
            f"h{number}-{k + 1}",
            (cx, y),
            pid,
            pid,
            capital=(k == 0),
            name=f"{'Capital' if k == 0 else 'Village'} of {pid}",
        )
        for k, y in enumerate((height // 2, height // 6, height - 1 - height // 6))
    ]


def _force(rng: random.Random, n: int, pid: str, square: Coord, units_per_force: int) -> Force:
    """Force number `n`: its units, then its order, then its general's CV are drawn; one hero
    goes with it."""
    units = tuple(_unit(rng, f"f{n}u{u + 1}") for u in range(units_per_force))
    status = _pick(rng, STATUSES)
    general = General(f"f{n}g1", rng.randint(2, 5), points=50)
    return Force(
        f"f{n}",
        pid,
        square,
        status,
        (Command(f"f{n}c1", general, units),),
        individuals=(Individual(f"f{n}i1", IndividualKind.HERO, points=40),),
        name=f"Force {n}",
    )


def _unit(rng: random.Random, uid: str) -> Unit:
    """A unit's quality, speciality, figures (a Terrible Creature is one figure) and whether
    it is mercenary, drawn in that order."""
    q = _pick(rng, QUALITIES)
    sp = _pick(rng, SPECIALITIES)
    figs = 1 if sp is Speciality.TERRIBLE_CREATURE else rng.randint(8, 24)
    return Unit(
        uid,
        f"{q.value} {sp.value}",
        sp,
        q,
        figs,
        PPF[q],
        mercenary=rng.random() < 0.05,
        mounted=sp is Speciality.CAVALRY,
    )


def generate_orders(state: CampaignState, *, seed: int) -> dict[str, PlayerOrders]:
    """Standing orders: most forces march up to 3 squares toward the map centre column of a
    hostile neighbour; some request an order change; policies vary."""
    rng = random.Random(seed)
    per_player: dict[str, dict[str, ForceOrders]] = {p.id: {} for p in state.players}
    for f in state.forces:
        change = None
        if rng.random() < 0.3:
            change = rng.choice((Status.PROBE, Status.FULL_SPEED, Status.DEFEND))
        effective = change or f.status
        path: list[Coord] = []
        if effective is not Status.DEFEND:
            dx = rng.choice((-1, 1))
            x, y = f.square
            for _ in range(3):
                nx = min(max(x + dx, 0), state.map.width - 1)
                ny = min(max(y + rng.choice((-1, 0, 1)), 0), state.map.height - 1)
                if (nx, ny) == (x, y):
                    break
                x, y = nx, ny
                path.append((x, y))
        per_player[f.owner][f.id] = ForceOrders(
            f.id,
            change_to=change,
            path=tuple(path),
            zoc=rng.choice((ZocPolicy.STOP, ZocPolicy.ENGAGE)),
            countermarch=rng.choice(
                (CountermarchWhen.NEVER, CountermarchWhen.NEVER, CountermarchWhen.IF_STOPPED_IN_ZOC)
            )
            if effective not in (Status.DEFEND, Status.SHATTERED)  # R6.5.2
            else CountermarchWhen.NEVER,
        )
    return {pid: PlayerOrders(pid, forces) for pid, forces in per_player.items()}
