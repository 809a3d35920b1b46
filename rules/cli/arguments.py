"""Argument types and shared options of the calculator's commands (argparse)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, NoReturn

from rules import tables as T
from rules.cli.ledger_words import modifier_dict_words
from rules.cli.registry import UsageError
from rules.dice import RollRecord
from rules.types import Feature, Outcome, Status, Territory


class Parser(argparse.ArgumentParser):
    """Raises instead of printing usage, so every argparse error becomes one stderr line."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


def whole_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative; give 0 or more")
    return value


def cv_value(text: str) -> int:
    value = whole_number(text)
    if not 1 <= value <= T.CV_MAX:
        raise argparse.ArgumentTypeError(f"CV {value} is outside 1..{T.CV_MAX} (§1.1)")
    return value


def dice_list(text: str) -> list[int]:
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


def enum_choice[E: Enum](
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


def choices_metavar(values: Sequence[Enum] | Sequence[str]) -> str:
    return "{" + ",".join(v.value if isinstance(v, Enum) else v for v in values) + "}"


def terrain_list(text: str) -> frozenset[Feature]:
    parse = enum_choice(Feature, "terrain")
    return frozenset(parse(p.strip()) for p in text.split(",") if p.strip())


ORDERS = [Status.FULL_SPEED, Status.PROBE, Status.DEFEND]


def add_status(p: argparse.ArgumentParser, help: str) -> None:
    p.add_argument(
        "--status",
        required=True,
        type=enum_choice(Status, "status"),
        metavar=choices_metavar(list(Status)),
        help=help,
    )


def add_territory(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--territory",
        type=enum_choice(Territory, "territory"),
        default=Territory.NEUTRAL,
        metavar=choices_metavar(list(Territory)),
        help=f"territory of {what}, relative to its owner (default: neutral)",
    )


def add_terrain(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--terrain",
        type=terrain_list,
        default=frozenset(),
        metavar="LIST",
        help=f"comma list of the features of {what}: " + ",".join(f.value for f in Feature),
    )


def add_snow(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--snow", type=whole_number, default=0, metavar="N", help=f"snow levels ({what}; default 0)"
    )


def add_ambush(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--ambush",
        choices=["ambusher", "ambushed"],
        help="[NARAN] the side laid (+1) or fell into (-1) an ambush (§7.10.5)",
    )


def add_result(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument(
        "--result",
        required=True,
        type=enum_choice(Outcome, "result"),
        metavar=choices_metavar(list(Outcome)),
        help=f"the battle outcome for {what}",
    )


def modifier_dicts(record: RollRecord | None, skip: str = "") -> list[dict[str, Any]]:
    if record is None:
        return []
    return [modifier_dict_words(m.to_dict()) for m in record.modifiers if m.reason != skip]
