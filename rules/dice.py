"""Injected dice and the roll ledger.

Every die of the campaign goes through a `Dice`; every test or roll appends one `RollRecord`
to `dice.ledger`: purpose, rule id, sides, natural value(s), modifiers with reasons, total
and outcome. With the same seed and the same inputs the ledger is identical.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from rules.errors import DiceError


class Modifier(NamedTuple):
    """A modifier: its reason code (`rules.ledger_codes.MODIFIERS`), value and, when the
    reason varies, typed params. (Named tuples: thousands are made per turn, and a frozen
    dataclass costs several times more to build.)"""

    reason: str
    value: int
    params: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        if self.params:
            return {"reason": self.reason, "value": self.value, "params": dict(self.params)}
        return {"reason": self.reason, "value": self.value}


class RollRecord(NamedTuple):
    """One ledger entry. `outcome` is a code of `rules.ledger_codes.OUTCOMES` ("" when the
    roll has none) with its typed `values`; `details` holds the per-die fates of per-figure
    checks ({"die", "fate", "total" | "natural"})."""

    seq: int
    purpose: str
    rule: str
    sides: int
    natural: tuple[int, ...]
    modifiers: tuple[Modifier, ...]
    total: int | None
    outcome: str
    values: Mapping[str, Any] | None
    details: tuple[Mapping[str, Any], ...] = ()

    @property
    def value(self) -> int:
        """The single natural value (for one-die rolls)."""
        return self.natural[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "purpose": self.purpose,
            "rule": self.rule,
            "sides": self.sides,
            "natural": list(self.natural),
            "modifiers": [m.to_dict() for m in self.modifiers],
            "total": self.total,
            "outcome": self.outcome,
            "details": [dict(d) for d in self.details],
            "values": dict(self.values) if self.values else {},
        }


# A ledger entry built from its fields in order, without the named tuple's Python `__new__`.
_new_record = tuple.__new__
# The naturals of one die of up to 20 faces, made once (thousands of rolls a turn are of one
# die; immutable, so one tuple serves every roll of that face).
_ONE_DIE = {face: (face,) for face in range(1, 21)}

# A judge's verdict: an outcome code, or (code, values), or (code, values, per-die details).
RollOutcome = tuple[str, Mapping[str, Any] | None]
Verdict = str | RollOutcome | tuple[str, Mapping[str, Any] | None, Sequence[Mapping[str, Any]]]
Judge = Callable[[int, tuple[int, ...]], Verdict]


class Outcomes(dict[int, RollOutcome]):
    """A roll's outcome (code, values) by its total, `outcome_of(total)`, each made once."""

    def __init__(self, outcome_of: Callable[[int], RollOutcome]) -> None:
        super().__init__()
        self.outcome_of = outcome_of

    def __missing__(self, total: int) -> RollOutcome:
        got = self[total] = self.outcome_of(total)
        return got


