"""The demo campaign "Incursion" (fixtures/incursion/): a legal §11 set-up, as data the
engine loads, and six turns of play from the demo's standing orders."""

from __future__ import annotations

import json
import re
from collections import deque
from pathlib import Path

import pytest

from rules.battle import BattleResult
from rules.codec import from_data, to_data
from rules.dice import SeededDice
from rules.events import ForceMoved
from rules.orders import PlayerOrders, validate_orders
from rules.scenarios import load_scenario
from rules.setup.forces import validate_force_organisation
from rules.setup.holdings import chebyshev, validate_holding_placement
from rules.setup.incursion import incursion_points, validate_incursion_holdings
from rules.setup.references import validate_state_references
from rules.setup.territory import territory_zones
from rules.turn import resolve_after_battles, resolve_turn
from rules.types import CampaignState, Coord, Feature, Options, Outcome, Speciality, Status

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "incursion"
# R11.2.3: raiders = 2 × defenders. The armies are built to exactly 4000 / 2000 points; the
# tolerance lets a later edit of a roster move a few figures without breaking the demo.
POINTS_TOLERANCE = 0.02  # of the raiders' army, for the ratio and for each army's total
TURNS = 6


def _json(name: str) -> dict:
    return json.loads((FIXTURE / name).read_text(encoding="utf-8"))


def _load_state() -> CampaignState:
    return from_data(CampaignState, _json("state.json"), "state")


def _orders(raw: dict) -> dict[str, PlayerOrders]:
    """The demo's orders (player id → PlayerOrders as in docs/state-format.md), with the ids
    the documented format leaves implicit filled in, as `python -m rules turn` does."""
    return {
        pid: from_data(
            PlayerOrders,
            {
                **po,
                "player_id": po.get("player_id", pid),
                "forces": {fid: {"force_id": fid, **fo} for fid, fo in po["forces"].items()},
            },
            f"orders.{pid}",
        )
        for pid, po in raw.items()
    }


@pytest.fixture(scope="module")
def state() -> CampaignState:
    return _load_state()


@pytest.fixture(scope="module")
def demo() -> dict:
    return _json("demo.json")


def _squares_with(state: CampaignState, feature: Feature) -> set[Coord]:
    return {c for c, f in state.map.features.items() if feature in f}


def _army(state: CampaignState, pid: str):
    return [f for f in state.forces if f.owner == pid]


# --- the state document ----------------------------------------------------------------------


def test_state_loads_and_round_trips(state):
    assert validate_state_references(state) == ()
    assert from_data(CampaignState, to_data(state)) == state
    assert (state.turn, state.day, state.phase) == (1, 0, "orders")
    assert state.scenario == "incursion"
    assert not state.pending_battles and not state.orders and state.ended is None


def test_options_are_the_scenarios(state):
    scenario = load_scenario("incursion")
    assert state.options == scenario.apply_options(Options())
    assert scenario.apply_options(state.options) == state.options  # overrides already applied


def test_players_fill_the_scenario_roles(state):
    scenario = load_scenario("incursion")
    raiders, defenders = state.player("raiders"), state.player("defenders")
    assert (raiders.side, raiders.role, raiders.race) == ("raiders", "raiders", "Barbarians")
    assert (defenders.side, defenders.role) == ("defenders", "defenders")
    assert raiders.tribal is scenario.role("raiders").tribal is True
    assert state.hostile("raiders", "defenders")
    # R11.2.3, TV-13
    assert incursion_points(raider_points=raiders.initial_points).defender_points == (
        defenders.initial_points
    )
    assert (raiders.initial_points, defenders.initial_points) == (4000, 2000)


# --- the map ---------------------------------------------------------------------------------


def test_map_is_16_by_12_with_complete_thirds(state):
    assert (state.map.width, state.map.height) == (16, 12)
    # R2.2: raiders x 0-4, neutral centre x 5-10, defenders x 11-15; every outer square zoned
    expected = territory_zones(16, 12, "x", low="raiders", high="defenders")
    assert dict(state.map.zones) == expected
    assert len(expected) == 2 * 5 * 12


