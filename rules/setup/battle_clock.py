"""R7.2 battle duration: the FW clock's turns, time spells and storms (TV-07, A-25)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rules.setup.problems import SetupError

# [SR] The FW clock has 6 day and 6 night segments: one revolution = 12 turns, the default
# battle length (Options.battle_max_turns), and TV-07 reaches a 6th night segment.
DAY_SEGMENTS = 6
NIGHT_SEGMENTS = 6
CLOCK_SEGMENTS = DAY_SEGMENTS + NIGHT_SEGMENTS


def clock_segment(period: str, n: int) -> int:
    """Clock index 0..11 of the n-th (1-based) day or night segment."""
    if period not in ("day", "night"):
        raise SetupError(f"a clock segment is 'day' or 'night', not {period!r}")
    size = DAY_SEGMENTS if period == "day" else NIGHT_SEGMENTS
    if not 1 <= n <= size:
        raise SetupError(f"there is no {period} segment {n} (1..{size})")
    return n - 1 if period == "day" else DAY_SEGMENTS + n - 1


def segment_name(index: int) -> str:
    i = index % CLOCK_SEGMENTS
    return f"day-{i + 1}" if i < DAY_SEGMENTS else f"night-{i - DAY_SEGMENTS + 1}"


@dataclass(frozen=True, slots=True)
class TimeSpell:
    """A time spell (R7.2.3) cast in turn `cast_in_turn`: that turn is played at segment
    `to`, reached moving the hand forward (speeding time) or back (slowing it)."""

    cast_in_turn: int
    to: int
    forward: bool = True


@dataclass(frozen=True, slots=True)
class BattleDuration:
    turns: int
    segments: tuple[str, ...]  # the segment each turn was played at
    full_revolution: bool  # False when max_turns stopped the battle first


def battle_turn_count(
    *, start: int, spells: Iterable[TimeSpell] = (), max_turns: int | None = None
) -> BattleDuration:
    """R7.2.1–4 (TV-07, A-25): the battle ends when the clock hand has made one full
    revolution from `start`; a spell moves the hand before its turn is played, so that
    turn is played at the new segment (day 1–3, then night 1–6 = 9 turns). A weather storm
    (R4.2) is a forward jump of two segments and can be passed as a spell."""
    if not 0 <= start < CLOCK_SEGMENTS:
        raise SetupError(f"start segment {start} is not on the clock (0..{CLOCK_SEGMENTS - 1})")
    by_turn: dict[int, TimeSpell] = {}
    for s in spells:
        if s.cast_in_turn < 1 or s.cast_in_turn in by_turn:
            raise SetupError(f"bad or repeated spell turn {s.cast_in_turn}")
        if not 0 <= s.to < CLOCK_SEGMENTS:
            raise SetupError(f"spell target {s.to} is not on the clock")
        by_turn[s.cast_in_turn] = s
    hand = start  # unwrapped position: the revolution ends at start + 12
    played: list[str] = []
    while hand < start + CLOCK_SEGMENTS:
        if max_turns is not None and len(played) >= max_turns:
            return BattleDuration(len(played), tuple(played), False)
        spell = by_turn.get(len(played) + 1)
        if spell is not None:
            ahead = (spell.to - hand) % CLOCK_SEGMENTS  # segments forward to the target
            if spell.forward:
                hand += ahead
            elif ahead:
                hand -= CLOCK_SEGMENTS - ahead
            if hand >= start + CLOCK_SEGMENTS:
                break  # the spell itself completed the revolution
        played.append(segment_name(hand))
        hand += 1
    return BattleDuration(len(played), tuple(played), True)
