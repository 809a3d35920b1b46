"""Immutable campaign state: enums and frozen dataclasses (spec §1, §2, §6.3).

A phase never mutates what it is given; it returns a new state built with
`dataclasses.replace` (see `CampaignState.with_forces` and friends).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rules.battle import PendingBattle
    from rules.orders import PlayerOrders

Coord = tuple[int, int]


def evolve[T](obj: T, **changes: object) -> T:
    """`dataclasses.replace` for the frozen slotted state classes, without re-running
    `__post_init__` (fields are already frozen): hot loops move hundreds of forces a turn.
    Not for `CampaignState`, whose derived index must be rebuilt."""
    cls: Any = type(obj)
    copier = _COPIERS.get(cls)
    if copier is None:
        copier = _COPIERS[cls] = _copier(cls)
    new: T = copier(obj, changes)
    return new


_Copier = Callable[[Any, dict[str, object]], Any]
_COPIERS: dict[type, _Copier] = {}


def _copier(cls: Any) -> _Copier:
    """The copy-with-changes function of a dataclass, made once per class.

    A frozen class refuses attribute stores, and `object.__setattr__` costs several times a
    plain store. So a slotted class (directly on `object`) is copied into an instance of a
    plain twin with the same slots, where stores are plain, then given the real class back
    (`__class__` assignment: the layouts are the same). The copy is written out field by field
    (generated like the dataclass's own `__init__`); other classes take the generic loop."""
    names = tuple(cls.__dataclass_fields__)
    known = frozenset(names)

    def unknown(changes: dict[str, object]) -> TypeError:
        return TypeError(f"{cls.__name__} has no field(s) {', '.join(set(changes) - known)}")

    if cls.__bases__ == (object,) and cls.__dict__.get("__slots__") == names:
        twin = type(f"_{cls.__name__}Copy", (), {"__slots__": names})
        lines = [f"    n.{name} = obj.{name}\n" for name in names]
        src = (
            "def copy(obj, changes):\n    n = new(twin)\n" + "".join(lines) + "    if changes:\n"
            "        if not known.issuperset(changes):\n            raise unknown(changes)\n"
            "        for k, v in changes.items():\n            setattr(n, k, v)\n"
            "    n.__class__ = cls\n    return n\n"
        )
        scope: dict[str, Any] = {
            "new": object.__new__,
            "twin": twin,
            "cls": cls,
            "known": known,
            "unknown": unknown,
        }
        exec(src, scope)  # noqa: S102 (built from the class's own field names)
        fast: _Copier = scope["copy"]
        return fast

    def generic(obj: Any, changes: dict[str, object]) -> Any:
        if not known.issuperset(changes):
            raise unknown(changes)
        new = object.__new__(cls)
        for name in names:
            object.__setattr__(new, name, getattr(obj, name))
        for name, value in changes.items():
            object.__setattr__(new, name, value)
        return new

    return generic


class Status(StrEnum):
    """A force's single status: one order or one reaction (§1.2, §1.3)."""

    FULL_SPEED = "full-speed"
    PROBE = "probe"
    DEFEND = "defend"
    CONFUSED = "confused"
    UNSTEADY = "unsteady"
    SHATTERED = "shattered"

    @property
    def is_order(self) -> bool:
        return self in ORDERS

    @property
    def is_reaction(self) -> bool:
        return not self.is_order


ORDERS = frozenset({Status.FULL_SPEED, Status.PROBE, Status.DEFEND})
REQUESTABLE = ORDERS


class Territory(StrEnum):
    FRIENDLY = "friendly"
    NEUTRAL = "neutral"
    ENEMY = "enemy"


class Feature(StrEnum):
    """Square features (§6.3). Jungle counts as forest; track as road."""

    OPEN = "open"
    UNCULTIVATED = "uncultivated"
    CULTIVATED = "cultivated"
    HILL = "hill"
    FOREST = "forest"
    JUNGLE = "jungle"
    MOUNTAIN = "mountain"
    SWAMP = "swamp"
    DESERT = "desert"
    WASTELAND = "wasteland"
    RIVER = "river"
    ROAD = "road"
    TRACK = "track"
    BRIDGE = "bridge"
    PASS = "pass"
    SEA = "sea"  # §6.11 [NARAN] waters: only a force with ships enters them
    LAKE = "lake"
    # R6.11.7 [NARAN]: what the map says of its rivers and waters (`rules.waterways`)
    NAVIGABLE = "navigable"  # a river boats and rafts sail along
    SHIP_NAVIGABLE = "ship-navigable"  # ... and ships too
    RAPIDS = "rapids"  # waterfalls or rapids: a portage
    RIVER_MOUTH = "river-mouth"  # where the river flows out: downstream is toward it
    REEFS = "reefs"  # reefs, islands or atolls at sea


class Weather(StrEnum):
    FINE = "fine"
    LIGHT_RAIN = "light-rain"
    HEAVY_RAIN = "heavy-rain"
    STORM = "storm"


class Climate(StrEnum):
    COLD = "cold"
    TEMPERATE = "temperate"
    TORRID = "torrid"
    DESERT = "desert"


class Season(StrEnum):
    SPRING = "spring"
    SUMMER = "summer"
    AUTUMN = "autumn"
    WINTER = "winter"
    GREAT_RAINS = "great-rains"
    DRY = "dry"


class Quality(StrEnum):
    LEVY = "levy"
    AVERAGE = "average"
    VETERAN = "veteran"
    ELITE = "elite"


class Speciality(StrEnum):
    """Unit specialities (R8.3.1)."""

    INFANTRY = "infantry"
    MISSILE = "missile"
    ARTILLERY = "artillery"
    CAVALRY = "cavalry"
    AIR_CAVALRY = "air-cavalry"
    TERRIBLE_CREATURE = "terrible-creature"


class IndividualKind(StrEnum):
    """Individual characters (§1.1), in Naran promotion precedence (R8.6.2)."""

    HERO = "hero"
    DESTROYER = "destroyer"
    SPECIAL_FIGHTER = "special-fighter"
    DRUID = "druid"
    WIZARD = "wizard"
    PRIEST = "priest"
    ENCHANTRESS = "enchantress"
    SEER = "seer"
    STANDARD_BEARER = "standard-bearer"
    HERALD = "herald"
    SCOUT = "scout"
    MESSENGER = "messenger"
    ORDER_BEARER = "order-bearer"


class Outcome(StrEnum):
    """A side's battle outcome (§7.3)."""

    WON = "won"
    STALEMATE = "stalemate"
    LOST = "lost"


# --- the map -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Holding:
    """A capital or minor holding (§2.3). `owner` changes on capture (R6.8.1)."""

    id: str
    square: Coord
    owner: str
    original_owner: str
    capital: bool = False
    name: str = ""
    feature: str | None = None  # R2.4 holding feature, when enabled
    sacked: bool = False  # §11.6 rule 1: unusable by anyone
    carried_by: str | None = None  # force id carrying it as loot
    destroyed: bool = False  # loot lost (§11.6 rule 4, A-47)
    artefacts_holder: str | None = None  # R8.7: player using its artefacts (None = owner)
    port: bool = False  # R6.11.1 [NARAN]: its force receives free ships (R6.11.2)


@dataclass(frozen=True, slots=True)
class GameMap:
    """A W×H grid. `features` lists non-open squares; `zones` names the player whose friendly
    third a square is (absent = neutral third, R2.2)."""

    width: int
    height: int
    features: Mapping[Coord, frozenset[Feature]] = field(default_factory=dict)
    zones: Mapping[Coord, str] = field(default_factory=dict)
    # features → the squares having any of them, computed once per map (`squares_with`)
    _with: dict[frozenset[Feature], frozenset[Coord]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        object.__setattr__(self, "features", MappingProxyType(dict(self.features)))
        object.__setattr__(self, "zones", MappingProxyType(dict(self.zones)))

    def squares_with(self, features: frozenset[Feature]) -> frozenset[Coord]:
        """The squares having any of `features` (the map's waters, its rivers…), kept: a
        phase asks at every step, and the map does not change."""
        got = self._with.get(features)
        if got is None:
            got = frozenset(sq for sq, fs in self.features.items() if fs & features)
            self._with[features] = got
        return got

    def on_map(self, c: Coord) -> bool:
        return 0 <= c[0] < self.width and 0 <= c[1] < self.height

    def features_at(self, c: Coord) -> frozenset[Feature]:
        return self.features.get(c, frozenset())

    def neighbours(self, c: Coord) -> list[Coord]:
        """The 8 adjacent squares on the map (§0: 8-neighbourhood)."""
        x, y = c
        if 0 < x < self.width - 1 and 0 < y < self.height - 1:  # off the edges: all eight
            return [
                (x - 1, y - 1),
                (x, y - 1),
                (x + 1, y - 1),
                (x - 1, y),
                (x + 1, y),
                (x - 1, y + 1),
                (x, y + 1),
                (x + 1, y + 1),
            ]
        return [
            (x + dx, y + dy)
            for dy in (-1, 0, 1)
            for dx in (-1, 0, 1)
            if (dx or dy) and 0 <= x + dx < self.width and 0 <= y + dy < self.height
        ]


# --- armies --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Unit:
    id: str
    type: str
    speciality: Speciality
    quality: Quality
    figures: int
    points_per_figure: int = 0
    mercenary: bool = False
    missile: bool = False  # carries missile weapons (R7.8.3); missile speciality implies it
    mounted: bool = False
    min_figures: int = 0  # R8.3.3: the army list's minimum size (0: not given)
    leader_points: int = 0  # R8.3.3: the extra cost of its mandatory Leader (Capo)

    @property
    def points(self) -> int:
        return self.figures * self.points_per_figure

    @property
    def has_missiles(self) -> bool:
        return self.missile or self.speciality is Speciality.MISSILE


@dataclass(frozen=True, slots=True)
class Individual:
    id: str
    kind: IndividualKind
    name: str = ""
    points: int = 0
    mounted: bool = False
    magic_points: int = 0


@dataclass(frozen=True, slots=True)
class General:
    id: str
    cv: int
    name: str = ""
    points: int = 0
    mounted: bool = False


@dataclass(frozen=True, slots=True)
class Command:
    """A general and the units under him (§1.1)."""

    id: str
    general: General | None
    units: tuple[Unit, ...] = ()


@dataclass(frozen=True, slots=True)
class Force:
    id: str
    owner: str
    square: Coord
    status: Status
    commands: tuple[Command, ...]
    individuals: tuple[Individual, ...] = ()
    leader_id: str | None = None  # tie-break designation (§1.1 Leader)
    name: str = ""
    loot: tuple[str, ...] = ()  # holding ids carried (§11.6)
    works_quota: int | None = None  # R7.8.6, fixed at first build while it stays
    works_square: Coord | None = None
    works_built: int = 0  # R7.8.6: points of works built there so far (never rebuilt)
    figures_lost: int = 0
    tokens: Mapping[str, int] = field(default_factory=dict)  # spirit, poisoned arrows, scouts…
    regroup_pool: Mapping[str, int] = field(default_factory=dict)  # R8.3 points per speciality
    ships: int = 0  # R6.11.2 [NARAN]: the ships it has, to sail with (naval movement)
    sea_folk: bool = False  # R6.11.6 [NARAN]: a pirate force, its ships and craft free
    boats: int = 0  # R6.11.4 [NARAN] minor craft: boats, canoes, pirogues
    rafts: int = 0  # ... barges and rafts
    afloat: bool = False  # on a river voyage that has not reached its landing square

    def __post_init__(self) -> None:
        object.__setattr__(self, "tokens", MappingProxyType(dict(self.tokens)))
        object.__setattr__(self, "regroup_pool", MappingProxyType(dict(self.regroup_pool)))

    @property
    def units(self) -> tuple[Unit, ...]:
        return tuple(u for c in self.commands for u in c.units)

    @property
    def generals(self) -> tuple[General, ...]:
        return tuple(c.general for c in self.commands if c.general is not None)

    @property
    def leader(self) -> General | None:
        """Highest CV; ties go to the designated leader, else the first listed (§1.1)."""
        best: General | None = None  # one pass: every phase asks for it, for every force
        for c in self.commands:
            g = c.general
            if g is None:
                continue
            if (
                best is None
                or g.cv > best.cv
                or (g.cv == best.cv and g.id == self.leader_id and best.id != self.leader_id)
            ):
                best = g
        return best

    @property
    def cv(self) -> int:
        leader = self.leader
        return leader.cv if leader else 0

    @property
    def figures(self) -> int:
        return sum(u.figures for u in self.units)

    @property
    def points(self) -> int:
        return (
            sum(u.points for u in self.units)
            + sum(i.points for i in self.individuals)
            + sum(g.points for g in self.generals)
        )

    @property
    def carries_loot(self) -> bool:
        return bool(self.loot)


# Forces are copied in every phase: their copier is made with the class, not in a turn.
_COPIERS[Force] = _copier(Force)

# --- players and campaign ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Player:
    id: str
    side: str  # alliance: players of one side share squares and never fight (R6.6.2, R6.7.6)
    name: str = ""
    race: str = ""
    initial_points: int = 0
    tribal: bool = False  # §9.4.2 tribal/fanatic table
    light: bool = True  # Light or Dark side, for holding features (R2.4)
    surrendered: bool = False
    role: str = ""  # scenario role, e.g. "raiders" / "defenders" (§11; rules.scenarios)


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """Cumulative battle record for Will to Fight (§9.1); holdings are derived from state."""

    battles_won: int = 0
    battles_lost: int = 0


@dataclass(frozen=True, slots=True)
class Options:
    """Campaign options: every [NARAN] rule and optional [SR] of the spec, with its default."""

    # §4 weather (NARAN)
    weather_phase: bool = False
    weather_per_force: bool = False  # R4.2.1
    climate: Climate = Climate.TEMPERATE
    season: Season = Season.SUMMER
    heavy_ground: bool = False  # R4.3.3
    storm_ends_battle: bool = False
    # §5 force test
    force_test_reaction_mode: str = "absolute"  # or "no_improvement" (R5.2.1)
    order_delivery_model: str = "immediate"  # R5.4 hook
    # §6 movement
    initiative_method: str = "by-force"  # or "by-army" (§6.1)
    initiative_counter_binding: str = "standing-orders"  # or "roller-force" (R6.1.5)
    naran_terrain: bool = True  # §0 exception: on by default
    rivers_only_at_crossings: bool = False  # R2.1.3
    terrain_attrition: bool = False  # §6.10
    attrition_formula: str = "d6_minus2_min0"
    naval_movement: bool = False  # §6.11 (provisional rules; not modelled on land grid)
    # §7 battle
    battle_result_method: str = "core"  # core | italian | english (R7.3)
    battle_max_turns: int = 12  # R7.2.2: one full clock revolution
    random_scenery: bool = False  # §7.7
    every_other_reading: str = "all"  # or "alternate"
    special_scenarios: bool = False  # §7.10
    naran_battle_terrain: bool = False  # §7.11
    siege_required_for_capital: bool = False  # R2.3.6 hook
    # §8 after battle
    naran_regroup: bool = False  # §8.3
    naran_promotion: bool = False  # R8.6.2
    holding_features: bool = False  # §2.4, §8.7
    deserter_rout_modifier: str = "force_shattered"  # or "figure_routed"
    gr_exits_deserter_checked: bool = False
    # §9
    reinforcement_interval_days: int = 7  # §9.3 SR; 1 = every turn
    capital_also_two_percent: bool = False  # A-40 alternative (D-16)
    supply_convoys: bool = False  # R9.3.9: every 7 days, where no scenario schedules them
    random_events: bool = False  # §9.4
    will_to_fight_as_printed: bool = False  # TV-12 "+3 per battle won" variant
    # §10
    unit_orders_max_points: int | None = None
    naran_probe_composition: bool = False  # §2.7
    # §11 Incursion
    incursion_loot_required: int = 1


@dataclass(frozen=True, slots=True)
class Snow:
    """Snow levels (R4.3.2): map-wide plus per mountain square. Never melt."""

    levels: int = 0
    mountain: Mapping[Coord, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "mountain", MappingProxyType(dict(self.mountain)))

    def at(self, square: Coord, features: frozenset[Feature]) -> int:
        if Feature.MOUNTAIN in features:
            return self.levels + self.mountain.get(square, 0)
        return self.levels


@dataclass(frozen=True, slots=True)
class CampaignState:
    turn: int
    day: int  # R9.2.3: Phase 6 of turn n sets day = n; before turn 1 day = 0
    map: GameMap
    players: tuple[Player, ...]
    holdings: tuple[Holding, ...]
    forces: tuple[Force, ...]
    options: Options = field(default_factory=Options)
    scenario: str | None = None  # e.g. "incursion"
    weather: Weather = Weather.FINE
    force_weather: Mapping[str, Weather] = field(default_factory=dict)  # weather_per_force
    heavy_ground_now: bool = False
    snow: Snow = field(default_factory=Snow)
    bank: Mapping[str, int] = field(default_factory=dict)  # reinforcement points (R9.3.8)
    records: Mapping[str, PlayerRecord] = field(default_factory=dict)
    initiative_winner: str | None = None  # last winner, for §5.3 alternation
    next_id: int = 1  # counter for new force/unit ids (reinforcements, events)
    ended: str | None = None  # campaign end reason, e.g. "raiders-win"
    winner: str | None = None  # winning side id, when the campaign ended with one
    # --- carried between resolve_turn (Phases 0–2) and resolve_after_battles (Phases 4–8) ---
    orders: Mapping[str, PlayerOrders] = field(default_factory=dict)  # this turn's orders
    pending_battles: tuple[PendingBattle, ...] = ()
    # force id → squares entered this turn (terrain attrition, §6.10)
    moves: Mapping[str, tuple[Coord, ...]] = field(default_factory=dict)
    wtf_triggers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # R9.1 triggers
    phase: str = "orders"  # orders → battles → after (for callers; replay checks it)
    _sides: Mapping[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)
    # force id → force, built on the first `force()` lookup of this state (a phase asks for
    # forces by id once or more per force: a scan each time grew with the square of them)
    _force_ix: dict[str, Force] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("force_weather", "bank", "records", "orders", "wtf_triggers", "moves"):
            object.__setattr__(self, name, MappingProxyType(dict(getattr(self, name))))
        object.__setattr__(self, "_sides", {p.id: p.side for p in self.players})

    # --- lookups ---
    def player(self, pid: str) -> Player:
        for p in self.players:
            if p.id == pid:
                return p
        raise KeyError(pid)

    def force(self, fid: str) -> Force:
        ix = self._force_ix
        if ix is None:
            ix = {}
            for f in self.forces:
                ix.setdefault(f.id, f)  # the first listed, as a scan finds it
            object.__setattr__(self, "_force_ix", ix)
        found = ix.get(fid)
        if found is None:
            raise KeyError(fid)
        return found

    def holding_at(self, c: Coord) -> Holding | None:
        for h in self.holdings:
            if h.square == c and not h.destroyed and h.carried_by is None:
                return h
        return None

    def side_of(self, pid: str) -> str:
        return self._sides[pid]

    def hostile(self, a: str, b: str) -> bool:
        """Players a and b are enemies (different sides)."""
        return self.side_of(a) != self.side_of(b)

    def territory(self, pid: str, c: Coord) -> Territory:
        """Territory of square c relative to player pid (R2.2). An ally's third counts as
        friendly [SR], a hostile player's third as enemy."""
        zone = self.map.zones.get(c)
        if zone is None:
            return Territory.NEUTRAL
        if zone == pid or not self.hostile(pid, zone):
            return Territory.FRIENDLY
        return Territory.ENEMY

    def record(self, pid: str) -> PlayerRecord:
        return self.records.get(pid, PlayerRecord())

    def snow_at(self, c: Coord) -> int:
        return self.snow.at(c, self.map.features_at(c))

    def weather_for(self, force_id: str) -> Weather:
        return self.force_weather.get(force_id, self.weather)

    def add_trigger(self, pid: str, trigger: str) -> CampaignState:
        """Record a Will-to-Fight trigger for this turn (R9.1.1–4)."""
        current = self.wtf_triggers.get(pid, ())
        if trigger in current:
            return self
        return replace(self, wtf_triggers={**self.wtf_triggers, pid: (*current, trigger)})

    def new_id(self, prefix: str) -> tuple[str, CampaignState]:
        """A fresh id for a force, unit or individual created during play."""
        return f"{prefix}{self.next_id}", replace(self, next_id=self.next_id + 1)

    def active_players(self) -> tuple[Player, ...]:
        return tuple(p for p in self.players if not p.surrendered)

    # --- functional updates ---
    def with_forces(self, forces: tuple[Force, ...] | list[Force]) -> CampaignState:
        return replace(self, forces=tuple(forces))

    def replace_force(self, force: Force) -> CampaignState:
        return replace(self, forces=tuple(force if f.id == force.id else f for f in self.forces))

    def without_force(self, fid: str) -> CampaignState:
        return replace(self, forces=tuple(f for f in self.forces if f.id != fid))

    def replace_holding(self, holding: Holding) -> CampaignState:
        return replace(
            self, holdings=tuple(holding if h.id == holding.id else h for h in self.holdings)
        )
