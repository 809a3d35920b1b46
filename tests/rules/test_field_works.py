"""Field works are counted (R7.8.4–6, p. 8): a force on Defend may build works worth one point
per figure; they are not cumulative, so a force that stays and fights again builds only what
is left of the quota fixed at the first build, and works once built are never rebuilt."""

from __future__ import annotations

import pytest

from rules import InvalidResult, ScriptedDice, resolve_after_battles, resolve_turn
from rules.battle import BattleResult, UnitLoss
from rules.orders import ForceOrders, PlayerOrders, ZocPolicy
from rules.phases.after_battle import validate_result
from tests.rules.casefile import load_state

UNIT = {"type": "spears", "speciality": "infantry", "quality": "average", "figures": 40}


def _state(**blue):
    return load_state(
        {
            "players": [{"id": "red", "side": "west"}, {"id": "blue", "side": "east"}],
            "map": {"width": 8, "height": 4},
            "forces": [
                {
                    "id": "f-red",
                    "owner": "red",
                    "square": [1, 1],
                    "status": "probe",
                    "units": [{"id": "r-u1", **UNIT}],
                },
                {
                    "id": "f-blue",
                    "owner": "blue",
                    "square": [3, 1],
                    "status": "defend",
                    "units": [{"id": "b-u1", **UNIT}],
                    **blue,
                },
            ],
        }
    )


ORDERS = {
    "red": PlayerOrders(
        "red", {"f-red": ForceOrders("f-red", path=((2, 1), (3, 1)), zoc=ZocPolicy.ENGAGE)}
    ),
    "blue": PlayerOrders("blue", {}),
}


def _contact(state):
    # initiative f-red 6, f-blue 1; f-red's movement 6: two squares, into contact
    return resolve_turn(state, ORDERS, ScriptedDice([6, 1, 6])).state


def _blue(pending):
    return next(bf for s in pending.pack.sides for bf in s.forces if bf.force_id == "f-blue")


def test_the_first_battle_fixes_the_quota_and_the_pack_offers_all_of_it():
    state = _contact(_state())
    bf = _blue(state.pending_battles[0])
    assert (bf.works_quota, bf.works_built) == (40, 0)  # R7.8.4: one point per figure


def test_a_second_battle_on_the_square_offers_only_what_is_left():
    state = _contact(_state(works_quota=40, works_square=[3, 1], works_built=25))
    bf = _blue(state.pending_battles[0])
    assert (bf.works_quota, bf.works_built) == (15, 25)  # R7.8.6: not cumulative


def test_a_result_may_not_build_beyond_what_is_left_and_what_it_builds_is_counted():
    state = _contact(_state(works_quota=40, works_square=[3, 1], works_built=25))
    battle = state.pending_battles[0]
    side = {bf.force_id: s for s in ("a", "b") for bf in battle.pack.sides["ab".index(s)].forces}
    won = {side["f-blue"]: "won", side["f-red"]: "lost"}
    over = BattleResult(
        battle.battle_id,
        outcomes=won,
        works_built={"f-blue": 16},
        units=(UnitLoss("r-u1", 0, 0, 0, 0),),
    )
    with pytest.raises(InvalidResult, match="0 to 15 points"):
        validate_result(state, battle, over)
    ok = BattleResult(battle.battle_id, outcomes=won, works_built={"f-blue": 15})
    # Phase 4: the loser retreats (no die); Phases 5–8 roll Will to Fight for red (1 lost)
    out = resolve_after_battles(state, {battle.battle_id: ok}, ScriptedDice([6] * 8))
    blue = out.state.force("f-blue")
    assert (blue.works_quota, blue.works_built) == (40, 40)


def test_a_force_that_leaves_its_square_loses_its_works_and_their_count():
    state = _state(works_quota=40, works_square=[3, 1], works_built=25, status="probe")
    orders = {
        "red": PlayerOrders("red", {}),
        "blue": PlayerOrders("blue", {"f-blue": ForceOrders("f-blue", path=((4, 1),))}),
    }
    out = resolve_turn(state, orders, ScriptedDice([1, 6, 6, 6])).state
    blue = out.force("f-blue")
    assert (blue.works_quota, blue.works_square, blue.works_built) == (None, None, 0)
