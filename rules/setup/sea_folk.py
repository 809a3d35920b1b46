"""R6.11.6 [NARAN]: a pirate force wholly of sea-folk mercenaries (TV-15)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from rules.setup.problems import Problems, SetupProblem
from rules.types import Force, Speciality, Unit


@dataclass(frozen=True, slots=True)
class SeaFolkForce:
    force_points: int
    limited_points: int  # cavalry, artillery and other non-foot troops
    limit: Fraction  # ⅓ of the force's points
    problems: tuple[SetupProblem, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.problems


# Foot troops a pirate force may field freely; everything else shares the ⅓ allowance.
SEA_FOLK_FOOT = frozenset({Speciality.INFANTRY, Speciality.MISSILE})


def validate_sea_folk_force(force: Force) -> SeaFolkForce:
    """R6.11.6 [NARAN]: a force wholly of sea-folk mercenaries may exist alone; it is foot
    only, or its cavalry and artillery together cost at most ⅓ of the force's points (TV-15).
    [SR] Mounted units, air cavalry and Terrible Creatures count with the cavalry."""
    fid = force.id
    out = Problems()
    total = force.points
    limited = sum(u.points for u in force.units if _limited_in_pirate_force(u))
    limit = Fraction(total, 3)
    if limited > limit:
        msg = (
            f"Force {fid}: cavalry and artillery cost {limited} points, more than a third of "
            f"the force's {total} points."
        )
        out.add("sea-folk-limit", "R6.11.6", msg, fid)
    not_sea_folk = [u.id for u in force.units if not u.mercenary]
    if not_sea_folk:
        msg = f"Force {fid}: unit(s) {', '.join(not_sea_folk)} are not sea-folk mercenaries."
        out.add("not-sea-folk", "R6.11.6", msg, fid)
    return SeaFolkForce(total, limited, limit, out())


def _limited_in_pirate_force(u: Unit) -> bool:
    return u.mounted or u.speciality not in SEA_FOLK_FOOT