@dataclass
class Dice(ABC):
    """Base class: subclasses supply `_next(sides)`. Holds the ledger of the run."""

    ledger: list[RollRecord] = field(default_factory=list, init=False)

    @abstractmethod
    def _next(self, sides: int) -> int:
        """The next natural face of a die with `sides` faces."""

    def naturals(self, count: int, sides: int = 6) -> tuple[int, ...]:
        return tuple(self._next(sides) for _ in range(count))

    def faces(self, count: int, sides: int) -> bytes:
        """`count` natural faces as bytes (`sides` < 256), the same dice as `naturals`: the
        engines' hot path counts successes and criticals on them with bytes methods."""
        nxt = self._next
        return bytes([nxt(sides) for _ in range(count)])

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
        if count == 1:
            t = self._next(sides)
            nat: tuple[int, ...] = _ONE_DIE.get(t) or (t,)  # shared: no tuple made per roll
        else:
            nxt = self._next
            nat = tuple([nxt(sides) for _ in range(count)])
            t = sum(nat)
        mods: tuple[Modifier, ...] = ()
        if modifiers:
            mods = modifiers if isinstance(modifiers, tuple) else tuple(modifiers)
            for m in mods:
                if not m[1]:  # a modifier of 0 is not recorded
                    mods = tuple([m for m in mods if m[1]])
                    break
            for m in mods:
                t += m[1]
        outcome: str = ""
        values: Mapping[str, Any] | None = None
        details: tuple[Mapping[str, Any], ...] = ()
        if judge is not None:
            verdict = judge(t if summed else 0, nat)
            if isinstance(verdict, str):
                outcome = verdict
            elif len(verdict) == 2:
                outcome, values = verdict
            else:
                outcome, values, more = verdict
                details = tuple(more)
        ledger = self.ledger
        # The named tuple's keyword `__new__` costs several times the die: build it directly.
        rec: RollRecord = _new_record(
            RollRecord,
            (
                len(ledger) + 1,
                purpose,
                rule,
                sides,
                nat,
                mods,
                t if summed else None,
                outcome,
                values,
                details,
            ),
        )
        ledger.append(rec)
        return rec

    def roll_texts(
        self,
        purpose: str,
        rule: str,
        texts: Mapping[int, RollOutcome],
        mods: tuple[Modifier, ...] = (),
    ) -> RollRecord:
        """`roll` of one D6 whose outcome is `texts[total]` (`mods`: non-zero modifiers):
        the same entry, without a judge to call. The initiative rolls, their tie re-rolls and
        the movement rolls are most of a turn's dice (R6.1, R6.2)."""
        t = nat = self._next(6)
        for m in mods:
            t += m[1]
        ledger = self.ledger
        code, values = texts[t]
        rec: RollRecord = _new_record(
            RollRecord,
            (len(ledger) + 1, purpose, rule, 6, _ONE_DIE[nat], mods, t, code, values, ()),
        )
        ledger.append(rec)
        return rec

    def ledger_dicts(self) -> list[dict[str, Any]]:
        return [r.to_dict() for r in self.ledger]


