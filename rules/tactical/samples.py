"""Sample forces for what-if battles, the calibration tests and the benchmark.

`sample_force` builds a force of the usual shape (infantry in front, missiles, horse) with
every unit of one quality; `large_force` a 20-unit army of mixed specialities and qualities.
"""

from __future__ import annotations

from rules.types import (
    Command,
    Force,
    General,
    Individual,
    IndividualKind,
    Quality,
    Speciality,
    Status,
    Unit,
)

POINTS = {Quality.LEVY: 4, Quality.AVERAGE: 6, Quality.VETERAN: 8, Quality.ELITE: 11}
BALANCED = ((Speciality.INFANTRY, 4), (Speciality.MISSILE, 1), (Speciality.CAVALRY, 1))


def sample_force(
    owner: str,
    *,
    figures: int = 12,
    quality: Quality = Quality.AVERAGE,
    status: Status = Status.PROBE,
    mix: tuple[tuple[Speciality, int], ...] = BALANCED,
    commands: int = 2,
    cv: int = 3,
    prefix: str | None = None,
) -> Force:
    """A force of `owner`: per speciality row of `mix`, that many units of `figures` figures
    (cavalry two thirds of that), split over `commands` commands with CV `cv` generals, and
    one Wizard."""
    prefix = prefix or owner
    units: list[Unit] = []
    for spec, count in mix:
        for _ in range(count):
            n = max(1, figures * 2 // 3) if spec is Speciality.CAVALRY else figures
            uid = f"{prefix}u{len(units) + 1}"
            units.append(Unit(uid, spec.value, spec, quality, n, POINTS[quality]))
    per = -(-len(units) // commands)
    groups = [tuple(units[c * per : (c + 1) * per]) for c in range(commands)]
    cmds = tuple(
        Command(f"{prefix}c{c + 1}", General(f"{prefix}g{c + 1}", cv), group)
        for c, group in enumerate(groups)
        if group
    )
    wizard = Individual(f"{prefix}w", IndividualKind.WIZARD, points=50)
    return Force(f"{prefix}f", owner, (0, 0), status, cmds, individuals=(wizard,))


LARGE_MIX: tuple[tuple[Speciality, int, int], ...] = (
    # speciality, units, figures per unit
    (Speciality.INFANTRY, 10, 20),
    (Speciality.MISSILE, 4, 12),
    (Speciality.CAVALRY, 4, 10),
    (Speciality.ARTILLERY, 1, 3),
    (Speciality.TERRIBLE_CREATURE, 1, 1),
)
LARGE_QUALITIES = (Quality.AVERAGE, Quality.VETERAN, Quality.LEVY, Quality.AVERAGE, Quality.ELITE)


def large_force(owner: str, *, status: Status = Status.PROBE, cv: int = 3) -> Force:
    """A 20-unit army (10 infantry, 4 missile, 4 cavalry, 1 artillery, 1 creature; 292
    figures) of mixed qualities, in 4 commands."""
    units: list[Unit] = []
    for spec, count, figures in LARGE_MIX:
        for _ in range(count):
            q = LARGE_QUALITIES[len(units) % len(LARGE_QUALITIES)]
            uid = f"{owner}u{len(units) + 1}"
            units.append(Unit(uid, spec.value, spec, q, figures, POINTS[q]))
    cmds = tuple(
        Command(f"{owner}c{c + 1}", General(f"{owner}g{c + 1}", cv), tuple(units[c::4]))
        for c in range(4)
    )
    return Force(f"{owner}f", owner, (0, 0), status, cmds)
