"""The rules calculator: `python -m rules <command> [options]`.

Each command applies one test or table of the rulebook (rules.checks) and prints one JSON
object on stdout: the command's own keys, `dice` (the natural values used), `seed` and
`ledger`. Bad input prints one line on stderr and exits 2.

Dice: `--dice 4,6,1` scripts the natural values (all must be used, none may be missing);
`--seed N` rolls them from a seed; with neither the calculator picks a fresh seed and prints
it, so any result can be replayed. This module is the only place in `rules/` allowed to
pick a seed (`SystemRandom`); the rules themselves take an injected `Dice`.

To add a command, decorate its run function with `@command(...)` (rules.cli.registry, or
pass a `Command` to `register`); its subparser, help, dice options and JSON envelope come for
free. Its module must be imported here, before `build_parser()` runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Sequence
from random import SystemRandom
from typing import Any

# Importing a command module registers its commands; `--help` lists them in import order.
from rules.cli import check_commands, turn_commands  # noqa: F401
from rules.cli.arguments import Parser, dice_list, whole_number
from rules.cli.ledger_words import entry_words
from rules.cli.registry import COMMANDS, CalculatorError
from rules.dice import ScriptedDice, SeededDice
from rules.errors import DiceError

PROG = "python -m rules"
EXIT_BAD_INPUT = 2

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


def _common_options() -> Parser:
    common = Parser(add_help=False)
    group = common.add_mutually_exclusive_group()
    group.add_argument(
        "--dice",
        type=dice_list,
        metavar="LIST",
        help="the natural dice, in order, e.g. 4,6,1 (each 1..6; all must be used)",
    )
    group.add_argument(
        "--seed", type=whole_number, metavar="N", help="roll the dice from this seed (replayable)"
    )
    return common


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
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
    if isinstance(out["ledger"], list):  # the command line prints the ledger in words
        out["ledger"] = [entry_words(e) if isinstance(e, dict) else e for e in out["ledger"]]
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
