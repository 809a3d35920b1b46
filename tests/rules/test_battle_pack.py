"""Battle packs (§7.4–7.10): set-up from the square, scenery rolls, scenarios, scouting, unit
start states, ammunition, field works and weather."""

from __future__ import annotations

import pytest

from rules import tables as T
from rules.dice import ScriptedDice
from rules.phases.battle_pack import build_pack, setup_rule
from rules.types import (
    CampaignState,
    Command,
    Feature,
    Force,
    GameMap,
    General,
    Options,
    Player,
    Quality,
    Speciality,
    Status,
    Unit,
    Weather,
)

SQ: tuple[int, int] = (2, 1)


def force(fid: str, owner: str, status: Status = Status.PROBE, *, units=None, **kw) -> Force:
    units = units or (Unit(f"{fid}-u1", "spears", Speciality.INFANTRY, Quality.AVERAGE, 10, 5),)
    return Force(
        fid, owner, SQ, status, (Command(f"{fid}-c", General(f"{fid}-g", 3), units),), **kw
    )


def missile(uid: str, figures: int = 10) -> Unit:
    return Unit(uid, "bows", Speciality.MISSILE, Quality.AVERAGE, figures, 5)


def campaign(
    features: frozenset[Feature] = frozenset(), zones: dict | None = None, **kw
) -> CampaignState:
    return CampaignState(
        turn=3,
        day=2,
        map=GameMap(5, 3, {SQ: features} if features else {}, zones or {}),
        players=(Player("red", "west"), Player("green", "west"), Player("blue", "east")),
        holdings=(),
        forces=(),
        **kw,
    )


def pack(state: CampaignState, a, b, dice=(), **kw):
    d = ScriptedDice(dice)
    result = build_pack(
        state, battle_id="t3-b2", contact_order=2, square=SQ, side_a=a, side_b=b, dice=d, **kw
    )
    d.assert_exhausted()
    return (*result, d)


# --- §7.6 set-up from the square --------------------------------------------------------------


def test_a_plain_square_is_set_up_as_fw_core():
    p, _, _ = pack(campaign(), [force("r1", "red")], [force("b1", "blue")])
    assert p.setup_rule == T.SETUP_PLAIN
    assert p.features == ()


def test_several_features_give_several_rules_in_order():
    rule = setup_rule(frozenset({Feature.RIVER, Feature.FOREST}))
    assert rule == f"{T.SETUP_RULES[Feature.FOREST]} {T.SETUP_RULES[Feature.RIVER]}"


def test_alternate_reading_of_every_other_feature():
    rule = setup_rule(frozenset({Feature.SWAMP}), "alternate")
    assert rule == T.SETUP_ALTERNATE[Feature.SWAMP]


def test_jungle_with_forest_is_one_rule_and_hill_needs_naran_terrain():
    assert setup_rule(frozenset({Feature.FOREST, Feature.JUNGLE})) == T.SETUP_RULES[Feature.FOREST]
    assert setup_rule(frozenset({Feature.HILL}), naran=False) == T.SETUP_PLAIN


def test_pack_lists_the_square_features():
    st = campaign(frozenset({Feature.RIVER, Feature.SWAMP}))
    p, _, _ = pack(st, [force("r1", "red")], [force("b1", "blue")])
    assert p.features == ("river", "swamp")
    assert p.setup_rule == f"{T.SETUP_RULES[Feature.RIVER]} {T.SETUP_RULES[Feature.SWAMP]}"


# --- §7.7 random scenery ----------------------------------------------------------------------


def test_random_scenery_rolls_five_tables_in_order():
    st = campaign(options=Options(random_scenery=True))
    p, _, d = pack(st, [force("r1", "red")], [force("b1", "blue")], dice=[1, 4, 5, 3, 4, 5])
    assert p.scenery == {
        "geography": "flat",
        "vegetation": "wood",
        "hydrography": "swamp",
        "special-feature": "boulders",
        "artificial-works": "bridge",  # 2D6: 4 + 5 = 9
    }
    assert [r.purpose for r in d.ledger] == [
        "battle:t3-b2:scenery-geography",
        "battle:t3-b2:scenery-vegetation",
        "battle:t3-b2:scenery-hydrography",
        "battle:t3-b2:scenery-special-feature",
        "battle:t3-b2:scenery-artificial-works",
    ]
    assert [r.rule for r in d.ledger] == ["§7.7.1", "§7.7.2", "§7.7.3", "§7.7.4", "§7.7.5"]
    assert d.ledger[-1].natural == (4, 5)


