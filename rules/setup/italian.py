"""R7.3.6 Italian method: the stalemate threshold of the points lost (TV-08, A-26)."""

from __future__ import annotations

from fractions import Fraction

from rules.setup.problems import non_negative


def italian_draw_threshold(
    points_a: int, points_b: int | None = None, *, ars_arcana_a: int = 0, ars_arcana_b: int = 0
) -> Fraction:
    """R7.3.6 (TV-08, A-26): a stalemate when the points lost differ by at most 20 % of the
    smaller army, Ars Arcana points excluded."""
    b = points_a if points_b is None else points_b
    armies = (points_a - ars_arcana_a, b - ars_arcana_b)
    for name, v in zip(("army a", "army b"), armies, strict=True):
        non_negative(f"{name} points without Ars Arcana", v)
    return Fraction(min(armies) * 20, 100)
