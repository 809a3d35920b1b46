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


def _with_minimum(state, min_figures: int, leader_points: int):
    force = state.force("f-red")
    commands = tuple(
        replace(
            c,
            units=tuple(
                replace(u, min_figures=min_figures, leader_points=leader_points)
                if u.id == "r-u1"
                else u
                for u in c.units
            ),
        )
        for c in force.commands
    )
    return state.replace_force(replace(force, commands=commands))


def test_a_pool_forms_a_new_unit_of_its_minimum_size_with_its_leader():
    """R8.3.3 (p. 35): "formare delle nuove Unità ... in base all'indicatore del 'numero
    minimo' ... considerando anche il costo del Capo (obbligatorio)". Spears of minimum 8 at
    5 points and a 10-point Leader cost 50: the infantry pool's 50 points exactly."""
    state = _with_minimum(_state(), 8, 10)
    orders = _orders(RegroupPurchase("f-red", "r-u1", 8, new_unit=True))
    assert validate_orders(state, "red", orders["red"]) == []
    out = resolve_turn(state, orders, ScriptedDice([6, 1]))
    red = out.state.force("f-red")
    assert {u.id: u.figures for u in red.units} == {"r-u1": 10, "r-u1-t1": 8, "r-u2": 4}
    new = next(u for u in red.units if u.id == "r-u1-t1")
    assert (new.type, new.speciality, new.points_per_figure) == ("spears", "infantry", 5)
    assert red.regroup_pool["infantry"] == 0
    spent = next(e for e in out.events if type(e).__name__ == "RegroupSpent")
    assert (spent.new_unit_id, spent.points, spent.rule) == ("r-u1-t1", 50, "R8.3.3")


def test_a_new_unit_below_its_minimum_or_beyond_the_pool_is_refused():
    under = _orders(RegroupPurchase("f-red", "r-u1", 7, new_unit=True))
    state = _with_minimum(_state(), 8, 10)
    assert [e.code for e in validate_orders(state, "red", under["red"])] == [
        "regroup-under-minimum"
    ]
    unknown = _with_minimum(_state(), 0, 10)
    assert [e.code for e in validate_orders(unknown, "red", under["red"])] == ["regroup-no-minimum"]
    dear = _with_minimum(_state(), 8, 11)  # 40 + 11 > 50
    big = _orders(RegroupPurchase("f-red", "r-u1", 8, new_unit=True))
    assert [e.code for e in validate_orders(dear, "red", big["red"])] == ["regroup-over-pool"]
