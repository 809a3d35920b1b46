"""Fantasy Warriors Campaign rules engine: a pure, deterministic library (standard library only).

Public API:

- state: `CampaignState`, `GameMap`, `Force`, `Player`, `Holding`, `Options` (rules.types)
- dice: `SeededDice`, `ScriptedDice` and the ledger (rules.dice)
- orders: `PlayerOrders`, `ForceOrders`, `validate_orders`, `legal_moves` (rules.orders)
- the turn: `resolve_turn`, `resolve_after_battles` (rules.turn)
- battles: `BattlePack`, `BattleResult` (rules.battle)
"""

from rules.battle import BattlePack, BattleResult, IndividualFate, PendingBattle, UnitLoss
from rules.dice import Dice, Modifier, RollRecord, ScriptedDice, SeededDice
from rules.errors import IllegalOrders, InconsistentState, InvalidResult, OrderError, RulesError
from rules.orders import (
    CountermarchWhen,
    ForceOrders,
    PlayerOrders,
    ReinforcementRequest,
    ZocPolicy,
    legal_moves,
    validate_orders,
)
from rules.turn import TurnOutcome, resolve_after_battles, resolve_turn
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
    Options,
    Outcome,
    Player,
    Quality,
    Speciality,
    Status,
    Territory,
    Unit,
    Weather,
)

__all__ = [
    "BattlePack",
    "BattleResult",
    "CampaignState",
    "Command",
    "Coord",
    "CountermarchWhen",
    "Dice",
    "Feature",
    "Force",
    "ForceOrders",
    "GameMap",
    "General",
    "Holding",
    "IllegalOrders",
    "InconsistentState",
    "Individual",
    "IndividualFate",
    "InvalidResult",
    "Modifier",
    "Options",
    "OrderError",
    "Outcome",
    "PendingBattle",
    "Player",
    "PlayerOrders",
    "Quality",
    "ReinforcementRequest",
    "RollRecord",
    "RulesError",
    "ScriptedDice",
    "SeededDice",
    "Speciality",
    "Status",
    "Territory",
    "TurnOutcome",
    "Unit",
    "UnitLoss",
    "Weather",
    "ZocPolicy",
    "legal_moves",
    "resolve_after_battles",
    "resolve_turn",
    "validate_orders",
]
