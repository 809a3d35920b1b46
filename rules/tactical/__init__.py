"""The tactical engine: a pure, deterministic auto-resolver for campaign battles.

It takes a battle pack with the rosters of its forces (`BattleInput`) and an injected `Dice`,
and returns a `BattleResult` in the shape of a tabletop entry (spec §7.1, §7.3). Its
mechanics are those of the Drakerys resolution system (spec §10.4); docs/tactical-engine.md
says how it decides and where not to trust it.

- `battle_input_from_state(state, pending)`, `battle_input_from_data(data, battle_id)`
- `fight(input, dice) -> BattleResult`; `resolve(input, dice) -> TacticalOutcome` (with log)
- `simulate(input, runs, seed, pool=None) -> Odds` (a `RunPool` shares the runs out)
- `profiles`: the unit-profile table
"""

from rules.tactical.engine import TacticalOutcome, compile_input, fight, resolve
from rules.tactical.inputs import (
    BattleInput,
    TacticalError,
    battle_input_from_data,
    battle_input_from_state,
    check_input,
)
from rules.tactical.odds import DEFAULT_RUNS, Odds, RunPool, SideOdds, simulate
from rules.tactical.profiles import Profile, profile, unit_profile

__all__ = [
    "DEFAULT_RUNS",
    "BattleInput",
    "Odds",
    "Profile",
    "RunPool",
    "SideOdds",
    "TacticalError",
    "TacticalOutcome",
    "battle_input_from_data",
    "battle_input_from_state",
    "check_input",
    "compile_input",
    "fight",
    "profile",
    "resolve",
    "simulate",
    "unit_profile",
]
