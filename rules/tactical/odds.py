"""Odds: the same battle fought many times with derived seeds.

Run i uses `SeededDice(derive_seed(seed, "tactical", battle_id, i))`, so the odds depend only
on the input, the number of runs and the seed: never on the number of worker processes,
which only share the runs out (their tallies are whole numbers, summed in run order).
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

from rules.dice import SeededDice, derive_seed
from rules.tactical.engine import Setup, compile_input, fight_setup
from rules.tactical.inputs import BattleInput, TacticalError
from rules.types import Outcome

DEFAULT_RUNS = 1000
POOL_FROM = 400  # fewer runs are quicker in-process than a pool's start-up
# Per side: wins, stalemates, losses, then the summed losses of every run.
_LOSS_KEYS = ("killed", "fled", "left_oppose", "left_retreat", "points", "individuals")


@dataclass(frozen=True, slots=True)
class SideOdds:
    """One side's chances and its mean losses per battle (figures, points, individuals)."""

    win: float
    stalemate: float
    loss: float
    expected_losses: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Odds:
    """The outcome frequencies of `runs` battles fought from `seed`, side a's view first;
    `sides` gives each side's view with its mean losses per battle."""

    runs: int
    seed: int
    win_a: float
    stalemate: float
    win_b: float
    sides: Mapping[str, SideOdds] = field(default_factory=dict)
    mean_turns: float = 0.0
    ended_by_storm: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "runs": self.runs,
            "seed": self.seed,
            "win_a": self.win_a,
            "stalemate": self.stalemate,
            "win_b": self.win_b,
            "mean_turns": self.mean_turns,
            "ended_by_storm": self.ended_by_storm,
            "sides": {
                k: {
                    "win": s.win,
                    "stalemate": s.stalemate,
                    "loss": s.loss,
                    "expected_losses": dict(s.expected_losses),
                }
                for k, s in self.sides.items()
            },
        }


def _tally(setup: Setup, seed: int, start: int, stop: int) -> list[int]:
    """Whole-number tallies of runs [start, stop): a-wins, stalemates, b-wins, turns, storms,
    then per side the six loss totals."""
    out = [0] * (5 + 2 * len(_LOSS_KEYS))
    owner = {u.uid: i for i, side in enumerate(setup.sides) for u in side.units}
    people = {p.pid: i for i, side in enumerate(setup.sides) for p in side.people}
    for i in range(start, stop):
        dice = SeededDice(derive_seed(seed, "tactical", setup.battle_id, i))
        res = fight_setup(setup, dice, ledger=False)
        r = res.result
        a = r.outcomes["a"]
        out[0 if a is Outcome.WON else 2 if a is Outcome.LOST else 1] += 1
        out[3] += res.turns
        out[4] += r.ended_by_storm
        for loss in r.units:
            base = 5 + owner[loss.unit_id] * len(_LOSS_KEYS)
            out[base] += loss.killed
            out[base + 1] += loss.fled
            out[base + 2] += loss.left_oppose
            out[base + 3] += loss.left_retreat
        for k, key in enumerate(("a", "b")):
            base = 5 + k * len(_LOSS_KEYS)
            out[base + 4] += r.points_lost.get(key, 0)
        for fate in r.individuals:
            out[5 + people[fate.individual_id] * len(_LOSS_KEYS) + 5] += 1
    return out


def _chunks(runs: int, parts: int) -> list[tuple[int, int]]:
    step = -(-runs // parts)
    return [(i, min(i + step, runs)) for i in range(0, runs, step)]


def _workers(runs: int, workers: int | None) -> int:
    if workers is not None:
        return max(1, workers)
    if runs < POOL_FROM or multiprocessing.current_process().daemon:
        return 1  # a daemon process (a Celery prefork child) may not start a pool
    return max(1, min(os.cpu_count() or 1, 8))


def simulate(
    inp: BattleInput, runs: int = DEFAULT_RUNS, seed: int = 0, *, workers: int | None = None
) -> Odds:
    """Fight the battle `runs` times and return each side's chances and mean losses.
    `workers` processes share the runs (default: one per CPU from POOL_FROM runs, else 1;
    always 1 inside a daemon process such as a Celery prefork child); they are forked from a
    single-threaded process, started from a fork server otherwise. The result is the same
    whatever their number."""
    if runs < 1:
        raise TacticalError("the simulation needs at least one run")
    setup = compile_input(inp)
    n = _workers(runs, workers)
    if n == 1:
        total = _tally(setup, seed, 0, runs)
    else:
        from concurrent.futures import ProcessPoolExecutor

        chunks = _chunks(runs, n)
        with ProcessPoolExecutor(max_workers=len(chunks), mp_context=_context()) as pool:
            parts = list(
                pool.map(
                    _tally,
                    [setup] * len(chunks),
                    [seed] * len(chunks),
                    [a for a, _ in chunks],
                    [b for _, b in chunks],
                )
            )
        total = [sum(col) for col in zip(*parts, strict=True)]
    return _odds(total, runs, seed)


def _context() -> multiprocessing.context.BaseContext:
    """Fork when this process has a single thread (quick); otherwise (a threaded web server)
    a fork server, since forking a threaded process may deadlock the child."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _odds(total: list[int], runs: int, seed: int) -> Odds:
    wa, st, wb = (x / runs for x in total[:3])
    sides = {}
    for k, key in enumerate(("a", "b")):
        base = 5 + k * len(_LOSS_KEYS)
        losses = {name: total[base + j] / runs for j, name in enumerate(_LOSS_KEYS)}
        win, loss = (wa, wb) if key == "a" else (wb, wa)
        sides[key] = SideOdds(win, st, loss, losses)
    return Odds(
        runs=runs,
        seed=seed,
        win_a=wa,
        stalemate=st,
        win_b=wb,
        sides=sides,
        mean_turns=total[3] / runs,
        ended_by_storm=total[4] / runs,
    )
