"""Scenarios as data: "a scenario is a data file of options and scheduled tables, so that
users can write their own". The Incursion (§11) is `incursion.toml` beside this module.

Schema (TOML; every key is checked and a bad file raises `ScenarioError`):

    id = "incursion"                 # the name `CampaignState.scenario` holds
    name = "Incursion"
    source = "§11, p. 42-48"         # optional, free text
    snow_effects = ["movement", "force-test", "will-to-fight"]   # §11.5; optional

    [options]                        # overrides of `rules.types.Options` fields
    weather_phase = false

    [roles.<role>]                   # players map to roles by `Player.role`
    name = "Raiders"
    points_ratio = 2                 # initial army points relative to the other roles
    tribal = true                    # optional
    start_status = "defend"          # optional: a forced initial order (R11.3.2)
    min_holdings = 1                 # optional, default 1 (the capital)
    max_holdings = 1                 # optional, no limit by default

    [victory]                        # all optional
    loot_to_capital = "raiders"      # R11.7.2: that role wins by bringing loot home
    end_day = 42                     # R11.7.3: the campaign ends on this day ...
    end_reason = "honourable-withdrawal"   # ... with this reason and no winner

    [[schedule]]                     # key days; roles appear in processing order
    day = 7
    [schedule.<role>]
    reinforcements = "full"          # full / half / none (§11.8; half = floor of half)
    snow = [{ roll = "1-4", levels = 0 }, { roll = "5-6", levels = 1 }]   # 1D6, optional
    events = [{ roll = "1-3", event = "none" }, { roll = 4, event = "points", points = 100 }]

An events row names an effect from `EVENT_PARAMS` with its parameters. Tables are 1D6 and
must give every face exactly once.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from rules.errors import ScenarioError
from rules.types import CampaignState, Options, Status

HERE = Path(__file__).parent
REINFORCEMENTS = ("full", "half", "none")
SNOW_EFFECTS = frozenset({"movement", "force-test", "will-to-fight"})

# Effects a scheduled events table may name, with their parameters and types. The phase
# that applies them is rules.phases.random_events; the general tables of §9.4 use the same effects.
EVENT_PARAMS: Mapping[str, Mapping[str, type]] = MappingProxyType(
    {
        "none": {},
        "points": {"points": int, "reroll": bool},  # extra reinforcement points (+ roll again)
        "tokens": {"kind": str, "dice": int, "target": str},  # e.g. 1D6 spirit tokens
        "hero": {"points": int},  # a Hero on foot joins (+ points: "a hero rouses the people")
        "individual": {"kind": str},  # "an individual emerges"
        "scouts": {"count": int},
        "wizard": {"magic_points": int},
        "leader-stress": {},  # one leader's CV becomes min(CV, 2)
        "leader-emerges": {},  # one leader +1 CV, maximum 6
        "blizzard": {},  # Shattered; all Shattered → one force annihilated
        "lose-bank": {"points": int},  # epidemic: lose points from current reinforcements
        # the rest of the §9.4 vocabulary, usable in scenario files too
        "magic-item": {},
        "ars-arcana": {"points": int},
        "wizard-points": {"magic_points": int},
        "epidemic-holding": {"points": int},
        "epidemic-capital": {"points": int},
        "catastrophe": {},
    }
)
REQUIRED_PARAMS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"points": ("points",), "lose-bank": ("points",), "tokens": ("kind",)}
)
TOKEN_TARGETS = ("forces", "archers")


@dataclass(frozen=True, slots=True)
class EventSpec:
    key: str
    params: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def get(self, name: str, default: Any = None) -> Any:
        return self.params.get(name, default)


@dataclass(frozen=True, slots=True)
class TableRow:
    low: int
    high: int
    value: Any  # snow levels (int) or an EventSpec


@dataclass(frozen=True, slots=True)
class Table:
    """A 1D6 table; rows cover every face exactly once (checked on load)."""

    rows: tuple[TableRow, ...]
    sides: int = 6

    def lookup(self, roll: int) -> Any:
        for row in self.rows:
            if row.low <= roll <= row.high:
                return row.value
        raise ScenarioError(f"no row for {roll} in a D{self.sides} table")


@dataclass(frozen=True, slots=True)
class RoleDay:
    reinforcements: str = "none"
    snow: Table | None = None
    events: Table | None = None


@dataclass(frozen=True, slots=True)
class Convoys:
    """R9.3.9: a supply convoy every `every` days (seven in the book). The book gives it no
    effect ([SR]: a scheduled hook); a scenario may give each role's convoy one, an event of
    the same vocabulary as its key-day tables."""

    every: int = 7
    effects: Mapping[str, EventSpec] = field(default_factory=dict)  # role id → effect

    def __post_init__(self) -> None:
        object.__setattr__(self, "effects", MappingProxyType(dict(self.effects)))

    def due(self, day: int) -> bool:
        return day > 0 and day % self.every == 0


@dataclass(frozen=True, slots=True)
class KeyDay:
    day: int
    roles: Mapping[str, RoleDay]  # in file order = processing order

    def __post_init__(self) -> None:
        object.__setattr__(self, "roles", MappingProxyType(dict(self.roles)))


@dataclass(frozen=True, slots=True)
class Role:
    id: str
    name: str
    points_ratio: int = 1
    tribal: bool = False
    start_status: Status | None = None
    min_holdings: int = 1
    max_holdings: int | None = None


@dataclass(frozen=True, slots=True)
class Victory:
    loot_to_capital: str | None = None
    end_day: int | None = None
    end_reason: str = "honourable-withdrawal"


@dataclass(frozen=True, slots=True)
class Scenario:
    id: str
    name: str
    roles: tuple[Role, ...]
    options: Mapping[str, Any] = field(default_factory=dict)
    victory: Victory = field(default_factory=Victory)
    schedule: tuple[KeyDay, ...] = ()
    snow_effects: frozenset[str] = frozenset()
    source: str = ""
    convoys: Convoys | None = None  # R9.3.9, when the scenario schedules supply convoys

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))

    def role(self, role_id: str) -> Role:
        for r in self.roles:
            if r.id == role_id:
                return r
        raise ScenarioError(f"scenario {self.id!r} has no role {role_id!r}")

    def key_day(self, day: int) -> KeyDay | None:
        for k in self.schedule:
            if k.day == day:
                return k
        return None

    def apply_options(self, options: Options) -> Options:
        """The campaign options with this scenario's overrides."""
        return replace(options, **self.options)

    def initial_points(self, role_id: str, *, known_role: str, known_points: int) -> int:
        """R11.2.3: army points from the roles' ratio, e.g. raiders 4000 → defenders 2000."""
        return known_points * self.role(role_id).points_ratio // self.role(known_role).points_ratio


