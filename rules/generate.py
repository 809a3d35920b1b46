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
    rng = random.Random(seed)
    features: dict[Coord, frozenset[Feature]] = {}
    for y in range(height):
        for x in range(width):
            f = _pick(rng, TERRAIN_MIX)
            if f:
                features[(x, y)] = f
    zones: dict[Coord, str] = {}
    plist: list[Player] = []
    holdings: list[Holding] = []
    for i in range(players):
        pid = f"p{i + 1}"
        plist.append(
            Player(
                pid,
                side=f"s{i % sides + 1}",
                name=f"Player {i + 1}",
                race="Human",
                initial_points=2000,
            )
        )
        x0, x1 = band(width, players, i)
        for x in range(x0, x1):
            for y in range(height):
                zones[(x, y)] = pid
        cx = (x0 + x1 - 1) // 2
        for k, y in enumerate((height // 2, height // 6, height - 1 - height // 6)):
            sq = (cx, y)
            features.pop(sq, None)  # holdings stand on open ground (R2.3.4)
            holdings.append(
                Holding(
                    f"h{i + 1}-{k + 1}",
                    sq,
                    pid,
                    pid,
                    capital=(k == 0),
                    name=f"{'Capital' if k == 0 else 'Village'} of {pid}",
                )
            )
    flist: list[Force] = []
    for n in range(forces):
        i = n % players
        pid = plist[i].id
        x0, x1 = band(width, players, i)
        sq = (rng.randrange(x0, x1), rng.randrange(height))
        units = []
        for u in range(units_per_force):
            q = _pick(rng, QUALITIES)
            sp = _pick(rng, SPECIALITIES)
            figs = 1 if sp is Speciality.TERRIBLE_CREATURE else rng.randint(8, 24)
            units.append(
                Unit(
                    f"f{n + 1}u{u + 1}",
                    f"{q.value} {sp.value}",
                    sp,
                    q,
                    figs,
                    PPF[q],
                    mercenary=rng.random() < 0.05,
                    mounted=sp is Speciality.CAVALRY,
                )
            )
        status = _pick(
            rng,
            (
                (Status.PROBE, 50),
                (Status.FULL_SPEED, 20),
                (Status.DEFEND, 25),
                (Status.CONFUSED, 5),
            ),
        )
        flist.append(
            Force(
                f"f{n + 1}",
                pid,
                sq,
                status,
                (
                    Command(
                        f"f{n + 1}c1",
                        General(f"f{n + 1}g1", rng.randint(2, 5), points=50),
                        tuple(units),
                    ),
                ),
                individuals=(Individual(f"f{n + 1}i1", IndividualKind.HERO, points=40),),
                name=f"Force {n + 1}",
            )
        )
    return CampaignState(
        turn=1,
        day=0,
        map=GameMap(width, height, features, zones),
        players=tuple(plist),
        holdings=tuple(holdings),
        forces=tuple(flist),
        options=options or Options(),
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
