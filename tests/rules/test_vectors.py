"""Every worked example (TV-01..TV-15) and derived vector (D-01..D-28) of spec §13.

Each test names its vector. Dice come from the `scripted` fixture, which checks at teardown
that every scripted die was used. Vectors about Phase 4 (TV-09..TV-12, D-08, D-10..D-18,
D-22, D-27) are pinned here against rules.checks; the Phase-4 tests drive them through the
turn as well.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules import checks
from rules import tables as T
from rules.cli.calculator import calculate
from rules.cli.ledger_words import detail_words, modifier_words
from rules.setup.battle_clock import TimeSpell, battle_turn_count, clock_segment
from rules.setup.forces import validate_force_organisation
from rules.setup.holdings import holding_spacing_ok, validate_holding_placement
from rules.setup.incursion import incursion_points, validate_incursion_holdings
from rules.setup.italian import italian_draw_threshold
from rules.setup.naval import Waters, naval_movement
from rules.setup.sea_folk import validate_sea_folk_force
from rules.setup.terrain_attrition import terrain_attrition
from rules.setup.territory import territory_thirds, territory_zones
from rules.setup.unit_orders import unit_order_test, unit_orders_command_test
from rules.types import (
    Command,
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
    Season,
    Speciality,
    Status,
    Territory,
    Unit,
    Weather,
)

S, Q, F, Tr = Status, Quality, Feature, Territory


def unit(uid: str, speciality: Speciality, quality: Quality, figures: int, **kw) -> Unit:
    return Unit(uid, uid, speciality, quality, figures, **kw)


def force(
    fid: str,
    *commands: tuple[int | None, tuple[Unit, ...]],
    individuals: tuple[IndividualKind, ...] = (),
    leader_id: str | None = None,
) -> Force:
    """A force from (cv, units) commands; cv None = a command without a general."""
    cmds = tuple(
        Command(f"{fid}-c{i}", General(f"{fid}-g{i}", cv) if cv is not None else None, units)
        for i, (cv, units) in enumerate(commands, 1)
    )
    inds = tuple(Individual(f"{fid}-i{i}", k) for i, k in enumerate(individuals, 1))
    return Force(fid, "red", (0, 0), S.PROBE, cmds, inds, leader_id=leader_id)


def values(record) -> list[int]:
    return [m.value for m in record.modifiers]


# --- 13.A worked examples ------------------------------------------------------------------------


def test_tv01_barbarian_roster_is_valid():
    inf, tc, mis = Speciality.INFANTRY, Speciality.TERRIBLE_CREATURE, Speciality.MISSILE
    wizard = IndividualKind.WIZARD
    f1 = force(
        "1",
        (
            4,
            (
                unit("u1", inf, Q.ELITE, 10),
                unit("u2", tc, Q.AVERAGE, 1),
                unit("u3", tc, Q.VETERAN, 1),
            ),
        ),
        individuals=(IndividualKind.DESTROYER, IndividualKind.ORDER_BEARER, wizard),
    )
    f2 = force(
        "2",
        (
            3,
            (
                unit("u4", inf, Q.VETERAN, 20),
                unit("u5", inf, Q.VETERAN, 20),
                unit("u6", mis, Q.VETERAN, 10),
                unit("u7", mis, Q.VETERAN, 10),
            ),
        ),
        individuals=(IndividualKind.HERO, IndividualKind.ORDER_BEARER, wizard),
    )
    r1, r2 = validate_force_organisation(f1), validate_force_organisation(f2)
    assert (r1.valid, r1.leader_cv, r1.individuals, r1.units, r1.figures) == (True, 4, 3, 3, 12)
    assert (r2.valid, r2.leader_cv, r2.individuals, r2.units, r2.figures) == (True, 3, 3, 4, 60)


def test_tv01_individuals_may_not_outnumber_units_and_generals_do_not_count():
    inf = Speciality.INFANTRY
    kinds = (IndividualKind.HERO, IndividualKind.SCOUT)
    two_generals = force(
        "f",
        (4, (unit("u1", inf, Q.AVERAGE, 10),)),
        (2, (unit("u2", inf, Q.AVERAGE, 10),)),
        individuals=kinds,
    )
    assert validate_force_organisation(two_generals).valid  # 2 individuals, 2 units
    crowded = force("f", (4, (unit("u1", inf, Q.AVERAGE, 10),)), individuals=kinds)
    codes = [p.code for p in validate_force_organisation(crowded).problems]
    assert codes == ["too-many-individuals"]


def test_tv01_a_force_needs_a_leader_and_a_unit_and_allies_never_stand_alone():
    inf = Speciality.INFANTRY
    no_units = validate_force_organisation(force("f", (3, ())))
    assert {"no-units", "command-without-units"} <= {p.code for p in no_units.problems}
    no_general = validate_force_organisation(force("f", (None, (unit("u", inf, Q.LEVY, 5),))))
    assert "no-leader" in [p.code for p in no_general.problems]
    mercs = force("f", (3, (unit("u", inf, Q.LEVY, 5, mercenary=True),)))
    assert [p.rule for p in validate_force_organisation(mercs).problems] == ["R2.5.7"]
    allied = force("f", (3, (unit("u", inf, Q.LEVY, 5),)))
    assert not validate_force_organisation(allied, allied_commands={"f-c1"}).valid
    supported = force(
        "f", (3, (unit("u", inf, Q.LEVY, 5),)), (2, (unit("m", inf, Q.LEVY, 5, mercenary=True),))
    )
    assert validate_force_organisation(supported).valid


def test_tv01_leader_is_the_highest_cv_and_a_designation_must_respect_it():
    inf = Speciality.INFANTRY
    tied = force(
        "f",
        (3, (unit("u1", inf, Q.LEVY, 5),)),
        (3, (unit("u2", inf, Q.LEVY, 5),)),
        leader_id="f-g2",
    )
    r = validate_force_organisation(tied)
    assert r.valid and r.leader_id == "f-g2" and r.leader_cv == 3
    wrong = force(
        "f",
        (4, (unit("u1", inf, Q.LEVY, 5),)),
        (3, (unit("u2", inf, Q.LEVY, 5),)),
        leader_id="f-g2",
    )
    assert [p.code for p in validate_force_organisation(wrong).problems] == [
        "leader-not-highest-cv"
    ]


def test_tv02_field_works_quota_is_one_point_per_figure():
    assert checks.field_works_quota(100) == 100


def test_tv03_weather_per_season_table(scripted):
    res = checks.weather_test(scripted([3]), purpose="t", season=Season.AUTUMN)
    assert (res.record.total, res.total, res.weather) == (4, 4, Weather.LIGHT_RAIN)
    assert values(res.record) == [+1]  # the table's Autumn +1 governs (A-14b)
    assert T.MOVE_WEATHER[res.weather] == -1
    assert T.WEATHER_BATTLE_EFFECTS[res.weather] == {"missile_to_hit": -1}


def test_tv03_weather_as_printed_with_autumn_plus_two():
    row = T.weather_row(3 + 2)
    assert row is Weather.HEAVY_RAIN and T.MOVE_WEATHER[row] == -2
    assert T.WEATHER_BATTLE_EFFECTS[row] == {
        "missile_to_hit": -2,
        "melee_to_hit": -2,
        "unit_move": "-1/4",
        "command_zone_cm": -5,
        "change_orders_test": -1,
        "light_signals": False,
    }


def test_tv03_weather_magic_moves_one_row_per_clock_period():
    rows = list(Weather)  # one period = one row of the four-row table
    assert rows == [Weather.FINE, Weather.LIGHT_RAIN, Weather.HEAVY_RAIN, Weather.STORM]
    heavy = rows.index(Weather.HEAVY_RAIN)
    assert rows[heavy + 1] is Weather.STORM and rows[heavy - 1] is Weather.LIGHT_RAIN
    assert T.WEATHER_BATTLE_EFFECTS[Weather.STORM] == {"battle_interrupted": True}
    assert Options().storm_ends_battle is False  # the table governs by default


def test_tv04_force_test_changing_orders(scripted):
    res = checks.force_test(
        scripted([4]), purpose="t", cv=3, status=S.PROBE, requested=S.FULL_SPEED, territory=Tr.ENEMY
    )
    assert [m.value for m in res.record.modifiers if m.reason != "leader-cv"] == [-1]
    assert (res.total, res.outcome, res.new_status) == (6, "ok", S.FULL_SPEED)


def test_tv05_movement_modifiers_are_cumulative():
    mods = checks.movement_modifiers(
        status=S.PROBE, features={F.FOREST, F.RIVER}, territory=Tr.ENEMY
    )
    assert sum(m.value for m in mods) == -4


def test_tv06_movement_method(scripted):
    res = checks.movement_roll(
        scripted([4]),
        purpose="t",
        status=S.FULL_SPEED,
        features={F.RIVER, F.SWAMP},
        territory=Tr.ENEMY,
    )
    by_reason = {modifier_words(m.reason, m.params): m.value for m in res.record.modifiers}
    assert by_reason == {
        "starts on river": -1,
        "starts on swamp": -1,
        "enemy territory": -1,
        "full speed": +2,
    }
    assert (res.total, res.allowance, res.must_move) == (3, 1, True)
    assert checks.countermarch(S.FULL_SPEED)[0]  # may countermarch afterwards


def test_tv07_battle_duration_with_a_time_spell():
    spell = TimeSpell(cast_in_turn=4, to=clock_segment("night", 1))
    res = battle_turn_count(start=clock_segment("day", 1), spells=[spell])
    assert res.full_revolution and res.turns == 9  # 3 day + 6 night turns
    assert res.segments == ("day-1", "day-2", "day-3", *(f"night-{i}" for i in range(1, 7)))


def test_tv07_without_magic_a_battle_lasts_one_revolution_and_slowing_time_lengthens_it():
    start = clock_segment("day", 1)
    assert battle_turn_count(start=start).turns == Options().battle_max_turns == 12
    back = TimeSpell(cast_in_turn=3, to=clock_segment("day", 1), forward=False)
    assert battle_turn_count(start=start, spells=[back]).turns == 14
    capped = battle_turn_count(start=start, spells=[back], max_turns=12)
    assert (capped.turns, capped.full_revolution) == (12, False)


def test_tv08_italian_draw_threshold():
    assert italian_draw_threshold(2000) == 400
    assert italian_draw_threshold(2200, 2000, ars_arcana_a=200) == 400  # AA excluded
    assert italian_draw_threshold(2000, 3000) == 400  # the smaller army


def test_tv09_general_retreat_example():
    assert checks.gr_command_test_modifier(4) == 0  # 4th hour: no General-Retreat modifier
    assert Options().gr_exits_deserter_checked is False  # commands A and B not checked
    losers = calculate(["wounded", "--killed", "12", "--result", "lost", "--seed", "1"])
    assert (losers["checked"], losers["dead"], losers["dice"]) == (0, 12, [])  # R8.1.1


def test_tv10_wounded_check_example(scripted):
    res = checks.wounded_check(
        scripted([6, 6, 5, 5, 4, 2]), purpose="t", killed=6, territory=Tr.ENEMY
    )
    assert tuple(map(detail_words, res.record.details)) == (
        "6: recovered (natural 6)",
        "6: recovered (natural 6)",
        "5→4: recovered",
        "5→4: recovered",
        "4→3: dead",
        "2→1: dead",
    )
    assert (res.kept, res.lost) == (4, 2)
    assert 12 - 6 + res.kept == 10  # unit figures after


def test_tv11_deserter_check_example_default_rule(scripted):
    res = checks.deserter_check(
        scripted([6, 4, 4, 3, 3, 1, 1, 1, 1]), purpose="t", figures=9, quality=Q.AVERAGE
    )
    assert (res.kept, res.lost) == (5, 4)
    assert tuple(map(detail_words, res.record.details[1:5])) == (
        "4→5: returned",
        "4→5: returned",
        "3→4: returned",
        "3→4: returned",
    )


def test_tv11_deserter_check_example_alternative_rule(scripted):
    # deserter_rout_modifier = figure_routed: the -1 applies to the routed unit too
    res = checks.deserter_check(
        scripted([6, 4, 4, 3, 3, 1, 1, 1, 1]),
        purpose="t",
        figures=9,
        quality=Q.AVERAGE,
        shattered=True,
    )
    assert [detail_words(d).split(":")[0] for d in res.record.details[1:5]] == [
        "4→4",
        "4→4",
        "3→3",
        "3→3",
    ]
    assert (res.kept, res.lost) == (3, 6)


def test_tv12_will_to_fight_example(scripted):
    inputs = checks.WillToFightInputs(won=3, lost=1, holdings_lost=1)
    rec, passed = checks.will_to_fight(scripted([3]), purpose="t", inputs=inputs)
    assert (values(rec), rec.total, passed) == ([3, -1, -1], 4, True)
    rec, passed = checks.will_to_fight(scripted([3]), purpose="t", inputs=inputs, as_printed=True)
    assert (values(rec), rec.total, passed) == ([9, -1, -1], 10, True)


def test_tv13_incursion_points():
    res = incursion_points(raider_points=4000)
    assert (res.defender_points, res.ratio) == (2000, 2.0)
    assert incursion_points(defender_points=2000).raider_points == 4000


def _holding(hid: str, owner: str, square=(0, 0), capital: bool = False) -> Holding:
    return Holding(hid, square, owner, owner, capital=capital)


def test_tv14_incursion_holdings():
    defender = [_holding("city", "d", capital=True)] + [
        _holding(f"village{i}", "d") for i in range(4)
    ]
    res = validate_incursion_holdings(
        defender_holdings=defender, raider_holdings=[_holding("camp", "r", capital=True)]
    )
    assert res.valid
    assert (res.defender_min_holdings, res.defender_capitals, res.raider_holdings) == (4, 1, 1)


def test_tv14_incursion_holdings_broken():
    res = validate_incursion_holdings(
        defender_holdings=[_holding("a", "d"), _holding("b", "d"), _holding("c", "d")],
        raider_holdings=[_holding("camp", "r"), _holding("x", "r", capital=True)],
    )
    assert [p.code for p in res.problems] == [
        "defender-holdings",
        "defender-capital",
        "raider-holdings",
    ]


def _pirates(cavalry_points: int) -> Force:
    raptors = unit(
        "raptors",
        Speciality.CAVALRY,
        Q.VETERAN,
        10,
        points_per_figure=cavalry_points // 10,
        mercenary=True,
    )
    ballista = unit(
        "ballista", Speciality.ARTILLERY, Q.AVERAGE, 1, points_per_figure=150, mercenary=True
    )
    foot = unit(
        "corsairs", Speciality.INFANTRY, Q.AVERAGE, 35, points_per_figure=30, mercenary=True
    )
    return force("pirates", (3, (raptors, ballista, foot)))


def test_tv15_sea_folk_force():
    res = validate_sea_folk_force(_pirates(300))
    assert (res.force_points, res.limited_points, res.limit, res.valid) == (1500, 450, 500, True)
    org = validate_force_organisation(_pirates(300), sea_folk=True)
    assert org.valid  # mercenaries alone, allowed for sea folk (R6.11.6)
    assert not validate_force_organisation(_pirates(300)).valid  # otherwise R2.5.7


def test_tv15_sea_folk_force_over_a_third():
    res = validate_sea_folk_force(_pirates(600))  # 750 of 1800
    assert res.limit == Fraction(1800, 3) and [p.code for p in res.problems] == ["sea-folk-limit"]


# --- 13.B derived vectors ------------------------------------------------------------------------


def _force_test(dice, **kw):
    return checks.force_test(dice, purpose="t", **kw)


def test_d01_force_test_result_can_improve_a_reaction(scripted):
    res = _force_test(
        scripted([1]), cv=2, status=S.UNSTEADY, requested=S.PROBE, territory=Tr.FRIENDLY
    )
    assert (res.total, res.new_status) == (3, S.CONFUSED)


def test_d02_force_test_disaster(scripted):
    res = _force_test(
        scripted([1]),
        cv=1,
        status=S.SHATTERED,
        requested=S.DEFEND,
        territory=Tr.ENEMY,
        features={F.MOUNTAIN},
    )
    assert (res.total, res.outcome, res.new_status) == (-5, "destroyed", None)
    out = calculate(
        [
            "force-test",
            "--cv",
            "1",
            "--status",
            "shattered",
            "--requested",
            "defend",
            "--territory",
            "enemy",
            "--terrain",
            "mountain",
            "--dice",
            "1",
        ]
    )
    assert out["will_to_fight_required"] is True


@pytest.mark.parametrize(
    ("total", "outcome", "status"),
    [
        (6, "ok", S.FULL_SPEED),
        (5, "defend", S.DEFEND),
        (4, "defend", S.DEFEND),
        (3, "confused", S.CONFUSED),
        (2, "unsteady", S.UNSTEADY),
        (1, "shattered", S.SHATTERED),
        (0, "destroyed", None),
    ],
)
def test_d03_force_test_table_boundaries(total, outcome, status):
    got = checks.force_test_outcome(total, status=S.PROBE, requested=S.FULL_SPEED)
    assert got == (outcome, status)


def test_d04_movement_with_naran_cancellations(scripted):
    feats = {F.MOUNTAIN, F.PASS, F.RIVER, F.BRIDGE, F.ROAD}
    res = checks.movement_roll(scripted([5]), purpose="t", status=S.FULL_SPEED, features=feats)
    assert (res.total, res.allowance) == (8, 2)


def test_d05_movement_under_reaction_weather_and_snow(scripted):
    res = checks.movement_roll(
        scripted([6]),
        purpose="t",
        status=S.UNSTEADY,
        features={F.FOREST},
        territory=Tr.FRIENDLY,
        weather=Weather.LIGHT_RAIN,
        snow=1,
    )
    assert sorted(values(res.record)) == [-2, -2, -1, -1, +1]
    assert (res.total, res.allowance) == (1, 0)


@pytest.mark.parametrize(
    ("total", "squares"), [(2, 0), (3, 1), (5, 1), (6, 2), (8, 2), (9, 3), (12, 3)]
)
def test_d06_movement_table_boundaries(total, squares):
    assert T.movement_allowance(total) == squares


@pytest.mark.parametrize(
    ("status", "allowed", "after"),
    [
        (S.PROBE, True, S.CONFUSED),
        (S.FULL_SPEED, True, S.CONFUSED),
        (S.CONFUSED, True, S.UNSTEADY),
        (S.UNSTEADY, True, S.SHATTERED),
        (S.DEFEND, False, None),
        (S.SHATTERED, False, None),
    ],
)
def test_d07_countermarch(status, allowed, after):
    assert checks.countermarch(status) == (allowed, after)


@pytest.mark.parametrize(
    ("start", "after"),
    [
        (S.DEFEND, S.CONFUSED),
        (S.PROBE, S.CONFUSED),
        (S.FULL_SPEED, S.CONFUSED),
        (S.CONFUSED, S.UNSTEADY),
        (S.UNSTEADY, S.SHATTERED),
    ],
)
def test_d08_post_battle_reaction(start, after):
    assert checks.post_battle_reaction(start) is after


@pytest.mark.parametrize(
    ("status", "dice", "tokens"),
    [
        (S.PROBE, [], 6),
        (S.CONFUSED, [4], 4),
        (S.UNSTEADY, [5], 3),
        (S.UNSTEADY, [1], 1),
        (S.UNSTEADY, [6], 3),
    ],
)
def test_d09_ammunition_tokens(scripted, status, dice, tokens):
    got, rec = checks.ammo_tokens(scripted(dice), purpose="t", status=status)
    assert got == tokens and (rec is None) == (not dice)


def test_d10_wounded_check_in_friendly_territory(scripted):
    res = checks.wounded_check(
        scripted([1, 2, 3, 4, 5, 6]), purpose="t", killed=6, territory=Tr.FRIENDLY
    )
    assert tuple(map(detail_words, res.record.details)) == (
        "1: dead (natural 1)",
        "2→3: dead",
        "3→4: recovered",
        "4→5: recovered",
        "5→6: recovered",
        "6: recovered (natural 6)",
    )
    assert (res.kept, res.lost) == (4, 2)


def test_d11_loser_gets_no_wounded_check_and_mercenaries_desert():
    wounded = calculate(["wounded", "--killed", "5", "--result", "lost", "--dice", ""])
    assert (wounded["checked"], wounded["recovered"], wounded["dead"]) == (0, 0, 5)
    mercs = calculate(
        [
            "deserters",
            "--figures",
            "7",
            "--quality",
            "veteran",
            "--result",
            "lost",
            "--mercenary",
            "--dice",
            "",
        ]
    )
    assert (mercs["deserted"], mercs["returned"], mercs["dice"]) == (7, 0, [])


def test_d12_deserter_check_elite(scripted):
    res = checks.deserter_check(scripted([1, 2, 3]), purpose="t", figures=3, quality=Q.ELITE)
    assert tuple(map(detail_words, res.record.details)) == (
        "1: deserted (natural 1)",
        "2→5: returned",
        "3→6: returned",
    )
    assert (res.kept, res.lost) == (2, 1)


@pytest.mark.parametrize(
    ("lost_a", "lost_b", "result"), [(900, 600, "stalemate"), (1100, 600, "b-wins")]
)
def test_d13_italian_method(lost_a, lost_b, result):
    got = checks.battle_result(
        method="italian", points_a=2000, points_b=2000, lost_a=lost_a, lost_b=lost_b
    )
    assert got == result


@pytest.mark.parametrize(("hour", "mod"), [(1, -3), (2, -2), (3, -1), (4, 0), (9, 0)])
def test_d14_general_retreat_command_test_modifier(hour, mod):
    assert checks.gr_command_test_modifier(hour) == mod


def test_d15_will_to_fight_failure(scripted):
    inputs = checks.WillToFightInputs(lost=3, holdings_lost=1, capital_lost=True)
    rec, passed = checks.will_to_fight(scripted([1]), purpose="t", inputs=inputs)
    assert (values(rec), rec.total, passed) == ([-3, -1, -3], -6, False)


def test_d16_reinforcement_points():
    kw = {"initial_points": 2000, "holdings": 3, "capital": True}
    assert checks.reinforcement_points(**kw) == 320
    assert checks.reinforcement_points(**kw, capital_also_two_percent=True) == 360


@pytest.mark.parametrize(
    ("dice", "event"),
    [
        ([1, 1, 1], "none"),
        ([1, 1, 2], "none"),
        ([1, 1, 3], "reinforcements-50"),
        ([2, 3, 3], "reinforcements-100-reroll"),
        ([3, 4, 4], "leader-stress"),
        ([4, 4, 5], "leader-emerges"),
        ([6, 6, 6], "wizard-joins"),
    ],
)
def test_d17_general_event_table(scripted, dice, event):
    rec, got = checks.event_roll(scripted(dice), purpose="t")
    assert (rec.total, got) == (sum(dice), event)


@pytest.mark.parametrize(
    ("cv", "event", "after"),
    [
        (6, "leader-emerges", 6),
        (4, "leader-emerges", 5),
        (4, "leader-stress", 2),
        (1, "leader-stress", 1),
    ],
)
def test_d18_leader_cv_events(cv, event, after):
    assert checks.clamp_cv_event(cv, event) == after


def test_d19_naval_movement(scripted):
    res = naval_movement(
        scripted([1, 4]),
        purpose="t",
        waters=Waters.SEA,
        status=S.FULL_SPEED,
        territory=Tr.FRIENDLY,
        ships=True,
        embarking=True,
    )
    assert (res.wind, res.total, res.squares_table, res.squares) == ("contrary", 4, 2, 1)
    assert values(res.record) == [-3, +1, +2]


def test_d19_naval_table_and_rivers(scripted):
    low = naval_movement(
        scripted([1]),
        purpose="t",
        waters=Waters.RIVER,
        status=S.PROBE,
        upstream=True,
        embarking=True,
    )
    assert (low.wind, low.total, low.squares) == (None, -1, 1)  # ≤ 2 still moves 1 (A-49b)
    held = naval_movement(scripted([]), purpose="t", waters=Waters.SEA, status=S.DEFEND)
    assert (held.record, held.squares) == (None, 0)


@pytest.mark.parametrize(
    ("a", "b", "legal"), [((0, 0), (2, 1), False), ((0, 0), (3, 0), True), ((0, 0), (2, 2), False)]
)
def test_d20_holding_spacing(a, b, legal):
    assert holding_spacing_ok(a, b) is legal
    zones = {(x, y): "red" for x in range(6) for y in range(6)}
    res = validate_holding_placement(
        game_map=GameMap(6, 6, zones=zones),
        players=[Player("red", "red")],
        holdings=[_holding("cap", "red", a, capital=True), _holding("minor", "red", b)],
    )
    assert res.valid is legal


def test_d20_holding_placement_territory_terrain_and_capitals():
    zones = territory_zones(9, 3, "x", low="dwarf", high="elf")
    feats = {
        (0, 0): frozenset({F.MOUNTAIN}),
        (8, 0): frozenset({F.MOUNTAIN}),
        (8, 2): frozenset({F.FOREST}),
    }
    game_map = GameMap(9, 3, feats, zones)
    players = [Player("dwarf", "a", race="Dwarves"), Player("elf", "b", race="Wood Elves")]
    holdings = [
        _holding("d-cap", "dwarf", (0, 0), capital=True),  # dwarves may use mountains
        _holding("e-cap", "elf", (8, 2), capital=True),  # wood elves may use forests
        _holding("e-peak", "elf", (8, 0)),  # but not mountains; and too close to e-cap
        _holding("e-mid", "elf", (4, 1)),  # neutral third
    ]
    res = validate_holding_placement(game_map=game_map, players=players, holdings=holdings)
    assert sorted((p.code, p.subject) for p in res.problems) == [
        ("forbidden-terrain", "e-peak"),
        ("outside-territory", "e-mid"),
        ("too-close", "e-peak"),
    ]
    no_capital = validate_holding_placement(
        game_map=game_map, players=players, holdings=holdings[:1]
    )
    assert [(p.code, p.subject) for p in no_capital.problems] == [("capital-count", "elf")]


@pytest.mark.parametrize(("n", "outer", "centre"), [(9, 3, 3), (10, 3, 4), (11, 4, 3), (3, 1, 1)])
def test_r2_2_1_territory_thirds_have_equal_outer_areas(n, outer, centre):
    t = territory_thirds(n, 5, "x")
    assert (len(t.low), len(t.centre), len(t.high)) == (outer, centre, outer)
    assert t.low.start == 0 and t.high.stop == n and t.centre.start == t.low.stop


def test_d21_weather_clamp_and_storm_holds_forces_still(scripted):
    dice = scripted([6])
    res = checks.weather_test(dice, purpose="t", season=Season.WINTER)  # cold zone: winter
    assert (res.record.total, res.total, res.weather) == (8, 6, Weather.STORM)
    move = checks.movement_roll(dice, purpose="t", status=S.FULL_SPEED, weather=res.weather)
    assert (move.record, move.allowance, move.must_move) == (None, 0, False)


def test_d22_incursion_snow_effects():
    move = checks.movement_modifiers(status=S.PROBE, snow=2)
    test = checks.force_test_modifiers(cv=3, status=S.PROBE, snow=2)
    wtf = checks.will_to_fight_modifiers(checks.WillToFightInputs(snow=2))
    assert [m.value for m in move] == [-2]
    assert [m.value for m in test if m.reason != "leader-cv"] == [-2]
    assert [m.value for m in wtf if m.value] == [-2]


def test_d23_unit_order_test(scripted):
    res = unit_order_test(
        scripted([3]), purpose="t", quality_mod=0, delivered_by="leader", disorganised=True
    )
    assert (res.total, res.result, res.disorganised_after) == (5, "ok-confusion", True)
    assert values(res.record) == [+3, -1]


def test_d24_unit_orders_command_test(scripted):
    res = unit_orders_command_test(scripted([2]), purpose="t", leader_cv=3, any_unit_routed=True)
    assert (res.total, res.result) == (4, "army-routs")


def test_d25_confused_force_scoring_two_becomes_unsteady(scripted):
    res = _force_test(scripted([1]), cv=2, status=S.CONFUSED, requested=S.PROBE)
    assert (res.total, res.new_status) == (2, S.UNSTEADY)


def test_d26_confused_force_scoring_three_becomes_unsteady(scripted):
    res = _force_test(scripted([2]), cv=2, status=S.CONFUSED, requested=S.PROBE)
    assert (res.total, res.outcome, res.new_status) == (3, "confused", S.UNSTEADY)


def test_d27_deserter_minus_one_after_this_battle_shattered_the_force(scripted):
    after = checks.post_battle_reaction(S.UNSTEADY)
    assert after is S.SHATTERED
    res = checks.deserter_check(
        scripted([4, 3]), purpose="t", figures=2, quality=Q.AVERAGE, shattered=after is S.SHATTERED
    )
    assert values(res.record) == [+1, -1]
    assert tuple(map(detail_words, res.record.details)) == ("4→4: returned", "3→3: deserted")
    assert (res.kept, res.lost) == (1, 1)


def test_d28_jungle_attrition_default(scripted):
    units = [unit(f"u{i}", Speciality.INFANTRY, Q.AVERAGE, 10) for i in range(3)]
    res = terrain_attrition(
        scripted([1, 4, 6]), purpose="t", units=units, formula=Options().attrition_formula
    )
    assert [r.losses for r in res] == [0, 2, 4]
    assert [r.deserter_check for r in res] == [False, False, True]  # > 25 % (R6.10.3)


@pytest.mark.parametrize(("formula", "losses"), [("d6_div2", [0, 2, 3]), ("d6_times2", [2, 8, 10])])
def test_d28_attrition_alternatives_never_exceed_the_unit(scripted, formula, losses):
    units = [unit(f"u{i}", Speciality.INFANTRY, Q.AVERAGE, 10) for i in range(3)]
    res = terrain_attrition(scripted([1, 4, 6]), purpose="t", units=units, formula=formula)
    assert [r.losses for r in res] == losses
