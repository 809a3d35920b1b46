"""Odds: the same battle fought many times with derived seeds.

Run i uses `SeededDice(derive_seed(seed, "tactical", battle_id, i))`, so the odds depend only
on the input, the number of runs and the seed: never on the pool that shares the runs out
(its chunks' tallies are whole numbers, summed in run order). The pool is injected: the
engine starts no process; `rules.cli.pool.odds_pool` makes one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from rules.dice import SeededDice, derive_seed
from rules.tactical.engine import Setup, compile_input, fight_setup
from rules.tactical.inputs import BattleInput, TacticalError
from rules.types import Outcome

DEFAULT_RUNS = 1000
# Per side: wins, stalemates, losses, then the summed losses of every run.
_LOSS_KEYS = ("killed", "fled", "left_oppose", "left_retreat", "points", "individuals")


class RunPool(Protocol):
    """What `simulate` needs to share its runs out: the number of chunks to cut them into,
    and a map that tallies the chunks (the `map` of a `concurrent.futures.Executor`)."""

    @property
    def workers(self) -> int: ...

    def map[T](self, fn: Callable[..., T], /, *iterables: Iterable[Any]) -> Iterator[T]: ...


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


def simulate(
    inp: BattleInput, runs: int = DEFAULT_RUNS, seed: int = 0, *, pool: RunPool | None = None
) -> Odds:
    """Fight the battle `runs` times and return each side's chances and mean losses. Without
    a `pool` every run is fought in this process; with one, the runs are cut into
    `pool.workers` chunks that `pool.map` tallies. The result is the same either way."""
    if runs < 1:
        raise TacticalError("the simulation needs at least one run")
    setup = compile_input(inp)
    if pool is None:
        return _odds(_tally(setup, seed, 0, runs), runs, seed)
    chunks = _chunks(runs, max(1, pool.workers))
    parts = pool.map(
        _tally,
        [setup] * len(chunks),
        [seed] * len(chunks),
        [a for a, _ in chunks],
        [b for _, b in chunks],
    )
    total = [sum(col) for col in zip(*parts, strict=True)]
    return _odds(total, runs, seed)


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
