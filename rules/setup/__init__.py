"""Set-up validations and the tabletop's small calculators, one module per rule area.

- problems: `SetupError`, `SetupProblem` (validations return problems as data)
- forces (R2.5), sea_folk (R6.11.6): force organisation
- rolls (R2.2.3, R2.3.1, R4.1): the dice of the set-up
- territory (R2.2), holdings (R2.3), references (state ids), incursion (§11.2): the map
- battle_clock (R7.2), italian (R7.3.6), unit_orders (§10): aids for the battle table
- terrain_attrition (§6.10), naval (§6.11): movement calculators

Every die goes through an injected `Dice` and leaves one ledger entry per roll. This package
re-exports each module's public names, so `from rules.setup import X` keeps working; the web
app takes them from `rules`.
"""

from rules.setup.battle_clock import (
    CLOCK_SEGMENTS,
    DAY_SEGMENTS,
    NIGHT_SEGMENTS,
    BattleDuration,
    TimeSpell,
    battle_turn_count,
    clock_segment,
    segment_name,
)
from rules.setup.forces import CV_MIN, ForceOrganisation, validate_force_organisation
from rules.setup.holdings import (
    FORBIDDEN_HOLDING_TERRAIN,
    HOLDING_MIN_DISTANCE,
    RACE_HOLDING_TERRAIN,
    HoldingPlacement,
    chebyshev,
    holding_spacing_ok,
    race_key,
    validate_holding_placement,
)
from rules.setup.incursion import (
    INCURSION_DEFENDER_MIN_HOLDINGS,
    INCURSION_RATIO,
    IncursionHoldings,
    IncursionPoints,
    incursion_points,
    validate_incursion_holdings,
)
from rules.setup.italian import italian_draw_threshold
from rules.setup.naval import WIND_TABLE, NavalMovementResult, Waters, naval_movement, naval_squares
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
from rules.setup.sea_folk import SEA_FOLK_FOOT, SeaFolkForce, validate_sea_folk_force
from rules.setup.terrain_attrition import (
    ATTRITION_FORMULAS,
    UnitAttrition,
    attrition_losses,
    terrain_attrition,
)
from rules.setup.territory import Thirds, territory_thirds, territory_zones
from rules.setup.unit_orders import (
    CHAOS_ORDER,
    CommandTestResult,
    UnitOrder,
    UnitOrderResult,
    unit_order_modifiers,
    unit_order_test,
    unit_orders_command_test,
)

__all__ = [
    "ATTRITION_FORMULAS",
    "BURIAL_MOUND_RELICS",
    "BattleDuration",
    "CHAOS_ORDER",
    "CLOCK_SEGMENTS",
    "CV_MIN",
    "CommandTestResult",
    "DAY_SEGMENTS",
    "FORBIDDEN_HOLDING_TERRAIN",
    "ForceOrganisation",
    "HOLDING_MIN_DISTANCE",
    "HoldingPlacement",
    "INCURSION_DEFENDER_MIN_HOLDINGS",
    "INCURSION_RATIO",
    "IncursionHoldings",
    "IncursionPoints",
    "NIGHT_SEGMENTS",
    "NavalMovementResult",
    "RACE_HOLDING_TERRAIN",
    "SEASON_FIXED",
    "SEA_FOLK_FOOT",
    "SeaFolkForce",
    "SetupError",
    "SetupProblem",
    "Thirds",
    "TimeSpell",
    "UnitAttrition",
    "UnitOrder",
    "UnitOrderResult",
    "WIND_TABLE",
    "Waters",
    "attrition_losses",
    "battle_turn_count",
    "chebyshev",
    "climate_roll",
    "clock_segment",
    "holding_feature_roll",
    "holding_spacing_ok",
    "incursion_points",
    "italian_draw_threshold",
    "naval_movement",
    "naval_squares",
    "opposed_roll",
    "race_key",
    "season_roll",
    "segment_name",
    "terrain_attrition",
    "territory_thirds",
    "territory_zones",
    "unit_order_modifiers",
    "unit_order_test",
    "unit_orders_command_test",
    "validate_force_organisation",
    "validate_holding_placement",
    "validate_incursion_holdings",
    "validate_sea_folk_force",
    "validate_state_references",
]
