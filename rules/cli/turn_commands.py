"""The whole-turn commands: `turn` (Phases 0–2), `after-battles` (Phases 4–8) and `battle`
(Phase 3, the tactical engine and its odds)."""

from __future__ import annotations

import argparse
from timeit import default_timer
from typing import Any

from rules.cli.arguments import whole_number
from rules.cli.event_words import event_lines
from rules.cli.files import load_orders, load_results, load_state, read_json
from rules.cli.pool import odds_pool
from rules.cli.registry import CalculatorError, command
from rules.codec import to_data
from rules.dice import Dice, SeededDice
from rules.tactical import BattleInput, battle_input_from_data, resolve, simulate
from rules.turn import resolve_after_battles, resolve_turn


def _turn_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--state",
        required=True,
        metavar="S.json",
        help="the campaign state (codec JSON), or - for stdin",
    )
    p.add_argument(
        "--orders",
        required=True,
        metavar="O.json",
        help="object player id -> PlayerOrders; player_id and force_id may be left "
        "out (taken from the keys)",
    )


@command(
    "turn",
    summary="Phases 0-2 of a campaign turn: weather, force tests, movement (§3)",
    description=(
        "Resolves Phases 0-2 of the current turn (§3): weather, change of orders (§5) and "
        "movement (§6). Prints {state, events, ledger, pending_battles, report}; save "
        "`state` (or the whole output) for `after-battles`. Orders are validated first; any "
        "problem is bad input."
    ),
    examples=("turn --state state.json --orders orders.json --seed 1234",),
    arguments=_turn_args,
)
def _turn(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    state = load_state(args.state)
    orders = load_orders(args.orders, state)
    return _with_report(resolve_turn(state, orders, dice).to_data())


def _after_battles_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--state",
        required=True,
        metavar="S.json",
        help="the state printed by `turn` (its `state`, or the whole output)",
    )
    p.add_argument(
        "--results",
        required=True,
        metavar="R.json",
        help="object battle id -> BattleResult; battle_id may be left out",
    )


@command(
    "after-battles",
    summary="Phases 4-8 of a campaign turn, once every battle has a result (§3)",
    description=(
        "Resolves Phases 4-8 (§3): after the battle (§8), Will to Fight (§9.1), time (§9.2), "
        "reinforcements (§9.3) and random events (§9.4), then opens the next turn. Every "
        "pending battle needs exactly one result. Prints {state, events, ledger, "
        "pending_battles, report} (report: the events in English)."
    ),
    examples=("after-battles --state turn-out.json --results results.json --seed 1234",),
    arguments=_after_battles_args,
)
def _after_battles(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    state = load_state(args.state)
    results = load_results(args.results)
    return _with_report(resolve_after_battles(state, results, dice).to_data())


def _with_report(out: dict[str, Any]) -> dict[str, Any]:
    """The output with `report`: each event in a line of English (rules.cli.event_words)."""
    return {**out, "report": event_lines(out["events"])}


def _battle_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--pack",
        required=True,
        metavar="P.json",
        help='{"pack", "forces", "options"}, or a state with pending battles (or the whole '
        "output of `turn`); - for stdin",
    )
    p.add_argument(
        "--battle",
        metavar="ID",
        help="the pending battle to fight, when the state has several",
    )
    p.add_argument(
        "--simulate",
        type=whole_number,
        metavar="N",
        help="fight it N times (seeds derived from --seed) and print the odds, not a result",
    )
    p.add_argument(
        "--workers",
        type=whole_number,
        metavar="W",
        help="processes sharing a simulation (default: one per CPU from 400 runs; the odds "
        "do not depend on it)",
    )


@command(
    "battle",
    summary="Phase 3 tactical engine: fight a battle pack, or give its odds (§7, §10.4)",
    description=(
        "Fights the battle with the tactical engine (docs/tactical-engine.md): Drakerys "
        "resolution (§10.4) of abstract engagements over the clock's turns (R7.2), with the "
        "pack's start states, ammunition and field works (R7.8), weather (R4.2), scenario "
        "(§7.10) and a commander AI that may order a General Retreat (§7.9). Prints the "
        "result in the shape of a tabletop entry (R7.1, R7.3), the engine's log and the "
        "ledger. With --simulate N prints the odds instead: win_a, stalemate, win_b, runs, "
        "seconds and each side's expected losses. Takes --seed (its dice are D10s), not "
        "--dice."
    ),
    examples=(
        "battle --pack battle.json --seed 7",
        "battle --pack turn-out.json --battle t1-b1 --simulate 1000 --seed 1",
    ),
    arguments=_battle_args,
)
def _battle(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    if not isinstance(dice, SeededDice):
        raise CalculatorError("battle rolls D10s from a seed: give --seed N, not --dice")
    inp = battle_input_from_data(read_json(args.pack, "battle"), args.battle)
    if args.simulate is not None:
        return _odds(inp, args.simulate, dice.seed, args.workers)
    out = resolve(inp, dice)
    return {
        "battle_id": inp.pack.battle_id,
        "result": to_data(out.result),
        "turns": out.turns,
        "played": out.played,
        "figures": {"start": dict(out.start_figures), "end": dict(out.end_figures)},
        "log": list(out.log),
    }


def _odds(inp: BattleInput, runs: int, seed: int, workers: int | None) -> dict[str, Any]:
    """`battle --simulate`: the odds, and the seconds they took (pool start-up included)."""
    if runs < 1:
        raise CalculatorError("--simulate needs at least 1 run")
    # `seconds` is read here, at the I/O edge, from a monotonic clock; the odds never see it.
    started = default_timer()
    with odds_pool(runs, workers) as pool:
        odds = simulate(inp, runs, seed, pool=pool)
    seconds = default_timer() - started
    return {
        "battle_id": inp.pack.battle_id,
        "win_a": odds.win_a,
        "stalemate": odds.stalemate,
        "win_b": odds.win_b,
        "runs": odds.runs,
        "seconds": round(seconds, 3),
        "mean_turns": odds.mean_turns,
        "ended_by_storm": odds.ended_by_storm,
        "sides": odds.to_dict()["sides"],
    }