def test_no_scenery_rolls_when_the_option_is_off():
    p, _, _ = pack(campaign(), [force("r1", "red")], [force("b1", "blue")])
    assert p.scenery == {}


# --- §7.5 scouting, territory -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "scouting"),
    [
        (Status.PROBE, "full"),
        (Status.DEFEND, "doubled"),
        (Status.FULL_SPEED, "partial"),
        (Status.CONFUSED, "partial"),
        (Status.UNSTEADY, "none"),
    ],
)
def test_scouting_by_status(status, scouting):
    p, _, _ = pack(campaign(), [force("r1", "red", status)], [force("b1", "blue")])
    assert p.sides[0].scouting == scouting


def test_a_side_of_several_forces_scouts_with_its_best():
    a = [force("r1", "red", Status.UNSTEADY), force("g1", "green", Status.PROBE)]
    p, _, _ = pack(campaign(), a, [force("b1", "blue")])
    assert p.sides[0].scouting == "full"
    assert p.sides[0].players == ("red", "green")


def test_territory_is_the_first_players_and_sets_the_scouting_modifier():
    st = campaign(zones={SQ: "red"})
    p, _, _ = pack(st, [force("g1", "green"), force("r1", "red")], [force("b1", "blue")])
    a, b = p.sides
    assert (a.side, a.territory, a.scouting_modifier) == ("west", "friendly", 2)
    assert (b.side, b.territory, b.scouting_modifier) == ("east", "enemy", -1)


# --- R7.8 unit starts, ammunition, field works ------------------------------------------------


def test_confused_and_unsteady_units_and_their_ammunition():
    a = [force("r1", "red", Status.CONFUSED, units=(missile("r1-bow"), missile("r1-xbow")))]
    b = [force("b1", "blue", Status.UNSTEADY, units=(missile("b1-bow"),))]
    p, _, d = pack(campaign(), a, b, dice=[4, 2, 5])
    ra, rb = p.sides[0].forces[0].units
    assert (ra.disorganised, ra.demoralised, ra.ammo, rb.ammo) == (True, False, 4, 2)
    [ba] = p.sides[1].forces[0].units
    assert (ba.disorganised, ba.demoralised, ba.ammo) == (True, True, 3)  # ⌈5/2⌉
    assert [r.purpose for r in d.ledger] == [
        "battle:t3-b2:ammo-r1-bow",
        "battle:t3-b2:ammo-r1-xbow",
        "battle:t3-b2:ammo-b1-bow",
    ]


def test_units_under_an_order_start_normally_with_six_tokens():
    a = [force("r1", "red", Status.FULL_SPEED, units=(missile("bow"),))]
    p, _, _ = pack(campaign(), a, [force("b1", "blue")])
    assert p.sides[0].forces[0].units[0].ammo == 6
    assert p.sides[1].forces[0].units[0].ammo is None  # not a missile unit


def test_defend_gets_a_works_quota_fixed_at_the_first_build():
    b = [force("b1", "blue", Status.DEFEND)]
    p, updated, _ = pack(campaign(), [force("r1", "red")], b)
    assert p.sides[1].forces[0].works_quota == 10
    assert p.sides[0].forces[0].works_quota == 0
    assert [(f.id, f.works_quota, f.works_square) for f in updated] == [("b1", 10, SQ)]


def test_works_are_not_cumulative_in_the_same_square_but_renewed_elsewhere():
    same = force("b1", "blue", Status.DEFEND, works_quota=7, works_square=SQ)
    p, updated, _ = pack(campaign(), [force("r1", "red")], [same])
    assert p.sides[1].forces[0].works_quota == 7 and updated == ()
    moved = force("b2", "blue", Status.DEFEND, works_quota=7, works_square=(0, 0))
    p, updated, _ = pack(campaign(), [force("r1", "red")], [moved])
    assert p.sides[1].forces[0].works_quota == 10 and updated[0].works_square == SQ


