"""Benchmark: the tactical engine on a 20-vs-20-unit battle (rules/tactical/samples.py:
`large_force`, 292 figures a side, 4 commands) in open ground.

    python bench/tactical.py [--runs 31] [--odds 1000] [--seed 1] [--workers W]

Prints JSON:
- `battle_ms`: median wall milliseconds for one battle with its full ledger (as `python -m
  rules battle` fights it), with `battle_cpu_ms`, the fastest run (`battle_min_ms`) and the
  ledger size;
- `battle_ms_no_ledger`: the same battle as each simulation run fights it (same dice, no
  ledger entries), with its CPU time and fastest run;
- `odds_seconds`: wall seconds for the 1,000-run odds of that battle (`simulate` in
  `odds_pool`: a process per CPU, or `--workers W`), and the odds themselves;
- `small_odds_seconds`: the same for the 6-vs-6-unit calibration battle;
- the machine: CPUs and load average, because a shared machine's wall times are not its CPU
  times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.cli.pool import odds_pool  # noqa: E402
from rules.dice import SeededDice, derive_seed  # noqa: E402
from rules.tactical import BattleInput, Odds, compile_input, simulate  # noqa: E402
from rules.tactical.engine import fight_setup  # noqa: E402
from rules.tactical.inputs import what_if  # noqa: E402
from rules.tactical.samples import large_force, sample_force  # noqa: E402


def timed(fn, runs: int) -> tuple[float, float, float]:
    """Median wall and CPU milliseconds of `fn(i)` over `runs` calls, and the fastest wall
    time (on a shared machine, the run least disturbed by its neighbours)."""
    wall, cpu = [], []
    for i in range(runs):
        w, c = time.perf_counter(), time.process_time()
        fn(i)
        wall.append((time.perf_counter() - w) * 1e3)
        cpu.append((time.process_time() - c) * 1e3)
    return (
        round(statistics.median(wall), 3),
        round(statistics.median(cpu), 3),
        round(min(wall), 3),
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=31, help="battles timed one by one")
    p.add_argument("--odds", type=int, default=1000, help="runs of the simulation")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=None)
    a = p.parse_args(argv)

    big = what_if([large_force("red")], [large_force("blue")], SeededDice(a.seed))
    setup = compile_input(big)
    ledger_sizes: list[int] = []

    def with_ledger(i: int) -> None:
        dice = SeededDice(derive_seed(a.seed, "bench", i))
        fight_setup(setup, dice, ledger=True)
        ledger_sizes.append(len(dice.ledger))

    def without_ledger(i: int) -> None:
        fight_setup(setup, SeededDice(derive_seed(a.seed, "bench", i)), ledger=False)

    with_ledger(0)  # warm-up (imports, caches)
    ledger_sizes.clear()
    battle_ms, battle_cpu, battle_min = timed(with_ledger, a.runs)
    fast_ms, fast_cpu, fast_min = timed(without_ledger, a.runs)

    def odds_timed(inp: BattleInput) -> tuple[Odds, float]:
        started = time.perf_counter()  # the pool's start-up counts, as in the web app
        with odds_pool(a.odds, a.workers) as pool:
            odds = simulate(inp, a.odds, a.seed, pool=pool)
        return odds, time.perf_counter() - started

    odds, odds_seconds = odds_timed(big)
    small = what_if([sample_force("red")], [sample_force("blue")], SeededDice(a.seed))
    small_odds, small_seconds = odds_timed(small)

    print(
        json.dumps(
            {
                "units_per_side": len(big.forces[0].units),
                "figures_per_side": big.forces[0].figures,
                "battle_ms": battle_ms,
                "battle_cpu_ms": battle_cpu,
                "battle_min_ms": battle_min,
                "ledger_entries": int(statistics.median(ledger_sizes)),
                "battle_ms_no_ledger": fast_ms,
                "battle_cpu_ms_no_ledger": fast_cpu,
                "battle_min_ms_no_ledger": fast_min,
                "odds_runs": a.odds,
                "odds_seconds": round(odds_seconds, 3),
                "odds": {
                    "win_a": odds.win_a,
                    "stalemate": odds.stalemate,
                    "win_b": odds.win_b,
                    "mean_turns": odds.mean_turns,
                },
                "small_odds_seconds": round(small_seconds, 3),
                "small_odds": {
                    "win_a": small_odds.win_a,
                    "stalemate": small_odds.stalemate,
                    "win_b": small_odds.win_b,
                },
                "cpus": os.cpu_count(),
                "load_average": [round(x, 2) for x in os.getloadavg()],
                "targets": {"battle_ms": 5, "odds_seconds": 3},
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
