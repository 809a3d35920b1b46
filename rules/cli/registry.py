"""The calculator's command registry: a command is its options and the function that runs it."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rules.dice import Dice
from rules.errors import RulesError


class CalculatorError(RulesError):
    """Bad calculator input (exit status 2): a value out of range, wrong dice, a bad file."""


class UsageError(CalculatorError):
    """A command line argparse rejects (unknown value, missing option, unknown command)."""


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
