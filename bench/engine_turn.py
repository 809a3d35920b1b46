"""Benchmark: Phases 0–2 of one turn on a generated campaign (pure rules engine).

    python bench/engine_turn.py --width 64 --height 64 --players 12 --forces 240 \
        --units-per-force 10 --seed 1

Prints JSON: forces, units, resolve_turn_ms (median over --runs, at least 5), the events and
pending battles of the run (identical for the same seed), and a digest of the ledger.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.dice import SeededDice  # noqa: E402
from rules.generate import generate_campaign, generate_orders  # noqa: E402
from rules.turn import resolve_turn  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--height", type=int, default=64)
    p.add_argument("--players", type=int, default=12)
    p.add_argument("--forces", type=int, default=240)
    p.add_argument("--units-per-force", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--runs", type=int, default=9)
    a = p.parse_args(argv)
    runs = max(5, a.runs)
    state = generate_campaign(
        width=a.width,
        height=a.height,
        players=a.players,
        forces=a.forces,
        units_per_force=a.units_per_force,
        seed=a.seed,
    )
    orders = generate_orders(state, seed=a.seed)
    times, digests = [], set()
    out = None
    for _ in range(runs):
        dice = SeededDice(a.seed)
        t0 = time.perf_counter()
        out = resolve_turn(state, orders, dice)
        times.append((time.perf_counter() - t0) * 1000)
        digests.add(
            hashlib.sha256(json.dumps([r.to_dict() for r in out.ledger]).encode()).hexdigest()
        )
    assert out is not None
    print(
        json.dumps(
            {
                "forces": len(state.forces),
                "units": sum(len(f.units) for f in state.forces),
                "players": a.players,
                "map": f"{a.width}x{a.height}",
                "seed": a.seed,
                "runs": runs,
                "resolve_turn_ms": round(statistics.median(times), 3),
                "min_ms": round(min(times), 3),
                "rolls": len(out.ledger),
                "events": len(out.events),
                "pending_battles": len(out.pending_battles),
                "ledger_sha256": digests.pop() if len(digests) == 1 else "NONDETERMINISTIC",
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
