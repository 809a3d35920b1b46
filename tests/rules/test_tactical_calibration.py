"""Calibration of the tactical engine: 2,000 simulated battles per case (fixed seeds, so
these are exact regression figures, not flaky statistics). The forces are the sample force
of rules/tactical/samples.py: four infantry units, one missile and one cavalry unit, in
two commands under CV 3 generals.

The margins are wide compared with the sampling error of 2,000 runs (about ±0.011 on a
probability), so a change of the engine that keeps its character keeps these green; one that
breaks them changed what a GM can expect and must say so in docs/tactical-engine.md."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import pytest

from rules.dice import SeededDice
from rules.tactical import BattleInput, Odds, simulate
from rules.tactical.inputs import what_if
from rules.tactical.samples import sample_force
from rules.types import Quality, Status

RUNS = 2000
SEED = 20_240


def duel(a: dict | None = None, b: dict | None = None) -> BattleInput:
    return what_if(
        [sample_force("red", **(a or {}))], [sample_force("blue", **(b or {}))], SeededDice(1)
    )


@cache
def odds(name: str) -> Odds:
    """The odds of one named case, computed once per test session."""
    cases = {
        "mirror": lambda: duel(),
        "1.5x": lambda: duel({"figures": 18}),
        "2x": lambda: duel({"figures": 24}),
        "elite-levy": lambda: duel({"quality": Quality.ELITE}, {"quality": Quality.LEVY}),
        "works": lambda: duel(b={"status": Status.DEFEND}),
        "no-works": lambda: without_works(duel(b={"status": Status.DEFEND})),
        "confused": lambda: duel({"status": Status.CONFUSED}),
        "unsteady": lambda: duel({"status": Status.UNSTEADY}),
    }
    return simulate(cases[name](), RUNS, SEED)


def without_works(inp: BattleInput) -> BattleInput:
    sides = tuple(
        replace(s, forces=tuple(replace(bf, works_quota=0) for bf in s.forces))
        for s in inp.pack.sides
    )
    return replace(inp, pack=replace(inp.pack, sides=sides))


def test_mirror_identical_forces_are_even():
    o = odds("mirror")
    assert o.runs == RUNS
    assert abs(o.win_a - o.win_b) <= 0.05, (o.win_a, o.win_b)
    assert o.stalemate > 0  # both sides can hold to the end of the clock (R7.3.3)


def test_more_figures_win_more_often():
    """Doubling one side's figures raises its win probability at every step."""
    p = [odds(name).win_a for name in ("mirror", "1.5x", "2x")]
    assert p[0] < p[1] < p[2], p


def test_elite_beats_levy():
    assert odds("elite-levy").win_a >= 0.80


def test_field_works_help_the_defender():
    """A Defend force with its full works quota (R7.8.4) wins more often than without."""
    assert odds("works").win_b > odds("no-works").win_b


def test_confused_and_unsteady_starts_lower_the_odds():
    """R7.8.1–3: a Confused start lowers the win probability, an Unsteady one more so."""
    base, confused, unsteady = (odds(n).win_a for n in ("mirror", "confused", "unsteady"))
    assert unsteady < confused < base, (base, confused, unsteady)


@pytest.mark.parametrize("name", ["mirror", "elite-levy", "works", "unsteady"])
def test_expected_losses_are_consistent(name):
    o = odds(name)
    inp = {"mirror": duel, "elite-levy": lambda: duel({"quality": Quality.ELITE})}.get(name, duel)()
    figures = {k: s.figures for k, s in zip("ab", inp.pack.sides, strict=True)}
    for key, side in o.sides.items():
        lost = side.expected_losses
        removed = lost["killed"] + lost["fled"] + lost["left_oppose"] + lost["left_retreat"]
        assert 0 <= removed <= figures[key]
        assert side.win + side.stalemate + side.loss == pytest.approx(1)