# --- loading ----------------------------------------------------------------------------------


def load_scenario(name_or_path: str | Path) -> Scenario:
    """A built-in scenario by name (e.g. "incursion") or any scenario file by path."""
    text = str(name_or_path)
    if isinstance(name_or_path, Path) or text.endswith(".toml") or "/" in text:
        return _load_file(Path(name_or_path))
    return _load_builtin(text)


@cache
def _load_builtin(name: str) -> Scenario:
    path = HERE / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in HERE.glob("*.toml")))
        raise ScenarioError(f"there is no scenario named {name!r} (known: {known})")
    return _load_file(path)


def _load_file(path: Path) -> Scenario:
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise ScenarioError(f"scenario file {path} does not exist") from None
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"scenario file {path} is not valid TOML: {e}") from None
    return parse_scenario(data, where=path.name)


def scenario_for(state: CampaignState) -> Scenario | None:
    """The scenario the campaign plays, or None for a campaign under the general rules."""
    if state.scenario is None:
        return None
    return load_scenario(state.scenario)


def parse_scenario(data: Mapping[str, Any], *, where: str = "scenario") -> Scenario:
    """Build and check a `Scenario` from parsed TOML data."""
    _keys(
        data,
        {
            "id",
            "name",
            "source",
            "snow_effects",
            "options",
            "roles",
            "victory",
            "schedule",
            "convoys",
        },
        where,
    )
    sid = _str(data, "id", where)
    name = _str(data, "name", where, default=sid)
    roles_raw = data.get("roles")
    if not isinstance(roles_raw, dict) or not roles_raw:
        raise ScenarioError(f"{where}: [roles] must define at least one role")
    roles = tuple(_role(rid, r, f"{where}: roles.{rid}") for rid, r in roles_raw.items())
    role_ids = {r.id for r in roles}
    effects = data.get("snow_effects", [])
    if not isinstance(effects, list) or not set(effects) <= SNOW_EFFECTS:
        raise ScenarioError(
            f"{where}: snow_effects must be a list drawn from {', '.join(sorted(SNOW_EFFECTS))}"
        )
    victory = _victory(data.get("victory", {}), role_ids, f"{where}: victory")
    schedule = tuple(
        _key_day(k, role_ids, f"{where}: schedule[{i}]")
        for i, k in enumerate(_list(data, "schedule", where))
    )
    days = [k.day for k in schedule]
    if len(days) != len(set(days)):
        raise ScenarioError(f"{where}: a key day appears twice in the schedule")
    return Scenario(
        id=sid,
        name=name,
        source=_str(data, "source", where, default=""),
        roles=roles,
        options=_options(data.get("options", {}), f"{where}: options"),
        victory=victory,
        schedule=tuple(sorted(schedule, key=lambda k: k.day)),
        snow_effects=frozenset(effects),
        convoys=_convoys(data["convoys"], role_ids, f"{where}: convoys")
        if "convoys" in data
        else None,
    )


