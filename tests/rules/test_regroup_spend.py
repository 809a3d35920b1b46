"""Regrouping pools spent (R8.3.2 [NARAN], p. 35): a force's pool of one speciality buys
figures for its units of that speciality, up to the points in it; they join before the next
turn's Phase 1, and what is left stays (R8.3.4)."""

from __future__ import annotations

from dataclasses import replace

from rules import ScriptedDice, resolve_turn, validate_orders
from rules.orders import PlayerOrders, RegroupPurchase
from tests.rules.casefile import load_state


def _state(regroup: bool = True):
    state = load_state(
        {
            "players": [{"id": "red", "side": "west"}, {"id": "blue", "side": "east"}],
            "map": {"width": 8, "height": 3},
            "options": {"naran_regroup": regroup},
            "forces": [
                {
                    "id": "f-red",
                    "owner": "red",
                    "square": [1, 1],
                    "status": "defend",
                    "regroup_pool": {"infantry": 50, "cavalry": 12},
                    "units": [
                        {
                            "id": "r-u1",
                            "type": "spears",
                            "speciality": "infantry",
                            "quality": "average",
                            "figures": 10,
                            "points_per_figure": 5,
                        },
                        {
                            "id": "r-u2",
                            "type": "riders",
                            "speciality": "cavalry",
                            "quality": "average",
                            "figures": 4,
                            "points_per_figure": 12,
                        },
                    ],
                },
                {
                    "id": "f-blue",
                    "owner": "blue",
                    "square": [6, 1],
                    "status": "defend",
                    "units": [
                        {
                            "id": "b-u1",
                            "type": "spears",
                            "speciality": "infantry",
                            "quality": "average",
                            "figures": 10,
                        }
                    ],
                },
            ],
        }
    )
    return state


def _orders(*purchases: RegroupPurchase) -> dict[str, PlayerOrders]:
    return {"red": PlayerOrders("red", regroup=purchases), "blue": PlayerOrders("blue")}


def test_the_pool_buys_figures_before_phase_1_and_keeps_the_rest():
    state = _state()
    orders = _orders(RegroupPurchase("f-red", "r-u1", 8), RegroupPurchase("f-red", "r-u2", 1))
    assert validate_orders(state, "red", orders["red"]) == []
    out = resolve_turn(state, orders, ScriptedDice([6, 1]))  # initiative only: both Defend
    red = out.state.force("f-red")
    assert {u.id: u.figures for u in red.units} == {"r-u1": 18, "r-u2": 5}
    assert dict(red.regroup_pool) == {"infantry": 10, "cavalry": 0}
    spent = [e for e in out.events if type(e).__name__ == "RegroupSpent"]
    assert [(e.unit_id, e.figures, e.points, e.pool) for e in spent] == [
        ("r-u1", 8, 40, 10),
        ("r-u2", 1, 12, 0),
    ]


def test_a_purchase_beyond_the_pool_or_the_speciality_is_refused():
    state = _state()
    over = _orders(RegroupPurchase("f-red", "r-u1", 6), RegroupPurchase("f-red", "r-u1", 5))
    assert [e.code for e in validate_orders(state, "red", over["red"])] == ["regroup-over-pool"]
    alien = _orders(RegroupPurchase("f-red", "b-u1", 1))
    assert [e.code for e in validate_orders(state, "red", alien["red"])] == ["regroup-bad-unit"]
    off = _orders(RegroupPurchase("f-red", "r-u1", 1))
    assert [e.code for e in validate_orders(_state(False), "red", off["red"])] == ["regroup-off"]


def test_refused_purchases_buy_nothing():
    state = replace(_state())
    orders = _orders(RegroupPurchase("f-red", "r-u1", 11))
    out = resolve_turn(state, orders, ScriptedDice([6, 1]))
    assert out.state.force("f-red").units[0].figures == 10