def test_map_is_varied(state):
    kinds = set().union(*state.map.features.values())
    assert len(kinds) >= 6, sorted(kinds)
    assert {Feature.FOREST, Feature.HILL, Feature.SWAMP, Feature.CULTIVATED} <= kinds
    assert {Feature.UNCULTIVATED, Feature.MOUNTAIN, Feature.PASS} <= kinds
    bridges = _squares_with(state, Feature.BRIDGE)
    assert len(bridges) >= 2
    assert all(Feature.RIVER in state.map.features_at(b) for b in bridges)
    assert len(_squares_with(state, Feature.ROAD)) >= 6
    passes = _squares_with(state, Feature.PASS)
    assert all(Feature.MOUNTAIN in state.map.features_at(p) for p in passes)


def test_the_river_meanders_across_the_map(state):
    river = _squares_with(state, Feature.RIVER)
    assert {y for _, y in river} == set(range(state.map.height))  # from edge to edge
    assert len({x for x, _ in river}) >= 3  # not straight
    # one unbroken watercourse, orthogonally connected, so nothing slips between its squares
    start = min(river, key=lambda c: c[1])
    seen, todo = {start}, deque([start])
    while todo:
        x, y = todo.popleft()
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if n in river and n not in seen:
                seen.add(n)
                todo.append(n)
    assert seen == river


def test_roads_link_every_holding(state):
    roads = _squares_with(state, Feature.ROAD)
    holdings = {h.square for h in state.holdings}
    nodes = roads | holdings
    start = next(iter(holdings))
    seen, todo = {start}, deque([start])
    while todo:
        for n in state.map.neighbours(todo.popleft()):
            if n in nodes and n not in seen:
                seen.add(n)
                todo.append(n)
    assert holdings <= seen
    # every place the road meets the river has a bridge
    for sq in roads & _squares_with(state, Feature.RIVER):
        assert Feature.BRIDGE in state.map.features_at(sq), sq


def test_defender_villages_stand_among_fields(state):
    for h in state.holdings:
        if h.owner != "defenders" or h.capital:
            continue
        around = [state.map.features_at(n) for n in state.map.neighbours(h.square)]
        assert sum(Feature.CULTIVATED in f for f in around) >= 3, h.id


# --- holdings and armies ---------------------------------------------------------------------


def test_holdings_are_legal(state):
    placement = validate_holding_placement(
        game_map=state.map, players=state.players, holdings=state.holdings
    )
    assert placement.problems == ()
    by_owner = {p: [h for h in state.holdings if h.owner == p] for p in ("raiders", "defenders")}
    incursion = validate_incursion_holdings(
        defender_holdings=by_owner["defenders"], raider_holdings=by_owner["raiders"]
    )
    assert incursion.problems == ()
    scenario = load_scenario("incursion")
    for pid, held in by_owner.items():
        role = scenario.role(state.player(pid).role)
        assert role.min_holdings <= len(held) <= (role.max_holdings or len(held))
    assert all(h.name and h.original_owner == h.owner for h in state.holdings)


def test_forces_are_organised(state):
    problems = [p for f in state.forces for p in validate_force_organisation(f).problems]
    assert problems == []
    for f in state.forces:
        assert f.name and all(3 <= g.cv <= 4 for g in f.generals), f.id
        assert len(f.individuals) <= len(f.units), f.id  # R2.5.5, generals not counted
    units = [u for f in state.forces for u in f.units]
    assert sum(u.has_missiles for u in units) >= 3
    assert sum(u.mercenary for u in units) == 1
    wizards = [i for f in state.forces for i in f.individuals if i.kind == "wizard"]
    assert wizards and all(w.magic_points > 0 for w in wizards)
    assert any(u.speciality is Speciality.TERRIBLE_CREATURE for u in units)  # p. 7 roster
    assert len(_army(state, "raiders")) == 3
    assert 3 <= len(_army(state, "defenders")) <= 4


