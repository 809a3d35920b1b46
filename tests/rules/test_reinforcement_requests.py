"""Phase 7 standing requests (§9.3) beyond the basic cases of test_phases_5_8: the player's
choice of the force to join (R9.3.3), what a request may not hold whatever the map (R9.3.2
Elite, §1.1 figures and CV, no negative points) and the arrival's readable contents."""

from __future__ import annotations

import pytest

from rules.orders import PlayerOrders, ReinforcementRequest
from rules.phases import reinforcements
from rules.types import General, Individual, IndividualKind, Player, Quality, Status
from tests.rules.test_phases_5_8 import _holdings, force, run, state_with, unit


def _arrived(events):
    return [e for e in events if type(e).__name__ == "ReinforcementsArrived"]


def _state(*forces, reqs):
    ps = (Player("orc", "orc", initial_points=2000), Player("gob", "orc"))
    return state_with(
        *forces,
        holdings=_holdings(),
        day=7,
        players=ps,
        orders={"orc": PlayerOrders("orc", reinforcements=reqs)},
    )


def test_the_owner_chooses_the_force_to_join_r9_3_3():
    req = ReinforcementRequest(units=(unit("n", 5),), join="f10")
    s = _state(force("f9", "orc", (0, 0)), force("f10", "orc", (0, 0)), reqs=(req,))
    new, events, _ = run(reinforcements, s, [])
    assert [u.figures for u in new.force("f10").units] == [10, 5]
    (arrived,) = _arrived(events)
    assert (arrived.force_id, arrived.joined, arrived.capital_id) == ("f10", True, "cap")
    assert arrived.units == ("5 warriors",)


def test_a_chosen_force_away_from_the_capital_is_not_joined():
    req = ReinforcementRequest(units=(unit("n", 5),), join="f10")
    s = _state(force("f9", "orc", (0, 0)), force("f10", "orc", (4, 4)), reqs=(req,))
    new, events, _ = run(reinforcements, s, [])
    assert [e.force_id for e in _arrived(events)] == ["f9"]


def test_a_new_force_names_its_general_and_characters():
    req = ReinforcementRequest(
        units=(unit("n", 5),),
        general=General("g", 2, name="Grub", points=40),
        individuals=(Individual("i", IndividualKind.HERO, name="Snaga", points=30),),
        status=Status.PROBE,
        name="Fresh levy",
    )
    new, events, _ = run(reinforcements, _state(reqs=(req,)), [])
    f = new.forces[0]
    assert (f.name, f.status, f.square) == ("Fresh levy", Status.PROBE, (0, 0))
    (arrived,) = _arrived(events)
    assert arrived.people == ("Grub", "Snaga") and arrived.points == 120


@pytest.mark.parametrize(
    ("req", "code", "rule"),
    [
        (ReinforcementRequest(), "empty", "R9.3"),
        (ReinforcementRequest(units=(unit("e", 5, Quality.ELITE),)), "elite", "R9.3.2"),
        (ReinforcementRequest(units=(unit("z", 0),)), "no-figures", "§1.1"),
        (ReinforcementRequest(units=(unit("n", 5, ppf=-3),)), "negative-points", "R9.3"),
        (
            ReinforcementRequest(units=(unit("n", 5),), general=General("g", 9)),
            "cv-out-of-range",
            "§1.1",
        ),
        (ReinforcementRequest(units=(unit("n", 5),), status=Status.CONFUSED), "status", "R9.3.4"),
        (ReinforcementRequest(general=General("g", 2)), "general-alone", "§1.1"),
    ],
)
def test_request_problems(req, code, rule):
    assert [(c, r) for c, r, _ in reinforcements.request_problems(req)] == [(code, rule)]


def test_a_zero_figure_or_negative_request_is_refused_and_banks_nothing():
    reqs = (
        ReinforcementRequest(units=(unit("z", 0),)),
        ReinforcementRequest(units=(unit("n", 5, ppf=-30),)),
    )
    new, events, _ = run(reinforcements, _state(force("f9", "orc", (0, 0)), reqs=reqs), [])
    refused = [
        (e.request, e.rule)
        for e in events
        if type(e).__name__ == "ReinforcementsRefused" and e.player_id == "orc"
    ]
    assert refused == [(0, "§1.1"), (1, "R9.3")]
    assert new.bank["orc"] == 320 and [u.figures for u in new.force("f9").units] == [10]
