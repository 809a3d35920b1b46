"""The rules calculator: `python -m rules <command> [options]`.

Each command applies one test or table of the rulebook (rules.checks) and prints one JSON
object on stdout: the command's own keys, `dice` (the natural values used), `seed` and
`ledger`. Bad input prints one line on stderr and exits 2.

Dice: `--dice 4,6,1` scripts the natural values (all must be used, none may be missing);
`--seed N` rolls them from a seed; with neither the calculator picks a fresh seed and prints
it, so any result can be replayed. This module is the only place in `rules/` allowed to
pick a seed (`SystemRandom`); the rules themselves take an injected `Dice`.

To add a command, decorate its run function with `@command(...)` (or pass a `Command` to
`register`); its subparser, help, dice options and JSON envelope come for free. A command
kept in another module must be imported before `build_parser()` runs, e.g. at the end of
this file.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from random import SystemRandom
from typing import Any, NoReturn

from rules import checks
from rules import tables as T
from rules.battle import BattleResult
from rules.codec import from_data, to_data
from rules.dice import Dice, DiceError, RollRecord, ScriptedDice, SeededDice
from rules.errors import RulesError
from rules.orders import PlayerOrders, validate_orders
from rules.setup.italian import italian_draw_threshold
from rules.setup.references import validate_state_references
from rules.turn import resolve_after_battles, resolve_turn
from rules.types import CampaignState, Feature, Outcome, Quality, Season, Status, Territory, Weather

PROG = "python -m rules"
EXIT_BAD_INPUT = 2


class CalculatorError(RulesError):
    """Bad calculator input (exit status 2): a value out of range, wrong dice, a bad file."""


class UsageError(CalculatorError):
    """A command line argparse rejects (unknown value, missing option, unknown command)."""


# --- the command registry ------------------------------------------------------------------------

Runner = Callable[[argparse.Namespace, Dice], dict[str, Any]]


@dataclass(frozen=True, slots=True)
class Command:
    """One calculator command: its subparser options and the function that runs it."""

    name: str
    summary: str  # one line in the command list
    description: str  # what it decides, citing rule ids
    examples: tuple[str, ...]
    arguments: Callable[[argparse.ArgumentParser], None]
    run: Runner


COMMANDS: dict[str, Command] = {}


def register(command: Command) -> Command:
    if command.name in COMMANDS:
        raise ValueError(f"calculator command {command.name!r} is already registered")
    COMMANDS[command.name] = command
    return command


def command(
    name: str,
    *,
    summary: str,
    description: str,
    examples: Sequence[str],
    arguments: Callable[[argparse.ArgumentParser], None],
) -> Callable[[Runner], Runner]:
    """Decorator form of `register` for a run function."""

    def deco(run: Runner) -> Runner:
        register(Command(name, summary, description, tuple(examples), arguments, run))
        return run

    return deco


# --- argument types ------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """Raises instead of printing usage, so every argparse error becomes one stderr line."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; give 0 or more")
    return value


def _cv(text: str) -> int:
    value = _count(text)
    if not 1 <= value <= T.CV_MAX:
        raise argparse.ArgumentTypeError(f"CV {value} is outside 1..{T.CV_MAX} (§1.1)")
    return value


def _dice(text: str) -> list[int]:
    values = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            v = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part!r} is not a die value") from None
        if not 1 <= v <= 6:
            raise argparse.ArgumentTypeError(f"die {v} is outside 1..6")
        values.append(v)
    return values


def _choice[E: Enum](
    enum: type[E], label: str, allowed: Sequence[E] | None = None
) -> Callable[[str], E]:
    members: list[E] = list(allowed) if allowed is not None else list(enum)
    names = ", ".join(m.value for m in members)

    def parse(text: str) -> E:
        for m in members:
            if m.value == text:
                return m
        raise argparse.ArgumentTypeError(f"unknown {label} {text!r}; choose from {names}")

    return parse


def _metavar(values: Sequence[Enum] | Sequence[str]) -> str:
    return "{" + ",".join(v.value if isinstance(v, Enum) else v for v in values) + "}"


def _terrain(text: str) -> frozenset[Feature]:
    parse = _choice(Feature, "terrain")
    return frozenset(parse(p.strip()) for p in text.split(",") if p.strip())