def test_raiders_have_twice_the_defenders_points(state):
    raiders = sum(f.points for f in _army(state, "raiders"))
    defenders = sum(f.points for f in _army(state, "defenders"))
    slack = POINTS_TOLERANCE * state.player("raiders").initial_points
    assert abs(raiders - 2 * defenders) <= slack, (raiders, defenders)
    for pid, points in (("raiders", raiders), ("defenders", defenders)):
        assert abs(points - state.player(pid).initial_points) <= slack, (pid, points)


def test_initial_placement(state):
    """R11.3: raiders with any order in or next to their capital; defenders on Defend on or
    next to one of their holdings (R2.6.2), all in friendly territory."""
    capital = next(h.square for h in state.holdings if h.owner == "raiders")
    for f in _army(state, "raiders"):
        assert f.status.is_order and chebyshev(f.square, capital) <= 1, f.id
    start = load_scenario("incursion").role("defenders").start_status
    held = [h.square for h in state.holdings if h.owner == "defenders"]
    for f in _army(state, "defenders"):
        assert f.status is start is Status.DEFEND, f.id
        assert min(chebyshev(f.square, h) for h in held) <= 1, f.id
    assert all(state.map.zones.get(f.square) == f.owner for f in state.forces)


# --- demo.json -------------------------------------------------------------------------------


def test_demo_metadata(state, demo):
    assert demo["campaign"]["slug"] == "incursion" and demo["campaign"]["name"]
    assert demo["campaign"]["scenario"] == state.scenario and demo["campaign"]["description"]
    users = {u["username"]: u for u in demo["users"]}
    assert set(users) == {"gm", "raider", "defender"}
    assert (users["gm"]["role"], users["gm"]["player"]) == ("gm", None)
    assert (users["raider"]["role"], users["raider"]["player"]) == ("player", "raiders")
    assert (users["defender"]["role"], users["defender"]["player"]) == ("player", "defenders")
    assert all(u["display_name"] for u in users.values())
    assert set(demo["colours"]) == {p.id for p in state.players}
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in demo["colours"].values())
    assert "password" not in json.dumps(demo).lower()
    for mark in demo["landmarks"]:
        for sq in mark["squares"]:
            assert Feature(mark["kind"]) in state.map.features_at(tuple(sq)), mark["name"]


def test_turn_one_orders_are_valid(state, demo):
    assert demo["orders_turn"] == state.turn == 1
    orders = _orders(demo["orders"])
    assert set(orders) == {p.id for p in state.players}
    for pid, po in orders.items():
        assert validate_orders(state, pid, po) == [], pid
    raiders = orders["raiders"].forces
    assert set(raiders) == {f.id for f in _army(state, "raiders")}
    assert all(1 <= len(fo.path) <= 3 for fo in raiders.values())
    assert any(fo.zoc == "engage" for fo in raiders.values())
    assert any(_squares_with(state, Feature.BRIDGE) & set(fo.path) for fo in raiders.values())
    assert orders["defenders"].forces == {}  # they stay on Defend


# --- six turns of play -------------------------------------------------------------------------


def test_six_turns_play(demo):
    state = _load_state()
    start = {f.id: f.square for f in state.forces}
    dice = SeededDice(7)
    moved: set[str] = set()
    for turn in range(1, TURNS + 1):
        orders = _orders(demo["orders"]) if turn == 1 else {}
        out = resolve_turn(state, orders, dice)
        moved |= {e.force_id for e in out.events if isinstance(e, ForceMoved)}
        stalemates = {
            b.battle_id: BattleResult(
                b.battle_id, outcomes={"a": Outcome.STALEMATE, "b": Outcome.STALEMATE}
            )
            for b in out.pending_battles
        }
        state = resolve_after_battles(out.state, stalemates, dice).state
        assert validate_state_references(state) == ()
    assert (state.day, state.turn, state.phase) == (TURNS, TURNS + 1, "orders")
    assert state.ended is None
    assert moved and any(f.square != start[f.id] for f in state.forces if f.id in moved)
    assert moved <= {f.id for f in _army(state, "raiders")}  # only they had orders
    assert all(f.status is Status.DEFEND for f in _army(state, "defenders"))
