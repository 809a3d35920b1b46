"""§11.2 Incursion set-up: the Raiders' points (R11.2.3) and both sides' holdings (R11.2.2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules.setup.problems import Problems, SetupError, SetupProblem, non_negative
from rules.types import Holding

INCURSION_RATIO = 2  # R11.2.3: the Raiders have 100 % more points
INCURSION_DEFENDER_MIN_HOLDINGS = 4  # R11.2.2: 4 or more, one of them the capital


@dataclass(frozen=True, slots=True)
class IncursionPoints:
    raider_points: int
    defender_points: int
    ratio: float


def incursion_points(
    *, raider_points: int | None = None, defender_points: int | None = None
) -> IncursionPoints:
    """R11.2.3 (TV-13): raider points = 2 × defender points; give either side."""
    if (raider_points is None) == (defender_points is None):
        raise SetupError("give exactly one of raider_points and defender_points")
    if raider_points is not None:
        non_negative("raider points", raider_points)
        if raider_points % INCURSION_RATIO:
            raise SetupError(
                f"raider points {raider_points} are not twice a whole number of "
                "defender points (R11.2.3)"
            )
        defender_points = raider_points // INCURSION_RATIO
    else:
        assert defender_points is not None
        non_negative("defender points", defender_points)
        raider_points = defender_points * INCURSION_RATIO
    return IncursionPoints(raider_points, defender_points, float(INCURSION_RATIO))


@dataclass(frozen=True, slots=True)
class IncursionHoldings:
    defender_holdings: int
    defender_capitals: int
    raider_holdings: int
    defender_min_holdings: int = INCURSION_DEFENDER_MIN_HOLDINGS
    problems: tuple[SetupProblem, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.problems


def validate_incursion_holdings(
    *, defender_holdings: Sequence[Holding], raider_holdings: Sequence[Holding]
) -> IncursionHoldings:
    """R11.2.2 (TV-14): the Raiders hold one holding, their capital; the Defender places 4
    or more holdings, exactly one of which is his capital."""
    out = Problems()
    n_def, n_raid = len(defender_holdings), len(raider_holdings)
    d_caps = sum(h.capital for h in defender_holdings)
    if n_def < INCURSION_DEFENDER_MIN_HOLDINGS:
        msg = f"The Defender has {n_def} holding(s); he needs 4 or more."
        out.add("defender-holdings", "R11.2.2", msg)
    if d_caps != 1:
        msg = f"The Defender has {d_caps} capitals; exactly one of his holdings is his capital."
        out.add("defender-capital", "R11.2.2", msg)
    if n_raid != 1 or not raider_holdings[0].capital:
        msg = f"The Raiders have exactly one holding, their capital (got {n_raid})."
        out.add("raider-holdings", "R11.2.2", msg)
    return IncursionHoldings(
        defender_holdings=n_def,
        defender_capitals=d_caps,
        raider_holdings=n_raid,
        problems=out(),
    )