ORDERS = [Status.FULL_SPEED, Status.PROBE, Status.DEFEND]


def _add_status(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument(
        "--status",
        required=True,
        type=_choice(Status, "status"),
        metavar=_metavar(list(Status)),
        help=help,
    )


def _add_territory(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--territory",
        type=_choice(Territory, "territory"),
        default=Territory.NEUTRAL,
        metavar=_metavar(list(Territory)),
        help=f"territory of {what}, relative to its owner (default: neutral)",
    )


def _add_terrain(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--terrain",
        type=_terrain,
        default=frozenset(),
        metavar="LIST",
        help=f"comma list of the features of {what}: " + ",".join(f.value for f in Feature),
    )


def _add_snow(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--snow", type=_count, default=0, metavar="N", help=f"snow levels ({what}; default 0)"
    )


def _add_ambush(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--ambush",
        choices=["ambusher", "ambushed"],
        help="[NARAN] the side laid (+1) or fell into (-1) an ambush (§7.10.5)",
    )


def _add_result(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--result",
        required=True,
        type=_choice(Outcome, "result"),
        metavar=_metavar(list(Outcome)),
        help=f"the battle outcome for {what}",
    )


def _mods(record: RollRecord | None, skip: str = "") -> list[dict[str, Any]]:
    if record is None:
        return []
    return [m.to_dict() for m in record.modifiers if m.reason != skip]


# --- single-test commands ------------------------------------------------------------------------


def _force_test_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cv", required=True, type=_cv, metavar="N", help="the leader's CV (1..6)")
    _add_status(p, "the force's current status (order or reaction)")
    p.add_argument(
        "--requested",
        type=_choice(Status, "order", ORDERS),
        metavar=_metavar(ORDERS),
        help="the order requested (default: the current order; for a force under "
        "a reaction, probe)",
    )
    _add_terrain(p, "the force's square (a mountain gives -3, even with a pass: A-53)")
    _add_territory(p, "the force's square")
    _add_snow(p, "Incursion only, -1 each: §11.5, A-13")
    p.add_argument(
        "--no-improvement",
        action="store_true",
        help="option force_test_reaction_mode = no_improvement: a reaction result "
        "never improves the current reaction (R5.2.1, A-59)",
    )


@command(
    "force-test",
    summary="Phase 1 force test to change orders or reconfigure (R5.2)",
    description=(
        "Force test (R5.2): 1D6 + leader CV + modifiers (Shattered -3, Unsteady -2, Confused "
        "-1, mountain -3, enemy territory -1, friendly +2, snow -1 per level in the "
        "Incursion). 6+ the requested order; 4-5 Defend; 3 Confused (a Confused force "
        "becomes Unsteady, A-59); 2 Unsteady; 1 Shattered; 0 or less the force is destroyed "
        "and its owner takes a Will-to-Fight test this turn (R9.1.4). The result replaces "
        "the current status (R5.2.1). `modifiers` lists everything but the CV."
    ),
    examples=(
        "force-test --cv 3 --status probe --requested full-speed --territory enemy --dice 4",
        "force-test --cv 2 --status unsteady --territory friendly --seed 7",
    ),
    arguments=_force_test_args,
)
def _force_test(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    status: Status = args.status
    # Without a request the force asks for its current order; a reacting force has none and
    # asks for Probe, the most flexible order (§1.2) and the one D-01/D-25 request.
    requested: Status = args.requested or (status if status.is_order else Status.PROBE)
    res = checks.force_test(
        dice,
        purpose="calculator:force-test",
        cv=args.cv,
        status=status,
        requested=requested,
        features=args.terrain,
        territory=args.territory,
        snow=args.snow,
        mode="no_improvement" if args.no_improvement else "absolute",
    )
    return {
        "rule": "R5.2",
        "requested": requested.value,
        "natural": res.record.value,
        "cv": args.cv,
        "modifiers": _mods(res.record, skip="leader CV"),
        "total": res.total,
        "outcome": res.outcome,
        "new_status": res.new_status.value if res.new_status else None,
        "will_to_fight_required": res.new_status is None,
    }


def _movement_args(p: argparse.ArgumentParser) -> None:
    _add_status(p, "the force's status")
    _add_terrain(p, "the starting square (bridge cancels river, pass cancels mountain)")
    _add_territory(p, "the starting square")
    p.add_argument(
        "--weather",
        type=_choice(Weather, "weather"),
        default=Weather.FINE,
        metavar=_metavar(list(Weather)),
        help="Phase 0 weather: light-rain -1, heavy-rain -2, storm no movement",
    )
    _add_snow(p, "-1 each: R4.3.1, §11.5")
    p.add_argument(
        "--heavy-ground",
        action="store_true",
        help="[NARAN] soaked ground counts as one more snow level (R4.3.3)",
    )


@command(
    "movement",
    summary="Phase 2 movement roll and allowance (R6.2, R6.4)",
    description=(
        "Movement roll (R6.2): 1D6 + modifiers of the starting square and the force. Result "
        "(allowance): 2 or less 0 squares, 3-5 one, 6-8 two, 9+ three. Full Speed must "
        "move at least one square when it can (R6.4.5); Probe and reacting forces move 0 "
        "to the allowance (R6.4.3, R6.4.6). Defend never moves and a storm holds every "
        "force still: no roll is made and `total` is null (R6.4.4, R4.2)."
    ),
    examples=(
        "movement --status full-speed --terrain river,swamp --territory enemy --dice 4",
        "movement --status unsteady --terrain forest --territory friendly "
        "--weather light-rain --snow 1 --seed 3",
    ),
    arguments=_movement_args,
)
def _movement(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    status: Status = args.status
    res = checks.movement_roll(
        dice,
        purpose="calculator:movement",
        status=status,
        features=args.terrain,
        territory=args.territory,
        weather=args.weather,
        snow=args.snow,
        heavy_ground=args.heavy_ground,
    )
    storm = args.weather is Weather.STORM
    allowed, _ = checks.countermarch(status)
    out: dict[str, Any] = {
        "rule": "R6.2",
        "natural": res.record.value if res.record else None,
        "modifiers": _mods(res.record),
        "total": res.total,
        "allowance": res.allowance,
        "must_move": res.must_move,
        "may_countermarch": allowed and not storm,
    }
    if res.record is None:
        out["note"] = (
            "a storm holds every force not in combat still (R4.2)"
            if storm
            else "a force on Defend never moves (R6.4.4)"
        )
    return out


def _weather_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--season",
        required=True,
        type=_choice(Season, "season"),
        metavar=_metavar(list(Season)),
        help="the campaign season (cold zones: winter; deserts: dry; R4.1.2-3)",
    )


@command(
    "weather",
    summary="[NARAN] Phase 0 weather test (R4.2)",
    description=(
        "Weather test (R4.2): 1D6 + season modifier (spring +1, summer 0, autumn +1 (A-14b), "
        "winter +2, great rains +2, dry 0), counted as 1..6 (R4.2.3). 1-3 fine, 4 light "
        "rain (-1 movement), 5 heavy rain / light snow / desert wind (-2), 6 storm: forces "
        "not in combat stay still."
    ),
    examples=("weather --season autumn --dice 3", "weather --season winter --seed 11"),
    arguments=_weather_args,
)
def _weather(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    res = checks.weather_test(dice, purpose="calculator:weather", season=args.season)
    return {
        "rule": "R4.2",
        "natural": res.record.value,
        "season_modifier": T.SEASON_MOD[args.season],
        "raw_total": res.record.total,
        "total": res.total,
        "weather": res.weather.value,
        "movement_modifier": T.MOVE_WEATHER[res.weather],
        "may_move": res.weather is not Weather.STORM,
        "battle_effects": T.WEATHER_BATTLE_EFFECTS[res.weather],
    }


def _wounded_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--killed",
        required=True,
        type=_count,
        metavar="N",
        help="figures killed (one die each; also each individual, general, leader)",
    )
    _add_result(p, "the checking side (a side that lost checks nothing: R8.1.1)")
    _add_territory(p, "the battle square for the checking side")
    _add_ambush(p)


@command(
    "wounded",
    summary="Phase 4 wounded check for killed figures (R8.1)",
    description=(
        "Wounded check (R8.1): only a side that won or stalemated checks; a side that lost "
        "gets none and all its killed are dead (R8.1.1, no dice). One 1D6 per killed figure: "
        "natural 1 dead, natural 6 recovered; otherwise +1 in friendly / -1 in enemy "
        "territory (ambush +1/-1), 4+ recovered, 1-3 dead."
    ),
    examples=(
        "wounded --killed 6 --result won --territory enemy --dice 6,6,5,5,4,2",
        "wounded --killed 5 --result lost",
    ),
    arguments=_wounded_args,
)
def _wounded(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    if args.result is Outcome.LOST:
        return {"rule": "R8.1.1", "checked": 0, "recovered": 0, "dead": args.killed, "details": []}
    res = checks.wounded_check(
        dice,
        purpose="calculator:wounded",
        killed=args.killed,
        territory=args.territory,
        ambush=args.ambush,
    )
    return _figure_check_output(res, rule="R8.1", kept="recovered", lost="dead")


def _figure_check_output(
    res: checks.FigureCheck, *, rule: str, kept: str, lost: str
) -> dict[str, Any]:
    """The JSON of a per-figure check (wounded, deserters), under the command's own words."""
    return {
        "rule": rule,
        "checked": res.checked,
        kept: res.kept,
        lost: res.lost,
        "modifiers": _mods(res.record),
        "details": list(res.record.details) if res.record else [],
    }


def _deserters_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--figures",
        required=True,
        type=_count,
        metavar="N",
        help="figures to check: routed ones, plus (lost battle) those that left "
        "under other orders but not General Retreat (R8.2.1-2a)",
    )
    p.add_argument(
        "--quality",
        required=True,
        type=_choice(Quality, "quality"),
        metavar=_metavar(list(Quality)),
        help="unit quality: levy +0, average +1, veteran +2, elite +3",
    )
    _add_result(p, "the unit's side")
    p.add_argument(
        "--shattered",
        action="store_true",
        help='the force is Shattered now ("in rotta"), including a Shattered '
        "reaction from this battle: -1 (R8.2.6, A-09)",
    )
    p.add_argument(
        "--mercenary",
        action="store_true",
        help="a mercenary unit: after a lost battle all its figures desert (R8.2.3)",
    )
    _add_ambush(p)


@command(
    "deserters",
    summary="Phase 4 deserter check for figures that left the table (R8.2)",
    description=(
        "Deserter check (R8.2): one 1D6 per figure: natural 1 deserts, natural 6 returns; "
        "otherwise add the quality modifier, -1 when the force is Shattered (A-09) and the "
        "ambush modifier; 4+ returns, 1-3 deserts. A mercenary unit of a side that lost "
        "deserts entirely, with no dice (R8.2.3)."
    ),
    examples=(
        "deserters --figures 9 --quality average --result lost --dice 6,4,4,3,3,1,1,1,1",
        "deserters --figures 7 --quality veteran --result lost --mercenary",
    ),
    arguments=_deserters_args,
)
def _deserters(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    if args.mercenary and args.result is Outcome.LOST:
        return {
            "rule": "R8.2.3",
            "checked": 0,
            "returned": 0,
            "deserted": args.figures,
            "details": [],
        }
    res = checks.deserter_check(
        dice,
        purpose="calculator:deserters",
        figures=args.figures,
        quality=args.quality,
        shattered=args.shattered,
        ambush=args.ambush,
    )
    return _figure_check_output(res, rule="R8.2", kept="returned", lost="deserted")


def _will_to_fight_args(p: argparse.ArgumentParser) -> None:
    counts = (
        ("--won", "battles won in the whole campaign (+1 each)"),
        ("--lost", "battles lost in the whole campaign (-1 each)"),
        (
            "--held",
            "enemy holdings you took and still hold, other than the enemy capital (+1 each)",
        ),
        (
            "--holdings-lost",
            "your holdings the enemy took and still holds, other than your capital (-1 each)",
        ),
    )
    for flag, text in counts:
        p.add_argument(flag, type=_count, default=0, metavar="N", help=text)
    p.add_argument(
        "--enemy-capital", action="store_true", help="you took and hold the enemy capital (+3)"
    )
    p.add_argument(
        "--capital-lost", action="store_true", help="the enemy took and holds your capital (-3)"
    )
    _add_snow(p, "Incursion only, -1 each: §11.5")
    p.add_argument(
        "--as-printed",
        action="store_true",
        help="use the p. 38 example's +3 per battle won instead of the table's +1 (A-03)",
    )


@command(
    "will-to-fight",
    summary="Phase 5 Will-to-Fight test (R9.1)",
    description=(
        "Will to Fight (R9.1): 1D6 + campaign-long counts: +1 per battle won, -1 per battle "
        "lost, +1 per enemy holding held, -1 per own holding lost, +3 holding the enemy "
        "capital, -3 own capital lost (a capital counts only for the 3, A-39), -1 per snow "
        "level in the Incursion. 0 or more passes; less than 0 is complete disaster (A-04)."
    ),
    examples=(
        "will-to-fight --won 3 --lost 1 --holdings-lost 1 --dice 3",
        "will-to-fight --lost 3 --holdings-lost 1 --capital-lost --seed 5",
    ),
    arguments=_will_to_fight_args,
)
def _will_to_fight(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    inputs = checks.WillToFightInputs(
        won=args.won,
        lost=args.lost,
        held=args.held,
        holdings_lost=args.holdings_lost,
        enemy_capital=args.enemy_capital,
        capital_lost=args.capital_lost,
        snow=args.snow,
    )
    rec, passed = checks.will_to_fight(
        dice, purpose="calculator:will-to-fight", inputs=inputs, as_printed=args.as_printed
    )
    return {
        "rule": "R9.1",
        "natural": rec.value,
        "modifiers": _mods(rec),
        "total": rec.total,
        "passed": passed,
    }


def _reinforcements_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--initial-points",
        required=True,
        type=_count,
        metavar="P",
        help="the army's initial points",
    )
    p.add_argument(
        "--holdings",
        required=True,
        type=_count,
        metavar="N",
        help="holdings you control other than your own capital, captured ones "
        "(even an enemy capital) included: 2%% each",
    )
    p.add_argument("--capital", action="store_true", help="you hold your own capital: 10%%")
    p.add_argument(
        "--capital-also-2pct",
        action="store_true",
        help="alternative reading: the capital yields 10%% + 2%% (A-40, D-16)",
    )


@command(
    "reinforcements",
    summary="Phase 7 reinforcement points (R9.3.10-11)",
    description=(
        "Reinforcement points (R9.3.10-11, A-40): 2% of the initial army points for each "
        "holding you control other than your own capital, and 10% for your own capital. "
        "Reinforcements are sent only from the capital: without it none arrive (R9.3.1). "
        "No dice."
    ),
    examples=(
        "reinforcements --initial-points 2000 --holdings 3 --capital",
        "reinforcements --initial-points 2000 --holdings 3 --capital --capital-also-2pct",
    ),
    arguments=_reinforcements_args,
)
def _reinforcements(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    points = checks.reinforcement_points(
        initial_points=args.initial_points,
        holdings=args.holdings,
        capital=args.capital,
        capital_also_two_percent=args.capital_also_2pct,
    )
    out: dict[str, Any] = {"rule": "R9.3.10-11", "points": points}
    if not args.capital:
        out["note"] = "without its capital a player receives no reinforcements (R9.3.1)"
    return out


@command(
    "event",
    summary="[NARAN] Phase 8 general random event, 3D6 (§9.4.1)",
    description=(
        "General random event (§9.4.1, alignment reconstructed, A-05): roll 3D6. 3-4 none; "
        "5/6/7 +50/+100/+150 reinforcement points; 8 +100 and roll again (apply both); 9 a "
        "Hero arrives; 10 a hero rouses the people (+100); 11 a leader under stress (CV "
        "min(CV, 2)); 12 scouts; 13 a leader emerges (+1 CV, max 6); 14 an individual "
        "emerges; 15 magic item; 16 200 Ars Arcana points; 17 25 magic points; 18 a Wizard "
        "joins."
    ),
    examples=("event --dice 2,3,3", "event --seed 42"),
    arguments=lambda p: None,
)
def _event(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    rec, event = checks.event_roll(dice, purpose="calculator:event")
    return {
        "rule": "§9.4.1",
        "total": rec.total,
        "event": event,
        "reinforcement_points": T.EVENT_POINTS.get(event, 0),
        "roll_again": event == "reinforcements-100-reroll",
    }


@command(
    "countermarch",
    summary="Phase 2 countermarch: allowed? and the reaction it costs (R6.5)",
    description=(
        "Countermarch (R6.5): one square in any direction ignoring terrain, after moving or "
        "not. Not allowed on Defend or Shattered (R6.5.2). Full Speed/Probe become Confused, "
        "Confused becomes Unsteady, Unsteady becomes Shattered (R6.5.4). No dice."
    ),
    examples=("countermarch --status probe",),
    arguments=lambda p: _add_status(p, "the force's status before countermarching"),
)
def _countermarch(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    allowed, new = checks.countermarch(args.status)
    return {"rule": "R6.5", "allowed": allowed, "new_status": new.value if new else None}


@command(
    "post-battle-reaction",
    summary="Phase 4 reaction of a force that lost a battle (R8.5)",
    description=(
        "Loser's reaction (R8.5): any order becomes Confused, Confused becomes Unsteady, "
        "Unsteady becomes Shattered (third row inferred, A-08). Winners and stalemated "
        "forces keep their status. No dice."
    ),
    examples=("post-battle-reaction --status defend",),
    arguments=lambda p: _add_status(p, "the force's status at the start of the battle"),
)
def _post_battle_reaction(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    return {"rule": "R8.5", "new_status": checks.post_battle_reaction(args.status).value}


@command(
    "ammo",
    summary="Phase 3 missile ammunition tokens per missile unit (R7.8.3)",
    description=(
        "Ammunition tokens per missile unit (R7.8.3): 6 under any order (no dice); Confused "
        "1D6; Unsteady half a 1D6 rounded up. Roll once per missile unit. A Shattered force "
        "never fights: engaged, it collapses (§1.3, R6.7.8)."
    ),
    examples=("ammo --status unsteady --dice 5", "ammo --status probe"),
    arguments=lambda p: _add_status(p, "the force's status at the start of the battle"),
)
def _ammo(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    if args.status is Status.SHATTERED:
        raise CalculatorError(
            "a Shattered force fights no battle: engaged, it collapses and is removed "
            "(§1.3, R6.7.8)"
        )
    tokens, _ = checks.ammo_tokens(dice, purpose="calculator:ammo", status=args.status)
    return {"rule": "R7.8.3", "tokens": tokens}


def _battle_result_args(p: argparse.ArgumentParser) -> None:
    for flag, text in (
        ("--points-a", "army points of side a, Ars Arcana excluded"),
        ("--points-b", "army points of side b, Ars Arcana excluded"),
        ("--lost-a", "points side a lost in the battle"),
        ("--lost-b", "points side b lost in the battle"),
    ):
        p.add_argument(flag, required=True, type=_count, metavar="P", help=text)
    p.add_argument(
        "--method",
        required=True,
        choices=["core", "italian"],
        help="core (R7.3.1-4) or [NARAN] italian (R7.3.6); the English method "
        "needs the FW victory score (A-27)",
    )
    p.add_argument(
        "--wiped",
        choices=["a", "b", "both"],
        help="the side(s) left with no figures on the field before the end (R7.3.1)",
    )


@command(
    "battle-result",
    summary="Phase 3 battle outcome: win or stalemate (R7.3)",
    description=(
        "Battle result (R7.3). Core: a side with no figures left on the field loses, both "
        "wiped out together is a stalemate (R7.3.4), otherwise stalemate. Italian (R7.3.6, "
        "A-26): a side wiped out still loses; otherwise a stalemate when the points lost "
        "differ by at most 20% of the smaller army, else the side that lost fewer points "
        "wins. No dice."
    ),
    examples=(
        "battle-result --points-a 2000 --points-b 2000 --lost-a 900 --lost-b 600 --method italian",
        "battle-result --points-a 1500 --points-b 1800 --lost-a 0 --lost-b 0 --method core "
        "--wiped b",
    ),
    arguments=_battle_result_args,
)
def _battle_result(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    for side in ("a", "b"):
        lost, points = getattr(args, f"lost_{side}"), getattr(args, f"points_{side}")
        if lost > points:
            raise CalculatorError(f"side {side} cannot lose {lost} points of an army of {points}")
    result = checks.battle_result(
        method=args.method,
        points_a=args.points_a,
        points_b=args.points_b,
        lost_a=args.lost_a,
        lost_b=args.lost_b,
        wiped=args.wiped,
    )
    out: dict[str, Any] = {"rule": "R7.3", "result": result}
    if args.method == "italian":
        threshold = italian_draw_threshold(args.points_a, args.points_b)
        out["threshold"] = int(threshold) if threshold.denominator == 1 else float(threshold)
        out["difference"] = abs(args.lost_a - args.lost_b)
    return out


# --- whole-turn commands -------------------------------------------------------------------------


def _read_json(path: str, what: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise CalculatorError(f"cannot read the {what} file {path}: {e.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise CalculatorError(
            f"the {what} file {path} is not JSON: {e.msg} at line {e.lineno} column {e.colno}"
        ) from None


def _load_state(path: str) -> CampaignState:
    data = _read_json(path, "state")
    if isinstance(data, dict) and "state" in data and "ledger" in data:
        data = data["state"]  # the whole output of a previous `turn` run
    state = from_data(CampaignState, data, "state")
    problems = validate_state_references(state)
    if problems:
        raise CalculatorError("state: " + " ".join(p.message for p in problems))
    return state


def _keyed(data: Any, what: str) -> dict[str, dict[str, Any]]:
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise CalculatorError(f"the {what} file must be a JSON object of objects")
    return data


def _load_orders(path: str, state: CampaignState) -> dict[str, PlayerOrders]:
    orders: dict[str, PlayerOrders] = {}
    for pid, raw in _keyed(_read_json(path, "orders"), "orders").items():
        forces = raw.get("forces", {})
        if not isinstance(forces, dict):
            raise CalculatorError(f"orders.{pid}.forces must be an object keyed by force id")
        po = {
            **raw,
            "player_id": raw.get("player_id", pid),
            "forces": {
                fid: {"force_id": fid, **fo} if isinstance(fo, dict) else fo
                for fid, fo in forces.items()
            },
        }
        orders[pid] = from_data(PlayerOrders, po, f"orders.{pid}")
        errors = validate_orders(state, pid, orders[pid])
        if errors:
            listed = "; ".join(
                f"{e.force_id + ': ' if e.force_id else ''}{e.message}" for e in errors
            )
            raise CalculatorError(f"orders of {pid}: {listed}")
    return orders


def _load_results(path: str) -> dict[str, BattleResult]:
    return {
        bid: from_data(BattleResult, {"battle_id": bid, **raw}, f"results.{bid}")
        for bid, raw in _keyed(_read_json(path, "results"), "results").items()
    }


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
        "movement (§6). Prints {state, events, ledger, pending_battles}; save `state` (or the "
        "whole output) for `after-battles`. Orders are validated first; any problem is bad "
        "input."
    ),
    examples=("turn --state state.json --orders orders.json --seed 1234",),
    arguments=_turn_args,
)
def _turn(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    state = _load_state(args.state)
    orders = _load_orders(args.orders, state)
    return resolve_turn(state, orders, dice).to_data()


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
        "pending_battles}."
    ),
    examples=("after-battles --state turn-out.json --results results.json --seed 1234",),
    arguments=_after_battles_args,
)
def _after_battles(args: argparse.Namespace, dice: Dice) -> dict[str, Any]:
    state = _load_state(args.state)
    results = _load_results(args.results)
    return resolve_after_battles(state, results, dice).to_data()


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
        type=_count,
        metavar="N",
        help="fight it N times (seeds derived from --seed) and print the odds, not a result",
    )
    p.add_argument(
        "--workers",
        type=_count,
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
    # Imported here: only this command needs the engine (and its process pool).
    from rules.tactical import battle_input_from_data, resolve, simulate

    if not isinstance(dice, SeededDice):
        raise CalculatorError("battle rolls D10s from a seed: give --seed N, not --dice")
    inp = battle_input_from_data(_read_json(args.pack, "battle"), args.battle)
    if args.simulate is not None:
        if args.simulate < 1:
            raise CalculatorError("--simulate needs at least 1 run")
        # The CLI is the I/O edge (like its fresh seed): `seconds` is the wall time the
        # output must report, read here and never seen by the odds. rules/ never imports
        # `time` (its purity test), so it is read from the datetime clock.
        started = datetime.now(UTC)
        odds = simulate(inp, args.simulate, dice.seed, workers=args.workers)
        seconds = (datetime.now(UTC) - started).total_seconds()
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
    out = resolve(inp, dice)
    return {
        "battle_id": inp.pack.battle_id,
        "result": to_data(out.result),
        "turns": out.turns,
        "played": out.played,
        "figures": {"start": dict(out.start_figures), "end": dict(out.end_figures)},
        "log": list(out.log),
    }


# --- the parser and the envelope -----------------------------------------------------------------

DESCRIPTION = """\
Fantasy Warriors Campaign rules calculator. Each command applies one test or table of the
campaign rules and prints one JSON object: the command's results, "dice" (the natural values
used), "seed" and "ledger" (every roll with its modifiers and outcome).

Dice: --dice 4,6,1 gives the natural values in the order they are rolled (every value must be
used and none may be missing); --seed N rolls them from seed N; with neither a fresh seed is
picked and printed, so the roll can be replayed. Bad input prints one line on stderr and exits
with status 2."""

EPILOG = """\
examples:
  python -m rules force-test --cv 3 --status probe --requested full-speed --territory enemy \\
      --dice 4
  python -m rules movement --status full-speed --terrain river,swamp --territory enemy --dice 4
  python -m rules wounded --killed 6 --result won --territory enemy --dice 6,6,5,5,4,2
  python -m rules will-to-fight --won 3 --lost 1 --holdings-lost 1 --seed 99
  python -m rules <command> --help     (options and rule ids of one command)"""


def _common_options() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    group = common.add_mutually_exclusive_group()
    group.add_argument(
        "--dice",
        type=_dice,
        metavar="LIST",
        help="the natural dice, in order, e.g. 4,6,1 (each 1..6; all must be used)",
    )
    group.add_argument(
        "--seed", type=_count, metavar="N", help="roll the dice from this seed (replayable)"
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subs = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    common = _common_options()
    for cmd in COMMANDS.values():
        sub = subs.add_parser(
            cmd.name,
            help=cmd.summary,
            description=textwrap.fill(cmd.description, 92),
            epilog="examples:\n" + "\n".join(f"  {PROG} {e}" for e in cmd.examples),
            formatter_class=argparse.RawDescriptionHelpFormatter,
            parents=[common],
        )
        cmd.arguments(sub)
    return parser


class _RecordingDice(SeededDice):
    """Seeded dice that remember every natural value, for the `dice` key."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.used: list[int] = []

    def _next(self, sides: int) -> int:
        value = super()._next(sides)
        self.used.append(value)
        return value


def calculate(argv: Sequence[str]) -> dict[str, Any]:
    """Run one command line and return its JSON object; raises `CalculatorError` (or another
    `RulesError`) for bad input. `--help` raises SystemExit(0) after printing."""
    args = build_parser().parse_args(list(argv))
    cmd = COMMANDS[args.command]
    dice: ScriptedDice | _RecordingDice
    if args.dice is not None:
        dice, seed = ScriptedDice(args.dice), None
    else:
        seed = args.seed if args.seed is not None else SystemRandom().randrange(2**32)
        dice = _RecordingDice(seed)
    try:
        result = cmd.run(args, dice)
    except DiceError as e:
        if isinstance(dice, ScriptedDice) and not dice.remaining:
            raise CalculatorError(
                f"too few dice: {len(dice.used)} given, and {cmd.name} needs more"
            ) from e
        raise
    if isinstance(dice, ScriptedDice) and dice.remaining:
        unused = ",".join(map(str, dice.remaining))
        raise CalculatorError(
            f"dice left unused: {cmd.name} used {len(dice.used)} of {len(args.dice)} "
            f"(unused: {unused})"
        )
    out: dict[str, Any] = {"command": cmd.name, **result}
    out.setdefault("ledger", dice.ledger_dicts())
    out["dice"] = list(dice.used)
    out["seed"] = seed
    return out


def one_line(message: str) -> str:
    return " ".join(message.split())


def main(argv: Sequence[str] | None = None) -> int:
    """The CLI: JSON on stdout and 0, or one line on stderr and 2."""
    try:
        out = calculate(sys.argv[1:] if argv is None else argv)
    except SystemExit as e:  # --help
        return e.code if isinstance(e.code, int) else 0
    except KeyError as e:  # an id the state does not define
        print(f"error: unknown id {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as e:  # RulesError, codec FormatError, DiceError, ...
        print(f"error: {one_line(str(e))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(json.dumps(out))
    return 0
