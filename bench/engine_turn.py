"""Benchmark: Phases 0–2 of one turn on a generated campaign (pure rules engine).

    python bench/engine_turn.py --width 64 --height 64 --players 12 --forces 240 \
        --units-per-force 10 --seed 1

Prints JSON: forces, units, resolve_turn_ms (wall, median over --runs, at least 5), the
turn's CPU time (`time.process_time`) as min/median/max, the events and pending battles of
the run (identical for the same seed), and a digest of the ledger.

    python bench/engine_turn.py --instructions --sizes 60,240,960,3840

counts instructions instead (valgrind's callgrind, which the shared machine's load does not
disturb): for each size, this script runs twice under callgrind, once generating the
campaign and its orders only and once generating them and resolving the turn once; the
difference is the turn's. Prints the instructions of the turn and per force.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
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
    p.add_argument("--instructions", action="store_true", help="count them with callgrind")
    p.add_argument("--sizes", default="", help="with --instructions: forces, comma-separated")
    p.add_argument("--mode", choices=("generate", "resolve"), help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.instructions:
        return instructions(a, argv if argv is not None else sys.argv[1:])
    state = generate_campaign(
        width=a.width,
        height=a.height,
        players=a.players,
        forces=a.forces,
        units_per_force=a.units_per_force,
        seed=a.seed,
    )
    orders = generate_orders(state, seed=a.seed)
    # the generator's garbage collected before the turn, not by a collection inside it (in
    # both modes: the instructions' difference keeps the turn's own collections only)
    gc.collect()
    if a.mode == "generate":
        return 0
    if a.mode == "resolve":
        resolve_turn(state, orders, SeededDice(a.seed))
        return 0
    runs = max(5, a.runs)
    times, cpu, digests = [], [], set()
    out = None
    for _ in range(runs):
        dice = SeededDice(a.seed)
        t0, c0 = time.perf_counter(), time.process_time()
        out = resolve_turn(state, orders, dice)
        times.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
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
                "cpu_ms": {
                    "min": round(min(cpu), 3),
                    "median": round(statistics.median(cpu), 3),
                    "max": round(max(cpu), 3),
                },
                "rolls": len(out.ledger),
                "events": len(out.events),
                "pending_battles": len(out.pending_battles),
                "ledger_sha256": digests.pop() if len(digests) == 1 else "NONDETERMINISTIC",
            },
            indent=2,
        )
    )
    return 0


def _callgrind(args: list[str]) -> int:
    """Instructions (Ir) of this script run with `args` under callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                *args,
            ],
            check=True,
            capture_output=True,
        )
        text = Path(out).read_text()
    found = re.search(r"^(?:summary|totals): (\d+)", text, re.MULTILINE)
    if found is None:
        raise SystemExit("callgrind wrote no instruction count")
    return int(found.group(1))


def instructions(a: argparse.Namespace, argv: list[str]) -> int:
    """Each size: instructions of generating + resolving minus those of generating alone."""
    keep: list[str] = []
    skip = False
    for arg in argv:  # the same campaign options, without the instructions ones
        if skip:
            skip = False
            continue
        if arg in ("--instructions",):
            continue
        if arg in ("--sizes", "--forces", "--runs"):
            skip = True
            continue
        if arg.startswith(("--sizes=", "--forces=", "--runs=")):
            continue
        keep.append(arg)
    sizes = [int(x) for x in a.sizes.split(",") if x] or [a.forces]
    rows = []
    for n in sizes:
        base = [*keep, "--forces", str(n)]
        generate = _callgrind([*base, "--mode", "generate"])
        total = _callgrind([*base, "--mode", "resolve"])
        turn = total - generate
        rows.append({"forces": n, "turn_instructions": turn, "per_force": round(turn / n)})
    print(json.dumps({"seed": a.seed, "map": f"{a.width}x{a.height}", "sizes": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
