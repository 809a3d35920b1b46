"""Fantasy Warriors Campaign rules engine: a pure, deterministic library (standard library only).

This module is the engine's public API: the web app imports from `rules` only, never from its
submodules (an import-linter contract). Grouped by concern:

- state: `CampaignState`, `GameMap`, `Force`, `Player`, `Holding`, `Options` … (rules.types)
- data: `to_data`, `from_data`, `FormatError` (rules.codec)
- events: `EVENT_TYPES` (type name → class), each declaring who may see it under fog of war
  (`Fog`, `Seen`, `Named`: rules.seen)
- dice: `SeededDice`, `ScriptedDice`, `derive_seed` and the ledger (rules.dice); the ledger's
  codes `LEDGER_MODIFIERS`, `LEDGER_OUTCOMES`, `LEDGER_FATES` (rules.ledger_codes)
- orders: `PlayerOrders`, `ForceOrders`, `validate_orders`, `legal_moves` (rules.orders)
- single tests: `force_test_modifiers`, `force_test_pass_probability`, `battle_result`
- the turn: `resolve_turn`, `resolve_after_battles` (rules.turn); `validate_result`
- events' codes: `event_codes` (the closed sets of their reason and outcome fields)
- battles: `BattlePack`, `BattleResult`, `PendingBattle` (rules.battle)
- set-up: territory thirds, holding placement, force organisation (rules.setup.*)
- scenarios: `load_scenario`; synthetic campaigns: `generate_campaign`, `generate_orders`
- the tactical engine: `BattleInput`, `tactical_resolve`, `tactical_simulate`, `what_if` …;
  `odds_pool(runs)` gives the process pool to pass as `tactical_simulate(..., pool=...)`
  (rules.cli.pool: the engine itself starts no process)
"""

from rules import event_codes
from rules.battle import BattlePack, BattleResult, IndividualFate, PendingBattle, UnitLoss
from rules.checks import battle_result, force_test_modifiers, force_test_pass_probability
from rules.cli.pool import odds_pool
from rules.codec import FormatError, from_data, to_data
from rules.dice import Dice, Modifier, RollRecord, ScriptedDice, SeededDice, derive_seed
from rules.errors import IllegalOrders, InconsistentState, InvalidResult, OrderError, RulesError
from rules.events import EVENT_TYPES
from rules.generate import generate_campaign, generate_orders
from rules.ledger_codes import FATES as LEDGER_FATES
from rules.ledger_codes import MODIFIERS as LEDGER_MODIFIERS
from rules.ledger_codes import OUTCOMES as LEDGER_OUTCOMES
from rules.orders import (
    ARMY_INITIATIVE,
    EVENT_TARGET_KINDS,
    CountermarchWhen,
    ForceOrders,
    PlayerOrders,
    ReinforcementRequest,
    ZocPolicy,
    defend_is_conditional,
    has_weather_magic,
    legal_moves,
    may_sack,
    validate_orders,
)
from rules.phases.after_battle import validate_result
from rules.phases.battle_pack import setup_rule_features
from rules.phases.event_choices import event_choices_offered
from rules.phases.reinforcements import request_problems as reinforcement_request_problems
from rules.scenarios import Scenario, load_scenario
from rules.seen import Fog, Named, Seen
from rules.setup.forces import validate_force_organisation
from rules.setup.holdings import RACE_HOLDING_TERRAIN, chebyshev, validate_holding_placement
from rules.setup.problems import SetupError, SetupProblem
from rules.setup.references import validate_state_references
from rules.setup.rolls import (
    BURIAL_MOUND_RELICS,
    SEASON_FIXED,
    climate_roll,
    holding_feature_roll,
    opposed_roll,
    season_roll,
)
from rules.setup.sea_folk import validate_sea_folk_force
from rules.setup.terrain_attrition import ATTRITION_FORMULAS
from rules.setup.territory import Thirds, territory_thirds, territory_zones
from rules.setup.unit_orders import UnitOrder, unit_order_test, unit_orders_command_test
from rules.tables import HOLDING_FEATURES
from rules.tactical import (
    BattleInput,
    Odds,
    TacticalError,
    TacticalOutcome,
    battle_input_from_data,
    battle_input_from_state,
)
from rules.tactical import resolve as tactical_resolve
from rules.tactical import simulate as tactical_simulate
from rules.tactical.inputs import SEEN_CV, SEEN_MIX, seen_force, what_if
from rules.turn import TurnOutcome, resolve_after_battles, resolve_turn
from rules.types import (
    CampaignState,
    Climate,
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
    Outcome,
    Player,
    PlayerRecord,
    Quality,
    Season,
    Snow,
    Speciality,
    Status,
    Territory,
    Unit,
    Weather,
)
from rules.waterways import craft_carry, craft_needed, ships_needed

__all__ = [
    "event_codes",
    "ARMY_INITIATIVE",
    "EVENT_TARGET_KINDS",
    "EVENT_TYPES",
    "ATTRITION_FORMULAS",
    "HOLDING_FEATURES",
    "RACE_HOLDING_TERRAIN",
    "SEEN_CV",
    "SEEN_MIX",
    "BattleInput",
    "BattlePack",
    "BURIAL_MOUND_RELICS",
    "BattleResult",
    "CampaignState",
    "Climate",
    "Command",
    "Coord",
    "CountermarchWhen",
    "Dice",
    "Feature",
    "Fog",
    "Force",
    "ForceOrders",
    "FormatError",
    "GameMap",
    "General",
    "Holding",
    "IllegalOrders",
    "InconsistentState",
    "Individual",
    "IndividualFate",
    "IndividualKind",
    "InvalidResult",
    "LEDGER_FATES",
    "LEDGER_MODIFIERS",
    "LEDGER_OUTCOMES",
    "Modifier",
    "Named",
    "Odds",
    "Options",
    "OrderError",
    "Outcome",
    "PendingBattle",
    "Player",
    "PlayerOrders",
    "PlayerRecord",
    "Quality",
    "ReinforcementRequest",
    "RollRecord",
    "RulesError",
    "SEASON_FIXED",
    "Seen",
    "Scenario",
    "ScriptedDice",
    "Season",
    "SeededDice",
    "SetupError",
    "SetupProblem",
    "Snow",
    "Speciality",
    "Status",
    "TacticalError",
    "TacticalOutcome",
    "Territory",
    "Thirds",
    "TurnOutcome",
    "Unit",
    "UnitLoss",
    "UnitOrder",
    "Weather",
    "ZocPolicy",
    "battle_input_from_data",
    "battle_input_from_state",
    "battle_result",
    "chebyshev",
    "climate_roll",
    "defend_is_conditional",
    "derive_seed",
    "force_test_modifiers",
    "force_test_pass_probability",
    "from_data",
    "generate_campaign",
    "generate_orders",
    "has_weather_magic",
    "holding_feature_roll",
    "legal_moves",
    "load_scenario",
    "event_choices_offered",
    "may_sack",
    "odds_pool",
    "opposed_roll",
    "reinforcement_request_problems",
    "setup_rule_features",
    "resolve_after_battles",
    "resolve_turn",
    "season_roll",
    "ships_needed",
    "craft_needed",
    "craft_carry",
    "seen_force",
    "tactical_resolve",
    "tactical_simulate",
    "territory_thirds",
    "territory_zones",
    "to_data",
    "unit_order_test",
    "unit_orders_command_test",
    "validate_force_organisation",
    "validate_sea_folk_force",
    "validate_holding_placement",
    "validate_orders",
    "validate_result",
    "validate_state_references",
    "what_if",
]
