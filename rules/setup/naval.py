"""§6.11 naval movement [NARAN, provisional]: the wind test and the naval table (A-49)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules import tables as T
from rules.checks import force_movement_modifiers
from rules.dice import Dice, Modifier, RollRecord
from rules.setup.problems import SetupError
from rules.types import Status, Territory, Weather


class Waters(StrEnum):
    SEA = "sea"
    LAKE = "lake"
    RIVER = "river"  # river or stream


WIND_TABLE = ((2, "contrary", -3), (4, "calm", -2), (6, "favourable", +1))  # §6.11 wind test


def naval_squares(total: int) -> int:
    """§6.11 naval table: ≤2 → 1 (A-49b), 3–5 → 2, 6–8 → 3, 9+ → 4."""
    if total <= 2:
        return 1
    if total <= 5:
        return 2
    if total <= 8:
        return 3
    return 4


@dataclass(frozen=True, slots=True)
class NavalMovementResult:
    wind: str | None  # contrary / calm / favourable on sea or lake
    wind_record: RollRecord | None
    record: RollRecord | None  # None when the force may not move (Defend, storm)
    squares_table: int
    squares: int  # after the embark/disembark reduction (R6.11.8)

    @property
    def total(self) -> int | None:
        return self.record.total if self.record else None


def naval_movement(
    dice: Dice,
    *,
    purpose: str,
    waters: Waters,
    status: Status,
    territory: Territory = Territory.NEUTRAL,
    weather: Weather = Weather.FINE,
    ships: bool = True,
    reefs: bool = False,
    rafts_with_mounts: bool = False,
    rapids: bool = False,
    upstream: bool = False,
    downstream: bool = False,
    bridge_ahead: bool = False,
    embarking: bool = False,
    disembarking: bool = False,
) -> NavalMovementResult:
    """§6.11 [NARAN, provisional]: on sea or lake a wind test first, then 1D6 + modifiers on
    the naval table. On the embarking and the disembarking turn a total ≥ 3 loses one square
    each (R6.11.8, A-49c) [SR: never below one]. Like land movement, Defend never moves and
    a storm holds a force still."""
    if upstream and downstream:
        raise SetupError("a river move goes either upstream or downstream, not both")
    if status is Status.DEFEND or weather is Weather.STORM:
        return NavalMovementResult(None, None, None, 0, 0)
    mods: list[Modifier] = []
    wind = wind_rec = None
    if T.MOVE_WEATHER[weather]:
        mods.append(Modifier("weather", T.MOVE_WEATHER[weather], {"weather": weather.value}))
    if waters is Waters.RIVER:
        mods += [
            Modifier("rapids", -3 if rapids else 0),
            Modifier("upstream", -2 if upstream else 0),
            Modifier("bridge-ahead", -1 if bridge_ahead else 0),
            Modifier("rafts-with-mounts", -1 if rafts_with_mounts else 0),
            Modifier("downstream", +1 if downstream else 0),
        ]
    else:
        if upstream or downstream or rapids or bridge_ahead:
            raise SetupError("upstream, downstream, rapids and bridges apply on rivers only")
        wind_rec = dice.roll(
            purpose=f"{purpose}:wind",
            rule="§6.11 wind",
            judge=lambda t, _n: ("wind", {"wind": _wind(t)[0]}),
        )
        wind, wind_mod = _wind(wind_rec.value)
        mods += [
            Modifier("wind", wind_mod, {"wind": wind}),
            Modifier("reefs", -1 if reefs else 0),
            Modifier("no-ships", -2 if not ships else 0),
            Modifier("rafts-with-mounts", -1 if rafts_with_mounts else 0),
        ]
    mods += force_movement_modifiers(status=status, territory=territory)
    rec = dice.roll(
        purpose=purpose,
        rule="§6.11",
        modifiers=mods,
        judge=lambda t, _n: ("naval-squares", {"n": naval_squares(t)}),
    )
    assert rec.total is not None
    table = naval_squares(rec.total)
    squares = table
    if rec.total >= 3:
        squares = max(1, table - int(embarking) - int(disembarking))
    return NavalMovementResult(wind, wind_rec, rec, table, squares)


def _wind(natural: int) -> tuple[str, int]:
    for upper, name, mod in WIND_TABLE:
        if natural <= upper:
            return name, mod
    raise SetupError(f"{natural} is not a D6 face")
