"""Injected dice and the roll ledger.

Every die of the campaign goes through a `Dice`; every test or roll appends one `RollRecord`
to `dice.ledger`: purpose, rule id, sides, natural value(s), modifiers with reasons, total
and outcome. With the same seed and the same inputs the ledger is identical.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from rules.errors import DiceError


class Modifier(NamedTuple):
    """A modifier with its reason. (Named tuples: thousands are made per turn, and a frozen
    dataclass costs several times more to build.)"""

    reason: str
    value: int

    def to_dict(self) -> dict:
        return {"reason": self.reason, "value": self.value}


class RollRecord(NamedTuple):
    """One ledger entry. `details` holds per-die outcomes for per-figure checks."""

    seq: int
    purpose: str
    rule: str
    sides: int
    natural: tuple[int, ...]
    modifiers: tuple[Modifier, ...]
    total: int | None
    outcome: str
    details: tuple[str, ...] = ()

    @property
    def value(self) -> int:
        """The single natural value (for one-die rolls)."""
        return self.natural[0]

    def to_dict(self) -> dict:
        return {
            "seq": self.seq,
            "purpose": self.purpose,
            "rule": self.rule,
            "sides": self.sides,
            "natural": list(self.natural),
            "modifiers": [m.to_dict() for m in self.modifiers],
            "total": self.total,
            "outcome": self.outcome,
            "details": list(self.details),
        }


Judge = Callable[[int, tuple[int, ...]], str | tuple[str, Sequence[str]]]


@dataclass
class Dice(ABC):
    """Base class: subclasses supply `_next(sides)`. Holds the ledger of the run."""

    ledger: list[RollRecord] = field(default_factory=list, init=False)

    @abstractmethod
    def _next(self, sides: int) -> int:
        """The next natural face of a die with `sides` faces."""

    def naturals(self, count: int, sides: int = 6) -> tuple[int, ...]:
        return tuple(self._next(sides) for _ in range(count))

    def roll(
        self,
        *,
        purpose: str,
        rule: str,
        sides: int = 6,
        count: int = 1,
        modifiers: Iterable[Modifier] = (),
        judge: Judge | None = None,
        summed: bool = True,
    ) -> RollRecord:
        """Roll `count` dice, add the modifiers, ask `judge(total, naturals)` for the outcome
        and record the entry. With `summed=False` (per-figure checks) the total is None."""
        nxt = self._next
        nat = (nxt(sides),) if count == 1 else tuple(nxt(sides) for _ in range(count))
        mods = tuple(m for m in modifiers if m.value) if modifiers else ()
        total = sum(nat) + sum(m.value for m in mods) if summed else None
        outcome: str = ""
        details: tuple[str, ...] = ()
        if judge is not None:
            verdict = judge(total if total is not None else 0, nat)
            if isinstance(verdict, tuple):
                outcome, details = verdict[0], tuple(verdict[1])
            else:
                outcome = verdict
        rec = RollRecord(
            seq=len(self.ledger) + 1,
            purpose=purpose,
            rule=rule,
            sides=sides,
            natural=nat,
            modifiers=mods,
            total=total,
            outcome=outcome,
            details=details,
        )
        self.ledger.append(rec)
        return rec

    def ledger_dicts(self) -> list[dict]:
        return [r.to_dict() for r in self.ledger]


class SeededDice(Dice):
    """Pseudo-random dice from a seed, with their own `random.Random` (never the module's)."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.seed = seed
        self._rng = random.Random(seed)
        # randint(1, n) is 1 + _randbelow(n); calling it directly gives the same faces faster
        self._below = self._rng._randbelow

    def _next(self, sides: int) -> int:
        return self._below(sides) + 1


class ScriptedDice(Dice):
    """Dice that return the given values in order. Fails loudly when they run out, when a
    value does not fit the die, and (via `assert_exhausted`) when one is left over."""

    def __init__(self, values: Iterable[int]) -> None:
        super().__init__()
        self._values = list(values)
        self._pos = 0

    def _next(self, sides: int) -> int:
        if self._pos >= len(self._values):
            raise DiceError(
                f"scripted dice exhausted after {len(self._values)} value(s); "
                f"a D{sides} was still needed"
            )
        v = self._values[self._pos]
        if not 1 <= v <= sides:
            raise DiceError(f"scripted value {v} (position {self._pos + 1}) is not a D{sides} face")
        self._pos += 1
        return v

    @property
    def used(self) -> list[int]:
        return self._values[: self._pos]

    @property
    def remaining(self) -> list[int]:
        return self._values[self._pos :]

    def assert_exhausted(self) -> None:
        if self.remaining:
            raise DiceError(
                f"{len(self.remaining)} scripted value(s) left unused: {self.remaining}"
            )


def derive_seed(seed: int, *parts: object) -> int:
    """A stable sub-seed (for simulations and per-battle streams), independent of hash salt.
    63 bits, so that it fits a signed 64-bit database column."""
    text = ":".join([str(seed), *map(str, parts)])
    h = 1469598103934665603
    for ch in text.encode():
        h = ((h ^ ch) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h & 0x7FFFFFFFFFFFFFFF
