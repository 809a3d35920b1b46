"""Campaign options that reach across phases: terrain attrition (§6.10), sieges for capitals
(R2.3.6), Probe composition (R2.7), storms ending battles (A-60)."""

from __future__ import annotations

from dataclasses import replace

from rules.dice import ScriptedDice
from rules.events import AttritionSuffered, CaptureBlocked, OrderRefused
from rules.orders import ForceOrders, PlayerOrders, validate_orders
from rules.phases import attrition, battle_pack, force_tests
from rules.types import Feature, Holding, Options, Quality, Speciality, Status, Unit, Weather
from tests.rules.test_movement import campaign, force, orders, run


def test_attrition_applies_to_forces_that_crossed_a_jungle():
    f = force("r1", "red", (2, 0), figures=8)
    st = campaign(
        f,
        force("b1", "blue", (7, 4)),
        features={(1, 0): frozenset({Feature.JUNGLE})},
        options=Options(terrain_attrition=True),
    )
    st = replace(st, moves={"r1": ((1, 0), (2, 0))})
    # 1D6 = 6 → 4 lost (R6.10.1, d6 − 2); wounded check (neutral): 6, 1, 4, 2 → 2 back;
    # 4 of 8 lost is over 25 %: the 6 left take the deserter check (Average +1)
    dice = ScriptedDice([6, 6, 1, 4, 2, 6, 5, 4, 3, 2, 1])
    new, events = attrition.resolve(st, dice)
    dice.assert_exhausted()
    (ev,) = [e for e in events if isinstance(e, AttritionSuffered)]
    assert (ev.lost, ev.recovered, ev.deserted) == (4, 2, 2)
    assert new.force("r1").units[0].figures == 4
    assert new.force("r1").figures_lost == 4


def test_attrition_spares_forces_on_kind_ground_and_is_off_by_default():
    st = campaign(
        force("r1", "red", (2, 0)),
        force("b1", "blue", (7, 4)),
        features={(1, 0): frozenset({Feature.JUNGLE})},
    )
    st = replace(st, moves={"r1": ((1, 0),)})
    assert attrition.resolve(st, ScriptedDice([])) == (st, [])
    opt = replace(st, options=Options(terrain_attrition=True), moves={"r1": ((2, 0),)})
    new, events = attrition.resolve(opt, ScriptedDice([]))
    assert events == []


def test_a_capital_needs_a_siege_when_the_option_is_on():
    cap = Holding("bcap", (2, 0), "blue", "blue", capital=True)
    st = campaign(
        force("r1", "red", (0, 0)),
        force("b1", "blue", (7, 4), Status.DEFEND),
        holdings=(cap,),
        options=Options(siege_required_for_capital=True),
    )
    o = orders(red={"r1": ForceOrders("r1", path=((1, 0), (2, 0)))}, blue={})
    new, events, _ = run(st, o, [2, 1, 6])  # initiative r1 5, b1 4; r1 moves 2 squares
    assert new.holdings[0].owner == "blue"
    assert any(isinstance(e, CaptureBlocked) for e in events)


def test_probe_composition_option_refuses_probe_for_infantry():
    cav = replace(
        force("c1", "red", (0, 0)),
        commands=(
            replace(
                force("c1", "red", (0, 0)).commands[0],
                units=(Unit("c1u", "riders", Speciality.CAVALRY, Quality.AVERAGE, 10),),
            ),
        ),
    )
    st = campaign(
        force("r1", "red", (0, 1), Status.DEFEND),
        cav,
        options=Options(naran_probe_composition=True),
    )
    po = PlayerOrders(
        "red",
        {
            "r1": ForceOrders("r1", change_to=Status.PROBE),
            "c1": ForceOrders("c1", change_to=Status.PROBE),
        },
    )
    codes = [e.code for e in validate_orders(st, "red", po)]
    assert codes == ["probe-composition"]
    st = replace(st, orders={"red": po}, initiative_winner="red")
    dice = ScriptedDice([5])  # only the cavalry force is tested
    new, events = force_tests.resolve(st, dice)
    dice.assert_exhausted()
    assert any(isinstance(e, OrderRefused) and e.force_id == "r1" for e in events)
    assert new.force("c1").status is Status.PROBE


def test_storm_ends_battle_option_changes_the_pack_weather_effects():
    st = campaign(
        force("r1", "red", (0, 0)),
        force("b1", "blue", (0, 0)),
        weather=Weather.STORM,
        options=Options(storm_ends_battle=True),
    )
    assert battle_pack._weather_effects(st, Weather.STORM) == {"battle_ends_as_stalemate": True}
    plain = replace(st, options=Options())
    assert battle_pack._weather_effects(plain, Weather.STORM) == {"battle_interrupted": True}