def test_forces_carry_figures_points_and_where_they_came_from():
    p, _, _ = pack(
        campaign(), [force("r1", "red")], [force("b1", "blue")], entered_from={"r1": (1, 1)}
    )
    ra, bb = p.sides[0].forces[0], p.sides[1].forces[0]
    assert (ra.figures, ra.points, ra.entered_from) == (10, 50, (1, 1))
    assert bb.entered_from is None


# --- §7.10 scenarios --------------------------------------------------------------------------


def special() -> CampaignState:
    return campaign(options=Options(special_scenarios=True))


def test_no_scenario_without_the_option():
    a = [force("r1", "red", Status.FULL_SPEED)]
    p, _, _ = pack(campaign(), a, [force("b1", "blue", Status.FULL_SPEED)], scenario="ambush")
    assert p.scenario is None and p.scenario_rules == ""
    assert p.sides[0].scouting == "partial"


def test_chance_encounter_when_both_sides_are_on_full_speed():
    a = [force("r1", "red", Status.FULL_SPEED)]
    p, _, _ = pack(special(), a, [force("b1", "blue", Status.FULL_SPEED)])
    assert p.scenario == "chance-encounter"
    assert "Chance Encounter (§7.10.3)" in p.scenario_rules
    assert [s.scouting for s in p.sides] == ["none", "none"]
    assert [s.scouting_modifier for s in p.sides] == [0, 0]


@pytest.mark.parametrize(
    ("declared", "roles"),
    [("flank-attack", ("attacker", "defender")), ("ambush", ("ambusher", "ambushed"))],
)
def test_declared_scenarios_and_roles(declared, roles):
    p, _, _ = pack(special(), [force("r1", "red")], [force("b1", "blue")], scenario=declared)
    assert p.scenario == declared
    assert tuple(s.role for s in p.sides) == roles


def test_final_massacre_when_two_forces_with_double_the_points_engage_one():
    a = [force("r1", "red"), force("g1", "green")]  # 50 + 50 points
    p, _, _ = pack(special(), a, [force("b1", "blue")])  # 50 points
    assert p.scenario == "final-massacre"
    assert tuple(s.role for s in p.sides) == ("attacker", "defender")


def test_no_final_massacre_below_double_points():
    big = (Unit("b1-u1", "spears", Speciality.INFANTRY, Quality.AVERAGE, 11, 5),)
    a = [force("r1", "red"), force("g1", "green")]
    p, _, _ = pack(special(), a, [force("b1", "blue", units=big)])
    assert p.scenario is None
    assert p.sides[0].scouting == "full"


def test_breakthrough_when_a_side_carries_loot():
    b = [force("b1", "blue", loot=("h1",))]
    p, _, _ = pack(special(), [force("r1", "red")], b)
    assert p.scenario == "breakthrough"
    assert tuple(s.role for s in p.sides) == ("defender", "attacker")


# --- weather, fixed inputs --------------------------------------------------------------------


def test_weather_effects_and_fixed_inputs():
    st = campaign(weather=Weather.HEAVY_RAIN, options=Options(battle_max_turns=10))
    p, _, _ = pack(st, [force("r1", "red")], [force("b1", "blue")])
    assert p.weather == "heavy-rain"
    assert p.weather_effects == T.WEATHER_BATTLE_EFFECTS[Weather.HEAVY_RAIN]
    assert p.gr_modifiers == {1: -3, 2: -2, 3: -1, 4: 0}  # R7.9.12
    assert (p.max_turns, p.contact_order, p.turn, p.battle_id) == (10, 2, 3, "t3-b2")
    assert p.square == SQ


def test_per_force_weather_takes_the_worst_of_the_participants():
    st = campaign(
        options=Options(weather_per_force=True),
        weather=Weather.STORM,
        force_weather={"r1": Weather.LIGHT_RAIN, "b1": Weather.HEAVY_RAIN, "x": Weather.STORM},
    )
    p, _, _ = pack(st, [force("r1", "red")], [force("b1", "blue")])
    assert p.weather == "heavy-rain"
