"""Rivers as waterways (§6.11 [NARAN], `rules.waterways`): what carries a force on a river
(R6.11.4), which way the river flows ([SR] toward its mouth, R6.11.7), and what a voyage
may be refused for."""

from __future__ import annotations

from dataclasses import replace

from rules.waterways import (
    carried_on_river,
    craft_carry,
    craft_needed,
    flow,
    river_reach,
    voyage_error,
)
from tests.rules.casefile import load_state

RIVER = ["river", "navigable"]


def _state(squares, options=None, **force):
    return load_state(
        {
            "players": [{"id": "red", "side": "west"}, {"id": "blue", "side": "east"}],
            "map": {"width": 8, "height": 3, "squares": squares},
            "options": {"naval_movement": True, **(options or {})},
            "forces": [
                {
                    "id": "f",
                    "owner": "red",
                    "square": [0, 1],
                    "status": "probe",
                    **force,
                    "units": [
                        {
                            "id": "u1",
                            "type": "spears",
                            "speciality": "infantry",
                            "quality": "average",
                            "figures": 9,
                        },
                        {
                            "id": "u2",
                            "type": "riders",
                            "speciality": "cavalry",
                            "quality": "average",
                            "figures": 3,
                        },
                        {
                            "id": "u3",
                            "type": "bolt thrower",
                            "speciality": "artillery",
                            "quality": "average",
                            "figures": 1,
                        },
                    ],
                }
            ],
        }
    )


def _river(mouth_x: int | None = 7, ship: bool = False):
    extra = ["ship-navigable"] if ship else []
    return [
        {"x": x, "y": 1, "features": RIVER + extra + (["river-mouth"] if x == mouth_x else [])}
        for x in range(8)
    ]


def test_craft_needed_boats_for_foot_rafts_for_mounts_and_machines():
    state = _state(_river())
    f = state.force("f")
    # 9 spears + the general on foot = 10 -> 5 boats; 3 riders -> 2 rafts; 1 machine -> 1 raft
    assert craft_needed(f) == (5, 3)
    assert not craft_carry(replace(f, boats=4, rafts=3))
    assert craft_carry(replace(f, boats=4, rafts=4))  # a spare raft carries two on foot
    assert craft_carry(replace(f, boats=5, rafts=3))


def test_the_river_flows_toward_its_mouth_or_the_sea():
    state = _state(_river(7))
    assert flow(state, (1, 1), (4, 1)) == "downstream"
    assert flow(state, (4, 1), (1, 1)) == "upstream"
    no_mouth = _state(_river(None))
    assert flow(no_mouth, (1, 1), (4, 1)) == ""
    squares = _river(None) + [{"x": 0, "y": 0, "features": ["sea"]}]
    assert flow(_state(squares), (4, 1), (1, 1)) == "downstream"  # it runs into the sea at 0


def test_ships_sail_only_rivers_navigable_by_ships():
    boats_only = _state(_river(), ships=9)
    stretch = [(0, 1), (1, 1)]
    assert carried_on_river(boats_only, boats_only.force("f"), stretch) == ""
    ship_river = _state(_river(ship=True), ships=9)
    assert carried_on_river(ship_river, ship_river.force("f"), stretch) == "ships"
    pirates = _state(_river(), sea_folk=True)
    assert carried_on_river(pirates, pirates.force("f"), stretch) == "free"


def test_a_voyage_is_refused_off_the_river_without_craft_or_without_the_option():
    state = _state(_river(), boats=5, rafts=3)
    f = state.force("f")
    assert voyage_error(state, f, [(1, 1), (2, 1)]) == ("", "")
    assert voyage_error(state, f, [(1, 2)])[0] == "river-not-navigable"
    code, why = voyage_error(state, replace(f, boats=0), [(1, 1)])
    assert code == "river-no-craft" and "needs 5 and 3" in why
    off = _state(_river(), options={"naval_movement": False}, boats=5, rafts=3)
    assert voyage_error(off, off.force("f"), [(1, 1)])[0] == "river-off"
    assert river_reach(state, f) == {(1, 1), (2, 1), (3, 1), (4, 1)}