def _convoys(raw: Any, role_ids: set[str], where: str) -> Convoys:
    """[convoys] every = 7 and, per role, `<role> = { event = …, … }` (R9.3.9)."""
    _keys(raw, {"every"} | role_ids, where)
    every = _int(raw, "every", where, default=7, minimum=1)
    effects = {
        rid: _event_row(dict(v), f"{where}.{rid}") if isinstance(v, dict) else _not_table(where)
        for rid, v in raw.items()
        if rid != "every"
    }
    return Convoys(every, effects)


def _not_table(where: str) -> EventSpec:
    raise ScenarioError(f"{where}: a role's convoy effect must be a table like {{ event = … }}")


def _keys(d: Any, allowed: set[str], where: str) -> None:
    if not isinstance(d, dict):
        raise ScenarioError(f"{where}: expected a table, got {type(d).__name__}")
    unknown = set(d) - allowed
    if unknown:
        raise ScenarioError(
            f"{where}: unknown key(s) {', '.join(sorted(unknown))} "
            f"(allowed: {', '.join(sorted(allowed))})"
        )


def _str(d: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
    v = d.get(key, default)
    if not isinstance(v, str) or (default is None and not v):
        raise ScenarioError(f"{where}: {key} must be a non-empty text")
    return v


def _int(
    d: Mapping[str, Any], key: str, where: str, default: int | None = None, minimum: int = 0
) -> int:
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise ScenarioError(f"{where}: {key} must be an integer ≥ {minimum}, got {v!r}")
    return v


def _list(d: Mapping[str, Any], key: str, where: str) -> list[Any]:
    v = d.get(key, [])
    if not isinstance(v, list):
        raise ScenarioError(f"{where}: {key} must be a list")
    return v


def _options(raw: Any, where: str) -> dict[str, Any]:
    _keys(raw, {f.name for f in fields(Options)}, where)
    defaults = Options()
    out: dict[str, Any] = {}
    for k, v in raw.items():
        current = getattr(defaults, k)
        if isinstance(current, Enum):
            try:
                v = type(current)(v)
            except ValueError:
                allowed = ", ".join(m.value for m in type(current))
                raise ScenarioError(f"{where}: {k} = {v!r} is not one of {allowed}") from None
        elif current is not None and type(v) is not type(current):
            raise ScenarioError(
                f"{where}: {k} must be {type(current).__name__}, got {type(v).__name__}"
            )
        out[k] = v
    return out


def _role(rid: str, raw: Any, where: str) -> Role:
    _keys(
        raw,
        {"name", "points_ratio", "tribal", "start_status", "min_holdings", "max_holdings"},
        where,
    )
    tribal = raw.get("tribal", False)
    if not isinstance(tribal, bool):
        raise ScenarioError(f"{where}: tribal must be true or false")
    start = raw.get("start_status")
    status = None
    if start is not None:
        try:
            status = Status(start)
        except ValueError:
            raise ScenarioError(f"{where}: start_status {start!r} is not a status") from None
        if not status.is_order:
            raise ScenarioError(f"{where}: start_status must be an order, not {start!r}")
    min_h = _int(raw, "min_holdings", where, default=1, minimum=1)
    max_h = _int(raw, "max_holdings", where, minimum=min_h) if "max_holdings" in raw else None
    return Role(
        id=rid,
        name=_str(raw, "name", where, default=rid),
        points_ratio=_int(raw, "points_ratio", where, default=1, minimum=1),
        tribal=tribal,
        start_status=status,
        min_holdings=min_h,
        max_holdings=max_h,
    )


def _victory(raw: Any, role_ids: set[str], where: str) -> Victory:
    _keys(raw, {"loot_to_capital", "end_day", "end_reason"}, where)
    loot = raw.get("loot_to_capital")
    if loot is not None and loot not in role_ids:
        raise ScenarioError(f"{where}: loot_to_capital names unknown role {loot!r}")
    end_day = raw.get("end_day")
    if end_day is not None:
        end_day = _int(raw, "end_day", where, minimum=1)
    return Victory(
        loot_to_capital=loot,
        end_day=end_day,
        end_reason=_str(raw, "end_reason", where, default="honourable-withdrawal"),
    )


def _key_day(raw: Any, role_ids: set[str], where: str) -> KeyDay:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{where}: expected a table")
    _keys(raw, {"day"} | role_ids, where)
    day = _int(raw, "day", where, minimum=1)
    where = f"{where} (day {day})"
    roles = {rid: _role_day(v, f"{where}.{rid}") for rid, v in raw.items() if rid != "day"}
    if sum(1 for r in roles.values() if r.snow is not None) > 1:
        raise ScenarioError(f"{where}: only one role may roll the snow table (R11.8)")
    return KeyDay(day, roles)


def _role_day(raw: Any, where: str) -> RoleDay:
    _keys(raw, {"reinforcements", "snow", "events"}, where)
    reinf = raw.get("reinforcements", "none")
    if reinf not in REINFORCEMENTS:
        raise ScenarioError(
            f"{where}: reinforcements must be one of {', '.join(REINFORCEMENTS)}, got {reinf!r}"
        )
    snow = None
    if "snow" in raw:
        snow = _table(raw["snow"], f"{where}.snow", _snow_row)
    events = None
    if "events" in raw:
        events = _table(raw["events"], f"{where}.events", _event_row)
    return RoleDay(reinf, snow, events)


def _snow_row(row: dict[str, Any], where: str) -> int:
    _keys(row, {"roll", "levels"}, where)
    return _int(row, "levels", where)


def _event_row(row: dict[str, Any], where: str) -> EventSpec:
    key = row.get("event")
    if not isinstance(key, str) or key not in EVENT_PARAMS:
        raise ScenarioError(f"{where}: event {key!r} is not one of {', '.join(EVENT_PARAMS)}")
    allowed = EVENT_PARAMS[key]
    _keys(row, {"roll", "event", *allowed}, where)
    params = {}
    for p, typ in allowed.items():
        if p not in row:
            if p in REQUIRED_PARAMS.get(key, ()):
                raise ScenarioError(f"{where}: event {key!r} needs {p}")
            continue
        v = row[p]
        if type(v) is not typ or (isinstance(v, int) and v < 0):  # bool is never < 0
            raise ScenarioError(f"{where}: {p} must be a {typ.__name__} ≥ 0, got {v!r}")
        params[p] = v
    if key == "tokens" and params.get("target", "forces") not in TOKEN_TARGETS:
        raise ScenarioError(f"{where}: target must be one of {', '.join(TOKEN_TARGETS)}")
    return EventSpec(key, params)


def _table(raw: Any, where: str, parse_row: Any, sides: int = 6) -> Table:
    if not isinstance(raw, list) or not raw:
        raise ScenarioError(f"{where}: a table is a non-empty list of rows")
    rows: list[TableRow] = []
    seen: list[int] = []
    for i, row in enumerate(raw):
        w = f"{where}[{i}]"
        if not isinstance(row, dict):
            raise ScenarioError(f"{w}: a row is a table with roll = ...")
        low, high = _roll_range(row.get("roll"), w, sides)
        rows.append(TableRow(low, high, parse_row(row, w)))
        seen.extend(range(low, high + 1))
    if sorted(seen) != list(range(1, sides + 1)):
        raise ScenarioError(f"{where}: the rows must cover each face 1-{sides} exactly once")
    return Table(tuple(rows), sides)


def _roll_range(roll: Any, where: str, sides: int) -> tuple[int, int]:
    if isinstance(roll, int) and not isinstance(roll, bool):
        low = high = roll
    elif isinstance(roll, str):
        parts = roll.replace("–", "-").split("-")
        try:
            low, high = (int(parts[0]), int(parts[-1])) if len(parts) <= 2 else (0, -1)
        except ValueError:
            raise ScenarioError(f"{where}: roll {roll!r} is not N or N-M") from None
    else:
        raise ScenarioError(f'{where}: roll must be N or "N-M", got {roll!r}')
    if not 1 <= low <= high <= sides:
        raise ScenarioError(f"{where}: roll {roll!r} is not a range within 1-{sides}")
    return low, high
