"""Property tests over random campaigns, orders and battle results (hypothesis)."""

from __future__ import annotations

import json
import random
from collections import defaultdict

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.battle import BattleResult, UnitLoss
from rules.dice import SeededDice
from rules.generate import generate_campaign, generate_orders
from rules.turn import resolve_after_battles, resolve_turn
from rules.types import CampaignState, Options, Outcome

campaigns = st.builds(
    lambda w, h, players, fpp, upf, seed, method, naran: (
        generate_campaign(
            width=w,
            height=h,
            players=players,
            forces=players * fpp,
            units_per_force=upf,
            seed=seed,
            options=Options(
                battle_result_method=method, special_scenarios=naran, naran_promotion=naran
            ),
        ),
        seed,
    ),
    st.integers(4, 10),
    st.integers(3, 8),
    st.integers(2, 4),
    st.integers(1, 4),
    st.integers(1, 3),
    st.integers(0, 10_000),
    st.sampled_from(["core", "italian"]),
    st.booleans(),
)


def random_results(state: CampaignState, seed: int) -> dict[str, BattleResult]:
    """Consistent results: each side loses a random share; a beaten side under the core
    method has every figure off the field (R7.3.1–2)."""
    rng = random.Random(seed)
    forces = {f.id: f for f in state.forces}
    results = {}
    for b in state.pending_battles:
        a_side, b_side = b.pack.sides
        choice = rng.choice(["a", "b", "stalemate"])
        units, lost_pts = [], {"a": 0, "b": 0}
        for key, side in (("a", a_side), ("b", b_side)):
            beaten = choice != "stalemate" and choice != key
            for bf in side.forces:
                for u in forces[bf.force_id].units:
                    gone = u.figures if beaten else rng.randint(0, max(0, u.figures - 1))
                    k = rng.randint(0, gone)
                    fl = rng.randint(0, gone - k)
                    op = rng.randint(0, gone - k - fl)
                    units.append(
                        UnitLoss(
                            u.id, killed=k, fled=fl, left_oppose=op, left_retreat=gone - k - fl - op
                        )
                    )
                    lost_pts[key] += (k + fl) * u.points_per_figure
        if choice == "stalemate":
            outcomes = {"a": Outcome.STALEMATE, "b": Outcome.STALEMATE}
        else:
            other = "b" if choice == "a" else "a"
            outcomes = {choice: Outcome.WON, other: Outcome.LOST}
        results[b.battle_id] = BattleResult(
            b.battle_id,
            outcomes=outcomes,
            units=tuple(units),
            wiped=None if choice == "stalemate" else ("b" if choice == "a" else "a"),
        )
    return results


def play(state: CampaignState, seed: int):
    orders = generate_orders(state, seed=seed)
    dice = SeededDice(seed)
    out1 = resolve_turn(state, orders, dice)
    out2 = resolve_after_battles(out1.state, random_results(out1.state, seed), dice)
    return out1, out2, dice


def _unit_figures(state: CampaignState) -> dict[str, int]:
    return {u.id: u.figures for f in state.forces for u in f.units}


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(campaigns)
def test_every_force_is_in_exactly_one_square_on_the_map(case):
    state, seed = case
    out1, out2, _ = play(state, seed)
    for s in (out1.state, out2.state):
        ids = [f.id for f in s.forces]
        assert len(ids) == len(set(ids))
        for f in s.forces:
            assert s.map.on_map(f.square), f"{f.id} off the map at {f.square}"


@SETTINGS
@given(campaigns)
def test_after_phase_4_no_square_holds_two_hostile_sides(case):
    state, seed = case
    _, out2, _ = play(state, seed)
    sides = defaultdict(set)
    for f in out2.state.forces:
        sides[f.square].add(out2.state.side_of(f.owner))
    assert all(len(s) == 1 for s in sides.values()), dict(sides)


@SETTINGS
@given(campaigns)
def test_figures_never_negative_nor_created(case):
    state, seed = case
    before = _unit_figures(state)
    out1, out2, _ = play(state, seed)
    for s in (out1.state, out2.state):
        for uid, n in _unit_figures(s).items():
            assert n >= 0
            assert uid in before, f"unit {uid} appeared from nothing"
            assert n <= before[uid], f"unit {uid} grew from {before[uid]} to {n}"


@SETTINGS
@given(campaigns)
def test_same_seed_same_ledger_and_events(case):
    state, seed = case
    runs = [play(state, seed) for _ in range(2)]

    def dump(run):
        out1, out2, dice = run
        return json.dumps(
            [dice.ledger_dicts(), [e.to_dict() for e in out1.events + out2.events]],
            sort_keys=True,
        )

    assert dump(runs[0]) == dump(runs[1])