class SeededDice(Dice):
    """Pseudo-random dice from a seed, with their own `random.Random` (never the module's).

    The faces are exactly those of `randint(1, sides)` (`1 + _randbelow(sides)`): the top
    `sides.bit_length()` bits of the generator's next 32-bit word, the word skipped when they
    are `sides` or more. The words are drawn 1,024 at a time with one `getrandbits` call (the
    same words, in the same order) and read from a buffer, so a battle's thousands of dice
    cost a few bytes operations instead of a Python call per die and per rejected word."""

    def __init__(self, seed: int) -> None:
        super().__init__()
        self.seed = seed
        self._rng = random.Random(seed)
        self._raw = b""  # unread words, 4 little-endian bytes each
        self._tops = b""  # their most significant bytes (all a die under 256 faces needs)
        self._pos = 0  # next unread word
        self._trans: dict[int, bytes] = {}  # sides → `_tops` read as faces of that die

    def __init_subclass__(cls, **kwargs: object) -> None:
        # A subclass that overrides `_next` (e.g. to record every face) must see every die:
        # it gets the base class's per-die `faces` and `naturals` back.
        super().__init_subclass__(**kwargs)
        if "_next" in cls.__dict__:
            if "faces" not in cls.__dict__:
                cls.faces = Dice.faces  # type: ignore[method-assign]
            if "naturals" not in cls.__dict__:
                cls.naturals = Dice.naturals  # type: ignore[method-assign]

    def _refill(self, need: int) -> None:
        """Keep the unread words and append at least `need` fresh ones."""
        n = max(need, _WORDS)
        fresh = self._rng.getrandbits(32 * n).to_bytes(4 * n, "little")
        self._raw = self._raw[4 * self._pos :] + fresh
        self._tops = self._raw[3::4]
        self._pos = 0
        self._trans = {}

    def _translated(self, sides: int, need: int) -> bytes:
        """The buffer as faces of a D`sides` (0 for a rejected word), with at least `need`
        unread words (refilled if not)."""
        if self._pos + need > len(self._tops):
            self._refill(need)
        trans = self._trans.get(sides)
        if trans is None:
            table = _FACE_TABLES.get(sides) or _face_table(sides)
            trans = self._trans[sides] = self._tops.translate(table)
        return trans

    def _word(self) -> int:
        pos = self._pos
        if pos >= len(self._tops):
            self._refill(1)
            pos = 0
        self._pos = pos + 1
        return int.from_bytes(self._raw[4 * pos : 4 * pos + 4], "little")

    def _bits(self, k: int) -> int:
        """`getrandbits(k)` read from the buffer: one word for k ≤ 32, else k/32 words,
        least significant first, the last one keeping its top bits."""
        if k <= 32:
            return self._word() >> (32 - k)
        r, shift = 0, 0
        while k > 0:
            w = self._word()
            if k < 32:
                w >>= 32 - k
            r |= w << shift
            shift += 32
            k -= 32
        return r

    def _next(self, sides: int) -> int:
        # The common case first: this die's faces are translated and the next word is a face.
        trans = self._trans.get(sides)
        if trans is not None:
            pos = self._pos
            try:
                face = trans[pos]
                while not face:  # a rejected word
                    pos += 1
                    face = trans[pos]
            except IndexError:  # every word read: the buffer is refilled below
                self._pos = len(trans)
            else:
                self._pos = pos + 1
                return face
        return self._next_any(sides)

    def _next_any(self, sides: int) -> int:
        if sides < 1:
            raise DiceError(f"a die needs at least one face, not {sides}")
        if sides < 256:
            # Self-contained (no `self.faces`): subclasses that override `_next` call it.
            while True:
                trans = self._trans.get(sides)
                pos = self._pos
                if trans is None or pos >= len(trans):
                    trans = self._translated(sides, 1)
                    pos = self._pos
                self._pos = pos + 1
                face = trans[pos]
                if face:
                    return face
        k = sides.bit_length()
        r = self._bits(k)
        while r >= sides:
            r = self._bits(k)
        return r + 1

    def faces(self, count: int, sides: int) -> bytes:
        if count <= 0:
            return b""
        trans = self._trans.get(sides)
        pos = self._pos
        end = pos + count
        if trans is None or end > len(trans):
            trans = self._translated(sides, count)
            pos = self._pos
            end = pos + count
        seg = trans[pos:end]
        self._pos = end
        if 0 not in seg:
            return seg
        # Rejected words (top bits ≥ sides) give no die: read on for the missing ones.
        got = seg.replace(b"\0", b"")
        need = count - len(got)
        while need:
            pos = self._pos
            end = pos + need
            if end > len(trans):
                trans = self._translated(sides, need)
                pos = self._pos
                end = pos + need
            self._pos = end
            got += trans[pos:end].replace(b"\0", b"")
            need = count - len(got)
        return got

    def naturals(self, count: int, sides: int = 6) -> tuple[int, ...]:
        if 0 < sides < 256:
            return tuple(self.faces(count, sides))
        return tuple(self._next(sides) for _ in range(count))


_WORDS = 1024  # words drawn per refill: a 20-unit battle reads about 4,700
_FACE_TABLES: dict[int, bytes] = {}


def _face_table(sides: int) -> bytes:
    """Top byte of a word → its face on a D`sides` (1 ≤ sides < 256), 0 if the word is
    rejected: the top `k` bits, k = sides.bit_length(), as `_randbelow` reads them."""
    if not 0 < sides < 256:
        raise DiceError(f"no byte faces for a D{sides}")
    shift = 8 - sides.bit_length()
    table = bytes((b >> shift) + 1 if (b >> shift) < sides else 0 for b in range(256))
    _FACE_TABLES[sides] = table
    return table


_face_table(6)  # the campaign's die: its table made with the module, not in a turn


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
